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
