/* rt_trace.c -- the record an executable writes with -trace FILE
 * (doc/user-guide.md, "Tracing strands"; steps/README.md:135 of the
 * original's examples notes there was no record of which strands died
 * when): one line "STEP ID EVENT WHERE" per strand that stabilizes
 * (stabilize), dies (die) or is born (new), STEP the super-step (0: the
 * global start block), ID the strand's place in creation order, WHERE
 * "update" (the strand's own start or update method, or its `new`) or
 * "global" (a global block's stabilize, die or new). Lines come in step
 * order, and within a step in slot order, which is creation order, so
 * every target that runs strands on the host writes the same file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_world_impl.h"

void drt_trace_snap(DrtWorld *w) {
  if (!w->trace) return;
  if (w->trace_cap < w->n) {
    unsigned char *p = realloc(w->trace_prev, w->n);
    if (!p) {
      /* the run goes on without its record; the record says so */
      fprintf(w->trace, "# out of memory: the trace stops here\n");
      w->trace = NULL;
      return;
    }
    w->trace_prev = p;
    w->trace_cap = w->n;
  }
  if (w->n) memcpy(w->trace_prev, w->status, w->n);
  w->trace_n = w->n;
}

void drt_trace_changes(DrtWorld *w, uint32_t step, const char *where) {
  if (!w->trace) return;
  /* strands are born into buffers during a phase or block, so the slots
   * snapped before it are still the first trace_n */
  for (uint32_t i = 0; i < w->trace_n && i < w->n; i++) {
    if (w->trace_prev[i] != DRT_ACTIVE || w->status[i] == DRT_ACTIVE) continue;
    fprintf(w->trace, "%u %u %s %s\n", (unsigned)step, (unsigned)w->ids[i],
            w->status[i] == DRT_STABLE ? "stabilize" : "die", where);
  }
}

void drt_trace_new(DrtWorld *w, uint32_t from, uint32_t step, const char *where) {
  if (!w->trace) return;
  for (uint32_t i = from; i < w->n; i++)
    fprintf(w->trace, "%u %u new %s\n", (unsigned)step, (unsigned)w->ids[i], where);
}

/* The file is written beside its name and renamed over it when the run
 * ends (also after a run-time error: the record of what happened is
 * complete then), so that an earlier record is never half overwritten;
 * a killed run leaves a temporary that a later run's sweep removes. */
bool drt_trace_file_open(DrtTraceFile *t, const char *path, const char *prog) {
  memset(t, 0, sizeof *t);
  if (strcmp(path, "-") == 0) { /* standard output, as -print's "-" */
    t->f = stdout;
    fputs("# step id event where\n", t->f);
    return false;
  }
  drt_tmp_sweep(path);
  t->path = path;
  t->tmp = drt_tmp_name(path, 0);
  if (t->tmp) t->f = fopen(t->tmp, "w");
  if (!t->f) {
    fprintf(stderr, "%s: error: cannot open the trace file '%s': %s\n", prog, path,
            t->tmp ? strerror(errno) : "out of memory");
    free(t->tmp);
    t->tmp = NULL;
    return true;
  }
  fputs("# step id event where\n", t->f);
  return false;
}

bool drt_trace_file_close(DrtTraceFile *t, const char *prog) {
  if (!t->f) return false;
  if (!t->tmp) { /* stdout */
    bool bad = fflush(t->f) != 0 || ferror(t->f);
    t->f = NULL;
    if (bad) fprintf(stderr, "%s: error: cannot write the trace to standard output\n", prog);
    return bad;
  }
  bool bad = ferror(t->f) != 0;
  bad |= fclose(t->f) != 0;
  t->f = NULL;
  if (!bad && rename(t->tmp, t->path) != 0) bad = true;
  if (bad) {
    fprintf(stderr, "%s: error: cannot write the trace file '%s': %s\n", prog, t->path,
            strerror(errno));
    remove(t->tmp);
  }
  free(t->tmp);
  t->tmp = NULL;
  return bad;
}
