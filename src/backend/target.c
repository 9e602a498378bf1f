/* target.c -- the back end's top: the printers of the target asked for,
 * the generated files written, the C compiler run (see backend.h). */
#include "backend/backend.h"

#include <stdio.h>
#include <string.h>

#include "backend/cc.h"
#include "backend/cpu/cpu.h"
#include "backend/cuda/emit_cuda.h"
#include "backend/mpi/mpi.h"
#include "backend/program/program.h"

#include <errno.h>

/* 69 (EX_UNAVAILABLE): a tool or the runtime is missing, not a compiler
 * bug; 70 (EX_SOFTWARE): the C compiler rejected generated code. */
enum { EXIT_TOOL_MISSING = 69, EXIT_CC_FAILED = 70 };

static bool ends_with(const char *s, const char *suf) {
  size_t n = strlen(s), k = strlen(suf);
  return n > k && !strcmp(s + n - k, suf);
}

const char *target_stem(Arena *a, const char *source, const char *output, bool exec) {
  if (output) {
    if (exec) return output;
    static const char *const exts[] = {".o", ".obj", ".so", ".dylib"};
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++)
      if (ends_with(output, exts[i])) return arena_strndup(a, output, strlen(output) - strlen(exts[i]));
    return output;
  }
  if (ends_with(source, ".diderot")) return arena_strndup(a, source, strlen(source) - 8);
  if (ends_with(source, ".ddro")) return arena_strndup(a, source, strlen(source) - 5);
  return source;
}

static bool write_file(const char *path, const char *text, FILE *log) {
  if (log) fprintf(log, "write: %s\n", path);
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "diderotc: error: cannot write '%s': %s\n", path, strerror(errno));
    return false;
  }
  bool ok = fputs(text, f) >= 0;
  int err = ok ? 0 : errno;
  if (fclose(f) != 0 && ok) ok = false, err = errno;
  if (!ok) fprintf(stderr, "diderotc: error: cannot write '%s': %s\n", path, strerror(err));
  return ok;
}

/* The program name: the stem's last component. */
static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* The most LowIR statements in one unit: the size of the largest C
 * function the program becomes (CcRequest.large). */
static size_t largest_unit(const IrModule *m) {
  size_t most = 0;
  for (int c = 0; c < m->ncfgs; c++) {
    size_t n = ir_cfg_size(m->cfgs[c]).instrs;
    if (n > most) most = n;
  }
  return most;
}

int target_build(Arena *a, IrModule *low, const TargetOptions *o) {
  bool exec = o->emit.exec;
  const char *stem = target_stem(a, o->source, o->output, exec);
  EmitOptions eo = o->emit;
  eo.name = base_name(stem);
  eo.source = o->source;
  const char *text = NULL;
  char err[256];
  {
    CcRequest pre = {.env = &o->env, .cuda_target = eo.target == EMIT_TARGET_CUDA, .cuda_emulate = eo.cuda_emulate,
                     .mpi = eo.mpi};
    const char *missing = NULL;
    if (!cc_preflight(a, &pre, &missing)) {
      fprintf(stderr, "diderotc: error: %s\n", missing);
      if (o->log) fprintf(o->log, "error: %s\n", missing);
      return EXIT_TOOL_MISSING;
    }
  }
  EmitInfo info = {0};
  bool printed = eo.target == EMIT_TARGET_CUDA ? emit_cuda_host_program(a, low, &eo, &text, err, sizeof err)
                 : eo.mpi ? emit_mpi_program(a, low, &eo, &text, &info, err, sizeof err)
                          : emit_c_program(a, low, &eo, &text, &info, err, sizeof err);
  if (!printed) {
    fprintf(stderr, "%s: error: code generation: %s\n", o->source, err);
    return 1;
  }
  const char *cfile = arena_printf(a, "%s.c", stem);
  if (!write_file(cfile, text, o->log)) return 1;
  const char *cufile = NULL; /* --target=cuda: the device half (emit_cuda.h) */
  if (eo.target == EMIT_TARGET_CUDA) {
    const char *cu = NULL;
    if (!emit_cuda_program(a, low, &eo, &cu, err, sizeof err)) {
      fprintf(stderr, "%s: error: code generation (cuda): %s\n", o->source, err);
      return 1;
    }
    cufile = arena_printf(a, "%s.cu", stem);
    if (!write_file(cufile, cu, o->log)) return 1;
  }
  if (!exec) {
    const char *h = NULL, *js = NULL;
    if (!emit_c_header(a, low, &eo, &h) || !write_file(arena_printf(a, "%s.h", stem), h, o->log)) return 1;
    if (o->json && (!emit_c_json(a, low, &eo, &js) || !write_file(arena_printf(a, "%s.json", stem), js, o->log)))
      return 1;
  }
  if (o->phase_done) o->phase_done(o->phase_ctx, "emit");
  if (o->verbose) fprintf(stderr, "diderotc: compiling %s\n", cfile);
  CcRequest req = {
      .env = &o->env,
      .c_file = cfile,
      .out_file = exec ? stem : arena_printf(a, "%s.%s", stem, o->shared_lib ? "so" : "o"),
      .kind = exec ? CC_EXEC : o->shared_lib ? CC_SHARED : CC_OBJECT,
      .openmp = eo.target == EMIT_TARGET_OMP,
      .mpi = eo.mpi,
      .debug = eo.debug,
      .opt_flag = o->opt_flag,
      .large = largest_unit(low) > CC_LARGE_FUNCTION,
      .no_contract = info.simd_groups || info.loop_lanes,
      .defines = o->defines,
      .ndefines = o->ndefines,
      .verbose = o->verbose,
      .cu_file = cufile,
      .cuda_emulate = eo.cuda_emulate,
      .log = o->log,
      .export_prefix = exec ? NULL : arena_printf(a, "%s_", eo.ns ? eo.ns : "Diderot"),
  };
  const char *why = NULL;
  if (!cc_compile(a, &req, &why)) {
    fprintf(stderr, "diderotc: internal error: C compiler failed%s%s (generated code kept in %s%s%s)\n",
            why ? ": " : "", why ? why : "", cfile, cufile ? " and " : "", cufile ? cufile : "");
    if (o->log) fprintf(o->log, "error: the C compiler failed%s%s; %s kept\n", why ? ": " : "",
                        why ? why : "", cfile);
    return EXIT_CC_FAILED;
  }
  if (o->phase_done) o->phase_done(o->phase_ctx, "cc");
  if (o->log) fprintf(o->log, "built: %s\n", req.out_file);
  if (!o->keep_c) remove(cfile);
  if (!o->keep_c && cufile) remove(cufile);
  return 0;
}

bool target_check_module(EmitTarget t, IrModule *m, DiagCtx *diag, const struct Program *prog) {
  return t != EMIT_TARGET_CUDA || cuda_check_module(m, diag, prog);
}

