/* main.c -- the diderotc driver: the pipeline, top to bottom.
 *
 *   options → source → lexer/parser (AST) → typechecker
 *           → HighIR → MidIR → LowIR → C (src/backend) → cc
 *
 * Exit status: 0 success, 1 errors in the program, 2 usage errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <time.h>

#include "config.h"
#include "driver/options.h"
#include "frontend/ast_print.h"
#include "frontend/parser.h"
#include "frontend/typecheck.h"
#include "backend/backend.h"
#include "driver/driver_schedule.h"
#include "driver/driver_tune.h"
#include "opt/mid_opt.h"
#include "opt/high_opt.h"
#include "translate/ast_to_high.h"
#include "translate/high_to_mid.h"
#include "translate/mid_to_low.h"
#include "util/diag.h"

enum { EXIT_PROGRAM_ERROR = 1, EXIT_USAGE = 2, EXIT_INTERNAL = 70 };

static void driver_print_version(void) {
  /* "vis15": the original compiler's branch for this language; tools such as
   * the examples' dprobe check for it */
  printf("diderotc %s (Diderot language versions 1.0 and 2.0, as the vis15 compiler)\n",
         PACKAGE_VERSION);
}

static void driver_print_about(void) {
  printf(
      "Diderot is a language for image analysis and scientific visualisation:\n"
      "programs compute with tensors and with continuous tensor fields\n"
      "reconstructed from NRRD images by convolution with kernels, differentiate\n"
      "them, and run many strands in bulk-synchronous super-steps.\n");
}

/* A message that belongs to no source position ("diderotc: error: ..."). */
static int driver_usage_error(const char *msg, const char *arg) {
  fprintf(stderr, "diderotc: error: ");
  fprintf(stderr, msg, arg);
  fputc('\n', stderr);
  return EXIT_USAGE;
}

static bool driver_has_extension(const char *path) {
  size_t n = strlen(path);
  return (n > 8 && !strcmp(path + n - 8, ".diderot")) || (n > 5 && !strcmp(path + n - 5, ".ddro"));
}

/* The directory part of `path` ("." when there is none): proxy image
 * names in the program are relative to the source file. */
static const char *driver_dirname(Arena *a, const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? arena_strndup(a, path, (size_t)(slash - path) + (slash == path)) : ".";
}

static bool driver_internal(const DriverOptions *o, const char *name);

/* Combinations the reference also refuses ("inconsistent options"); then
 * the schedule record from --schedule and the flags (driver_schedule.c). */
static int driver_check_options(Arena *a, const DriverOptions *o, Schedule *sched) {
  if (o->exec && (o->json || o->static_lib || o->shared_lib))
    return driver_usage_error("inconsistent options: %s", "--exec with --json, --static or --shared");
  if (o->static_lib && o->shared_lib)
    return driver_usage_error("inconsistent options: %s", "--static with --shared");
  if (o->cuda_emulate && o->target != TARGET_CUDA)
    return driver_usage_error("inconsistent options: %s", "--cuda-emulate without --target=cuda");
  const char *tune_bad = driver_tune_check_options(o);
  if (tune_bad) return driver_usage_error("%s", tune_bad);
  int status = 0;
  driver_schedule_begin(a, o, driver_internal(o, "force-bsp"), driver_internal(o, "no-loop-lanes"),
                        sched, &status);
  return status;
}

/* --exec: an input `x` is the option -x, and the executable's later
 * options shadow the short names of earlier ones (rt_cli.c): inputs take
 * -h, -l, -n, ... from the standard options (which keep --help, --limit,
 * --nworkers, ...), but the output file option -o (one output) and the
 * snapshot prefix -sp (one output, --snapshot) come after the inputs and
 * have no other spelling that an input could keep, so an input named o or
 * sp could never be set. False (and errors) when one is. */
