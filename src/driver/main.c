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

#include "config.h"
#include "driver/options.h"
#include "frontend/ast_print.h"
#include "frontend/parser.h"
#include "frontend/typecheck.h"
#include "backend/emit_target.h"
#include "opt/mid_opt.h"
#include "opt/high_opt.h"
#include "translate/ast_to_high.h"
#include "translate/high_to_mid.h"
#include "translate/mid_to_low.h"
#include "util/diag.h"

enum { EXIT_PROGRAM_ERROR = 1, EXIT_USAGE = 2, EXIT_INTERNAL = 70 };

static void driver_print_version(void) {
  printf("diderotc %s (Diderot language versions 1.0 and 2.0)\n", PACKAGE_VERSION);
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

/* Combinations the reference also refuses ("inconsistent options"), and
 * requests for phases that do not exist yet. */
static int driver_check_options(const DriverOptions *o) {
  if (o->exec && (o->json || o->static_lib || o->shared_lib))
    return driver_usage_error("inconsistent options: %s", "--exec with --json, --static or --shared");
  if (o->static_lib && o->shared_lib)
    return driver_usage_error("inconsistent options: %s", "--static with --shared");
  return 0;
}

/* Whether internal control `name` (-H) was given. */
static bool driver_internal(const DriverOptions *o, const char *name) {
  for (int i = 0; i < o->ninternal; i++)
    if (!strcmp(o->internal[i], name)) return true;
  return false;
}

/* Whether every internal control given is honoured by a built phase. */
static bool driver_internal_supported(const DriverOptions *o) {
  static const char *const known[] = {"disable-split", "disable-slice", "disable-sum-binding",
                                      "disable-mid-vn", "disable-low-vn"};
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
  if (o->dump & DUMP_TREE) return "--dump of an IR level";
  if (!driver_internal_supported(o)) return "internal compiler controls";
  if (o->strand_layout) return "--strand-layout";
  if (o->image_layout) return "--image-layout";
  if (o->target == TARGET_CUDA && !o->check && !o->dump) return "the cuda target";
  return NULL;
}

/* An IR that fails ir_check is a compiler bug: "internal error", status 70. */
static bool driver_ir_ok(IrModule *m, const char *when) {
  IrCheck chk = {0};
  if (!ir_check_module(m, &chk)) return true;
  fprintf(stderr, "diderotc: internal error: %s: %s\n", when, chk.first);
  return false;
}

/* Typed AST → HighIR → HighIR optimisation, with --dump=high (both
 * versions, on stdout) and --stats (on stderr). NULL with *status set when
 * it fails. */
static IrModule *driver_high(Arena *arena, DiagCtx *diag, Program *prog, const DriverOptions *o,
                             EinContext *ec, int *status) {
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
  if (o->dump & DUMP_HIGH) {
    printf("==== HighIR after translation\n");
    ir_print_module(stdout, high, 0);
  }
  HighOptStats st;
  bool ok = high_opt(high, ec, diag, &st);
  diag_flush(diag);
  if (!driver_ir_ok(high, "HighIR after optimisation")) return NULL;
  if (o->dump & DUMP_HIGH) {
    printf("==== HighIR after optimisation\n");
    ir_print_module(stdout, high, 0);
  }
  if (o->stats) high_opt_stats_print(stderr, &st);
  *status = ok ? 0 : EXIT_PROGRAM_ERROR;
  return ok ? high : NULL;
}

/* HighIR → MidIR → split/slice/summation binding/VN/DCE (-H --disable-*),
 * with --dump=mid (stdout) and --stats (stderr). NULL with *status set when
 * it fails. */
static IrModule *driver_mid(DiagCtx *diag, IrModule *high, const DriverOptions *o, EinContext *ec,
                            int *status) {
  HighToMidStats hs = {0};
  IrModule *mid = high_to_mid(high, ec, diag, &hs);
  diag_flush(diag);
  *status = EXIT_PROGRAM_ERROR;
  if (!mid) return NULL;
  *status = EXIT_INTERNAL;
  if (!driver_ir_ok(mid, "MidIR after translation")) return NULL;
  MidOptOpts mo = mid_opt_defaults();
  mo.split = !driver_internal(o, "disable-split");
  mo.slice = !driver_internal(o, "disable-slice");
  mo.sum_binding = !driver_internal(o, "disable-sum-binding");
  mo.vn = !driver_internal(o, "disable-mid-vn");
  MidOptStats ms = {0};
  mid_optimize(mid, ec, &mo, &ms);
  if (!driver_ir_ok(mid, "MidIR after optimisation")) return NULL;
  if (o->dump & DUMP_MID) {
    printf("==== MidIR after optimisation\n");
    ir_print_module(stdout, mid, 0);
  }
  if (o->stats) {
    high_to_mid_stats_print(stderr, &hs);
    mid_opt_stats_print(stderr, &ms);
  }
  *status = 0;
  return mid;
}

/* MidIR → LowIR (expansion, VN unless -H --disable-low-vn, DCE), with
 * --dump=low (stdout) and --stats (stderr). NULL with *status set when it
 * fails. */
static IrModule *driver_low(DiagCtx *diag, IrModule *mid, const DriverOptions *o, int *status) {
  MidToLowOptions lo = {.no_vn = driver_internal(o, "disable-low-vn")};
  MidToLowStats ls;
  IrModule *low = mid_to_low(mid, diag, &lo, &ls);
  diag_flush(diag);
  *status = EXIT_PROGRAM_ERROR;
  if (!low) return NULL;
  *status = EXIT_INTERNAL;
  if (!driver_ir_ok(low, "LowIR after lowering")) return NULL;
  if (o->dump & DUMP_LOW) {
    printf("==== LowIR\n");
    ir_print_module(stdout, low, 0);
  }
  if (o->stats) mid_to_low_stats_print(stderr, &ls);
  *status = 0;
  return low;
}

/* The middle end and the C back end: typed AST → HighIR → MidIR → LowIR →
 * C → cc. Returns the exit status. */
static int driver_codegen(Arena *arena, DiagCtx *diag, Program *prog, const DriverOptions *o) {
  EinContext *ec = ein_context_new(arena);
  int hstatus = 0;
  IrModule *high = driver_high(arena, diag, prog, o, ec, &hstatus);
  if (!high) return hstatus;
  int mstatus = 0;
  IrModule *mid = driver_mid(diag, high, o, ec, &mstatus);
  if (!mid) return mstatus;
  int lstatus = 0;
  IrModule *low = driver_low(diag, mid, o, &lstatus);
  if (!low) return lstatus;
  TargetOptions to = {
      .emit = {.double_real = o->double_real, .long_int = o->long_int, .scalar = o->scalar,
               .debug = o->debug, .exec = o->exec, .snapshot = o->snapshot,
               .target = o->target == TARGET_OMP ? EMIT_TARGET_OMP : EMIT_TARGET_SEQ,
               .ns = o->ns},
      .source = o->file,
      .output = o->output,
      .shared_lib = o->shared_lib,
      .json = o->json,
      .defines = o->defines,
      .ndefines = o->ndefines,
      .verbose = o->verbose,
      .keep_c = o->debug || o->log,
  };
  return target_build(arena, low, &to);
}

int main(int argc, char **argv) {
  Arena *arena = arena_new();
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
  if ((status = driver_check_options(&opts))) goto done;
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
      .consts = opts.consts,
      .proxy_dir = driver_dirname(arena, opts.file),
  };
  bool ok = typecheck_program(arena, diag, prog, &tc);
  diag_flush(diag);
  if (!ok || diag_error_count(diag)) {
    status = EXIT_PROGRAM_ERROR;
    goto done;
  }

  /* 4. Middle end and back end. */
  if (unbuilt) {
    fprintf(stderr, "%s: error: %s is not yet supported by this diderotc (use --check or --dump=ast)\n",
            opts.file, unbuilt);
    status = EXIT_PROGRAM_ERROR;
  } else if (!opts.check && !opts.dump) {
    status = driver_codegen(arena, diag, prog, &opts);
  } else if ((opts.dump & (DUMP_HIGH | DUMP_MID | DUMP_LOW)) || opts.stats) {
    EinContext *ec = ein_context_new(arena);
    IrModule *high = driver_high(arena, diag, prog, &opts, ec, &status);
    IrModule *mid = NULL;
    if (high && ((opts.dump & (DUMP_MID | DUMP_LOW)) || opts.stats))
      mid = driver_mid(diag, high, &opts, ec, &status);
    if (mid && ((opts.dump & DUMP_LOW) || opts.stats)) driver_low(diag, mid, &opts, &status);
  }

done:
  arena_free(arena);
  return status;
}
