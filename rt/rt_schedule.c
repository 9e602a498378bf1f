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
    "DIDEROT_SCHED_CHUNK", "DIDEROT_SCHED_STEPS", "DIDEROT_SCHED_WRITER", "DIDEROT_SCHED_OMP"};
static const char *const key_names[DRT_SCHED_NKEYS] = {"chunk", "steps", "writer", "omp"};
/* the schedule file's spellings (doc/user-guide.md "Schedules"), for -schedule */
static const char *const file_keys[DRT_SCHED_NKEYS] = {"chunk", "steps-per-visit",
                                                        "snapshot-writer", "omp-schedule"};
static const char *const omp_names[] = {"default", "dynamic", "static", "guided"};

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
  case DRT_SCHED_OMP:
    for (int k = 1; k <= DRT_OMP_GUIDED; k++)
      if (!strcmp(text, omp_names[k])) {
        s->omp = (DrtSchedOmp)k;
        return false;
      }
    snprintf(why, n, "bad value '%s' (expected dynamic, static or guided)", text);
    return true;
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
    DrtSchedule one = {0, 0, DRT_WRITER_AUTO, DRT_OMP_DEFAULT};
    char why[200];
    if (drt_sched_value(k, t, &one, why, sizeof why)) {
      if (e)
        drt_error(e, "%s (%s%s): %s", env_names[k], k == DRT_SCHED_OMP ? "-schedule " : "-sched-",
                  k == DRT_SCHED_OMP ? "omp-schedule=" : key_names[k], why);
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
  if (from->omp != DRT_OMP_DEFAULT) to->omp = from->omp;
}

int drt_sched_env_writer(void) {
  DrtSchedule s = {0, 0, DRT_WRITER_AUTO, DRT_OMP_DEFAULT};
  (void)drt_sched_env(&s, NULL); /* a bad value: auto here, an error as the run begins */
  return s.writer;
}

bool drt_sched_cli(const char *name, const char *text, char *why, size_t n) {
  int k = drt_sched_key(name);
  DrtSchedule s = {0, 0, DRT_WRITER_AUTO, DRT_OMP_DEFAULT};
  if (k < 0 || drt_sched_value(k, text, &s, why, n)) return true;
  /* the command line is parsed before any thread starts: setenv is safe */
  if (setenv(env_names[k], text, 1) != 0) {
    snprintf(why, n, "cannot set %s", env_names[k]);
    return true;
  }
  return false;
}

/* Keys the compiler's schedule knows but bakes into the code: -schedule
 * says to recompile rather than "unknown key". */
static const char *const compiled_keys[] = {"strand-layout", "image-layout", "simd", "simd-width",
                                            "loop-lanes", "run", "omp-wait", "cuda-block",
                                            "compaction", "mpi-placement"};

bool drt_sched_text(const char *text, bool parallel, bool snapshot, char *why, size_t n) {
  const char *vals[DRT_SCHED_NKEYS] = {0};
  char buf[DRT_SCHED_NKEYS][64];
  const char *p = text ? text : "";
  for (;;) {
    p += strspn(p, " \t\n,");
    if (!*p) break;
    size_t len = strcspn(p, " \t\n,");
    const char *eq = memchr(p, '=', len);
    if (!eq || eq == p || eq + 1 == p + len) {
      snprintf(why, n, "'%.*s': expected KEY=VALUE (run-time keys: chunk, steps-per-visit, "
               "omp-schedule, snapshot-writer)", (int)(len > 80 ? 80 : len), p);
      return true;
    }
    size_t kl = (size_t)(eq - p), vl = len - kl - 1;
    int key = -1;
    for (int k = 0; k < DRT_SCHED_NKEYS; k++)
      if (strlen(file_keys[k]) == kl && !strncmp(p, file_keys[k], kl)) key = k;
    if (key < 0) {
      for (size_t c = 0; c < sizeof compiled_keys / sizeof compiled_keys[0]; c++)
        if (strlen(compiled_keys[c]) == kl && !strncmp(p, compiled_keys[c], kl)) {
          snprintf(why, n, "key '%.*s' is compiled into the program: recompile with diderotc "
                   "--schedule=FILE (run-time keys: chunk, steps-per-visit, omp-schedule, "
                   "snapshot-writer)", (int)kl, p);
          return true;
        }
      snprintf(why, n, "unknown key '%.*s' (run-time keys: chunk, steps-per-visit, "
               "omp-schedule, snapshot-writer)", (int)(kl > 60 ? 60 : kl), p);
      return true;
    }
    if (vals[key]) {
      snprintf(why, n, "key '%s' given twice", file_keys[key]);
      return true;
    }
    if (vl >= sizeof buf[key]) {
      snprintf(why, n, "%s: value too long", file_keys[key]);
      return true;
    }
    memcpy(buf[key], eq + 1, vl);
    buf[key][vl] = '\0';
    if (key == DRT_SCHED_OMP && !parallel) {
      snprintf(why, n, "omp-schedule=%s: this program is not an OpenMP one (it applies to "
               "diderotc --target=omp executables)", buf[key]);
      return true;
    }
    if (key == DRT_SCHED_WRITER && !snapshot) {
      snprintf(why, n, "snapshot-writer=%s: this program was built without --snapshot", buf[key]);
      return true;
    }
    DrtSchedule one = {0, 0, DRT_WRITER_AUTO, DRT_OMP_DEFAULT};
    char w2[200];
    /* the file spells "all" for every update; 0 is the program's default */
    if (drt_sched_value(key, buf[key], &one, w2, sizeof w2)) {
      snprintf(why, n, "%s: %s", file_keys[key], w2);
      return true;
    }
    vals[key] = buf[key];
    p += len;
  }
  /* the command line is parsed before any thread starts: setenv is safe */
  for (int k = 0; k < DRT_SCHED_NKEYS; k++)
    if (vals[k] && setenv(env_names[k], vals[k], 1) != 0) {
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
  st->run = (DrtSchedule){base_chunk(st), UINT32_MAX, DRT_WRITER_AUTO, DRT_OMP_DEFAULT};
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
  if (from_env) return key == DRT_SCHED_CHUNK ? "-schedule chunk=, -sched-chunk or DIDEROT_SCHED_CHUNK"
                                              : "-schedule steps-per-visit=, -sched-steps or "
                                                "DIDEROT_SCHED_STEPS";
  return "the program's schedule";
}

/* The levels overlaid (program, environment, host), the defaults filled
 * in and checked against the program; true after errors in e (may be
 * NULL). */
static bool resolve(const DrtSchedState *st, const DrtSchedFacts *f, DrtSchedule *out,
                    DrtErrors *e) {
  DrtSchedule s = st->prog, env = {0, 0, DRT_WRITER_AUTO, DRT_OMP_DEFAULT};
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
  /* another OpenMP kind only where the program gave its loop in each */
  if (s.omp != DRT_OMP_DEFAULT && !f->omp_kinds) {
    if (e)
      drt_error(e, "schedule: omp-schedule %s (%s): this program has one parallel loop "
                "schedule compiled in (not an OpenMP executable of this diderotc)",
                omp_names[s.omp], env.omp ? "-schedule omp-schedule= or DIDEROT_SCHED_OMP"
                                          : "drt_world_set_schedule");
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
  if (s && (s->chunk > DRT_SCHED_MAX_CHUNK || (unsigned)s->writer > DRT_WRITER_OFF ||
            (unsigned)s->omp > DRT_OMP_GUIDED)) {
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