static bool driver_check_exec_inputs(DiagCtx *diag, const Program *prog, const DriverOptions *o) {
  int nout = 0;
  for (const Decl *d = prog->strand ? prog->strand->state.head : NULL; d; d = d->next)
    nout += d->is_output;
  bool ok = true;
  for (const Decl *d = prog->globals.head; d && nout == 1; d = d->next) {
    if (d->kind != D_INPUT || !d->name) continue;
    const char *what = !strcmp(d->name, "o")                 ? "output file"
                       : o->snapshot && !strcmp(d->name, "sp") ? "snapshot prefix"
                                                               : NULL;
    if (!what) continue;
    diag_report(diag, ERR_INPUT_OPTION_CLASH, d->name_span, d->name, d->name, what);
    ok = false;
  }
  return ok;
}

/* Whether internal control `name` (-H) was given. */
static bool driver_internal(const DriverOptions *o, const char *name) {
  for (int i = 0; i < o->ninternal; i++)
    if (!strcmp(o->internal[i], name)) return true;
  return false;
}

/* Whether every internal control given is honoured by a built phase. */
static bool driver_internal_supported(const DriverOptions *o) {
  static const char *const known[] = {"disable-split",  "disable-slice",      "disable-sum-binding",
                                      "disable-mid-vn", "disable-low-vn",     "no-space-partition", "force-bsp",
                                      "check-ir", "no-loop-lanes"};
  for (int i = 0; i < o->ninternal; i++) {
    bool ok = false;
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
      ok = ok || !strcmp(o->internal[i], known[k]);
    if (!ok) return false;
  }
  return true;
}

/* Everything after typechecking is refused explicitly until it is built. */
static const char *driver_unbuilt_request(const DriverOptions *o) {
  if (o->dump & DUMP_TREE) return "--dump=tree (there is no TreeIR: use --dump=low)";
  if (!driver_internal_supported(o)) return "internal compiler controls";
  return NULL;
}

/* An IR that fails ir_check is a compiler bug: "internal error", status 70. */
static bool driver_ir_ok(IrModule *m, const char *when) {
  IrCheck chk = {0};
  if (!ir_check_module(m, &chk)) return true;
  fprintf(stderr, "diderotc: internal error: %s: %s\n", when, chk.first);
  return false;
}

/* Seconds of `clock` (CLOCK_MONOTONIC: wall; CLOCK_PROCESS_CPUTIME_ID:
 * this process's CPU time, which a loaded machine does not inflate) since
 * an arbitrary origin, for the --stats time lines. */
static double driver_now(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* What runs after every pass (the IrPassHook of the pass drivers): the
 * --stats size line, and with -H --check-ir or DIDEROT_CHECK_IR=1 the IR
 * checker, whose first failure ends the compilation as an internal error. */
typedef struct DriverWatch {
  bool stats, check;
  bool failed;
  double start, start_cpu; /* driver_now() when main started */
  /* when the last phase ended: wall, this process's CPU, its children's
   * CPU (the C compiler's) */
  double last, last_cpu, last_child_cpu;
  double pass_cpu;         /* this process's CPU when the last pass or phase ended */
  FILE *log;               /* --log: NAME.log, or NULL */
  const Arena *arena;      /* the compiler's arena, for the memory lines */
} DriverWatch;

/* "stats: size PASS blocks B instrs I phis P ein-ops E ein-nodes N", plus
 * "expanded X" (mid_module_cost) at MidIR. Stable: doc/user-guide.md. */
static void driver_size_line(FILE *f, const char *pass, IrModule *m) {
  IrSize s = ir_module_size(m);
  fprintf(f, "stats: size %s blocks %zu instrs %zu phis %zu ein-ops %zu ein-nodes %zu", pass,
          s.blocks, s.instrs, s.phis, s.ein_ops, s.ein_nodes);
  if (m->level == IR_MID) fprintf(f, " expanded %lu", mid_module_cost(m));
  fputc('\n', f);
}

static void driver_after_pass(void *ctx, const char *pass, IrModule *m) {
  DriverWatch *w = ctx;
  /* "stats: pass PASS cpu SECONDS": this pass alone (from the end of the
   * previous pass or phase; the size lines and checks are not counted),
   * to find which pass of a phase grows with the program (issue 37) */
  double cpu = driver_now(CLOCK_PROCESS_CPUTIME_ID);
  if (!w->pass_cpu) w->pass_cpu = w->last_cpu ? w->last_cpu : w->start_cpu;
  if (w->stats) fprintf(stderr, "stats: pass %s cpu %.6f\n", pass, cpu - w->pass_cpu);
  if (w->log) fprintf(w->log, "stats: pass %s cpu %.6f\n", pass, cpu - w->pass_cpu);
  if (w->stats) driver_size_line(stderr, pass, m);
  if (w->log) driver_size_line(w->log, pass, m);
  if (w->check && !w->failed) {
    char when[96];
    snprintf(when, sizeof when, "IR check after %s", pass);
    w->failed = !driver_ir_ok(m, when);
  }
  w->pass_cpu = driver_now(CLOCK_PROCESS_CPUTIME_ID);
}

/* The CPU seconds of the children waited for (the C compiler). */
static double driver_child_cpu(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_CHILDREN, &ru)) return 0;
  return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
         1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/* "stats: time PHASE wall W cpu C", cumulative from the start, and
 * "stats: phase PHASE wall W cpu C", the seconds of this phase alone (its
 * cpu: this process's and the C compiler's), on stderr with --stats and
 * in the log. */
