/* emit_mpi_seq.c -- --target=mpi: what the pointers of strand state point
 * at, between ranks (d_seq_pack and d_seq_unpack, given to
 * drt_mpi_world_run: rt/diderot_world.h drt_world_set_seq_codec;
 * rt/rt_distrib_seq.c moves the bytes). A packed record holds a dynamic
 * sequence as its C struct {len, v} and a string as its pointer, both
 * meaningless on another rank. d_seq_pack walks the state variables in
 * order and, for each value that holds pointers, appends what they point
 * at: a dynamic sequence's len elements (their bytes as they are, then,
 * where the elements hold pointers themselves, what those point at, one
 * element after another), a fixed sequence's elements one by one, a
 * string through drt_str_pack. d_seq_unpack reads the same walk back:
 * new sequences of the receiving world, the world's copy of each string,
 * and the record's pointers set to them. The two walks are printed from
 * one description (codec_value), so that they cannot disagree. */
#include "backend/mpi/mpi.h"

#include "backend/program/program.h"

#define OUT(...) emit_buf_printf(out, __VA_ARGS__)

bool mpi_has_pointer_state(EmitCtx *e) {
  for (int i = 0; i < e->m->nstate; i++)
    if (mpi_type_has_pointer(e->m->state[i]->ty)) return true;
  return false;
}

/* The walk over a value of type t at the bytes `at` (an expression of
 * type unsigned char *, const when packing), at nesting depth d (the
 * names of its loop counters and temporaries). */
static void codec_value(EmitCtx *e, EmitBuf *out, bool pack, const IrType *t, const char *at, int d) {
  const char *q = pack ? "const " : "";
  int ind = 2 * d + 2;
  if (t->kind == IR_TY_STRING) {
    if (pack)
      OUT("%*sn_ += drt_str_pack(%s, out ? out + n_ : NULL);\n", ind, "", at);
    else
      OUT("%*sif (drt_str_unpack(w_, in, %s, &n_)) return true;\n", ind, "", at);
    return;
  }
  if (t->kind != IR_TY_SEQ) return;
  const char *el = emit_type(e, t->elem);
  bool nested = mpi_type_has_pointer(t->elem);
  if (t->len != IR_SEQ_DYNAMIC) { /* a fixed sequence: its elements in place */
    OUT("%*sfor (uint32_t k%d_ = 0; k%d_ < %d; k%d_++) {\n", ind, "", d, d, t->len, d);
    codec_value(e, out, pack, t->elem, arena_printf(e->a, "%s + k%d_ * sizeof(%s)", at, d, el),
                d + 1);
    OUT("%*s}\n", ind, "");
    return;
  }
  OUT("%*s{ %s v%d_; memcpy(&v%d_, %s, sizeof v%d_);\n", ind, "", emit_type(e, t), d, d, at, d);
  OUT("%*s  uint64_t b%d_ = (uint64_t)v%d_.len * sizeof *v%d_.v;\n", ind, "", d, d, d);
  if (pack) {
    OUT("%*s  if (out && b%d_) memcpy(out + n_, v%d_.v, b%d_);\n", ind, "", d, d, d);
  } else {
    OUT("%*s  if (b%d_) {\n", ind, "", d);
    OUT("%*s    void *p%d_ = drt_seq_alloc_n(w_, v%d_.len, sizeof *v%d_.v);\n", ind, "", d, d, d);
    OUT("%*s    if (!p%d_) return true; /* the error is in the world */\n", ind, "", d);
    OUT("%*s    memcpy(p%d_, in + n_, b%d_);\n", ind, "", d, d);
    OUT("%*s    v%d_.v = p%d_;\n", ind, "", d, d);
    OUT("%*s  } else {\n", ind, "");
    OUT("%*s    v%d_.v = NULL;\n", ind, "", d);
    OUT("%*s  }\n", ind, "");
    OUT("%*s  memcpy(%s, &v%d_, sizeof v%d_);\n", ind, "", at, d, d);
  }
  OUT("%*s  n_ += b%d_;\n", ind, "", d);
  if (nested) { /* then what each element points at */
    OUT("%*s  for (uint32_t j%d_ = 0; j%d_ < v%d_.len; j%d_++) {\n", ind, "", d, d, d, d);
    codec_value(e, out, pack, t->elem,
                arena_printf(e->a, "(%sunsigned char *)v%d_.v + j%d_ * sizeof(%s)", q, d, d, el),
                d + 2);
    OUT("%*s  }\n", ind, "");
  }
  OUT("%*s}\n", ind, "");
}

void emit_mpi_seq_codec(EmitCtx *e, EmitBuf *out) {
  IrModule *m = e->m;
  if (!mpi_has_pointer_state(e)) return;
  OUT("/* --target=mpi: what a packed record's sequences and strings point\n"
      " * at, to and from another rank (rt/rt_distrib_seq.c); out NULL: only\n"
      " * their bytes */\n"
      "static uint64_t d_seq_pack(const void *rec_, unsigned char *out) {\n"
      "  const unsigned char *r_ = rec_;\n  uint64_t n_ = 0;\n");
  for (int i = 0; i < m->nstate; i++) {
    const IrStateVar *sv = m->state[i];
    if (mpi_type_has_pointer(sv->ty))
      codec_value(e, out, true, sv->ty,
                  arena_printf(e->a, "r_ + %d * sizeof(dreal)", emit_state_offset(e, sv)), 0);
  }
  OUT("  return n_;\n}\n\n"
      "static bool d_seq_unpack(DrtWorld *w_, void *rec_, const unsigned char *in, uint64_t *used) {\n"
      "  unsigned char *r_ = rec_;\n  uint64_t n_ = 0;\n");
  for (int i = 0; i < m->nstate; i++) {
    const IrStateVar *sv = m->state[i];
    if (mpi_type_has_pointer(sv->ty))
      codec_value(e, out, false, sv->ty,
                  arena_printf(e->a, "r_ + %d * sizeof(dreal)", emit_state_offset(e, sv)), 0);
  }
  OUT("  *used = n_;\n  return false;\n}\n\n");
}
