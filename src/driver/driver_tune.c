/* driver_tune.c -- --tune and the tuned-schedule cache in a compilation
 * (driver_tune.h; doc/user-guide.md "Tuning").
 *
 * A plain compile looks the program up in the cache and, on a hit, takes
 * its run-time values (source CACHE). --tune builds the program once with
 * the default schedule in a work directory of its own, lets src/tune run
 * the candidates on the --tune-args command line, writes the winner to the
 * cache and builds the output with it compiled in (source TUNER); with an
 * exact cache hit it tunes nothing and says so.
 */
#include "driver/driver_tune.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "driver/driver_schedule.h"

/* ---- the environment, once ---------------------------------------------------------- */

static const char *cpu_model(Arena *a) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return "unknown";
  char line[512];
  const char *m = "unknown";
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10)) continue;
    const char *c = strchr(line, ':');
    if (!c) continue;
    c++;
    c += strspn(c, " \t");
    m = arena_strndup(a, c, strcspn(c, "\r\n"));
    break;
  }
  fclose(f);
  return m;
}

TuneEnv driver_tune_env(Arena *a, char **environ_) {
  TuneEnv e = {0};
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME"), *tmp = getenv("TMPDIR");
  /* the XDG base directory rules: a relative XDG_CACHE_HOME is ignored; a
   * folder of its own, since the Python package keeps its builds in
   * diderot/ too */
  if (xdg && xdg[0] == '/') e.cache_dir = arena_printf(a, "%s/diderot/tune", xdg);
  else if (home && home[0]) e.cache_dir = arena_printf(a, "%s/.cache/diderot/tune", home);
  e.tmp_dir = tmp && tmp[0] ? arena_strdup(a, tmp) : "/tmp";
  int n = 0;
  while (environ_ && environ_[n]) n++;
  char **env = arena_alloc(a, ((size_t)n + 1) * sizeof *env);
  int k = 0;
  /* the program's own schedule variables would override the candidates' */
  for (int i = 0; i < n; i++)
    if (strncmp(environ_[i], "DIDEROT_SCHED_", 14)) env[k++] = arena_strdup(a, environ_[i]);
  env[k] = NULL;
  e.child_env = env;
  e.cpu_model = cpu_model(a);
  long c = sysconf(_SC_NPROCESSORS_ONLN);
  e.ncpus = c > 0 ? (int)c : 1;
  return e;
}

const char *driver_tune_check_options(const DriverOptions *o) {
  if (!o->tune) /* --tune-args alone selects a cache entry */
    return o->tune_steps ? "--tune-steps is for --tune (the tuning runs)" : NULL;
  if (o->target != TARGET_SEQ && o->target != TARGET_OMP)
    return "--tune supports --target=seq and --target=omp only in this version";
  if (!o->tune_args) return "--tune needs --tune-args \"ARGS...\" (the program's command line, inputs included)";
  return NULL;
}

/* ---- the key ------------------------------------------------------------------------ */

/* h extended by the bytes of `path` (unchanged when it cannot be read). */
static uint64_t hash_file(uint64_t h, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return h;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) h = tune_hash(h, buf, n);
  fclose(f);
  return h;
}

static uint64_t program_hash(Arena *a, const DriverOptions *o, const char *cflags) {
  uint64_t h = hash_file(tune_hash_str(TUNE_HASH_INIT, PACKAGE_VERSION), o->file);
  /* the options that change the code (the others, -o and the like, do not) */
  const char *opts = arena_printf(
      a, "t%d s%d d%d l%d sc%d ss%d sw%d det%d O%d sf%d sl=%s il=%s", (int)o->target, o->snapshot,
      o->double_real, o->long_int, o->scalar, o->simd_strands, o->simd_within, o->deterministic,
      o->opt_level, o->schedule != NULL, o->strand_layout ? o->strand_layout : "", o->image_layout ? o->image_layout : "");
  h = tune_hash_str(h, opts);
  for (int i = 0; i < o->ndefines; i++) h = tune_hash_str(h, o->defines[i]);
  for (const ConstOverride *c = o->consts; c; c = c->next) {
    h = tune_hash_str(h, c->name);
    h = tune_hash_str(h, c->value);
  }
  for (int i = 0; i < o->ninternal; i++) h = tune_hash_str(h, o->internal[i]);
  h = tune_hash_str(h, cflags);
  if (o->schedule) h = hash_file(h, o->schedule); /* the --schedule file's text, not its name */
  return h;
}

/* Whether the words give the input `name` (-name or --name). */
static bool gives_input(char **w, int n, const char *name) {
  for (int i = 0; i < n; i++) {
    const char *x = w[i];
    if (x[0] != '-') continue;
    x += x[1] == '-' ? 2 : 1;
    if (!strcmp(x, name)) return true;
  }
  return false;
}

/* The tune arguments as run (outputs removed, paths absolute); false with
 * the message printed. The runs are in the tuner's own directory, where
 * an input's default file named relative to the current directory
 * (examples/mip's "../data/blobs.nrrd") is not: such an input not in the
 * arguments is given its file by absolute path, as a run from here would
 * read it (and the cache's inputs signature then holds that file too). */