static void driver_time_line(DriverWatch *w, const char *what) {
  double wall = driver_now(CLOCK_MONOTONIC), cpu = driver_now(CLOCK_PROCESS_CPUTIME_ID);
  double child = driver_child_cpu();
  if (!w->last) w->last = w->start, w->last_cpu = w->start_cpu;
  for (int k = 0; k < 2; k++) {
    FILE *f = k == 0 ? (w->stats ? stderr : NULL) : w->log;
    if (!f) continue;
    fprintf(f, "stats: time %s wall %.6f cpu %.6f\n", what, wall - w->start, cpu - w->start_cpu);
    fprintf(f, "stats: phase %s wall %.6f cpu %.6f\n", what, wall - w->last,
            cpu - w->last_cpu + child - w->last_child_cpu);
    if (w->arena) fprintf(f, "stats: memory %s arena %zu\n", what, arena_bytes_used(w->arena));
  }
  w->last = wall, w->last_cpu = cpu, w->last_child_cpu = child;
  w->pass_cpu = cpu;
}

static void driver_phase_done(void *ctx, const char *phase) { driver_time_line(ctx, phase); }

/* --log: NAME.log beside the output (the compiler log, doc/diderotc.1):
 * the version and command line, then the IR size after every pass, the
 * phase times, the files written and the C compiler's commands and exit
 * statuses, and the final status. NULL (with a warning) when it cannot be
 * written: the log must not stop a compilation. */
static FILE *driver_open_log(Arena *a, const DriverOptions *o, int argc, char **argv) {
  const char *path = arena_printf(a, "%s.log", target_stem(a, o->file, o->output, o->exec));
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "diderotc: warning: cannot write the log '%s': %s\n", path, strerror(errno));
    return NULL;
  }
  fprintf(f, "diderotc %s\ncommand:", PACKAGE_VERSION);
  for (int i = 0; i < argc; i++) fprintf(f, " %s", argv[i]);
  fprintf(f, "\nsource: %s\ntarget: %s%s\n", o->file, options_target_name(o->target),
          o->exec ? " executable" : o->shared_lib ? " shared library" : " library");
  return f;
}

/* Typed AST → HighIR → HighIR optimisation, with --dump=high (both
 * versions, on stdout) and --stats (on stderr). NULL with *status set when
 * it fails. */
