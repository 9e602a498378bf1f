/* emit_mpi_seq.c -- --target=mpi: the dynamic sequences of strand state
 * between ranks (d_seq_pack and d_seq_unpack, given to drt_mpi_world_run:
 * rt/diderot_world.h drt_world_set_seq_codec;
 * rt/rt_distrib_seq.c moves the bytes). A state variable that is a
 * dynamic sequence of values without pointers (reals, ints, bools,
 * tensors, fixed sequences of them) sits in the packed record as its C
 * struct {len, v}: d_seq_pack copies the len elements v points at, in the
 * order of the state variables; d_seq_unpack copies them into sequences
 * of the receiving world and points the record at them. Strings and
 * sequences holding sequences or strings are refused before this
 * (emit_mpi_check.c). */
#include "backend/mpi/mpi.h"

#include "backend/program/program.h"

#define OUT(...) emit_buf_printf(out, __VA_ARGS__)

static bool plain_dseq(const IrType *t) {
  return t->kind == IR_TY_SEQ && t->len == IR_SEQ_DYNAMIC && !mpi_type_has_pointer(t->elem);
}

bool mpi_has_seq_state(EmitCtx *e) {
  for (int i = 0; i < e->m->nstate; i++)
    if (plain_dseq(e->m->state[i]->ty)) return true;
  return false;
}

void emit_mpi_seq_codec(EmitCtx *e, EmitBuf *out) {
  IrModule *m = e->m;
  if (!mpi_has_seq_state(e)) return;
  OUT("/* --target=mpi: a packed record's dynamic sequences, to and from\n"
      " * another rank (rt/rt_distrib_seq.c); out NULL: only their bytes */\n"
      "static uint64_t d_seq_pack(const void *rec_, unsigned char *out) {\n"
      "  const unsigned char *r_ = rec_;\n  uint64_t n_ = 0;\n");
  for (int i = 0; i < m->nstate; i++) {
    const IrStateVar *sv = m->state[i];
    if (!plain_dseq(sv->ty)) continue;
    OUT("  { %s v_; memcpy(&v_, r_ + %d * sizeof(dreal), sizeof v_);\n"
        "    uint64_t b_ = (uint64_t)v_.len * sizeof *v_.v;\n"
        "    if (out && b_) memcpy(out + n_, v_.v, b_);\n    n_ += b_; }\n",
        emit_type(e, sv->ty), emit_state_offset(e, sv));
  }
  OUT("  return n_;\n}\n\n"
      "static bool d_seq_unpack(DrtWorld *w_, void *rec_, const unsigned char *in) {\n"
      "  unsigned char *r_ = rec_;\n  uint64_t n_ = 0;\n");
  for (int i = 0; i < m->nstate; i++) {
    const IrStateVar *sv = m->state[i];
    if (!plain_dseq(sv->ty)) continue;
    int off = emit_state_offset(e, sv);
    OUT("  { %s v_; memcpy(&v_, r_ + %d * sizeof(dreal), sizeof v_);\n"
        "    uint64_t b_ = (uint64_t)v_.len * sizeof *v_.v;\n"
        "    if (b_) {\n"
        "      void *p_ = drt_seq_alloc_n(w_, v_.len, sizeof *v_.v);\n"
        "      if (!p_) return true; /* the error is in the world */\n"
        "      memcpy(p_, in + n_, b_);\n      v_.v = p_;\n"
        "    } else {\n      v_.v = NULL;\n    }\n"
        "    memcpy(r_ + %d * sizeof(dreal), &v_, sizeof v_);\n    n_ += b_; }\n",
        emit_type(e, sv->ty), off, off);
  }
  OUT("  return false;\n}\n\n");
}
