/* emit_c_layout.h -- the data layouts of generated code (doc/layouts.md §4):
 * which layout each array of a generated program uses, built with the
 * layout algebra (src/layout/layout.h), and whose index expressions
 * the C back end prints for every access.
 *
 *  - strand state (--strand-layout): a strand's state is F words of
 *    sizeof(dreal) bytes (a real or a tensor component is one word; other
 *    values are copied bytewise into as many words as they need). The
 *    layout maps the coordinate (strand s, word w) to a word of the store:
 *      aos      (N,F):(F,1)                       F*s + w
 *      soa      (N,F):(1,N)                       s + N*w
 *      aosoa:W  ((W,N/W),F):((1,W*F),W)           s%W + W*w + W*F*(s/W)
 *             = blocked_product((W,F):(1,W), (N/W):(1))
 *    N is the store's capacity (a multiple of W), a run-time value;
 *  - packed records (strand creation, `new`, moves by the runtime): F:1;
 *  - outputs: (C,K):(1,C), C samples per strand, K strands written;
 *  - strand → parallel chunk: logical_divide(M:1, c:1) = (c,M/c):(1,c);
 *  - image samples (--image-layout, parsed by lyt_parse_image_layout):
 *    lyt_image_layout of src/layout (linear NRRD order or bricks), which
 *    the lowering's voxel offsets also come from; images are re-laid out
 *    once after loading by a generated loop over that layout.
 */
#ifndef DIDEROT_BACKEND_EMIT_C_LAYOUT_H
#define DIDEROT_BACKEND_EMIT_C_LAYOUT_H

#include <stdbool.h>

#include "layout/layout.h"

typedef enum EmitStrandLayout {
  EMIT_STRAND_AOS = 0,
  EMIT_STRAND_SOA = 1,
  EMIT_STRAND_AOSOA = 2
} EmitStrandLayout;


/* The strand-state layout of F words over N strands, coordinate order
 * (strand, word). NULL with err set when the algebra refuses. */
const Layout *emit_strand_state_layout(IxCtx *ix, EmitStrandLayout kind, int width, int nwords,
                                       const IxExpr *n, LytError *err);
/* The store index of word w of strand s: the layout's forward map,
 * simplified and strength-reduced (what the generated C prints). */
const IxExpr *emit_strand_index(IxCtx *ix, const Layout *state, const IxExpr *s, int64_t w);

#endif
