/* emit_cuda.h -- the CUDA back end (--target=cuda, ARCHITECTURE.md §3-§4).
 *
 * A program becomes two translation units:
 *  - NAME.c, the host half: the C target's program glue
 *    (program/emit_c_program.c) unchanged except for its hooks
 *    (EmitGlueHooks, emit_cuda_host_program): the world keeps a pointer to the
 *    device world, runs call d_cuda_run() instead of the CPU scheduler,
 *    and global blocks reach the strands (counts, reductions over strand
 *    sets, global stabilize/die) through the device half. Inputs, global
 *    initialisation, strand creation, global blocks and outputs stay on
 *    the host, in the same code as for the C targets; outputs therefore
 *    have the CPU targets' NRRD layouts by construction;
 *  - NAME.cu, the device half: the strand methods (and the map functions
 *    of reductions) as __device__ functions printed by the same C printer
 *    (emit_cfg_body / emit_instr, scalar mode, plus a hook for `new`),
 *    the step kernel, and the runtime driver rt/cuda/dc_run.h.
 *
 * Layouts: the device store of strand state uses the strand-state layout
 * of emit_c_layout.h (SoA unless --strand-layout says otherwise: the
 * threads of a warp then read consecutive words); the strand index of a
 * thread comes from the computation layout (T,B):(1,T) over the active
 * worklist (T = threads per block, B = blocks), both printed from
 * index expressions. Images are uploaded once in their NRRD layout; the
 * global dynamic sequences device code reads, whenever their bytes change.
 *
 * Semantics (rt/cuda/dc_run.h): one kernel launch per super-step runs
 * start (fresh strands) and update; the active worklist and, after
 * deaths, the storage are compacted in creation order; `new` appends by
 * an atomic counter and the new strands are ordered like the CPU
 * scheduler's (creator's chunk, phase, creator, order) before they join.
 * So map-only programs give bitwise the CPU targets' outputs; reductions
 * over strand sets are block trees (a different association of sums).
 * Other strands' state is read from a start-of-step copy of the store;
 * sphere queries use a grid built on the device each step
 * (rt/cuda/dc_sphere.h) and `print` writes records the host formats in
 * the sequential order (emit_cuda_print.c, rt/cuda/dc_print.h); both
 * fill per-step buffers, and a step that overflows one is undone from
 * the copy and run again with a larger buffer. Dynamic sequences built by
 * strand code come from a per-launch arena (the same rerun when it is
 * full) and those in strand state move to a device heap between steps
 * (collected by copying; rt/cuda/dc_seq.h, emit_seq_parts).
 *
 * Constructs the device half cannot run are refused before code
 * generation by cuda_check_module (emit_cuda_check.c) with ERR_NOT_YET.
 */
#ifndef DIDEROT_BACKEND_CUDA_EMIT_CUDA_H
#define DIDEROT_BACKEND_CUDA_EMIT_CUDA_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/core/emit_options.h"
#include "ir/ir.h"
#include "util/arena.h"
#include "util/diag.h"

struct Program;

/* Threads per block of the strand kernels. */
enum { CUDA_BLOCK = 128 };

/* The host half NAME.c as text into *out. False (message in err) on LowIR
 * it cannot print. */
bool emit_cuda_host_program(Arena *a, IrModule *m, const EmitOptions *opt, const char **out,
                            char *err, size_t errlen);
/* The device half NAME.cu as text into *out. False (message in err) on
 * LowIR it cannot print. */
bool emit_cuda_program(Arena *a, IrModule *m, const EmitOptions *opt, const char **out,
                       char *err, size_t errlen);

/* The print statements of the device half, numbered in emission order
 * (emit_cuda_print.c). */
typedef struct CudaPrintSites {
  IrInstr **site;
  int n, cap;
} CudaPrintSites;

/* A print in strand code: a record into the step's print buffer. */
struct EmitCtx;
void emit_cuda_print_instr(struct EmitCtx *e, EmitBuf *out, IrInstr *in, CudaPrintSites *ps);
/* The host function d_print_record formatting the records of every site. */
void emit_cuda_print_decoder(struct EmitCtx *e, EmitBuf *out, const CudaPrintSites *ps);

/* Refuse what the CUDA target does not support yet: one ERR_NOT_YET per
 * construct, at its position in `prog` (the typed AST the module came
 * from; NULL: no positions). Returns true when the module can be
 * compiled. */
bool cuda_check_module(IrModule *m, DiagCtx *diag, const struct Program *prog);
/* Whether a CFG of kind k runs on the device: the strand methods, the
 * maps of reductions, and the strand's initialisation when `new` is used. */
bool cuda_device_cfg(IrCfgKind k, bool has_new);
/* Whether a strand method (start, update) creates strands with `new`. */
bool cuda_module_has_new(const IrModule *m);
/* Whether the value `in` defines can live on the device: not a dynamic
 * sequence, except sphere results and a global's sequence of fixed-size
 * values passed along (never one built on the device). Strings can: the
 * addresses of their canonical host copies (emit_cuda.c). */
bool cuda_device_value(const IrInstr *in);
/* A dynamic sequence of fixed-size values (what the device can hold). */
bool cuda_device_flat_seq(const IrType *t);
/* Whether `in` allocates a dynamic sequence (`@`, concatenation, a range
 * made a sequence): in device code, from the step's arena (dc_seq.h). */
bool cuda_seq_builds(const IrInstr *in);

#endif
