/* tune_cache.c -- the key of a tuned schedule and its cache file (tune.h).
 *
 * One file per key, named by two hashes: <machine and program>-<inputs>.sched,
 * in the cache directory. Its text:
 *
 *   # diderotc tuned schedule (diderotc --tune): a changed file is ignored
 *   format = diderotc-tune-cache 1
 *   program = 0123456789abcdef      the key, word for word
 *   target = omp
 *   cpu = AMD EPYC 7B13
 *   cpus = 2
 *   precision = float
 *   inputs = nrrd(float;64 64 64) -imgResU 48
 *   tuned = 2026-12-07T07:30:00Z
 *   measured = ...                   the tuner's line
 *   [schedule]
 *   chunk = 64                       schedule-file lines (schedule_parse_text)
 *   omp-schedule = static
 *   checksum = 89abcdef01234567      FNV-1a of every byte above this line
 *
 * Nothing in it is trusted before the checksum, the format line and every
 * key line match, and its values pass the schedule parser; the driver then
 * checks them against the program (schedule_check) before using them.
 */
#include "tune/tune.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FORMAT_LINE "format = diderotc-tune-cache 1"
enum { MAX_CACHE_BYTES = 1 << 16 };

uint64_t tune_hash(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) {
    h ^= b[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

uint64_t tune_hash_str(uint64_t h, const char *s) {
  /* the terminating NUL too: "ab","c" and "a","bc" differ */
  return tune_hash(h, s ? s : "", (s ? strlen(s) : 0) + 1);
}

/* ---- texts of a choice --------------------------------------------------------------- */

static const char *omp_name(SchedOmpSchedule k) {
  return k == SCHED_OMP_STATIC ? "static" : k == SCHED_OMP_GUIDED ? "guided" : "dynamic";
}

static const char *steps_text(Arena *a, uint32_t steps) {
  return steps == SCHED_STEPS_ALL ? "all" : arena_printf(a, "%u", (unsigned)steps);
}

static const char *layout_text(Arena *a, const TuneChoice *c) {
  return c->layout == SCHED_SOA     ? "soa"
         : c->layout == SCHED_AOSOA ? arena_printf(a, "aosoa:%d", c->aosoa_width)
                                    : "aos";
}

static const char *simd_text(SchedSimd s) { return s == SCHED_SIMD_WITHIN ? "within" : "strands"; }

const char *tune_choice_file_text(Arena *a, const TuneChoice *c) {
  const char *t = arena_printf(a, "chunk = %u\n", (unsigned)c->chunk);
  if (c->has_omp) t = arena_printf(a, "%somp-schedule = %s\n", t, omp_name(c->omp));
  if (c->has_steps) t = arena_printf(a, "%ssteps-per-visit = %s\n", t, steps_text(a, c->steps));
  if (c->has_layout) t = arena_printf(a, "%sstrand-layout = %s\n", t, layout_text(a, c));
  if (c->has_simd) t = arena_printf(a, "%ssimd = %s\n", t, simd_text(c->simd));
  return t;
}

const char *tune_choice_text(Arena *a, const TuneChoice *c) {
  const char *t = tune_choice_option_text(a, c);
  if (c->has_layout) t = arena_printf(a, "%s strand-layout=%s", t, layout_text(a, c));
  if (c->has_simd) t = arena_printf(a, "%s simd=%s", t, simd_text(c->simd));
  return t;
}

bool tune_choice_same_build(const TuneChoice *x, const TuneChoice *y) {
  if (x->has_layout != y->has_layout || x->has_simd != y->has_simd) return false;
  if (x->has_layout && (x->layout != y->layout || (x->layout == SCHED_AOSOA && x->aosoa_width != y->aosoa_width)))
    return false;
  return !x->has_simd || x->simd == y->simd;
}

const char *tune_choice_option_text(Arena *a, const TuneChoice *c) {
  const char *t = arena_printf(a, "chunk=%u", (unsigned)c->chunk);
  if (c->has_omp) t = arena_printf(a, "%s omp-schedule=%s", t, omp_name(c->omp));
  if (c->has_steps) t = arena_printf(a, "%s steps-per-visit=%s", t, steps_text(a, c->steps));
  return t;
}

/* ---- the file ------------------------------------------------------------------------ */

static uint64_t base_hash(const TuneKey *k) {
  uint64_t h = tune_hash(TUNE_HASH_INIT, &k->program, sizeof k->program);
  h = tune_hash_str(h, k->target);
  h = tune_hash_str(h, k->cpu);
  h = tune_hash(h, &k->ncpus, sizeof k->ncpus);
  return tune_hash_str(h, k->precision);
}

const char *tune_cache_path(Arena *a, const TuneEnv *env, const TuneKey *k) {
  if (!env->cache_dir || !k->inputs) return NULL;
  return arena_printf(a, "%s/%016llx-%016llx.sched", env->cache_dir,
                      (unsigned long long)base_hash(k),
                      (unsigned long long)tune_hash_str(TUNE_HASH_INIT, k->inputs));
}

/* The key lines, in order (also what a read file must have). */
static const char *key_text(Arena *a, const TuneKey *k, const char *inputs) {
  return arena_printf(a, "program = %016llx\ntarget = %s\ncpu = %s\ncpus = %d\nprecision = %s\n"
                      "inputs = %s\n",
                      (unsigned long long)k->program, k->target, k->cpu, k->ncpus, k->precision,
                      inputs);
}

/* mkdir -p of the cache directory (0700: it is the user's). */
static bool make_dirs(Arena *a, const char *dir) {
  char *d = arena_strdup(a, dir);
  for (char *p = d + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(d, 0700) != 0 && errno != EEXIST) return false;
    *p = '/';
  }
  return mkdir(d, 0700) == 0 || errno == EEXIST;
}

bool tune_cache_write(Arena *a, const TuneEnv *env, const TuneKey *k, const TuneChoice *c,
                      const char *measured, const char **path_out, char *why, size_t n) {
  const char *path = tune_cache_path(a, env, k);
  *path_out = path;
  if (!path) {
    snprintf(why, n, "no cache directory (neither XDG_CACHE_HOME nor HOME is set)");
    return false;
  }
  if (!make_dirs(a, env->cache_dir)) {
    snprintf(why, n, "cannot create '%s': %s", env->cache_dir, strerror(errno));
    return false;
  }
  char when[32];
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  const char *body = arena_printf(
      a, "# diderotc tuned schedule (diderotc --tune): a changed file is ignored\n" FORMAT_LINE
         "\n%stuned = %s\nmeasured = %s\n[schedule]\n%s",
      key_text(a, k, k->inputs), when, measured ? measured : "", tune_choice_file_text(a, c));
  const char *text = arena_printf(a, "%schecksum = %016llx\n", body,
                                  (unsigned long long)tune_hash(TUNE_HASH_INIT, body, strlen(body)));
  /* a temporary file beside it, then rename: a reader sees the old file
   * or the whole new one, never half of it */
  char *tmp = arena_printf(a, "%s/.tune-XXXXXX", env->cache_dir);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    snprintf(why, n, "cannot create a file in '%s': %s", env->cache_dir, strerror(errno));
    return false;
  }
  size_t len = strlen(text), off = 0;
  bool ok = true;
  while (ok && off < len) {
    ssize_t w = write(fd, text + off, len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) ok = false;
    else off += (size_t)w;
  }
  int err = errno;
  if (ok && fsync(fd) != 0) ok = false, err = errno;
  if (close(fd) != 0 && ok) ok = false, err = errno;
  if (ok && rename(tmp, path) != 0) ok = false, err = errno;
  if (!ok) {
    unlink(tmp);
    snprintf(why, n, "cannot write '%s': %s", path, strerror(err));
    return false;
  }
  return true;
}

