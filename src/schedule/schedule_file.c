/* schedule_file.c -- the schedule file (--schedule=FILE) and its printer
 * (--dump=schedule); the format is in doc/user-guide.md "Schedules":
 *
 *   # a comment, to the end of the line
 *   key = value          # one parameter per line
 *
 * Keys are the names of schedule_key(); a value is one word. The printer
 * writes the same format, so a dump is a schedule file that gives its
 * values back (tests/unit/test_schedule.c checks the round trip).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "schedule/schedule.h"
#include "util/source.h"
#include "util/suggest.h"

static const char *const key_names[SCHED_NPARAMS] = {
    [SCHED_P_STRAND_LAYOUT] = "strand-layout", [SCHED_P_IMAGE_LAYOUT] = "image-layout",
    [SCHED_P_SIMD] = "simd",                   [SCHED_P_SIMD_WIDTH] = "simd-width",
    [SCHED_P_LOOP_LANES] = "loop-lanes",       [SCHED_P_RUN] = "run",
    [SCHED_P_STEPS] = "steps-per-visit",       [SCHED_P_CHUNK] = "chunk",
    [SCHED_P_OMP_SCHEDULE] = "omp-schedule",   [SCHED_P_OMP_WAIT] = "omp-wait",
    [SCHED_P_WRITER] = "snapshot-writer",      [SCHED_P_CUDA_BLOCK] = "cuda-block",
    [SCHED_P_COMPACTION] = "compaction",       [SCHED_P_MPI_PLACEMENT] = "mpi-placement",
    [SCHED_P_MPI_REBALANCE] = "mpi-rebalance",
};

/* What each key accepts, as the bad-value message says it. */
static const char *const key_accepts[SCHED_NPARAMS] = {
    [SCHED_P_STRAND_LAYOUT] = "aos, soa or aosoa:N with N a power of two from 2 to 1024",
    [SCHED_P_IMAGE_LAYOUT] = "linear, brick:N or halo:N with N a power of two from 2 to 64",
    [SCHED_P_SIMD] = "off, within or strands",
    [SCHED_P_SIMD_WIDTH] = "auto or a whole number",
    [SCHED_P_LOOP_LANES] = "on or off",
    [SCHED_P_RUN] = "bsp or strandwise",
    [SCHED_P_STEPS] = "all or a whole number from 1",
    [SCHED_P_CHUNK] = "a whole number",
    [SCHED_P_OMP_SCHEDULE] = "dynamic, static or guided",
    [SCHED_P_OMP_WAIT] = "passive or system",
    [SCHED_P_WRITER] = "auto, on or off",
    [SCHED_P_CUDA_BLOCK] = "a whole number",
    [SCHED_P_COMPACTION] = "always",
    [SCHED_P_MPI_PLACEMENT] = "block or cyclic",
    [SCHED_P_MPI_REBALANCE] = "off or a ratio from 1 to 100 with at most two decimals (1.25)",
};

const char *schedule_key(SchedParam p) {
  return p >= 0 && p < SCHED_NPARAMS ? key_names[p] : "?";
}

const char *schedule_source_name(SchedSource src) {
  switch (src) {
  case SCHED_UNSET: return "unset";
  case SCHED_DEFAULT: return "default";
  case SCHED_HEURISTIC: return "heuristic";
  case SCHED_FLAG: return "flag";
  case SCHED_FILE: return "file";
  case SCHED_CACHE: return "cache";
  case SCHED_TUNER: return "tuner";
  }
  return "?";
}

/* ---- values ------------------------------------------------------------------- */

/* A whole number: digits only, at most 2^31 (larger ones are refused as
 * numbers; the ranges of each key are constraints, schedule_check). */
static bool parse_count(const char *t, uint32_t *out) {
  if (!*t) return false;
  unsigned long v = 0;
  for (const char *p = t; *p; p++) {
    if (*p < '0' || *p > '9') return false;
    v = v * 10 + (unsigned long)(*p - '0');
    if (v > (1ul << 31)) return false;
  }
  *out = (uint32_t)v;
  return true;
}

/* A decimal with at most two places ("1", "1.5", "1.25") in hundredths;
 * -1 for anything else or beyond 10^6. */
static int parse_hundredths(const char *t) {
  long v = 0;
  const char *p = t;
  if (*p < '0' || *p > '9') return -1;
  for (; *p >= '0' && *p <= '9'; p++)
    if ((v = v * 10 + (*p - '0')) > 10000) return -1;
  v *= 100;
  if (*p == '.') {
    p++;
    if (*p < '0' || *p > '9') return -1;
    v += 10 * (*p++ - '0');
    if (*p >= '0' && *p <= '9') v += *p++ - '0';
  }
  return *p ? -1 : (int)v;
}