static IrModule *driver_high(Arena *arena, DiagCtx *diag, Program *prog, const DriverOptions *o,
                             EinContext *ec, DriverWatch *w, int *status) {
  HighTranslateOptions ho = {.long_int = o->long_int, .double_real = o->double_real};
  const char *internal = NULL;
  IrModule *high = ast_to_high(arena, diag, ec, prog, &ho, &internal);
  diag_flush(diag);
  *status = EXIT_INTERNAL;
  if (!high) {
    if (internal) fprintf(stderr, "diderotc: internal error: %s\n", internal);
    else *status = EXIT_PROGRAM_ERROR;
    return NULL;
  }
  if (!driver_ir_ok(high, "HighIR after translation")) return NULL;
  IrPassHook hook = {driver_after_pass, w};
  driver_after_pass(w, "high.translate", high);
  if (o->dump & DUMP_HIGH) {
    printf("==== HighIR after translation\n");
    ir_print_module(stdout, high, 0);
  }
  HighOptStats st;
  bool ok = high_opt_hooked(high, ec, diag, &st, &hook);
  diag_flush(diag);
  if (w->failed || !driver_ir_ok(high, "HighIR after optimisation")) return NULL;
  if (o->dump & DUMP_HIGH) {
    printf("==== HighIR after optimisation\n");
    ir_print_module(stdout, high, 0);
  }
  if (o->stats) high_opt_stats_print(stderr, &st);
  driver_time_line(w, "high");
  *status = ok ? 0 : EXIT_PROGRAM_ERROR;
  return ok ? high : NULL;
}

/* HighIR → MidIR → split/slice/summation binding/VN/DCE (-H --disable-*),
 * with --dump=mid (stdout) and --stats (stderr). NULL with *status set when
 * it fails. */
static IrModule *driver_mid(DiagCtx *diag, IrModule *high, const DriverOptions *o, EinContext *ec,
                            DriverWatch *w, int *status) {
  HighToMidStats hs = {0};
  IrModule *mid = high_to_mid(high, ec, diag, &hs);
  diag_flush(diag);
  *status = EXIT_PROGRAM_ERROR;
  if (!mid) return NULL;
  *status = EXIT_INTERNAL;
  if (!driver_ir_ok(mid, "MidIR after translation")) return NULL;
  IrPassHook hook = {driver_after_pass, w};
  driver_after_pass(w, "mid.translate", mid);
  MidOptOpts mo = mid_opt_defaults();
  mo.split = !driver_internal(o, "disable-split");
  mo.slice = !driver_internal(o, "disable-slice");
  mo.sum_binding = !driver_internal(o, "disable-sum-binding");
  mo.vn = !driver_internal(o, "disable-mid-vn");
  MidOptStats ms = {0};
  mid_optimize_hooked(mid, ec, &mo, &ms, &hook);
  if (w->failed || !driver_ir_ok(mid, "MidIR after optimisation")) return NULL;
  if (o->dump & DUMP_MID) {
    printf("==== MidIR after optimisation\n");
    ir_print_module(stdout, mid, 0);
  }
  if (o->stats) {
    fprintf(stderr, "stats: count mid.probes %lu\nstats: count mid.insides %lu\n"
            "stats: count mid.fused-fields %lu\nstats: count mid.renormalized-ops %lu\n",
            hs.probes, hs.insides, hs.fused_fields, hs.norm.ops);
    for (int k = 0; k < EIN_RULE_COUNT; k++)
      if (hs.norm.fired[k])
        fprintf(stderr, "stats: rule mid %s %lu\n", ein_rule_name((EinRuleId)k), hs.norm.fired[k]);
    mid_opt_stats_print(stderr, &ms);
  }
  driver_time_line(w, "mid");
  *status = 0;
  return mid;
}

/* MidIR → LowIR (expansion, image samples in bricks of `brick` when it is
 * not 0, with a halo when `halo`), then VN (unless -H --disable-low-vn) and DCE run here as passes
 * of their own (so the hook sees each), with --dump=low (stdout) and
 * --stats (stderr). NULL with *status set when it fails. */
