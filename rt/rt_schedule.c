/* rt_schedule.c -- the values of the run-time schedule (diderot_world.h
 * "the run-time schedule"): their text (the environment's DIDEROT_SCHED_*
 * and the executable's -sched-* options), and the hand-over from the
 * command line to the world.
 *
 * Why the environment: the generated main() creates its world before it
 * parses the command line and hands the world none of the parsed values
 * but -v (emit_c_program.c), and the snapshot writer is started with no
 * world at all (drt_writer_new()). Giving -sched-* to the world directly
 * would need new generated code in every program; the environment carries
 * them with none, and is also how a tuner or a library's host sets them
 * without recompiling anything.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diderot_world.h"
#include "rt_internal.h"

static const char *const env_names[DRT_SCHED_NKEYS] = {
    "DIDEROT_SCHED_CHUNK", "DIDEROT_SCHED_STEPS", "DIDEROT_SCHED_WRITER"};
static const char *const key_names[DRT_SCHED_NKEYS] = {"chunk", "steps", "writer"};

const char *drt_sched_env_name(int key) {
  return key >= 0 && key < DRT_SCHED_NKEYS ? env_names[key] : "?";
}

int drt_sched_key(const char *name) {
  for (int k = 0; k < DRT_SCHED_NKEYS; k++)
    if (!strcmp(name, key_names[k])) return k;
  return -1;
}

/* Digits only (no sign, no spaces), at most max. */
static bool whole(const char *t, unsigned long long max, uint32_t *out) {
  if (!*t) return false;
  unsigned long long v = 0;
  for (const char *p = t; *p; p++) {
    if (*p < '0' || *p > '9') return false;
    v = v * 10 + (unsigned)(*p - '0');
    if (v > max) return false;
  }
  *out = (uint32_t)v;
  return true;
}

bool drt_sched_value(int key, const char *text, DrtSchedule *s, char *why, size_t n) {
  uint32_t v;
  switch (key) {
  case DRT_SCHED_CHUNK:
    if (!whole(text, DRT_SCHED_MAX_CHUNK, &v)) {
      snprintf(why, n, "bad value '%s' (expected a number of strands from 1 to %u, or 0 for the "
               "program's default)", text, (unsigned)DRT_SCHED_MAX_CHUNK);
      return true;
    }
    s->chunk = v;
    return false;
  case DRT_SCHED_STEPS:
    if (!strcmp(text, "all")) {
      s->steps = UINT32_MAX;
      return false;
    }
    if (!whole(text, UINT32_MAX, &v)) {
      snprintf(why, n, "bad value '%s' (expected a number of updates, all, or 0 for the "
               "program's default)", text);
      return true;
    }
    s->steps = v;
    return false;
  case DRT_SCHED_WRITER:
    if (!strcmp(text, "auto")) s->writer = DRT_WRITER_AUTO;
    else if (!strcmp(text, "on")) s->writer = DRT_WRITER_ON;
    else if (!strcmp(text, "off")) s->writer = DRT_WRITER_OFF;
    else {
      snprintf(why, n, "bad value '%s' (expected auto, on or off)", text);
      return true;
    }
    return false;
  default:
    snprintf(why, n, "unknown schedule value");
    return true;
  }
}

bool drt_sched_env(DrtSchedule *s, DrtErrors *e) {
  bool bad = false;
  for (int k = 0; k < DRT_SCHED_NKEYS; k++) {
    const char *t = getenv(env_names[k]);
    if (!t || !*t) continue;
    DrtSchedule one = {0, 0, DRT_WRITER_AUTO};
    char why[200];
    if (drt_sched_value(k, t, &one, why, sizeof why)) {
      if (e) drt_error(e, "%s (-sched-%s): %s", env_names[k], key_names[k], why);
      bad = true;
      continue;
    }
    drt_sched_overlay(s, &one);
  }
  return bad;
}

void drt_sched_overlay(DrtSchedule *to, const DrtSchedule *from) {
  if (!from) return;
  if (from->chunk) to->chunk = from->chunk;
  if (from->steps) to->steps = from->steps;
  if (from->writer != DRT_WRITER_AUTO) to->writer = from->writer;
}

int drt_sched_env_writer(void) {
  DrtSchedule s = {0, 0, DRT_WRITER_AUTO};
  (void)drt_sched_env(&s, NULL); /* a bad value: auto here, an error as the run begins */
  return s.writer;
}

bool drt_sched_cli(const char *name, const char *text, char *why, size_t n) {
  int k = drt_sched_key(name);
  DrtSchedule s = {0, 0, DRT_WRITER_AUTO};
  if (k < 0 || drt_sched_value(k, text, &s, why, n)) return true;
  /* the command line is parsed before any thread starts: setenv is safe */
  if (setenv(env_names[k], text, 1) != 0) {
    snprintf(why, n, "cannot set %s", env_names[k]);
    return true;
  }
  return false;
}

/* ---- a world's schedule -------------------------------------------------------------- */

enum { DEFAULT_CHUNK = 256 };

/* The chunk before the environment is read (drt_world_chunk before the
 * first run): the host's, the program's, the layout's, 256. */
static uint32_t base_chunk(const DrtSchedState *st) {
  return st->api.chunk    ? st->api.chunk
         : st->prog.chunk ? st->prog.chunk
         : st->lay_chunk  ? st->lay_chunk
                          : DEFAULT_CHUNK;
}

