/* emit_options.h -- what the back end is asked to print (EmitOptions), its
 * text buffers, and what it reports (EmitInfo); the C back end's contract
 * with the LowIR it prints (doc/ARCHITECTURE.md §2).
 *
 * Input contract (what this stage expects of the LowIR module, beyond the
 * operator tables and ir_check):
 *  - the module passed ir_check; functions (IR_CFG_FUNC) are only called
 *    as the map functions of STRAND_REDUCE (user functions are inlined
 *    before LowIR), their first parameter is the strand;
 *  - IR_CFG_GLOBAL_INIT computes the globals (IR_GLOBAL_VAR), and the
 *    constants that were not folded, reading inputs with GLOBAL_GET; it
 *    does not assign inputs. Input defaults come from IrGlobal->value
 *    (value types) or IrGlobal->path (images, dynamic sequences); images
 *    of globals are loaded by LOAD_IMAGE in GLOBAL_INIT;
 *  - IR_CFG_CREATE makes the initial strands with NEW in creation order;
 *    a grid (module->create_array) first executes CREATE_GRID(sizes...,
 *    bases...);
 *  - strand methods use STATE_GET/STATE_SET; STATE_GET with an argument
 *    reads another strand's start-of-step state.
 *
 * Output: one C11 translation unit (GCC/Clang vector extensions unless
 * `scalar`) that includes diderot_rt.h, diderot_world.h and
 * diderot_tensor.h, with the program glue of doc/language.md §12 (`exec`: a
 * main() with the hest-style command line) or §14 (a library with the
 * NS_ API, doc/diderot-api.3; emit_c_header writes NAME.h).
 *
 * Value representation in generated C: bool → bool; int → dint (int32_t or
 * int64_t); real → dreal (float or double); string → const char *;
 * tensor[σ] → a struct { dreal v[∏σ]; } (row-major, value semantics by
 * struct assignment); vec<w> → a GCC vector of the next power-of-two
 * width (lanes ≥ w are don't-care; every horizontal operation reads lanes
 * < w only), or with `scalar` a struct { dreal v[w]; }; T[n] → struct
 * { T v[n]; }; T[] → struct { uint32_t len; T *v; } (immutable, heap);
 * image → const DrtImage *; strand → uint32_t (its storage index).
 */
#ifndef DIDEROT_BACKEND_CORE_EMIT_OPTIONS_H
#define DIDEROT_BACKEND_CORE_EMIT_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "ir/ir.h"
#include "schedule/schedule.h"
#include "util/arena.h"

/* EMIT_TARGET_CUDA: NAME.c is the host half (this file's glue with the
 * hooks of emit_cuda.c) and NAME.cu the device half (emit_cuda.h). */
typedef enum EmitTarget { EMIT_TARGET_SEQ, EMIT_TARGET_OMP, EMIT_TARGET_CUDA } EmitTarget;

typedef struct EmitOptions {
  bool double_real;  /* --double */
  bool long_int;     /* --long-int */
  bool scalar;       /* --scalar: no vector extensions */
  bool debug;        /* --debug */
  bool exec;         /* --exec: a main(); otherwise a library */
  bool snapshot;     /* --snapshot */
  bool no_space_partition; /* --no-space-partition: brute-force sphere queries */
  bool force_bsp;    /* --force-bsp: super-steps even where strand-wise runs would do */
  /* Data layouts (emit_c_layout.h; --strand-layout, --image-layout): an
   * EmitStrandLayout, the AoSoA width, the image brick edge (0: NRRD
   * order, must match MidToLowOptions.brick), --stats (index operation
   * counts per layout on stderr). */
  int strand_layout;
  int aosoa_width;
  int image_brick;
  bool stats;
  EmitTarget target;
  /* --target=mpi: the OpenMP target's program (target is EMIT_TARGET_OMP)
   * run once per rank of an MPI job, with the glue of backend/mpi */
  bool mpi;
  bool cuda_emulate; /* --cuda-emulate: the .cu compiled as C++ for the CPU (rt/cuda/emu.h) */
  const char *ns;    /* library prefix (default "Diderot") */
  const char *name;  /* program name: default output names, usage */
  const char *source;/* the source file, for comments */
  int vec_bytes;     /* widest native vector in bytes (0: 32) */
  bool simd_strands; /* --simd=strands: across-strand update groups (emit_c_simd.c) */
  bool simd_auto;    /* --simd=auto: groups where the update probes images */
  /* loops over sequences (foreach over sphere() results, ...) run
   * D_SIMD_W iterations at once where that pays (emit_c_loops.c); off
   * (--no-loop-lanes), the same loops stay scalar in a file compiled alike */
  bool loop_lanes;
  /* The schedule record these options come from (src/schedule; NULL for
   * callers without one, unit tests: then every schedule parameter has its
   * default), for the parameters that have no field above: group width,
   * OpenMP loop schedule and wait policy, CUDA block size, the snapshot
   * writer; and the C initializer of its run-time part (a DrtSchedule,
   * schedule_runtime_c), NULL at the runtime's defaults. */
  const struct Schedule *schedule;
  const char *schedule_runtime;
} EmitOptions;

/* A growable string in an arena. */
typedef struct EmitBuf {
  Arena *arena;
  char *s;
  size_t len, cap;
} EmitBuf;

void emit_buf_init(EmitBuf *b, Arena *a);
void emit_buf_printf(EmitBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void emit_buf_puts(EmitBuf *b, const char *s);
const char *emit_buf_str(EmitBuf *b);

/* What the C compiler must know of a printed program. */
typedef struct EmitInfo {
  /* the update also runs in across-strand groups (emit_c_simd.c): compile
   * without FP contraction, so a strand gives the same bits in a group
   * and in the scalar update */
  bool simd_groups;
  /* some loop can run its iterations in lanes (emit_c_loops.c; printed so
   * unless --no-loop-lanes): the same */
  bool loop_lanes;
} EmitInfo;

#endif
