/* cc.h -- running the system C compiler on generated code (doc/diderotc.1).
 *
 * The environment variables below are those of the CcEnv record the
 * driver reads once (src/driver/main.c); nothing here calls getenv.
 * The compiler is $CC (default: the one found at configure time), with
 * $CFLAGS_DIDEROT (default "-O3 -march=native") plus -std=gnu11 (vector
 * extensions) and -fwrapv (int overflow wraps, doc/language.md §4.1), then
 * $CFLAGS_DIDEROT_EXTRA, which test modes that replace CFLAGS_DIDEROT keep
 * (scripts/check-asan.sh puts the sanitizers there: the runtime library
 * is then built with them, so every program must be). The runtime's
 * headers and libdiderot-rt.a are looked up in order (cc_find_runtime):
 *   1. $DIDEROT_RT_DIR: the library in DIR or DIR/lib, headers in
 *      DIR/include/diderot, DIR/rt or the source tree this diderotc was
 *      built from (so DIDEROT_RT_DIR may name a build tree);
 *   2. when this diderotc is BUILD/diderotc of the build tree it was built
 *      in: that tree (never for an installed copy, even one installed
 *      under the build tree);
 *   3. its own install, from the running executable's directory BIN: the
 *      configured libdir and includedir/diderot under the part of BIN
 *      before the configured bindir (a DESTDIR-staged install), then
 *      BIN/../lib and BIN/../include/diderot (an install moved whole);
 *   4. another program of the build tree (unit tests): that tree;
 *   5. the configured libdir and includedir/diderot.
 * Programs link -ldiderot-rt -lteem -lm (and -fopenmp for OpenMP).
 */
#ifndef DIDEROT_BACKEND_CC_H
#define DIDEROT_BACKEND_CC_H

#include <stdbool.h>
#include <stdio.h>

#include "util/arena.h"

/* The environment variables the C compiler runs depend on, read once by
 * the driver (NULL: unset). */
typedef struct CcEnv {
  const char *rt_dir;       /* DIDEROT_RT_DIR */
  const char *path;         /* PATH: where tools are looked up */
  const char *cc;           /* CC */
  const char *cxx;          /* CXX (--cuda-emulate) */
  const char *nvcc;         /* DIDEROT_NVCC */
  const char *cuda_arch;    /* DIDEROT_CUDA_ARCH */
  const char *objcopy;      /* OBJCOPY (library objects) */
  const char *cflags;       /* CFLAGS_DIDEROT */
  const char *cflags_extra; /* CFLAGS_DIDEROT_EXTRA */
} CcEnv;

typedef enum CcKind {
  CC_EXEC,   /* a standalone executable */
  CC_OBJECT, /* one relocatable object with the runtime linked in (ld -r) */
  CC_SHARED  /* a shared library */
} CcKind;

/* LowIR statements in one unit above which CcRequest.large is set: the
 * conformance examples' largest units have under 1,000; a compile of one
 * with 1,900 took 4 s, one with 3,600 17 s. */
enum { CC_LARGE_FUNCTION = 1500 };

typedef struct CcRequest {
  const CcEnv *env;     /* the environment (NULL: every variable unset) */
  const char *c_file;   /* the generated source */
  const char *out_file; /* the result */
  CcKind kind;
  bool openmp;
  bool debug;           /* -g -O0 instead of the optimisation flags */
  /* "-O0" .. "-O3" (with -march=native) for the C and nvcc compiles; NULL:
   * -O3. $CFLAGS_DIDEROT, when set, replaces these flags. */
  const char *opt_flag;
  /* A function of thousands of straight-line statements (big probes of
   * 3-D tensor fields): gcc's RTL global CSE/PRE and dead-store passes take
   * time quadratic in it (16 s of a 17 s compile for 5,000 LowIR
   * statements), so they are turned off; cc_large_function says when. */
  bool large;
  /* -ffp-contract=off before $CFLAGS_DIDEROT: the generated code runs
   * strands in across-strand groups and in the scalar update, which must
   * give the same bits (EmitInfo.simd_groups, emit_c_simd.c) */
  bool no_contract;
  const char *const *defines; /* --D options: "NAME" or "NAME=VALUE" */
  int ndefines;
  bool verbose;         /* print the commands on stderr */
  FILE *log;            /* --log: the commands and their exit statuses (or NULL) */
  /* --target=cuda: the device half, compiled by nvcc ($DIDEROT_NVCC, else
   * the one found at configure time) for the architectures of
   * $DIDEROT_CUDA_ARCH (comma-separated, default sm_90), or with
   * cuda_emulate by the C++ compiler ($CXX, default c++) with
   * -DDIDEROT_CUDA_EMULATE; both halves are then linked together (by nvcc,
   * or the C++ compiler). NULL for the C targets. */
  const char *cu_file;
  bool cuda_emulate;
  bool cuda_target;     /* cc_preflight: --target=cuda (cu_file not yet known) */
  /* --target=mpi: MPI's compile and link flags (found by configure) and the
   * runtime's MPI part, libdiderot-rt-mpi.a, beside libdiderot-rt.a */
  bool mpi;
  /* Library builds: the prefix of the API's symbols ("NS_"). A relocatable
   * object keeps only those global (the runtime inside it becomes local) and
   * a shared object does not export the runtime, so that two libraries
   * link into one program. */
  const char *export_prefix;
} CcRequest;

/* Before anything is generated: is the runtime there, and are the tools
 * the request needs (C compiler; nvcc, or the C++ compiler with
 * --cuda-emulate) on PATH? false with a message for the user in *why (what
 * is missing and how to get it). */
bool cc_preflight(Arena *a, const CcRequest *req, const char **why);

/* Runs the compiler (and linker); returns true on success. On failure a
 * message has been printed by the compiler itself; `why` (may be NULL)
 * receives a short reason when the compiler could not be run at all. */
bool cc_compile(Arena *a, const CcRequest *req, const char **why);

/* The directories found for the runtime (NULL when none was found). */
bool cc_find_runtime(Arena *a, const CcEnv *env, const char **incdir, const char **libdir);

#endif
