/* ein_builders.h -- generic, shape-parameterised EIN operator builders.
 *
 * Seed paper 004, §5.1: every surface operation on tensors and fields is an
 * instance of one generic operator, parameterised by the shapes (and, for
 * fields, the dimension) of its operands. Each builder takes the operand
 * descriptions as EinParams (ein_param_tensor / ein_param_field) in argument
 * order and returns the hash-consed operator λ params ⟨e⟩_σ; the operator's
 * parameters are exactly the operands, in the same order, so the caller
 * passes the operand values as the instruction's arguments.
 *
 * When some operand is a field the result is a field and every tensor
 * operand appears under lift(). Index notation follows doc/language.md
 * §5.4, §5.5, §6.5 (0-based, new indices of [..] first, derivative
 * indices last). A builder returns NULL when the shapes do not fit the operation.
 */
#ifndef DIDEROT_TRANSLATE_EIN_BUILDERS_H
#define DIDEROT_TRANSLATE_EIN_BUILDERS_H

#include "ir/ein.h"

/* Elementwise a + b, a - b, -a (same shapes; field/tensor mixes allowed). */
const EinOp *eb_add(EinContext *c, EinParam a, EinParam b);
const EinOp *eb_sub(EinContext *c, EinParam a, EinParam b);
const EinOp *eb_neg(EinContext *c, EinParam a);
/* s * t (s scalar, first operand), t * s (scalar second), t / s. */
const EinOp *eb_scale(EinContext *c, EinParam s, EinParam t);
const EinOp *eb_scale_right(EinContext *c, EinParam t, EinParam s);
const EinOp *eb_div(EinContext *c, EinParam t, EinParam s);
/* (a·b)[α,β] = Σ_{m1..mn} a[α,m1..mn] b[m1..mn,β]: n = 0 outer product ⊗,
 * n = 1 inner product •, n = 2 double contraction ':'. */
const EinOp *eb_contract(EinContext *c, EinParam a, EinParam b, int n);
/* u × v: 2-D (scalar Σ ε_ij u_i v_j) or 3-D (Σ ε_ijk u_j v_k). */
const EinOp *eb_cross(EinContext *c, EinParam a, EinParam b);
/* Σ_i a[α,i,i] (the last two indices). */
const EinOp *eb_trace(EinContext *c, EinParam a);
/* a[j,i] for a matrix a[i,j]. */
const EinOp *eb_transpose(EinContext *c, EinParam a);
/* a[c0,...] with idx[k] >= 0 a constant index, -1 for ':' (kept in order). */
const EinOp *eb_slice(EinContext *c, EinParam a, const int *idx);
/* [a_0, ..., a_{n-1}] of n operands of type a: r[i,α] = Σ_k δ[i,k] a_k[α]. */
const EinOp *eb_cons(EinContext *c, int n, EinParam a);
/* Calculus on fields: ∇ (scalar F, [d]; d = 1: a scalar), ∇⊗ ([σ,d]),
 * ∇• (contracts the last index), ∇× (2-D scalar, 3-D vector). */
const EinOp *eb_grad(EinContext *c, EinParam f);
const EinOp *eb_jacobian(EinContext *c, EinParam f);
const EinOp *eb_divergence(EinContext *c, EinParam f);
const EinOp *eb_curl(EinContext *c, EinParam f);
/* F(x): parameters (F, x) with x : tensor[d] (real when d = 1). */
const EinOp *eb_probe(EinContext *c, EinParam f);
/* fun(a), a^n, on scalars or scalar fields. */
const EinOp *eb_fun(EinContext *c, EinFun fn, EinParam a);
const EinOp *eb_pow(EinContext *c, EinParam a, int n);
/* |a| = sqrt(Σ_α a_α a_α) (abs for a scalar); a / |a|. */
const EinOp *eb_norm(EinContext *c, EinParam a);
const EinOp *eb_normalize(EinContext *c, EinParam a);
/* a[i]*b[i] (vectors). */
const EinOp *eb_modulate(EinContext *c, EinParam a, EinParam b);
/* a + t(b - a); a + ((x - x0)/(x1 - x0))(b - a). */
const EinOp *eb_lerp3(EinContext *c, EinParam a, EinParam b, EinParam t);
const EinOp *eb_lerp5(EinContext *c, EinParam a, EinParam b, EinParam x0, EinParam x,
                      EinParam x1);
/* det of a 2x2/3x3 matrix (Σ ε_ij a_0i a_1j, Σ ε_ijk a_0i a_1j a_2k); inv of a
 * scalar (1/a), 2x2 (adjugate / det) or 3x3 (Cayley-Hamilton / det). */
const EinOp *eb_det(EinContext *c, EinParam a);
const EinOp *eb_inv(EinContext *c, EinParam a);
/* Constant tensors: zeros[σ], identity[n], and a scalar broadcast to σ. */
const EinOp *eb_zeros(EinContext *c, int rank, const int *shape);
const EinOp *eb_identity(EinContext *c, int n);
const EinOp *eb_broadcast(EinContext *c, int rank, const int *shape);

#endif
