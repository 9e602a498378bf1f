/* emit_target.h -- the last step of diderotc: LowIR → NAME.c → the
 * executable (--exec) or the library (NAME.h + NAME.o, or NAME.so with
 * --shared; NAME.json with --json), doc/diderotc.1. */
#ifndef DIDEROT_BACKEND_EMIT_TARGET_H
#define DIDEROT_BACKEND_EMIT_TARGET_H

#include <stdbool.h>

#include "backend/emit_c.h"
#include "ir/ir.h"
#include "util/arena.h"

typedef struct TargetOptions {
  EmitOptions emit;      /* exec, precision, target, namespace, ... */
  const char *source;    /* the source file */
  const char *output;    /* -o, or NULL */
  bool shared_lib, json;
  const char *const *defines; /* --D options */
  int ndefines;
  bool verbose;          /* print phases and commands */
  bool keep_c;           /* keep NAME.c after a successful build */
  FILE *log;             /* --log: NAME.log (files written, C compiler commands), or NULL */
} TargetOptions;

/* The output stem: -o (an executable's name, or a library stem with a .o
 * / .so / .obj extension removed), else the source without .diderot/.ddro
 * in the source's directory. */
const char *target_stem(Arena *a, const char *source, const char *output, bool exec);

/* Generate and compile. Returns the exit status: 0 on success, 1 when the
 * program cannot be compiled by this back end (message printed), 70 when
 * the C compiler failed ("diderotc: internal error: C compiler failed",
 * with the kept generated file named). */
int target_build(Arena *a, IrModule *low, const TargetOptions *o);

#endif