void drt_sched_init(DrtSchedState *st, uint32_t lay_chunk) {
  memset(st, 0, sizeof *st);
  st->lay_chunk = lay_chunk;
  st->run = (DrtSchedule){base_chunk(st), UINT32_MAX, DRT_WRITER_AUTO};
}

void drt_sched_host_chunk(DrtSchedState *st, uint32_t chunk) {
  if (st->fixed) return;
  st->api.chunk = chunk;
  st->run.chunk = base_chunk(st);
}

/* Where a chunk or steps value of the run came from, for messages. */
static const char *origin(const DrtSchedule *api, int key, bool from_env) {
  uint32_t a = key == DRT_SCHED_CHUNK ? api->chunk : api->steps;
  if (a) return "drt_world_set_schedule";
  if (from_env) return key == DRT_SCHED_CHUNK ? "-sched-chunk or DIDEROT_SCHED_CHUNK"
                                              : "-sched-steps or DIDEROT_SCHED_STEPS";
  return "the program's schedule";
}

/* The levels overlaid (program, environment, host), the defaults filled
 * in and checked against the program; true after errors in e (may be
 * NULL). */
static bool resolve(const DrtSchedState *st, const DrtSchedFacts *f, DrtSchedule *out,
                    DrtErrors *e) {
  DrtSchedule s = st->prog, env = {0, 0, DRT_WRITER_AUTO};
  bool bad = drt_sched_env(&env, e);
  drt_sched_overlay(&s, &env);
  drt_sched_overlay(&s, &st->api);
  uint32_t pad = f->pad ? f->pad : 1;
  /* parallel chunks are whole blocks of the layout (DrtStateLayout.chunk:
   * "a multiple of pad") */
  if (!s.chunk) {
    s.chunk = f->lay_chunk ? f->lay_chunk : DEFAULT_CHUNK;
  } else if (s.chunk % pad || s.chunk > DRT_SCHED_MAX_CHUNK) {
    if (e)
      drt_error(e, "schedule: chunk %u (%s) must be a multiple of %u, the strands of one block "
                "of the strand-state layout, and at most %u", (unsigned)s.chunk,
                origin(&st->api, DRT_SCHED_CHUNK, env.chunk != 0), (unsigned)pad,
                (unsigned)DRT_SCHED_MAX_CHUNK);
    bad = true;
  }
  /* several updates per visit only where the program may run strand by
   * strand: no strand can tell then (DrtProgram.strandwise) */
  if (!s.steps) {
    s.steps = f->strandwise ? UINT32_MAX : 1;
  } else if (s.steps > 1 && !f->strandwise) {
    if (e)
      drt_error(e, "schedule: steps %u (%s): this program runs in super-steps only (its strands "
                "interact, or it was built with --force-bsp or for the GPU): only 1",
                (unsigned)s.steps, origin(&st->api, DRT_SCHED_STEPS, env.steps != 0));
    bad = true;
  }
  *out = s;
  return bad;
}

bool drt_world_sched_fix(DrtWorld *w) {
  DrtSchedFacts f;
  DrtErrors *e;
  DrtSchedState *st = drt_world_sched(w, &f, &e);
  if (st->fixed) return false;
  DrtSchedule s;
  if (resolve(st, &f, &s, e)) return true;
  st->run = s;
  st->fixed = true;
  return false;
}

static bool set_level(DrtWorld *w, bool host, const DrtSchedule *s, const char *fn) {
  DrtSchedFacts f;
  DrtErrors *e;
  DrtSchedState *st = drt_world_sched(w, &f, &e);
  if (st->fixed || f.running) {
    drt_error(e, "%s: the schedule is fixed once the world runs", fn);
    return true;
  }
  if (s && (s->chunk > DRT_SCHED_MAX_CHUNK || (unsigned)s->writer > DRT_WRITER_OFF)) {
    drt_error(e, "%s: chunk %u or writer %d out of range (chunk at most %u)", fn,
              (unsigned)s->chunk, (int)s->writer, (unsigned)DRT_SCHED_MAX_CHUNK);
    return true;
  }
  DrtSchedule *level = host ? &st->api : &st->prog;
  if (s) *level = *s;
  else memset(level, 0, sizeof *level);
  st->run.chunk = base_chunk(st);
  return false;
}

bool drt_world_set_program_schedule(DrtWorld *w, const DrtSchedule *s) {
  return set_level(w, false, s, "drt_world_set_program_schedule");
}

bool drt_world_set_schedule(DrtWorld *w, const DrtSchedule *s) {
  return set_level(w, true, s, "drt_world_set_schedule");
}

bool drt_world_schedule(DrtWorld *w, DrtSchedule *out) {
  DrtSchedFacts f;
  DrtErrors *e;
  DrtSchedState *st = drt_world_sched(w, &f, &e);
  if (st->fixed) {
    *out = st->run;
    return false;
  }
  return resolve(st, &f, out, e);
}

int drt_world_sched_writer(DrtWorld *w) {
  DrtSchedFacts f;
  DrtErrors *e;
  DrtSchedState *st = drt_world_sched(w, &f, &e);
  DrtSchedule s = st->run;
  if (!st->fixed) (void)resolve(st, &f, &s, NULL); /* a bad value is the run's error */
  return s.writer;
}