static int word_index(const char *v, const char *const *words, int n) {
  for (int i = 0; i < n; i++)
    if (!strcmp(v, words[i])) return i;
  return -1;
}

typedef enum ValueResult { VALUE_OK, VALUE_BAD, VALUE_BAD_NUMBER } ValueResult;

static bool looks_numeric(const char *v) { return *v >= '0' && *v <= '9'; }

/* Set parameter p of s from the text v (the caller records the source). */
static ValueResult set_value(Schedule *s, SchedParam p, const char *v) {
  static const char *const onoff[] = {"off", "on"};
  uint32_t n;
  int k;
  switch (p) {
  case SCHED_P_STRAND_LAYOUT: {
    SchedStrandLayout kind;
    int w;
    if (!schedule_parse_strand_layout(v, &kind, &w)) return VALUE_BAD;
    s->strand_layout = kind;
    s->aosoa_width = w;
    return VALUE_OK;
  }
  case SCHED_P_IMAGE_LAYOUT:
    return schedule_parse_image_layout(v, &s->image_brick, &s->image_halo) ? VALUE_OK : VALUE_BAD;
  case SCHED_P_SIMD: {
    static const char *const w[] = {"off", "within", "strands"};
    if ((k = word_index(v, w, 3)) < 0) return VALUE_BAD;
    /* off is --scalar; within and strands are --simd=within/strands */
    s->scalar_asked = k == 0;
    s->simd_ask = k == 2 ? SCHED_ASK_STRANDS : k == 1 ? SCHED_ASK_WITHIN : SCHED_ASK_AUTO;
    return VALUE_OK;
  }
  case SCHED_P_SIMD_WIDTH:
    if (!strcmp(v, "auto")) {
      s->simd_width = 0;
      return VALUE_OK;
    }
    if (!parse_count(v, &n)) return looks_numeric(v) ? VALUE_BAD_NUMBER : VALUE_BAD;
    if (n == 0) return VALUE_BAD;
    s->simd_width = (int)n;
    return VALUE_OK;
  case SCHED_P_LOOP_LANES:
    if ((k = word_index(v, onoff, 2)) < 0) return VALUE_BAD;
    s->loop_lanes = k == 1;
    return VALUE_OK;
  case SCHED_P_RUN: {
    static const char *const w[] = {"bsp", "strandwise"};
    if ((k = word_index(v, w, 2)) < 0) return VALUE_BAD;
    s->run = k ? SCHED_RUN_STRANDWISE : SCHED_RUN_BSP;
    return VALUE_OK;
  }
  case SCHED_P_STEPS:
    if (!strcmp(v, "all")) {
      s->steps = SCHED_STEPS_ALL;
      return VALUE_OK;
    }
    if (!parse_count(v, &n)) return looks_numeric(v) ? VALUE_BAD_NUMBER : VALUE_BAD;
    if (n == 0) return VALUE_BAD;
    s->steps = n;
    return VALUE_OK;
  case SCHED_P_CHUNK:
  case SCHED_P_CUDA_BLOCK:
    if (!parse_count(v, &n)) return VALUE_BAD_NUMBER;
    if (p == SCHED_P_CHUNK) s->chunk = n;
    else s->cuda_block = (int)n;
    return VALUE_OK;
  case SCHED_P_OMP_SCHEDULE: {
    static const char *const w[] = {"dynamic", "static", "guided"};
    if ((k = word_index(v, w, 3)) < 0) return VALUE_BAD;
    s->omp_schedule = (SchedOmpSchedule)k;
    return VALUE_OK;
  }
  case SCHED_P_OMP_WAIT: {
    static const char *const w[] = {"passive", "system"};
    if ((k = word_index(v, w, 2)) < 0) return VALUE_BAD;
    s->omp_wait = (SchedOmpWait)k;
    return VALUE_OK;
  }
  case SCHED_P_WRITER: {
    static const char *const w[] = {"auto", "on", "off"};
    if ((k = word_index(v, w, 3)) < 0) return VALUE_BAD;
    s->writer = (SchedWriter)k;
    return VALUE_OK;
  }
  case SCHED_P_COMPACTION:
    /* the only policy there is: the step kernel runs every strand of its
     * worklist, so the worklist must hold active strands only */
    if (strcmp(v, "always") != 0) return VALUE_BAD;
    s->compaction = SCHED_COMPACT_ALWAYS;
    return VALUE_OK;
  case SCHED_P_MPI_PLACEMENT: {
    static const char *const w[] = {"block", "cyclic"};
    if ((k = word_index(v, w, 2)) < 0) return VALUE_BAD;
    s->mpi_placement = (SchedMpiPlacement)k;
    return VALUE_OK;
  }
  case SCHED_P_MPI_REBALANCE:
    if (!strcmp(v, "off")) {
      s->mpi_rebalance = 0;
      return VALUE_OK;
    }
    if ((k = parse_hundredths(v)) < 100 || k > 10000) return looks_numeric(v) ? VALUE_BAD_NUMBER : VALUE_BAD;
    s->mpi_rebalance = k;
    return VALUE_OK;
  case SCHED_NPARAMS: break;
  }
  return VALUE_BAD;
}

