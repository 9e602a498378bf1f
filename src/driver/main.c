/* main.c -- the diderotc driver: the pipeline, top to bottom.
 *
 *   options → source → lexer/parser (AST) → typechecker
 *           → [middle end and back end: not built yet]
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
#include "util/diag.h"

enum { EXIT_PROGRAM_ERROR = 1, EXIT_USAGE = 2 };

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

/* Everything after typechecking is refused explicitly until it is built. */
static const char *driver_unbuilt_request(const DriverOptions *o) {
  if (o->dump & (DUMP_HIGH | DUMP_MID | DUMP_LOW | DUMP_TREE)) return "--dump of an IR level";
  if (o->stats) return "--stats";
  if (o->ninternal) return "internal compiler controls";
  if (o->strand_layout) return "--strand-layout";
  if (o->image_layout) return "--image-layout";
  if (o->check || o->dump) return NULL;
  return "code generation (an executable or a library)";
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
  }

done:
  arena_free(arena);
  return status;
}