/* The whole file (at most MAX_CACHE_BYTES), or NULL. */
static char *read_all(Arena *a, const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = arena_alloc(a, MAX_CACHE_BYTES + 1);
  size_t n = fread(buf, 1, MAX_CACHE_BYTES + 1, f);
  fclose(f);
  if (n > MAX_CACHE_BYTES) return NULL;
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* The value of "name = " on the line starting at p (which must be it), or NULL. */
static const char *field(Arena *a, const char **p, const char *name) {
  size_t nl = strlen(name);
  if (strncmp(*p, name, nl) || strncmp(*p + nl, " = ", 3)) return NULL;
  const char *v = *p + nl + 3;
  const char *e = strchr(v, '\n');
  if (!e) return NULL;
  *p = e + 1;
  return arena_strndup(a, v, (size_t)(e - v));
}

/* One file against the key: NULL when it is a good entry (in *out), else why not. */
static const char *check_file(Arena *a, const char *path, const TuneKey *k, TuneEntry *out) {
  size_t len;
  char *text = read_all(a, path, &len);
  if (!text) return "unreadable or too large";
  if (strlen(text) != len) return "not a text file";
  const char *sum = NULL;
  for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
    if (!strncmp(p, "checksum = ", 11)) sum = p;
  if (!sum) return "no checksum line (truncated or not a diderotc cache file)";
  char want[32];
  snprintf(want, sizeof want, "%016llx\n",
           (unsigned long long)tune_hash(TUNE_HASH_INIT, text, (size_t)(sum - text)));
  if (strcmp(sum + 11, want)) return "the checksum does not match (corrupted or truncated)";
  const char *p = strchr(text, '\n');
  if (!p || text[0] != '#') return "not a diderotc cache file";
  p++;
  if (strncmp(p, FORMAT_LINE "\n", sizeof FORMAT_LINE)) return "another format (another diderotc?)";
  p += sizeof FORMAT_LINE;
  const char *keyline = p;
  const char *prog = field(a, &p, "program"), *target = field(a, &p, "target");
  const char *cpu = field(a, &p, "cpu"), *cpus = field(a, &p, "cpus");
  const char *prec = field(a, &p, "precision"), *inputs = field(a, &p, "inputs");
  if (!prog || !target || !cpu || !cpus || !prec || !inputs) return "malformed key lines";
  const char *mine = key_text(a, k, k->inputs ? k->inputs : inputs);
  if (strncmp(keyline, mine, strlen(mine)))
    return "its key is another program's, target's, machine's, precision's or inputs' (foreign)";
  const char *when = field(a, &p, "tuned"), *measured = field(a, &p, "measured");
  if (!when || !measured || strncmp(p, "[schedule]\n", 11)) return "malformed header";
  p += 11;
  const char *vals = arena_strndup(a, p, (size_t)(sum - p));
  Schedule s;
  schedule_init(&s);
  SchedDiag d;
  schedule_diag_init(&d, a);
  if (!schedule_parse_text(a, path, vals, &s, &d) || d.nerrors)
    return arena_printf(a, "bad schedule values (%s)", d.head ? d.head->text : "?");
  /* only the run-time keys are ever tuned, and from --tune=full the
   * structural ones a build of the same LowIR can change */
  for (int q = 0; q < SCHED_NPARAMS; q++)
    if (s.why[q].source != SCHED_UNSET && q != SCHED_P_CHUNK && q != SCHED_P_OMP_SCHEDULE &&
        q != SCHED_P_STEPS && q != SCHED_P_STRAND_LAYOUT && q != SCHED_P_SIMD)
      return arena_printf(a, "key '%s' is not a run-time key", schedule_key((SchedParam)q));
  if (s.why[SCHED_P_CHUNK].source == SCHED_UNSET) return "no chunk";
  out->path = path;
  out->inputs = inputs;
  out->when = when;
  out->measured = measured;
  out->values = s;
  return NULL;
}

static void warn_ignored(FILE *warn, const char *path, const char *why) {
  if (warn) fprintf(warn, "diderotc: warning: schedule cache '%s': %s: ignored\n", path, why);
}

/* The entries of k's program, target, machine and precision, whatever their
 * inputs: with near, the one whose inputs are nearest to near's (comparable
 * ones only; the newest of equals), else the newest. */
static bool scan_entries(Arena *a, const TuneEnv *env, const TuneKey *k, const char *near,
                         TuneEntry *out, FILE *warn) {
  DIR *dir = opendir(env->cache_dir);
  if (!dir) return false;
  TuneKey any = *k;
  any.inputs = NULL;
  char prefix[24];
  snprintf(prefix, sizeof prefix, "%016llx-", (unsigned long long)base_hash(k));
  bool found = false;
  time_t newest = 0;
  double best = 0;
  struct dirent *de;
  while ((de = readdir(dir))) {
    size_t nl = strlen(de->d_name);
    if (strncmp(de->d_name, prefix, 17) || nl < 6 || strcmp(de->d_name + nl - 6, ".sched")) continue;
    const char *path = arena_printf(a, "%s/%s", env->cache_dir, de->d_name);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
    TuneEntry e;
    const char *why = check_file(a, path, &any, &e);
    if (why) {
      warn_ignored(warn, path, why);
      continue;
    }
    double d = near ? tune_inputs_distance(near, e.inputs) : 0;
    if (d < 0) continue;
    if (!found || d < best || (d == best && st.st_mtime > newest)) {
      *out = e;
      newest = st.st_mtime;
      best = d;
      found = true;
    }
  }
  closedir(dir);
  return found;
}

bool tune_cache_lookup(Arena *a, const TuneEnv *env, const TuneKey *k, bool nearest,
                       TuneEntry *out, FILE *warn) {
  if (!env->cache_dir) return false;
  if (!k->inputs) return scan_entries(a, env, k, NULL, out, warn);
  const char *path = tune_cache_path(a, env, k);
  if (access(path, F_OK) == 0) {
    const char *why = check_file(a, path, k, out);
    if (!why) return true;
    warn_ignored(warn, path, why);
  }
  return nearest && scan_entries(a, env, k, k->inputs, out, warn);
}

/* ---- choices and the record ---------------------------------------------------------- */

void tune_choice_of_entry(const TuneEntry *e, TuneChoice *c) {
  memset(c, 0, sizeof *c);
  const Schedule *s = &e->values;
  c->chunk = s->chunk;
  c->has_omp = s->why[SCHED_P_OMP_SCHEDULE].source != SCHED_UNSET;
  c->omp = s->omp_schedule;
  c->has_steps = s->why[SCHED_P_STEPS].source != SCHED_UNSET;
  c->steps = s->steps;
  c->has_layout = s->why[SCHED_P_STRAND_LAYOUT].source != SCHED_UNSET;
  c->layout = s->strand_layout;
  c->aosoa_width = s->aosoa_width;
  /* simd = off is --scalar: never a tuned value */
  c->has_simd = s->why[SCHED_P_SIMD].source != SCHED_UNSET && !s->scalar_asked;
  c->simd = s->simd_ask == SCHED_ASK_WITHIN ? SCHED_SIMD_WITHIN : SCHED_SIMD_STRANDS;
}

/* The user's own choices (a flag or a --schedule file) are never replaced. */
static bool replaceable(const Schedule *s, SchedParam p) {
  SchedSource src = s->why[p].source;
  return src == SCHED_DEFAULT || src == SCHED_HEURISTIC || src == SCHED_CACHE;
}

void tune_apply(const TuneChoice *c, SchedSource src, const char *reason, Schedule *s) {
  if (c->chunk && replaceable(s, SCHED_P_CHUNK)) {
    s->chunk = c->chunk;
    schedule_set(s, SCHED_P_CHUNK, src, reason);
  }
  if (c->has_omp && replaceable(s, SCHED_P_OMP_SCHEDULE)) {
    s->omp_schedule = c->omp;
    schedule_set(s, SCHED_P_OMP_SCHEDULE, src, reason);
  }
  if (c->has_steps && replaceable(s, SCHED_P_STEPS)) {
    s->steps = c->steps;
    schedule_set(s, SCHED_P_STEPS, src, reason);
  }
  if (c->has_layout && replaceable(s, SCHED_P_STRAND_LAYOUT)) {
    s->strand_layout = c->layout;
    s->aosoa_width = c->layout == SCHED_AOSOA ? c->aosoa_width : 1;
    schedule_set(s, SCHED_P_STRAND_LAYOUT, src, reason);
  }
  if (c->has_simd && replaceable(s, SCHED_P_SIMD)) {
    s->simd = c->simd;
    s->simd_ask = c->simd == SCHED_SIMD_WITHIN ? SCHED_ASK_WITHIN : SCHED_ASK_STRANDS;
    schedule_set(s, SCHED_P_SIMD, src, reason);
  }
}