const char *schedule_value_text(Arena *a, const Schedule *s, SchedParam p) {
  switch (p) {
  case SCHED_P_STRAND_LAYOUT:
    return s->strand_layout == SCHED_AOSOA ? arena_printf(a, "aosoa:%d", s->aosoa_width)
           : s->strand_layout == SCHED_SOA ? "soa"
                                           : "aos";
  case SCHED_P_IMAGE_LAYOUT:
    return s->image_brick ? arena_printf(a, "%s:%d", s->image_halo ? "halo" : "brick", s->image_brick)
                          : "linear";
  case SCHED_P_SIMD:
    return s->simd == SCHED_SIMD_OFF ? "off" : s->simd == SCHED_SIMD_WITHIN ? "within" : "strands";
  case SCHED_P_SIMD_WIDTH: return s->simd_width ? arena_printf(a, "%d", s->simd_width) : "auto";
  case SCHED_P_LOOP_LANES: return s->loop_lanes ? "on" : "off";
  case SCHED_P_RUN: return s->run == SCHED_RUN_STRANDWISE ? "strandwise" : "bsp";
  case SCHED_P_STEPS:
    return s->steps == SCHED_STEPS_ALL ? "all" : arena_printf(a, "%u", (unsigned)s->steps);
  case SCHED_P_CHUNK: return arena_printf(a, "%u", (unsigned)s->chunk);
  case SCHED_P_OMP_SCHEDULE:
    return s->omp_schedule == SCHED_OMP_STATIC   ? "static"
           : s->omp_schedule == SCHED_OMP_GUIDED ? "guided"
                                                 : "dynamic";
  case SCHED_P_OMP_WAIT: return s->omp_wait == SCHED_WAIT_SYSTEM ? "system" : "passive";
  case SCHED_P_WRITER:
    return s->writer == SCHED_WRITER_ON ? "on" : s->writer == SCHED_WRITER_OFF ? "off" : "auto";
  case SCHED_P_CUDA_BLOCK: return arena_printf(a, "%d", s->cuda_block);
  case SCHED_P_COMPACTION: return "always";
  case SCHED_P_MPI_PLACEMENT: return s->mpi_placement == SCHED_MPI_BLOCK ? "block" : "cyclic";
  case SCHED_P_MPI_REBALANCE:
    return s->mpi_rebalance ? arena_printf(a, "%d.%02d", s->mpi_rebalance / 100, s->mpi_rebalance % 100)
                            : "off";
  case SCHED_NPARAMS: break;
  }
  return "?";
}

/* ---- the parser ---------------------------------------------------------------- */

static bool key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

static bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* One line (without its newline); false after reporting an error. */
static bool parse_line(Arena *a, const char *name, int lno, const char *line, Schedule *s,
                       SchedDiag *d) {
  const char *p = line;
  while (blank(*p)) p++;
  if (!*p || *p == '#') return true;
#define COL(q) ((int)((q) - line) + 1)
  if (!key_char(*p)) {
    schedule_error_at(d, name, lno, COL(p), 1, line, "expected a key (key = value)");
    return false;
  }
  const char *k0 = p;
  while (key_char(*p)) p++;
  char *key = arena_strndup(a, k0, (size_t)(p - k0));
  int klen = (int)(p - k0);
  int param = -1;
  for (int i = 0; i < SCHED_NPARAMS; i++)
    if (!strcmp(key, key_names[i])) param = i;
  if (param < 0 || param >= SCHED_NPARAMS) {
    Suggest sg;
    suggest_init(&sg, key);
    for (int i = 0; i < SCHED_NPARAMS; i++) suggest_offer(&sg, key_names[i]);
    if (suggest_best(&sg))
      schedule_error_at(d, name, lno, COL(k0), klen, line,
                        "unknown schedule key '%s'; did you mean '%s'?", key, suggest_best(&sg));
    else
      schedule_error_at(d, name, lno, COL(k0), klen, line, "unknown schedule key '%s'", key);
    return false;
  }
  while (blank(*p)) p++;
  if (*p != '=') {
    schedule_error_at(d, name, lno, COL(p), 1, line, "expected '=' after '%s'", key);
    return false;
  }
  p++;
  while (blank(*p)) p++;
  if (!*p || *p == '#') {
    schedule_error_at(d, name, lno, COL(p), 1, line, "missing value for '%s'", key);
    return false;
  }
  const char *v0 = p;
  while (*p && !blank(*p) && *p != '#') p++;
  char *val = arena_strndup(a, v0, (size_t)(p - v0));
  int vlen = (int)(p - v0);
  const char *rest = p;
  while (blank(*rest)) rest++;
  if (*rest && *rest != '#') {
    size_t rl = strcspn(rest, " \t\r#");
    schedule_error_at(d, name, lno, COL(rest), (int)rl, line,
                      "unexpected '%.*s' after the value of '%s' (one word per value)", (int)rl,
                      rest, key);
    return false;
  }
  SchedWhy *w = &s->why[param];
  if (w->source == SCHED_FILE) {
    schedule_error_at(d, name, lno, COL(k0), klen, line,
                      "duplicate key '%s' (first set at line %d)", key, w->line);
    return false;
  }
  ValueResult r = set_value(s, (SchedParam)param, val);
  if (r != VALUE_OK) {
    schedule_error_at(d, name, lno, COL(v0), vlen, line, "bad %s '%s' for '%s' (expected %s)",
                      r == VALUE_BAD_NUMBER ? "number" : "value", val, key, key_accepts[param]);
    return false;
  }
  schedule_set(s, (SchedParam)param, SCHED_FILE, arena_printf(a, "%s:%d", name, lno));
  w->file = name;
  w->line = lno;
  w->col = COL(v0);
  w->line_text = line;
#undef COL
  return true;
}

bool schedule_parse_text(Arena *a, const char *name, const char *text, Schedule *s,
                         SchedDiag *d) {
  bool ok = true;
  int lno = 0;
  for (const char *p = text; *p;) {
    size_t n = strcspn(p, "\n");
    lno++;
    /* a copy per line: messages and SchedWhy keep pointing at it */
    const char *line = arena_strndup(a, p, n);
    if (strlen(line) != n) {
      schedule_error_at(d, name, lno, (int)strlen(line) + 1, 1, line, "a NUL byte in the file");
      ok = false;
    } else {
      ok &= parse_line(a, name, lno, line, s, d);
    }
    p += n;
    if (*p == '\n') p++;
  }
  return ok;
}

bool schedule_read_file(Arena *a, const char *path, Schedule *s, SchedDiag *d) {
  Source *src = source_load(a, path);
  if (!src) {
    schedule_error(d, NULL, "cannot read schedule file '%s': %s", path, strerror(errno));
    return false;
  }
  /* source_load keeps the bytes (NULs included): the line loop sees them */
  const char *text = src->text;
  if (strlen(text) != src->len) {
    size_t nul = strlen(text);
    int lno = 1;
    size_t ls = 0;
    for (size_t i = 0; i < nul; i++)
      if (text[i] == '\n') lno++, ls = i + 1;
    schedule_error_at(d, path, lno, (int)(nul - ls) + 1, 1, arena_strndup(a, text + ls, nul - ls),
                      "a NUL byte in the file");
    return false;
  }
  return schedule_parse_text(a, path, text, s, d);
}

/* ---- the printer ---------------------------------------------------------------- */

const char *schedule_print(Arena *a, const Schedule *s) {
  size_t cap = 4096, len = 0;
  char *buf = arena_alloc(a, cap);
  const char *head =
      "# the schedule (diderotc --dump=schedule): key = value  # source: reason\n"
      "# (a valid --schedule file; doc/user-guide.md \"Schedules\")\n";
  for (int pass = -1; pass < SCHED_NPARAMS; pass++) {
    const char *line;
    if (pass < 0) {
      line = head;
    } else {
      if (!schedule_applies(s->target, s->exec, s->snapshot, pass)) continue;
      const char *kv = arena_printf(a, "%s = %s", key_names[pass],
                                    schedule_value_text(a, s, (SchedParam)pass));
      const SchedWhy *w = &s->why[pass];
      line = arena_printf(a, "%-28s # %s%s%s\n", kv, schedule_source_name(w->source),
                          w->reason ? ": " : "", w->reason ? w->reason : "");
    }
    size_t n = strlen(line);
    if (len + n + 1 > cap) {
      while (len + n + 1 > cap) cap *= 2;
      char *nb = arena_alloc(a, cap);
      memcpy(nb, buf, len);
      buf = nb;
    }
    memcpy(buf + len, line, n + 1);
    len += n;
  }
  return buf;
}