static bool tune_words(Arena *a, const DriverOptions *o, const IrModule *low, char ***args,
                       int *nargs) {
  char **w;
  int nw;
  char why[512];
  if (!tune_split_args(a, o->tune_args, &w, &nw, why, sizeof why) ||
      !tune_prepare_args(a, w, nw, args, nargs, why, sizeof why)) {
    fprintf(stderr, "diderotc: error: %s\n", why);
    return false;
  }
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) return true; /* tune_prepare_args said so already */
  int extra = 0;
  for (int g = 0; g < low->nglobals; g++) extra += low->globals[g]->path != NULL;
  if (!extra) return true;
  char **all = arena_alloc(a, ((size_t)*nargs + 2 * (size_t)extra + 1) * sizeof *all);
  memcpy(all, *args, (size_t)*nargs * sizeof *all);
  int n = *nargs;
  for (int g = 0; g < low->nglobals; g++) {
    const IrGlobal *in = low->globals[g];
    if (in->kind != IR_GLOBAL_INPUT || !in->has_default || !in->path || in->path[0] == '/' ||
        gives_input(*args, *nargs, in->name))
      continue;
    const char *file = arena_printf(a, "%s/%s", cwd, in->path);
    if (access(file, R_OK) != 0) continue; /* the default run then says what is missing */
    all[n++] = arena_printf(a, "-%s", in->name);
    all[n++] = (char *)file;
  }
  all[n] = NULL;
  *args = all, *nargs = n;
  return true;
}