static IrModule *driver_low(DiagCtx *diag, IrModule *mid, const DriverOptions *o, int brick,
                            bool halo, DriverWatch *w, int *status) {
  MidToLowOptions lo = {.no_vn = true, .no_dce = true, .brick = brick, .halo = halo};
  MidToLowStats ls;
  IrModule *low = mid_to_low(mid, diag, &lo, &ls);
  diag_flush(diag);
  *status = EXIT_PROGRAM_ERROR;
  if (!low) return NULL;
  *status = EXIT_INTERNAL;
  if (!driver_ir_ok(low, "LowIR after lowering")) return NULL;
  driver_after_pass(w, "low.translate", low);
  if (!driver_internal(o, "disable-low-vn")) {
    ls.vn_removed = ir_vn_module(low);
    driver_after_pass(w, "low.vn", low);
  }
  ls.dce_removed = ir_dce_module(low);
  driver_after_pass(w, "low.dce", low);
  if (w->failed || !driver_ir_ok(low, "LowIR after VN and DCE")) return NULL;
  if (o->dump & DUMP_LOW) {
    printf("==== LowIR\n");
    ir_print_module(stdout, low, 0);
  }
  if (o->stats)
    fprintf(stderr, "stats: count low.ein-expanded %d\nstats: count low.kernel-evals %d\n"
            "stats: count low.voxel-loads %d\nstats: count low.vn-removed %d\n"
            "stats: count low.dce-removed %d\n",
            ls.ein_expanded, ls.kernel_evals, ls.voxel_loads, ls.vn_removed, ls.dce_removed);
  driver_time_line(w, "low");
  *status = 0;
  return low;
}

/* The middle end and the C back end: typed AST → HighIR → MidIR → LowIR →
 * C → cc. Returns the exit status. */
/* The environment, read once here: the back end gets what it needs in
 * TargetOptions.env, nothing below the driver calls getenv. */
typedef struct DriverEnv {
  CcEnv cc;          /* the C compiler runs (backend/cc.h) */
  bool cuda_emulate; /* DIDEROT_CUDA_EMULATE=1: as --cuda-emulate */
  bool check_ir;     /* DIDEROT_CHECK_IR=1: as --check-ir */
  bool no_color;     /* NO_COLOR set and not empty (no-color.org) */
  bool dumb_term;    /* TERM=dumb */
  TuneEnv tune;      /* --tune and its cache: XDG_CACHE_HOME, HOME, TMPDIR, the runs' environment */
} DriverEnv;

static bool driver_env_is(const char *name, const char *value) {
  const char *v = getenv(name);
  return v && !strcmp(v, value);
}

extern char **environ;

static DriverEnv driver_read_env(Arena *a) {
  const char *no = getenv("NO_COLOR");
  return (DriverEnv){
      .cc = {.rt_dir = getenv("DIDEROT_RT_DIR"), .path = getenv("PATH"), .cc = getenv("CC"),
             .cxx = getenv("CXX"), .nvcc = getenv("DIDEROT_NVCC"),
             .cuda_arch = getenv("DIDEROT_CUDA_ARCH"), .objcopy = getenv("OBJCOPY"),
             .cflags = getenv("CFLAGS_DIDEROT"), .cflags_extra = getenv("CFLAGS_DIDEROT_EXTRA")},
      .cuda_emulate = driver_env_is("DIDEROT_CUDA_EMULATE", "1"),
      .check_ir = driver_env_is("DIDEROT_CHECK_IR", "1"),
      .no_color = no && no[0],
      .dumb_term = driver_env_is("TERM", "dumb"),
      .tune = driver_tune_env(a, environ),
  };
}