static const char *base_of(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* The executable's name as the final build gives it (its messages name it). */
static const char *exe_name(Arena *a, const DriverOptions *o) {
  if (o->output) return base_of(o->output);
  const char *b = base_of(o->file);
  const char *dot = strrchr(b, '.');
  return dot ? arena_strndup(a, b, (size_t)(dot - b)) : b;
}

/* ---- the build ---------------------------------------------------------------------- */

/* --tune=full's structural candidates: the same LowIR built under the
 * candidate's strand layout or SIMD mode, each in a folder of its own in
 * the work directory under the default build's name (a program's
 * messages name it, and the runs' printed text is compared). */
typedef struct VariantBuilds {
  Arena *a;
  IrModule *low;
  const DriverOptions *o;
  const Schedule *s;          /* the default schedule */
  const TargetOptions *base;  /* the default build's options */
  const char *work, *name;
  int n;
} VariantBuilds;

static const char *build_variant(void *ctx, const TuneChoice *c, char *why, size_t n) {
  VariantBuilds *v = ctx;
  Schedule *s2 = arena_alloc(v->a, sizeof *s2);
  *s2 = *v->s;
  TargetOptions t3 = *v->base;
  const char *bad = NULL;
  if (!driver_schedule_overlay(v->a, v->low, v->o, s2, &t3.emit, c, SCHED_TUNER,
                               "a --tune=full candidate", &bad)) {
    snprintf(why, n, "%s", bad);
    return NULL;
  }
  const char *dir = arena_printf(v->a, "%s/build%d", v->work, v->n++);
  if (mkdir(dir, 0700) != 0) {
    snprintf(why, n, "cannot create '%s': %s", dir, strerror(errno));
    return NULL;
  }
  t3.output = arena_printf(v->a, "%s/%s", dir, v->name);
  if (target_build(v->a, v->low, &t3) != 0) {
    snprintf(why, n, "diderotc could not build it (its messages are above)");
    return NULL;
  }
  return t3.output;
}

/* e's values into the schedule; inputs: those of the compile (NULL: any),
 * to say when e was tuned on others (the nearest). */
static bool apply_entry(Arena *a, IrModule *low, const DriverOptions *o, Schedule *s,
                        TargetOptions *to, const TuneEntry *e, const char *inputs) {
  TuneChoice c;
  tune_choice_of_entry(e, &c);
  const char *why = NULL;
  const char *reason = arena_printf(a, "%s (tuned %s on inputs: %s)", e->path, e->when, e->inputs);
  if (!driver_schedule_overlay(a, low, o, s, &to->emit, &c, SCHED_CACHE, reason, &why)) {
    fprintf(stderr, "diderotc: warning: schedule cache '%s': %s: ignored\n", e->path, why);
    return false;
  }
  if (o->verbose) {
    if (inputs && strcmp(inputs, e->inputs))
      fprintf(stderr, "diderotc: schedule from the cache '%s' (the nearest inputs: %s)\n", e->path,
              e->inputs);
    else
      fprintf(stderr, "diderotc: schedule from the cache '%s'\n", e->path);
  }
  return true;
}

int driver_tune_build(Arena *a, IrModule *low, const DriverOptions *o, const TuneEnv *env,
                      const char *cflags, Schedule *s, TargetOptions *to, bool dump_only) {
  TuneKey k = {.program = program_hash(a, o, cflags),
               .target = o->target == TARGET_OMP ? "omp" : "seq",
               .cpu = env->cpu_model,
               .ncpus = env->ncpus,
               .precision = arena_printf(a, "%s%s", o->double_real ? "double" : "float",
                                         o->long_int ? ",long-int" : "")};
  /* the C targets only; a library only with --tune-args: its host decides
   * its runs, so only the host's inputs named there select an entry */
  bool tunable = (o->exec || o->tune_args) && (o->target == TARGET_SEQ || o->target == TARGET_OMP);
  char **args = NULL;
  int nargs = 0;
  if (o->tune_args && tunable) {
    if (!tune_words(a, o, low, &args, &nargs)) return 2;
    for (int i = 0; o->tune_steps && i < nargs; i++)
      if (!strcmp(args[i], "-l") || !strcmp(args[i], "--limit")) {
        fprintf(stderr, "diderotc: error: --tune-steps and '%s' in --tune-args both limit the "
                        "super-steps: give one\n", args[i]);
        return 2;
      }
    k.inputs = tune_inputs_signature(a, args, nargs);
  }
  TuneEntry e;
  /* --tune tunes on inputs it has no entry for; a plain compile takes the
   * entry of the nearest inputs */
  bool hit = tunable && tune_cache_lookup(a, env, &k, !o->tune, &e, stderr) &&
             apply_entry(a, low, o, s, to, &e, k.inputs);
  if (dump_only) return 0;
  if (!o->tune) return target_build(a, low, to);
  if (hit) {
    fprintf(stderr, "diderotc: tune: cache hit '%s' (tuned %s): no tuning\n", e.path, e.when);
    return target_build(a, low, to);
  }
  /* the work directory: the default build and every run's outputs */
  char *work = arena_printf(a, "%s/diderotc-tune-XXXXXX", env->tmp_dir);
  if (!mkdtemp(work)) {
    fprintf(stderr, "diderotc: error: --tune: cannot create a directory in '%s': %s\n",
            env->tmp_dir, strerror(errno));
    return 1;
  }
  /* the program the candidates run: an executable, also for a library
   * (whose worlds run the same code; the cache key does not hold --exec) */
  TargetOptions t2 = *to;
  t2.output = arena_printf(a, "%s/%s", work, exe_name(a, o));
  t2.emit.exec = true;
  t2.shared_lib = t2.json = false;
  t2.keep_c = false;
  t2.phase_done = NULL;
  TuneMode mode = o->tune == 2 ? TUNE_FULL : TUNE_QUICK;
  VariantBuilds vb = {a, low, o, s, &t2, work, exe_name(a, o), 0};
  TuneRunner r = {.arena = a, .env = env, .exe = t2.output, .args = args, .nargs = nargs, .work = work,
                  .steps = o->tune_steps, .build = mode == TUNE_FULL ? build_variant : NULL,
                  .build_ctx = &vb};
  int status = target_build(a, low, &t2);
  if (status) {
    tune_run_cleanup(&r);
    return status;
  }
  TuneSpace sp;
  tune_space_of(s, &sp);
  TuneOutcome out;
  char why[1024];
  bool ok = tune_search(&r, &sp, mode, mode == TUNE_FULL ? 60.0 : 10.0, o->verbose ? stderr : NULL,
                        &out, why, sizeof why);
  tune_run_cleanup(&r);
  if (!ok) {
    fprintf(stderr, "diderotc: error: --tune: the run with --tune-args and the default schedule "
            "failed: %s\n", why);
    return 1;
  }
  const char *choice = tune_choice_text(a, &out.best);
  double ratio = out.t_best > 0 ? out.t_default / out.t_best : 1;
  const char *measured = arena_printf(
      a, "default %.6f s, tuned %.6f s (%.2fx; the least of each one's runs), %d runs of %d "
         "candidates, %d refused, %.1f s of tuning%s%s",
      out.t_default, out.t_best, ratio, out.runs, out.candidates, out.refused, out.seconds,
      out.budget_hit ? " (budget reached)" : "",
      o->tune_steps ? arena_printf(a, ", runs of the first %u super-steps", o->tune_steps) : "");
  const char *path = NULL;
  char werr[512];
  bool cached = tune_cache_write(a, env, &k, &out.best, measured, &path, werr, sizeof werr);
  if (!cached) fprintf(stderr, "diderotc: warning: --tune: not cached: %s\n", werr);
  const char *reason =
      arena_printf(a, "diderotc --tune=%s: %.2fx the default's run on the --tune-args inputs",
                   mode == TUNE_FULL ? "full" : "quick", ratio);
  const char *bad = NULL;
  if (!driver_schedule_overlay(a, low, o, s, &to->emit, &out.best, SCHED_TUNER, reason, &bad)) {
    fprintf(stderr, "diderotc: internal error: the tuned schedule is refused: %s\n", bad);
    return 70;
  }
  fprintf(stderr, "diderotc: tuned in %.1f s (%s): %s%s%s\n", out.seconds, measured, choice,
          cached ? "; cached in " : "", cached ? path : "");
  if (out.refusal && o->verbose)
    fprintf(stderr, "diderotc: tune: first refused: %s\n", out.refusal);
  return target_build(a, low, to);
}