/* The EmitOptions the schedule does not decide. */
static EmitOptions driver_emit_options(const DriverOptions *o, const DriverEnv *env) {
  return (EmitOptions){
      .double_real = o->double_real, .long_int = o->long_int, .debug = o->debug, .exec = o->exec,
      .snapshot = o->snapshot, .no_space_partition = driver_internal(o, "no-space-partition"),
      .target = o->target == TARGET_OMP || o->target == TARGET_MPI ? EMIT_TARGET_OMP
                : o->target == TARGET_CUDA ? EMIT_TARGET_CUDA
                                           : EMIT_TARGET_SEQ,
      .mpi = o->target == TARGET_MPI,
      .cuda_emulate = o->cuda_emulate || env->cuda_emulate, .ns = o->ns, .stats = o->stats};
}

/* --dump=schedule: the record of the program, as a schedule file. */
static int driver_dump_schedule(Arena *arena, IrModule *low, const DriverOptions *o,
                                const DriverEnv *env, Schedule *sched) {
  EmitOptions eo = driver_emit_options(o, env);
  int status = 0;
  if (!driver_schedule_finish(arena, low, o, sched, &eo, &status)) return status;
  /* a cache entry shows as source cache (no tuning here) */
  TargetOptions to = {.emit = eo, .source = o->file};
  if ((status = driver_tune_build(arena, low, o, &env->tune, env->cc.cflags, sched, &to, true)))
    return status;
  fputs(schedule_print(arena, sched), stdout);
  return 0;
}

static int driver_codegen(Arena *arena, DiagCtx *diag, Program *prog, const DriverOptions *o,
                          Schedule *sched, const DriverEnv *env, DriverWatch *w) {
  EinContext *ec = ein_context_new(arena);
  int hstatus = 0;
  IrModule *high = driver_high(arena, diag, prog, o, ec, w, &hstatus);
  if (!high) return hstatus;
  int mstatus = 0;
  IrModule *mid = driver_mid(diag, high, o, ec, w, &mstatus);
  if (!mid) return mstatus;
  int lstatus = 0;
  IrModule *low = driver_low(diag, mid, o, sched->image_brick, sched->image_halo, w, &lstatus);
  if (!low) return lstatus;
  /* the CUDA target: refuse what the device cannot run, with positions */
  if (o->target == TARGET_CUDA) {
    bool ok = target_check_module(EMIT_TARGET_CUDA, low, diag, prog);
    diag_flush(diag);
    if (!ok) return EXIT_PROGRAM_ERROR;
  }
  TargetOptions to = {
      .emit = driver_emit_options(o, env),
      .source = o->file,
      .output = o->output,
      .shared_lib = o->shared_lib,
      .json = o->json,
      .defines = o->defines,
      .ndefines = o->ndefines,
      .verbose = o->verbose,
      .opt_flag = o->opt_level >= 0 ? arena_printf(arena, "-O%d", o->opt_level) : NULL,
      .keep_c = o->debug || o->log,
      .log = w->log,
      .env = env->cc,
      .phase_done = driver_phase_done,
      .phase_ctx = w,
  };
  int status = 0;
  if (!driver_schedule_finish(arena, low, o, sched, &to.emit, &status)) return status;
  /* the cache's entry, or --tune (driver_tune.c), then the build */
  return driver_tune_build(arena, low, o, &env->tune, env->cc.cflags, sched, &to, false);
}

/* --color=auto: colour on a terminal unless NO_COLOR is set (no-color.org)
 * or the terminal cannot show it. */
static bool driver_use_color(ColorMode m, const DriverEnv *env) {
  if (m != COLOR_AUTO) return m == COLOR_ALWAYS;
  if (env->no_color || env->dumb_term) return false;
  return isatty(fileno(stderr));
}

int main(int argc, char **argv) {
  double start = driver_now(CLOCK_MONOTONIC), start_cpu = driver_now(CLOCK_PROCESS_CPUTIME_ID);
  Arena *arena = arena_new();
  DriverEnv env = driver_read_env(arena);
  DriverOptions opts;
  int status = 0;

  if (!options_parse(arena, argc, argv, &opts)) {
    status = EXIT_USAGE;
    goto done;
  }
  if (opts.help) {
    options_print_usage(opts.help_all);
    goto done;
  }
  if (opts.version || opts.about) {
    if (opts.version) driver_print_version();
    if (opts.about) driver_print_about();
    goto done;
  }
  if (!opts.file) {
    status = driver_usage_error("missing file argument%s", " (use 'diderotc --help' for usage)");
    goto done;
  }
  Schedule sched;
  if ((status = driver_check_options(arena, &opts, &sched))) goto done;
  if (!driver_has_extension(opts.file)) {
    status = driver_usage_error("source file '%s' must have extension .diderot or .ddro", opts.file);
    goto done;
  }
  const char *unbuilt = driver_unbuilt_request(&opts);

  /* 1. Source. */
  Source *src = source_load(arena, opts.file);
  if (!src) {
    fprintf(stderr, "diderotc: error: cannot read '%s': %s\n", opts.file, strerror(errno));
    status = EXIT_PROGRAM_ERROR;
    goto done;
  }
  DiagCtx *diag = diag_new(arena, src);
  diag_set_warnings(diag, !opts.no_warnings, opts.warnings_as_errors);
  diag_set_color(diag, driver_use_color(opts.color, &env));

  /* 2. Lexing and parsing: one AST for both dialects. */
  Program *prog = parse_program(arena, diag, src);
  if (!prog || diag_error_count(diag)) {
    diag_flush(diag);
    status = EXIT_PROGRAM_ERROR;
    goto done;
  }
  if (opts.dump & DUMP_AST) ast_print_program(stdout, prog);

  /* 3. Typechecking. */
  TypecheckOptions tc = {
      .long_int = opts.long_int,
      .double_real = opts.double_real,
      .strict = opts.strict,
      .consts = opts.consts,
      .proxy_dir = driver_dirname(arena, opts.file),
  };
  bool ok = typecheck_program(arena, diag, prog, &tc);
  if (ok && opts.exec) ok = driver_check_exec_inputs(diag, prog, &opts);
  diag_flush(diag);
  if (!ok || diag_error_count(diag)) {
    status = EXIT_PROGRAM_ERROR;
    goto done;
  }

  /* 4. Middle end and back end. */
  DriverWatch watch = {.stats = opts.stats,
                       .check = driver_internal(&opts, "check-ir") || env.check_ir,
                       .start = start,
                       .start_cpu = start_cpu,
                       .arena = arena};
  if (opts.log && !unbuilt && !opts.check && !opts.dump)
    watch.log = driver_open_log(arena, &opts, argc, argv);
  driver_time_line(&watch, "frontend");
  if (unbuilt) {
    fprintf(stderr, "%s: error: %s is not supported by this diderotc\n", opts.file, unbuilt);
    status = EXIT_PROGRAM_ERROR;
  } else if (!opts.check && !opts.dump) {
    status = driver_codegen(arena, diag, prog, &opts, &sched, &env, &watch);
    if (watch.log) {
      fprintf(watch.log, "exit status %d\n", status);
      fclose(watch.log);
    }
  } else if ((opts.dump & (DUMP_HIGH | DUMP_MID | DUMP_LOW | DUMP_SCHEDULE)) || opts.stats) {
    EinContext *ec = ein_context_new(arena);
    IrModule *high = driver_high(arena, diag, prog, &opts, ec, &watch, &status);
    IrModule *mid = NULL;
    if (high && ((opts.dump & (DUMP_MID | DUMP_LOW | DUMP_SCHEDULE)) || opts.stats))
      mid = driver_mid(diag, high, &opts, ec, &watch, &status);
    IrModule *low = NULL;
    if (mid && ((opts.dump & (DUMP_LOW | DUMP_SCHEDULE)) || opts.stats))
      low = driver_low(diag, mid, &opts, sched.image_brick, sched.image_halo, &watch, &status);
    if (low && (opts.dump & DUMP_SCHEDULE)) status = driver_dump_schedule(arena, low, &opts, &env, &sched);
  }

done:
  arena_free(arena);
  return status;
}
