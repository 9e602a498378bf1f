/* test_types.c -- types, coercions, unification, signatures, overload
 * resolution, constant folding and typechecker diagnostics.
 *
 * Expected values come from the rules of doc/language.md (§3-§5, §10) and
 * doc/differences.md, and from C arithmetic worked out by hand, never from running this code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/const_eval.h"
#include "frontend/parser.h"
#include "frontend/typecheck_impl.h"
#include "frontend/types.h"
#include "unit.h"
#include "util/suggest.h"

static char pbuf[512];
static const char *P(const Type *t) { return type_print(t, pbuf, sizeof pbuf); }

/* ------------------------------------------------ shapes and printing */

static void test_printing(TypeCtx *tc) {
  int d3[] = {3}, d33[] = {3, 3}, d1[] = {1}, d11[] = {1, 1}, d313[] = {3, 1, 3};
  CHECK_STR(P(tc->t_real), "real");
  CHECK_STR(P(type_tensor(tc, 1, d3)), "tensor[3]");
  CHECK_STR(P(type_tensor(tc, 2, d33)), "tensor[3,3]");
  /* §3.1: dimensions of 1 are dropped */
  CHECK_STR(P(type_tensor(tc, 1, d1)), "real");
  CHECK_STR(P(type_tensor(tc, 2, d11)), "real");
  CHECK_STR(P(type_tensor(tc, 3, d313)), "tensor[3,3]");
  CHECK(type_equal(type_tensor(tc, 1, d1), tc->t_real));
  CHECK(type_equal(type_tensor(tc, 3, d313), type_tensor(tc, 2, d33)));
  CHECK(!type_equal(type_tensor(tc, 1, d3), type_tensor(tc, 2, d33)));
  /* the catalogue convention of diagnostics.def */
  CHECK_STR(P(type_seq(tc, tc->t_real, TYPE_SEQ_DYNAMIC)), "real[]");
  CHECK_STR(P(type_seq(tc, tc->t_int, 3)), "int[3]");
  CHECK_STR(P(type_seq(tc, type_vec(tc, 2), TYPE_SEQ_DYNAMIC)), "tensor[2][]");
  Shape none = {0, NULL}, s3 = {1, d3};
  CHECK_STR(P(type_image(tc, 2, none)), "image(2)[]");
  CHECK_STR(P(type_image(tc, 3, s3)), "image(3)[3]");
  CHECK_STR(P(type_field(tc, 2, 3, none)), "field#2(3)[]");
  CHECK_STR(P(type_field(tc, TYPE_CONT_INF, 2, shape_normalize(tc, 1, (int[]){2}))), "field(2)[2]");
  CHECK_STR(P(type_kernel(tc, 1)), "kernel#1");
  CHECK_STR(P(type_strand(tc, "RayCast")), "RayCast");
  CHECK_STR(P(tc->t_bool), "bool");
  CHECK_STR(P(tc->t_string), "string");
  const Type *args[2] = {tc->t_int, type_vec(tc, 3)};
  CHECK_STR(type_list_str(tc->arena, args, 2), "(int, tensor[3])");
  CHECK_STR(type_list_str(tc->arena, args, 0), "()");
  /* nested fixed sequences print innermost length first: (int[3])[2] */
  CHECK_STR(P(type_seq(tc, type_seq(tc, tc->t_int, 3), 2)), "int[3][2]");
}

static void test_value_types(TypeCtx *tc) {
  Shape none = {0, NULL};
  CHECK(type_is_value(tc->t_int));
  CHECK(type_is_value(type_seq(tc, tc->t_real, 4)));
  CHECK(type_is_value(type_seq(tc, tc->t_real, TYPE_SEQ_DYNAMIC)));
  /* no nested dynamic sequences (§3.1) */
  CHECK(!type_is_value(type_seq(tc, type_seq(tc, tc->t_real, TYPE_SEQ_DYNAMIC), TYPE_SEQ_DYNAMIC)));
  CHECK(type_is_value(type_seq(tc, type_seq(tc, tc->t_real, 2), TYPE_SEQ_DYNAMIC)));
  CHECK(!type_is_value(type_field(tc, 1, 2, none)));
  CHECK(!type_is_value(type_image(tc, 2, none)));
  CHECK(!type_is_value(type_kernel(tc, 2)));
  CHECK(!type_is_value(type_strand(tc, "S")));
  /* strands only as sequence elements (sphere results) */
  CHECK(!type_is_value(type_seq(tc, type_strand(tc, "S"), TYPE_SEQ_DYNAMIC)));
  CHECK(type_is_value_or_strand_seq(type_seq(tc, type_strand(tc, "S"), TYPE_SEQ_DYNAMIC)));
}

/* ------------------------------------------------------------ coercion */

static void test_coercions(TypeCtx *tc) {
  Shape none = {0, NULL};
  const Type *R = tc->t_real, *I = tc->t_int;
  CHECK(type_coerce(I, R, NULL) == COERCE_OK);
  CHECK(type_coerce(R, I, NULL) == COERCE_FAIL); /* no real -> int ever */
  CHECK(type_coerce(R, R, NULL) == COERCE_EQUAL);
  CHECK(type_coerce(I, type_vec(tc, 3), NULL) == COERCE_FAIL);
  /* T[n] -> T[], with int -> real inside */
  CHECK(type_coerce(type_seq(tc, R, 3), type_seq(tc, R, TYPE_SEQ_DYNAMIC), NULL) == COERCE_OK);
  CHECK(type_coerce(type_seq(tc, I, 3), type_seq(tc, R, TYPE_SEQ_DYNAMIC), NULL) == COERCE_OK);
  CHECK(type_coerce(type_seq(tc, I, 3), type_seq(tc, R, 3), NULL) == COERCE_OK);
  CHECK(type_coerce(type_seq(tc, I, 3), type_seq(tc, R, 2), NULL) == COERCE_FAIL);
  /* a dynamic int sequence is not converted (Q27) */
  CHECK(type_coerce(type_seq(tc, I, TYPE_SEQ_DYNAMIC), type_seq(tc, R, TYPE_SEQ_DYNAMIC), NULL) ==
        COERCE_FAIL);
  CHECK(type_coerce(type_seq(tc, R, TYPE_SEQ_DYNAMIC), type_seq(tc, R, 3), NULL) == COERCE_FAIL);
  /* field#k -> field#k' with k' <= k; ∞ coerces to any k */
  CHECK(type_coerce(type_field(tc, 2, 3, none), type_field(tc, 1, 3, none), NULL) == COERCE_OK);
  CHECK(type_coerce(type_field(tc, 1, 3, none), type_field(tc, 2, 3, none), NULL) == COERCE_FAIL);
  CHECK(type_coerce(type_field(tc, TYPE_CONT_INF, 2, none), type_field(tc, 5, 2, none), NULL) ==
        COERCE_OK);
  CHECK(type_coerce(type_field(tc, 2, 3, none), type_field(tc, 2, 2, none), NULL) == COERCE_FAIL);
  /* kernels do not coerce */
  CHECK(type_coerce(type_kernel(tc, 2), type_kernel(tc, 1), NULL) == COERCE_FAIL);
  /* errors are absorbed */
  CHECK(type_coerce(tc->t_error, I, NULL) != COERCE_FAIL);
  CHECK(type_coerce(tc->t_string, tc->t_error, NULL) != COERCE_FAIL);
  /* join: the type the other coerces to */
  CHECK(type_join(I, R, NULL) == R);
  CHECK(type_join(R, I, NULL) == R);
  CHECK(type_join(tc->t_bool, I, NULL) == NULL);
}

static void test_unify(TypeCtx *tc) {
  const Type *v = type_var(tc);
  const Type *e0 = type_seq(tc, v, 0);
  TypeTrail tr = {{0}, 0};
  CHECK(type_unify(e0, type_seq(tc, tc->t_real, 0), &tr));
  CHECK(type_equal(v, tc->t_real));
  CHECK_STR(P(e0), "real[0]");
  type_trail_undo(&tr, 0);
  CHECK(!type_equal(v, tc->t_real));
  CHECK(type_unify(v, tc->t_int, NULL));
  CHECK(!type_unify(v, tc->t_real, NULL));
  CHECK(type_zonk(tc, e0, tc->t_bool) != e0);
  CHECK_STR(P(type_zonk(tc, e0, tc->t_bool)), "int[0]");
  const Type *w = type_var(tc);
  CHECK_STR(P(type_zonk(tc, type_seq(tc, w, 0), tc->t_bool)), "bool[0]");
  /* occurs check */
  const Type *u = type_var(tc);
  CHECK(!type_unify(u, type_seq(tc, u, 2), NULL));
}

/* ---------------------------------------------------------- signatures */

/* Reassemble a parsed scheme as text, to compare with the source. */
static const char *scheme_text(Arena *a, const Scheme *s) {
  char buf[512];
  size_t n = 0;
  n += (size_t)snprintf(buf + n, sizeof buf - n, "(");
  for (int i = 0; i < s->nparams; i++)
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? ", " : "",
                          scheme_type_str(a, s->params[i]));
  snprintf(buf + n, sizeof buf - n, ") -> %s", scheme_type_str(a, s->result));
  return arena_strdup(a, buf);
}

static void test_signatures(Arena *a, TypeCtx *tc) {
  char err[128];
  /* the examples of basis.h */
  Scheme *s = basis_parse_signature(a, "(tensor[σ], tensor[σ]) -> tensor[σ]", err, sizeof err);
  CHECK_MSG(s != NULL, "%s", err);
  if (s) {
    CHECK(s->nparams == 2);
    CHECK(s->params[0]->kind == TY_TENSOR && s->params[0]->shape.svar == 0);
  }
  s = basis_parse_signature(a, "(field#k(d)[]) -> field#k-1(d)[d]", err, sizeof err);
  CHECK_MSG(s != NULL, "%s", err);
  if (s) {
    CHECK(s->result->cont.kind == PC_VAR && s->result->cont.offset == -1);
    CHECK(s->result->shape.n == 1 && s->result->shape.items[0].var == 0);
  }
  s = basis_parse_signature(a, "(field#k(d)[σ]) -> field#k-1(d)[σ,d]", err, sizeof err);
  CHECK_MSG(s != NULL, "%s", err);
  if (s) CHECK_STR(scheme_text(a, s), "(field#k(d)[σ]) -> field#k-1(d)[σ,d]");
  s = basis_parse_signature(a, "() -> int", err, sizeof err);
  CHECK(s && s->nparams == 0);
  s = basis_parse_signature(a, "(tensor[3,3]) -> tensor[3][3]", err, sizeof err);
  CHECK(s && s->result->kind == TY_SEQ && !s->result->dynamic && s->result->len.value == 3);
  s = basis_parse_signature(a, "(T[], T) -> T[]", err, sizeof err);
  CHECK(s && s->params[0]->kind == TY_SEQ && s->params[0]->dynamic &&
        s->params[0]->elem->kind == TY_VAR);
  /* malformed signatures are rejected with a reason */
  CHECK(basis_parse_signature(a, "(tensor[σ, α]) -> real", err, sizeof err) == NULL);
  CHECK(err[0] != 0);
  CHECK(basis_parse_signature(a, "(int) ->", err, sizeof err) == NULL);
  CHECK(basis_parse_signature(a, "(int -> int", err, sizeof err) == NULL);
  CHECK(basis_parse_signature(a, "(field#q(d)[]) -> int", err, sizeof err) == NULL);
  CHECK(basis_parse_signature(a, "(int) -> int junk", err, sizeof err) == NULL);
  CHECK(basis_parse_signature(a, "special", err, sizeof err) == NULL);

  /* every signature of basis.def parses, and prints back as written */
  int special = 0;
  for (int i = 0; i < BI__COUNT; i++) {
    const Builtin *b = &basis_table[i];
    if (b->flags & BF_SPECIAL) {
      special++;
      continue;
    }
    Scheme *bs = basis_parse_signature(a, b->sig, err, sizeof err);
    CHECK_MSG(bs != NULL, "%s: %s", b->name, err);
    if (bs) CHECK_STR(scheme_text(a, bs), b->sig);
  }
  CHECK(special > 0 && special < BI__COUNT);
  (void)tc;
}

/* Scheme matching on its own (the unification of §3.2). */
static void test_scheme_match(Arena *a, TypeCtx *tc) {
  char err[128];
  Shape none = {0, NULL};
  int d3[] = {3}, d33[] = {3, 3};
  Shape s3 = {1, d3}, s33 = {2, d33};
  const Type *res = NULL, *par[4];
  const Type *args[4];

  Scheme *grad = basis_parse_signature(a, "(field#k(d)[]) -> field#k-1(d)[d]", err, sizeof err);
  args[0] = type_field(tc, 2, 3, none);
  CHECK(scheme_match(tc, grad, args, 1, false, par, &res) == SCHEME_OK);
  CHECK_STR(P(res), "field#1(3)[3]");
  /* §3.1: ∇ of a 1-D scalar field is a scalar field */
  args[0] = type_field(tc, 2, 1, none);
  CHECK(scheme_match(tc, grad, args, 1, false, par, &res) == SCHEME_OK);
  CHECK_STR(P(res), "field#1(1)[]");
  /* §3.7: continuity 0 cannot be differentiated */
  args[0] = type_field(tc, 0, 2, none);
  CHECK(scheme_match(tc, grad, args, 1, false, par, &res) == SCHEME_NEG_CONT);
  /* ∞ stays ∞ */
  args[0] = type_field(tc, TYPE_CONT_INF, 2, none);
  CHECK(scheme_match(tc, grad, args, 1, false, par, &res) == SCHEME_OK);
  CHECK_STR(P(res), "field(2)[2]");
  /* not a scalar field */
  args[0] = type_field(tc, 2, 3, s3);
  CHECK(scheme_match(tc, grad, args, 1, true, par, &res) == SCHEME_FAIL);

  /* ∇⊗ appends d at the END (§9.3) */
  Scheme *jac = basis_parse_signature(a, "(field#k(d)[σ]) -> field#k-1(d)[σ,d]", err, sizeof err);
  args[0] = type_field(tc, 3, 2, shape_normalize(tc, 1, (int[]){3}));
  CHECK(scheme_match(tc, jac, args, 1, false, par, &res) == SCHEME_OK);
  CHECK_STR(P(res), "field#2(2)[3,2]");

  /* Q3: the min rule, symmetric */
  Scheme *add = basis_parse_signature(a, "(field#k(d)[σ], field#k(d)[σ]) -> field#k(d)[σ]", err,
                                      sizeof err);
  const Type *F1 = type_field(tc, 1, 3, s3), *F2 = type_field(tc, 2, 3, s3);
  args[0] = F1;
  args[1] = F2;
  CHECK(scheme_match(tc, add, args, 2, false, par, &res) == SCHEME_FAIL);
  CHECK(scheme_match(tc, add, args, 2, true, par, &res) == SCHEME_OK);
  CHECK_STR(P(res), "field#1(3)[3]");
  CHECK(type_equal(par[1], F1)); /* F2 is coerced down */
  args[0] = F2;
  args[1] = F1;
  CHECK(scheme_match(tc, add, args, 2, true, par, &res) == SCHEME_OK);
  CHECK_STR(P(res), "field#1(3)[3]");
  CHECK(type_equal(par[0], F1));

  /* shapes: [σ] against [3,3] binds σ = [3,3]; tensor[n,n] needs square */
  Scheme *tr = basis_parse_signature(a, "(tensor[n,n]) -> real", err, sizeof err);
  args[0] = type_tensor_shape(tc, s33);
  CHECK(scheme_match(tc, tr, args, 1, false, par, &res) == SCHEME_OK);
  args[0] = type_tensor(tc, 2, (int[]){2, 3});
  CHECK(scheme_match(tc, tr, args, 1, false, par, &res) == SCHEME_FAIL);
  Scheme *tf = basis_parse_signature(a, "(field#k(d)[σ,n,n]) -> field#k(d)[σ]", err, sizeof err);
  args[0] = type_field(tc, 1, 3, shape_normalize(tc, 3, (int[]){2, 3, 3}));
  CHECK(scheme_match(tc, tf, args, 1, false, par, &res) == SCHEME_OK);
  CHECK_STR(P(res), "field#1(3)[2]");

  /* inside(real, field(1)): tensor[d] with d = 1 is real (deferred) */
  Scheme *ins = basis_parse_signature(a, "(tensor[d], field#k(d)[σ]) -> bool", err, sizeof err);
  args[0] = tc->t_real;
  args[1] = type_field(tc, 2, 1, none);
  CHECK(scheme_match(tc, ins, args, 2, false, par, &res) == SCHEME_OK);
  args[0] = type_vec(tc, 2);
  args[1] = type_field(tc, 2, 3, none);
  CHECK(scheme_match(tc, ins, args, 2, false, par, &res) == SCHEME_FAIL);

  /* int coerces to real only in the coercion pass */
  Scheme *rt = basis_parse_signature(a, "(real, tensor[σ]) -> tensor[σ]", err, sizeof err);
  args[0] = tc->t_int;
  args[1] = type_vec(tc, 3);
  CHECK(scheme_match(tc, rt, args, 2, false, par, &res) == SCHEME_FAIL);
  CHECK(scheme_match(tc, rt, args, 2, true, par, &res) == SCHEME_OK);
  CHECK_STR(P(res), "tensor[3]");
  CHECK(type_is_real(par[0]));

  /* T[] accepts a fixed sequence only with coercion */
  Scheme *len = basis_parse_signature(a, "(T[]) -> int", err, sizeof err);
  args[0] = type_seq(tc, tc->t_int, 3);
  CHECK(scheme_match(tc, len, args, 1, false, par, &res) == SCHEME_FAIL);
  CHECK(scheme_match(tc, len, args, 1, true, par, &res) == SCHEME_OK);
  CHECK_STR(P(par[0]), "int[]");

  /* kernels fix k exactly: image ⊛ kernel#1 gives field#1 */
  Scheme *cv = basis_parse_signature(a, "(image(d)[σ], kernel#k) -> field#k(d)[σ]", err, sizeof err);
  args[0] = type_image(tc, 3, s3);
  args[1] = type_kernel(tc, 1);
  CHECK(scheme_match(tc, cv, args, 2, true, par, &res) == SCHEME_OK);
  CHECK_STR(P(res), "field#1(3)[3]");
}

/* ----------------------------------------- programs through the parser */

typedef struct Run {
  Arena *arena;
  Program *prog;
  bool ok;
  char *msgs;
  size_t len;
} Run;

static Run run_src(const char *src, const TypecheckOptions *opts) {
  Run r = {arena_new(), NULL, false, NULL, 0};
  Source *s = source_from_memory(r.arena, "t.diderot", src, strlen(src));
  FILE *f = open_memstream(&r.msgs, &r.len);
  DiagCtx *d = diag_new(r.arena, s);
  diag_set_stream(d, f);
  r.prog = parse_program(r.arena, d, s);
  if (r.prog) r.ok = typecheck_program(r.arena, d, r.prog, opts);
  diag_flush(d);
  fclose(f);
  return r;
}

static void run_free(Run *r) {
  free(r->msgs);
  arena_free(r->arena);
}

#define STRAND_TAIL                                                        \
  "strand S(int i) { output real y = 0.0; update { stabilize; } }\n"      \
  "create_array { S(i) | i in 0..1 };\n"

/* The program must typecheck; `want` must appear among the messages if
 * non-NULL (a warning). */
static void accept(const char *globals, const char *want, int line) {
  char src[4096];
  snprintf(src, sizeof src, "#version 2.0\n%s\n" STRAND_TAIL, globals);
  Run r = run_src(src, NULL);
  CHECK_MSG(r.prog && r.ok, "line %d: rejected:\n%s", line, r.msgs ? r.msgs : "");
  if (want) CHECK_MSG(r.msgs && strstr(r.msgs, want), "line %d: missing \"%s\" in:\n%s", line, want, r.msgs);
  run_free(&r);
}

static void reject(const char *globals, const char *want, int line) {
  char src[4096];
  snprintf(src, sizeof src, "#version 2.0\n%s\n" STRAND_TAIL, globals);
  Run r = run_src(src, NULL);
  CHECK_MSG(r.prog && !r.ok, "line %d: accepted", line);
  CHECK_MSG(r.msgs && strstr(r.msgs, want), "line %d: missing \"%s\" in:\n%s", line, want,
            r.msgs ? r.msgs : "");
  run_free(&r);
}

#define ACCEPT(g) accept(g, NULL, __LINE__)
#define ACCEPT_W(g, w) accept(g, w, __LINE__)
#define REJECT(g, w) reject(g, w, __LINE__)

/* The global declaration `name` of a typechecked program. */
static Decl *find_decl(Program *p, const char *name) {
  for (Decl *d = p->globals.head; d; d = d->next)
    if (d->name && strcmp(d->name, name) == 0) return d;
  return NULL;
}

static void test_overloads(void) {
  /* §3.4: 2*v resolves in the coercion pass to real*tensor, 2 -> 2.0 */
  Run r = run_src("#version 2.0\nvec3 v = [1.0,2.0,3.0];\nvec3 w = 2*v;\n"
                  "real a = 2*3.0;\nint b = 2*3;\nreal c = 1.5*2.5;\n" STRAND_TAIL,
                  NULL);
  CHECK_MSG(r.ok, "%s", r.msgs);
  Decl *w = r.ok ? find_decl(r.prog, "w") : NULL;
  if (w) {
    const Builtin *b = w->init->builtin;
    CHECK(b && b->id == BI_MUL_RT);
    CHECK(w->init->a->coerce_from && type_prune(w->init->a->coerce_from)->kind == TY_INT);
    CHECK(type_is_real(w->init->a->ty));
    CHECK_STR(P(w->init->ty), "tensor[3]");
  }
  Decl *a = r.ok ? find_decl(r.prog, "a") : NULL;
  if (a) CHECK(((const Builtin *)a->init->builtin)->id == BI_MUL_RR);
  Decl *b = r.ok ? find_decl(r.prog, "b") : NULL;
  if (b) CHECK(((const Builtin *)b->init->builtin)->id == BI_MUL_II && !b->init->coerce_from);
  Decl *c = r.ok ? find_decl(r.prog, "c") : NULL;
  /* real*real is found before real*tensor[] in the exact pass */
  if (c) CHECK(((const Builtin *)c->init->builtin)->id == BI_MUL_RR);
  run_free(&r);

  /* F2 + F1 and F1 + F2 both give the min continuity (Q3) */
  r = run_src("#version 2.0\ninput image(3)[] img;\nfield#1(3)[] F1 = img ⊛ ctmr;\n"
              "field#2(3)[] F2 = img ⊛ bspln3;\nfield#1(3)[] A = F2 + F1;\n"
              "field#1(3)[] B = F1 + F2;\nfield#0(3)[3] G = ∇(F1 * F2);\n" STRAND_TAIL,
              NULL);
  CHECK_MSG(r.ok, "%s", r.msgs);
  Decl *A = r.ok ? find_decl(r.prog, "A") : NULL;
  if (A) {
    CHECK_STR(P(A->init->ty), "field#1(3)[]");
    CHECK(A->init->a->coerce_from != NULL); /* F2 coerced to field#1 */
    CHECK(((const Builtin *)A->init->builtin)->id == BI_ADD_FF);
  }
  run_free(&r);

  /* a hand-built AST (no parser): 2*v with v : vec3 */
  Arena *ar = arena_new();
  Span sp = {{1, 1}, {1, 2}};
  Program *p = ARENA_NEW(ar, Program);
  p->dialect = DIALECT_V2;
  Decl *dv = ast_decl(ar, D_VAR, sp);
  dv->type = ast_type(ar, AT_VEC, sp);
  dv->type->n = 3;
  dv->name = "v";
  dv->name_span = sp;
  Expr *t = ast_expr(ar, E_TENSOR, sp);
  const char *digits[3] = {"1", "2", "3"};
  for (int i = 0; i < 3; i++) {
    Expr *x = ast_expr(ar, E_INT, sp);
    x->tok.text = digits[i];
    ast_expr_append(&t->args, x);
  }
  dv->init = t;
  ast_decl_append(&p->globals, dv);
  Decl *dw = ast_decl(ar, D_VAR, sp);
  dw->type = ast_type(ar, AT_VEC, sp);
  dw->type->n = 3;
  dw->name = "w";
  dw->name_span = sp;
  Expr *two = ast_expr(ar, E_INT, sp);
  two->tok.text = "2";
  Expr *vv = ast_expr(ar, E_VAR, sp);
  vv->name = "v";
  Expr *mul = ast_expr(ar, E_BINARY, sp);
  mul->op = OP_MUL;
  mul->a = two;
  mul->b = vv;
  dw->init = mul;
  ast_decl_append(&p->globals, dw);
  /* no strand at all: reported, but no crash, and 2*v still typed */
  Source *src = source_from_memory(ar, "t", "x\n", 2);
  DiagCtx *d = diag_new(ar, src);
  FILE *devnull = fopen("/dev/null", "w");
  if (devnull) diag_set_stream(d, devnull);
  typecheck_program(ar, d, p, NULL);
  diag_flush(d);
  if (devnull) fclose(devnull);
  CHECK(mul->builtin && ((const Builtin *)mul->builtin)->id == BI_MUL_RT);
  CHECK(two->coerce_from && type_is_real(two->ty));
  CHECK(vv->sym && vv->sym->kind == SYM_GLOBAL);
  CHECK(t->args.head->coerce_from != NULL); /* [1,2,3] elements become reals */
  CHECK_STR(P(mul->ty), "tensor[3]");
  arena_free(ar);
}

/* ------------------------------------------------------ constant folding */

static void check_const(const char *decls, const char *name, const char *want, int line) {
  char src[2048];
  snprintf(src, sizeof src, "#version 2.0\n%s\n" STRAND_TAIL, decls);
  TypecheckOptions o = {0};
  Run r = run_src(src, &o);
  Decl *d = r.prog ? find_decl(r.prog, name) : NULL;
  CHECK_MSG(r.ok && d && d->sym && d->sym->cval, "line %d: %s", line, r.msgs ? r.msgs : "");
  if (r.ok && d && d->sym && d->sym->cval)
    CHECK_MSG(strcmp(const_value_str(r.arena, d->sym->cval), want) == 0, "line %d: got %s, want %s",
              line, const_value_str(r.arena, d->sym->cval), want);
  run_free(&r);
}
#define CONST(decls, name, want) check_const(decls, name, want, __LINE__)

static void test_const_fold(void) {
  /* C integer division truncates toward zero; % follows the dividend */
  CONST("const int a = 7/2;", "a", "3");
  CONST("const int a = -7/2;", "a", "-3");
  CONST("const int a = 7/-2;", "a", "-3");
  CONST("const int a = 7%2;", "a", "1");
  CONST("const int a = -7%2;", "a", "-1");
  CONST("const int a = 7%-2;", "a", "1");
  /* 1/2 == 0 even when the result is a real (§9.8) */
  CONST("const real h = 1/2;", "h", "0");
  CONST("const real h = 1.0/2;", "h", "0.5");
  /* 32-bit wrap-around; the literal 2147483648 only under unary minus */
  CONST("const int m = -2147483648;", "m", "-2147483648");
  CONST("const int m = 2147483647 + 1;", "m", "-2147483648");
  CONST("const int m = (-2147483647 - 1) / -1;", "m", "-2147483648");
  CONST("const int c = 2 + 3*4 - 10/3;", "c", "11");
  CONST("const int n = |-5|;", "n", "5");
  CONST("const int n = max(3, 9) - min(3, 9);", "n", "6");
  CONST("const bool b = 3 < 4 && !(2 == 3);", "b", "true");
  CONST("const bool b = 3.0 >= 4.0 || false;", "b", "false");
  /* ^ gives a real, even for int operands (§4.1) */
  CONST("const real p = 2^3;", "p", "8");
  CONST("const real p = 2.0^(-1);", "p", "0.5");
  /* [a,b] puts the new index first: [[1,2],[3,4]][0,1] == 2 (§9.2) */
  CONST("const real e = [[1,2],[3,4]][0,1];", "e", "2");
  CONST("const vec2 r = [[1,2],[3,4]][1,:];", "r", "[3,4]");
  CONST("const vec2 c = [[1,2],[3,4]][:,1];", "c", "[2,4]");
  CONST("const vec3 x = [1,0,0] × [0,1,0];", "x", "[0,0,1]");
  CONST("const real z = [1,0] × [0,1];", "z", "1");
  CONST("const tensor[2,3] o = [1,2] ⊗ [1,10,100];", "o", "[[1,10,100],[2,20,200]]");
  CONST("const mat2 t = transpose([[1,2],[3,4]]);", "t", "[[1,3],[2,4]]");
  CONST("const real tr = trace(identity[3]);", "tr", "3");
  CONST("const real n = |[3,4]|;", "n", "5");
  CONST("const vec2 n = normalize([3.0,4.0]);", "n", "[0.59999999999999998,0.80000000000000004]");
  CONST("const vec3 z = zeros[3] + 2*[1,1,1];", "z", "[2,2,2]");
  CONST("const real l = lerp(0.0, 10.0, 0.25);", "l", "2.5");
  CONST("const vec2 c = clamp(0.0, 1.0, [-1.0, 0.5]);", "c", "[0,0.5]");
  CONST("const int[3] s = {1, 2, 3};", "s", "{1,2,3}");
  CONST("const real[2] s = {1, 2.5};", "s", "{1,2.5}");
  CONST("const int k = {4, 5, 6}[2];", "k", "6");
  CONST("const string s = \"ab\";", "s", "\"ab\"");
  CONST("const int a = 2;\nconst int b = a * a + 1;", "b", "5");
  CONST("const int a = 3 if 1 < 2 else 4;", "a", "3");

  /* integer literal range (Q25) */
  REJECT("const int big = 2147483648;", "integer literal 2147483648 is out of range for 32-bit int");
  REJECT("const int z = 1 / 0;", "division by zero in constant expression");
  REJECT("const int z = 5 % (2 - 2);", "division by zero in constant expression");
  TypecheckOptions lo = {.long_int = true};
  Run r = run_src("#version 2.0\nconst int big = 2147483648 * 2;\n" STRAND_TAIL, &lo);
  CHECK_MSG(r.ok, "%s", r.msgs);
  Decl *d = r.ok ? find_decl(r.prog, "big") : NULL;
  if (d && d->sym->cval) CHECK(d->sym->cval->i == 4294967296LL);
  run_free(&r);

  int64_t v;
  CHECK(const_int_literal("2147483647", false, false, &v) && v == 2147483647);
  CHECK(!const_int_literal("2147483648", false, false, &v));
  CHECK(const_int_literal("2147483648", false, true, &v) && v == 2147483648LL);
  CHECK(const_int_literal("9223372036854775807", true, false, &v) && v == INT64_MAX);
  CHECK(!const_int_literal("9223372036854775808", true, false, &v));
  CHECK(const_int_literal("9223372036854775808", true, true, &v) && v == INT64_MIN);
  CHECK(!const_int_literal("99999999999999999999999", true, true, &v));
}

static void test_overrides(void) {
  Arena *a = arena_new();
  TypeCtx tc;
  type_ctx_init(&tc, a);
  ConstEval ce = {a, &tc, NULL, false};
  const ConstValue *v;
  v = const_parse_override(&ce, "42", tc.t_int);
  CHECK(v && v->kind == CV_INT && v->i == 42);
  v = const_parse_override(&ce, "-7", tc.t_int);
  CHECK(v && v->i == -7);
  CHECK(const_parse_override(&ce, "1.5", tc.t_int) == NULL);
  CHECK(const_parse_override(&ce, "4000000000", tc.t_int) == NULL);
  v = const_parse_override(&ce, "2.5e-1", tc.t_real);
  CHECK(v && v->kind == CV_TENSOR && v->r[0] == 0.25);
  v = const_parse_override(&ce, "3", tc.t_real);
  CHECK(v && v->r[0] == 3.0);
  v = const_parse_override(&ce, "true", tc.t_bool);
  CHECK(v && v->b);
  CHECK(const_parse_override(&ce, "yes", tc.t_bool) == NULL);
  v = const_parse_override(&ce, "\"a\\tb\\\"\"", tc.t_string);
  CHECK(v && v->slen == 4 && memcmp(v->s, "a\tb\"", 4) == 0);
  int d22[] = {2, 2};
  v = const_parse_override(&ce, "[[1,2],[3, 4.5]]", type_tensor(&tc, 2, d22));
  CHECK(v && v->nr == 4 && v->r[1] == 2.0 && v->r[3] == 4.5);
  CHECK(const_parse_override(&ce, "[1,2,3]", type_tensor(&tc, 2, d22)) == NULL);
  v = const_parse_override(&ce, "{1, 2, 3}", type_seq(&tc, tc.t_int, 3));
  CHECK(v && v->kind == CV_SEQ && v->n == 3 && v->elems[2]->i == 3);
  CHECK(const_parse_override(&ce, "{1, 2}", type_seq(&tc, tc.t_int, 3)) == NULL);
  CHECK(const_parse_override(&ce, "7 8", tc.t_int) == NULL);
  arena_free(a);

  /* through the typechecker: --CN=5 overrides, --Cq is unknown */
  ConstOverride o2 = {"q", "1", NULL};
  ConstOverride o1 = {"N", "5", &o2};
  TypecheckOptions opts = {.consts = &o1};
  Run r = run_src("#version 2.0\nconst int N = 3;\nconst int M;\n" STRAND_TAIL, &opts);
  CHECK(!r.ok);
  CHECK(r.msgs && strstr(r.msgs, "--Cq: no constant named 'q'"));
  CHECK(r.msgs && strstr(r.msgs, "constant 'M' has no value; give an initializer or --CM=value"));
  Decl *n = r.prog ? find_decl(r.prog, "N") : NULL;
  CHECK(n && n->sym && n->sym->cval && n->sym->cval->i == 5);
  run_free(&r);
  ConstOverride o3 = {"N", "2.5", NULL};
  opts.consts = &o3;
  r = run_src("#version 2.0\nconst int N = 3;\n" STRAND_TAIL, &opts);
  CHECK(r.msgs && strstr(r.msgs, "--CN: value '2.5' does not have type int"));
  run_free(&r);
}

/* --------------------------------------------------- accept / reject */

static void test_programs(void) {
  ACCEPT("real x = 1;");                       /* int -> real on initialization */
  REJECT("tensor[1] x = 2.0;", "invalid tensor-shape dimension 1; must be > 1"); /* §9.9 */
  REJECT("int x = 1.0;", "definition of 'x' has wrong type: expected int, found real");
  REJECT("vec3 v = [1,2];", "definition of 'v' has wrong type: expected tensor[3], found tensor[2]");
  REJECT("real x = 1 + true;", "unable to resolve overloaded operator '+'; argument type is: (int, bool)");
  REJECT("int x = 5 % 2.0;", "type error for arguments of binary operator '%': found int and real");
  REJECT("bool b = !3;", "type error for argument of unary operator '!': found int");
  REJECT("vec3 v = [1,2,3] * [1,2,3];", "unable to resolve overloaded operator '*'");
  REJECT("real r = [1,2,3] == [1,2,3];", "unable to resolve overloaded operator '=='");
  ACCEPT("bool b = \"x\" == \"y\";");
  /* int ^ int is an int where an int is expected (an extension,
   * doc/language.md §5.2); a real base keeps the real power */
  ACCEPT("int x = 2^3;");
  REJECT("int x = 2.0^3;", "expected int, found real");
  REJECT("tensor[2,3] m = [[1,2],[3,4,5]];", "elements of tensor construction have different types");
  REJECT("real r = sqrt(true);", "unable to resolve overloaded operator 'sqrt'; argument type is: (bool)");
  REJECT("real r = atan2(1.0);", "function 'atan2' expects 2 argument(s), but 1 given");
  REJECT("real r = pow(1.0, true);", "argument 2 of 'pow' has type bool, expected real");
  /* Q26 */
  REJECT("real r = normalize(2.0);", "'normalize' needs a non-scalar argument, found real");
  /* Q8, Q9 */
  REJECT("input image(2)[] I;\nimage(2)[] J = border(I, 0.0);", "'border' is not supported");
  REJECT("real v = variance(1.0);", "unknown function 'variance'");
  REJECT("real[] v = concat({1.0}, {2.0});", "unknown function 'concat'");
  /* Q1 */
  REJECT("real x = 1.0;\nreal y = x ∘ x;", "'∘' composes a field F with a field G of positions in F's domain, not real ∘ real");
  /* • ⊗ : shape rules (§3.5) */
  ACCEPT("tensor[2,3] a = [[1,2,3],[4,5,6]];\nvec3 b = [1,2,3];\nvec2 c = a • b;");
  ACCEPT("mat3 a = identity[3];\nreal c = a : a;");
  ACCEPT("tensor[2,3,4] t = zeros[2,3,4];\ntensor[3,4,5] u = zeros[3,4,5];\ntensor[2,5] r = t : u;");
  REJECT("vec3 a = [1,2,3];\nreal c = a : a;", "type error for arguments of binary operator ':'");
  REJECT("vec2 a = [1,2];\nvec3 b = [1,2,3];\nreal c = a • b;",
         "type error for arguments of binary operator '•': found tensor[2] and tensor[3]");
  ACCEPT("vec2 a = [1,2];\nvec3 b = [1,2,3];\ntensor[2,3] c = a ⊗ b;");
  REJECT("real x = 2.0;\nvec3 a = x ⊗ [1,2,3];", "unable to determine result shape of outer product");
  /* fields (§3.7) */
  const char *img = "input image(3)[] img;\n";
  char buf[1024];
  snprintf(buf, sizeof buf, "%sfield#2(3)[] F = img ⊛ bspln3;\nfield#1(3)[3] G = ∇F;\n"
                            "field#0(3)[3,3] H = ∇⊗∇F;\nreal v = F([0,0,0]);\nvec3 g = G([0,0,0]);\n"
                            "mat3 h = H([0.0, 0.0, 0.0]);\nbool i = inside([0,0,0], F);", img);
  ACCEPT(buf);
  snprintf(buf, sizeof buf, "%sfield#2(3)[] F = bspln3 ⊛ img;", img);
  ACCEPT(buf);
  /* a declaration may lower continuity but not raise it */
  snprintf(buf, sizeof buf, "%sfield#1(3)[] F = img ⊛ bspln3;", img);
  ACCEPT(buf);
  snprintf(buf, sizeof buf, "%sfield#2(3)[] F = img ⊛ ctmr;", img);
  REJECT(buf, "definition of 'F' has wrong type: expected field#2(3)[], found field#1(3)[]");
  snprintf(buf, sizeof buf, "%sfield#0(3)[] F = img ⊛ tent;\nfield#0(3)[3] G = ∇F;", img);
  REJECT(buf, "field of continuity 0 cannot be differentiated (in '∇')");
  /* Q2: ∇• takes k-1 */
  snprintf(buf, sizeof buf, "input image(3)[3] v;\nfield#2(3)[3] V = v ⊛ bspln3;\nfield#1(3)[] D = ∇•V;");
  ACCEPT(buf);
  snprintf(buf, sizeof buf, "input image(3)[3] v;\nfield#2(3)[3] V = v ⊛ bspln3;\nfield#2(3)[] D = ∇•V;");
  REJECT(buf, "expected field#2(3)[], found field#1(3)[]");
  /* Q10 */
  snprintf(buf, sizeof buf, "input image(3)[2] v;\nfield#2(3)[2] V = v ⊛ bspln3;\nfield#1(3)[] D = ∇•V;");
  REJECT(buf, "divergence needs the last index (2) to equal the domain dimension (3)");
  /* 1-D fields: ∇ gives a scalar field, the probe position is real */
  ACCEPT("input image(1)[] I;\nfield#1(1)[] F = I ⊛ ctmr;\nfield#0(1)[] G = ∇F;\n"
         "real g = G(0.5);\nbool b = inside(0.5, F);");
  /* probes */
  snprintf(buf, sizeof buf, "%sfield#2(3)[] F = img ⊛ bspln3;\nreal v = F([0,0]);", img);
  REJECT(buf, "type error for field application: field field#2(3)[] probed at tensor[2]");
  snprintf(buf, sizeof buf, "%sfield#2(3)[] F = img ⊛ bspln3;\nreal v = (∇F)([0,0,0]);", img);
  REJECT(buf, "definition of 'v' has wrong type: expected real, found tensor[3]");
  /* S^i needs a constant exponent */
  snprintf(buf, sizeof buf, "%sfield#2(3)[] F = img ⊛ bspln3;\nfield#2(3)[] G = F^2;", img);
  ACCEPT(buf);
  snprintf(buf, sizeof buf, "%sinput int n = 2;\nfield#2(3)[] F = img ⊛ bspln3;\nfield#2(3)[] G = F^n;", img);
  REJECT(buf, "constant-integer exponent is required when lhs of '^' is a field");
  /* Q4: real ^ non-constant int is fine */
  ACCEPT("input int n = 2;\nreal p = 2.0^n;");
  /* Q7: kernels */
  ACCEPT("kernel#1 k = bspln3#1;");
  ACCEPT_W("kernel#2 k = tent#2;", "'tent#2' raises the continuity of kernel tent (0)");
  ACCEPT("kernel#2 k = c2tent;\nkernel#1 k1 = c1tent#1;");
  REJECT("kernel#1 k = nope#1;", "unknown kernel 'nope'");
  REJECT("int n = 3;\nkernel#1 k = n#1;", "'n' is not a kernel");
  /* slicing */
  /* a tensor index that is not a constant: an extension (language.md §5.6) */
  ACCEPT("input int i = 0;\nvec3 v = [1,2,3];\nreal x = v[i];");
  REJECT("vec3 v = [1,2,3];\nreal x = v[1.0];", "index must have type int, not real");
  REJECT("vec3 v = [1,2,3];\nreal x = v[3];", "index 3 is out of range for a dimension of size 3");
  REJECT("mat3 m = identity[3];\nreal x = m[1];", "wrong number of indices for tensor[3,3]: expected 2, found 1");
  REJECT("int[3] s = {1,2,3};\nint x = s[:];", "cannot slice a sequence with ':'");
  REJECT("int[3] s = {1,2,3};\nint x = s[0,1];", "a sequence takes exactly one index");
  ACCEPT("input int i = 0;\nint[3] s = {1,2,3};\nint x = s[i];");
  REJECT("bool b = true;\nbool c = b[0];", "cannot index a value of type bool");
  /* sequences */
  ACCEPT("real[] xs = {1.0, 2.0} @ 3;\nint n = length(xs);\nreal[] e = {};");
  ACCEPT("int[] r = 0 .. 9;\nint s = sum{ i * i | i in r };\nreal m = mean{ real(i) | i in r };");
  /* Q27: no int[] -> real[] for mean */
  REJECT("int[] r = 0 .. 9;\nreal m = mean{ i | i in r };", "argument 1 of 'mean' has type int[], expected real[]");
  REJECT("real[2] s = {1.0, true};", "sequence elements have different types: real and bool");
  REJECT("int[] r = 0 .. 1.5;", "operands of '..' must be int, found int and real");
  REJECT("int x = 3;\nint[] r = { i | i in x };", "iteration source must be a sequence, found int");
  /* conditional expressions */
  ACCEPT("real r = 1 if true else 2.5;");
  REJECT("real r = 1.0 if 1 else 2.0;", "condition must have type bool, not int");
  REJECT("real r = 1.0 if true else \"s\";", "branches of conditional expression have no common type: real and string");
  REJECT("input image(2)[] I;\nimage(2)[] J = I if true else I;", "conditional expression has non-value type image(2)[]");
  /* names */
  REJECT("real x = y;", "undeclared variable 'y'");
  REJECT("real x = f(1.0);", "unknown function 'f'");
  REJECT("int n = 1;\nreal x = n(1.0);", "application of non-function of type int");
  REJECT("real x = 1.0;\nreal x = 2.0;", "redefinition of 'x', previous definition at line 2");
  ACCEPT("function real sqrt(real x) = x;\nreal y = sqrt(2.0);"); /* user functions shadow built-ins */
  /* functions: no recursion, declared before use, return checks */
  REJECT("function int f(int n) = f(n);", "unknown function 'f'");
  REJECT("function int f(int n) { if (n > 0) { return 1; } }", "missing return statement in tail position of function 'f'");
  ACCEPT("function int f(int n) { if (n > 0) { return 1; } else { return 2; } }\nint a = f(3);");
  REJECT("function int f(real x) = x;", "function 'f' returns int but its body has type real");
  REJECT("function int f(int n) { return 1.5; }", "return type mismatch: expected int, found real");
  REJECT("function real f(real x) = x;\nreal y = f(1.0, 2.0);", "function 'f' expects 1 argument(s), but 2 given");
  REJECT("function real f(real x) = x;\nreal y = f(true);", "argument 1 of 'f' has type bool, expected real");
  /* const and input restrictions (§3.8) */
  REJECT("input int n = 2;\nconst int m = n;", "reference to non-constant variable 'n' in constant expression");
  /* an input's default may read earlier inputs (a computed default, an
   * extension: doc/language.md §3), not later ones */
  ACCEPT("input int n = 2;\ninput int m = n + 1;");
  REJECT("input int m = n + 1;\ninput int n = 2;", "undeclared variable 'n'");
  REJECT("input int n = 2;\ninput int[] m = {n};", "invalid use of a sequence of this type in constant expression");
  REJECT("function real f(real x) = x;\nconst real c = f(1.0);", "invalid use of function 'f' in constant expression");
  REJECT("const real c = det(identity[2]);", "invalid use of 'det' in constant expression");
  REJECT("const int n = 1;\ntensor[n+1, 1] t = zeros[2,2];", "invalid tensor-shape dimension 1; must be > 1");
  ACCEPT("const int n = 2;\ntensor[n+1, n] t = zeros[3,2];\nint[n*2] s = {1,2,3,4};");
  REJECT("input int n = 2;\ntensor[n] t = zeros[2];", "reference to non-constant variable 'n' in constant expression");
  REJECT("tensor[2.0] t = zeros[2];", "a shape dimension must be a constant integer expression");
  REJECT("image(4)[] I = load_image(\"x.nrrd\");", "invalid dimension 4; must be 1, 2, or 3");
  REJECT("int[-1] s;", "invalid sequence length -1; must be >= 0");
  REJECT("Q q;", "unknown type 'Q'");
  REJECT("const image(2)[] I;", "constant 'I' has non-value type image(2)[]");
  REJECT("input field#1(2)[] F;", "input 'F' has invalid type field#1(2)[]");
  ACCEPT_W("input image(2)[] I;", "assuming a sample type of float for 'I'");
  REJECT("input image(2)[] I = load_image(\"/nonexistent/x.nrrd\");", "proxy image '/nonexistent/x.nrrd' cannot be read");
  REJECT("real x = load_image(\"x.nrrd\");", "cannot infer the type of 'load_image'");
  REJECT("input string f = \"a.nrrd\";\nreal[] x = load_sequence(f);", "the argument of 'load_sequence' must be a constant string");
  ACCEPT("const string f = \"a.nrrd\";\nreal[] x = load_sequence(f);");
  /* assignment rules (§3.6) */
  REJECT("real x = 1.0;\nfunction real f(real y) { x = y; return y; }", "illegal assignment to global variable 'x' in a function");
  REJECT("function real f(real y) { y = 1.0; return y; }", "illegal assignment to parameter 'y'");
  REJECT("const real c = 1.0;\ninitialize { c = 2.0; }", "illegal assignment to constant 'c'");
  ACCEPT("real x = 1.0;\ninput int n = 1;\ninitialize { x = 2.0; n = 3; }");
  REJECT("input image(2)[] I;\nimage(2)[] J = I;\ninitialize { J = I; }", "illegal assignment to field-valued variable 'J'");
  /* definite initialization */
  REJECT("real x;", "global variable x is not initialized");
  ACCEPT("real x;\nreal y = 2.0;\ninitialize { x = y; }");
  ACCEPT("real x;\ninitialize { if (true) { x = 1.0; } else { x = 2.0; } }");
  REJECT("real x;\ninitialize { if (true) { x = 1.0; } }", "global variable x is not initialized");
  REJECT("function real f(real a) { real b; if (a > 0) { b = 1.0; } return b; }",
         "possible use of variable b before it has been initialized");
  ACCEPT("function real f(real a) { real b; if (a > 0) { b = 1.0; } else { return 0.0; } return b; }\nreal q = f(1.0);");
  /* warnings */
  ACCEPT_W("function real f(real a) = 1.0;\nreal y = f(2.0);", "parameter 'a' is unused");
  ACCEPT_W("function real f(real a) = a;", "function 'f' is unused");
  ACCEPT_W("function real f(real a) { return a; real b = 1.0; }\nreal y = f(2.0);", "unreachable statement");
  ACCEPT_W("real y = 1/2;", "integer division '1/2' is truncated before conversion to real");
}

/* Whole programs: strand rules, control flow, creation. */
static void prog(const char *src, const char *want, bool ok, int line) {
  Run r = run_src(src, NULL);
  CHECK_MSG(r.prog && r.ok == ok, "line %d: expected %s:\n%s", line, ok ? "accept" : "reject",
            r.msgs ? r.msgs : "");
  if (want)
    CHECK_MSG(r.msgs && strstr(r.msgs, want), "line %d: missing \"%s\" in:\n%s", line, want,
              r.msgs ? r.msgs : "");
  run_free(&r);
}
#define PROG_OK(s, w) prog(s, w, true, __LINE__)
#define PROG_BAD(s, w) prog(s, w, false, __LINE__)

static void test_strands(void) {
  PROG_OK("#version 2.0\ninput real r = 1.0;\n"
          "strand P(vec2 p0) { output vec2 pos = p0; int n = 0;\n"
          "  update { n = length(sphere(r)); foreach (P q in sphere(r)) { pos += 0.1*(q.pos - pos); }\n"
          "    real s = sum{ |q.pos - pos| | q in sphere(pos, r) };\n"
          "    if (n > 3) { die; } new P(pos); } }\n"
          "update { real m = mean{ p.pos[0] | p in P.all }; if (m > 1.0) { stabilize; } print(m, \"\\n\"); }\n"
          "create_collection { P([real(i), 0.0]) | i in 0..9 };\n",
          NULL);
  const char *head = "#version 2.0\n";
  char buf[2048];
#define STRAND(body) "strand S(int i) { output real y = 0.0; " body " }\n"
#define TAIL "create_array { S(i) | i in 0..1 };\n"
  snprintf(buf, sizeof buf, "%s" STRAND("update { stabilize; }") "create_array { S(i) | i in 0..1 };", head);
  PROG_OK(buf, NULL);
  snprintf(buf, sizeof buf, "%s" STRAND("update { die; }") TAIL, head);
  PROG_BAD(buf, "'create_array' conflicts with use of 'die'; use 'create_collection' instead");
  snprintf(buf, sizeof buf, "%s" STRAND("update { new S(1); stabilize; }") TAIL, head);
  PROG_BAD(buf, "'create_array' conflicts with use of 'new'");
  snprintf(buf, sizeof buf, "%s" STRAND("update { new S(1.5); stabilize; }") "create_collection { S(i) | i in 0..1 };", head);
  PROG_BAD(buf, "arguments of strand 'S' have types (real), expected (int)");
  snprintf(buf, sizeof buf, "%s" STRAND("update { new T(1); stabilize; }") "create_collection { S(i) | i in 0..1 };", head);
  PROG_BAD(buf, "'T' is not the name of a strand");
  snprintf(buf, sizeof buf, "%s" STRAND("stabilize { die; } update { stabilize; }") TAIL, head);
  PROG_BAD(buf, "'die' is not allowed in the stabilize method");
  /* Q17 */
  snprintf(buf, sizeof buf, "%s" STRAND("stabilize { continue; } update { stabilize; }") TAIL, head);
  PROG_BAD(buf, "'continue' is not allowed in the stabilize method");
  snprintf(buf, sizeof buf, "%sfunction real f(real x) { continue; return x; }\n" STRAND("update { stabilize; }") TAIL, head);
  PROG_BAD(buf, "'continue' is not allowed in a function");
  snprintf(buf, sizeof buf, "%s" STRAND("update { continue; }") TAIL, head);
  PROG_OK(buf, "update method of strand S has no reachable 'stabilize' or 'die'");
  snprintf(buf, sizeof buf, "%s" STRAND("update { return 1.0; }") TAIL, head);
  PROG_BAD(buf, "'return' is not allowed in the update method");
  snprintf(buf, sizeof buf, "%sinitialize { stabilize; }\n" STRAND("update { stabilize; }") TAIL, head);
  PROG_BAD(buf, "'stabilize' is not allowed in the global initialize block");
  /* global stabilize is not an exit: no unreachable warning after it */
  snprintf(buf, sizeof buf, "%s" STRAND("update { stabilize; }") "update { stabilize; print(1); }\n" TAIL, head);
  PROG_OK(buf, NULL);
  snprintf(buf, sizeof buf, "%s" STRAND("update { stabilize; y = 1.0; }") TAIL, head);
  PROG_OK(buf, "unreachable statement");
  snprintf(buf, sizeof buf, "%sstrand S(int i) { real y = 0.0; update { stabilize; } }\n" TAIL, head);
  PROG_BAD(buf, "strand S does not have any outputs");
  snprintf(buf, sizeof buf, "%sstrand S(int i) { output real y = 0.0; stabilize { } }\n" TAIL, head);
  PROG_BAD(buf, "strand S is missing an update method");
  snprintf(buf, sizeof buf, "%sstrand S(int i) { output real y; update { stabilize; } }\n" TAIL, head);
  PROG_BAD(buf, "output variable y is not initialized");
  snprintf(buf, sizeof buf, "%sstrand S(int i) { output real y; initialize { y = real(i); } update { stabilize; } }\n" TAIL, head);
  PROG_OK(buf, NULL);
  snprintf(buf, sizeof buf, "%sstrand S(int i) { output image(2)[] y; update { stabilize; } }\n" TAIL, head);
  PROG_BAD(buf, "strand-state variable 'y' has non-value type image(2)[]");
  /* strand parameters and state assignment */
  snprintf(buf, sizeof buf, "%s" STRAND("update { i = 2; stabilize; }") TAIL, head);
  PROG_BAD(buf, "illegal assignment to strand parameter 'i'");
  snprintf(buf, sizeof buf, "%sreal g = 1.0;\n" STRAND("update { g = 2.0; stabilize; }") TAIL, head);
  PROG_BAD(buf, "illegal assignment to global variable 'g' in the update method");
  snprintf(buf, sizeof buf, "%s" STRAND("update { y += 1; y *= 2; int k = 1; k /= 2; k %%= 3; stabilize; }") TAIL, head);
  PROG_OK(buf, NULL);
  /* Q6 */
  snprintf(buf, sizeof buf, "%s" STRAND("update { int k = 0; k += 1.5; stabilize; }") TAIL, head);
  PROG_BAD(buf, "operator '+=' cannot be applied to 'k' of type int and real");
  snprintf(buf, sizeof buf, "%s" STRAND("update { bool b = true; b += 1; stabilize; }") TAIL, head);
  PROG_BAD(buf, "operator '+=' cannot be applied to 'b' of type bool and int");
  /* foreach needs equal element types */
  snprintf(buf, sizeof buf, "%s" STRAND("update { foreach (real x in 0..3) { y += x; } stabilize; }") TAIL, head);
  PROG_BAD(buf, "type mismatch in iterator: declared real, elements have type int");
  /* strand sets */
  snprintf(buf, sizeof buf, "%s" STRAND("update { stabilize; }") "update { S[] a = S.all; }\n" TAIL, head);
  PROG_BAD(buf, "use of strand set 'all' outside of comprehension");
  snprintf(buf, sizeof buf, "%s" STRAND("update { real m = max{ s.y | s in S.all }; stabilize; }") TAIL, head);
  PROG_BAD(buf, "use of strand set outside of a global start or update block");
  snprintf(buf, sizeof buf, "%s" STRAND("update { stabilize; }") "update { real m = max{ s.y | s in S.some }; }\n" TAIL, head);
  PROG_BAD(buf, "unknown strand set 'some'; expected all, active or stable");
  snprintf(buf, sizeof buf, "%s" STRAND("update { stabilize; }") "update { foreach (int k in 0..2) { real m = max{ s.y | s in S.all }; } }\n" TAIL, head);
  PROG_BAD(buf, "comprehension over a strand set inside a loop");
  snprintf(buf, sizeof buf, "%s" STRAND("update { stabilize; }") "update { real m = max{ s.z | s in S.stable }; }\n" TAIL, head);
  PROG_BAD(buf, "strand 'S' has no state variable 'z'");
  /* sphere */
  snprintf(buf, sizeof buf, "%s" STRAND("update { int n = length(sphere(1.0)); stabilize; }") TAIL, head);
  PROG_BAD(buf, "'sphere' requires a state variable 'pos' in strand 'S'");
  snprintf(buf, sizeof buf, "%sstrand S(int i) { output int pos = 0; update { int n = length(sphere(1.0)); stabilize; } }\n" TAIL, head);
  PROG_BAD(buf, "state variable 'pos' must have type real, vec2 or vec3, not int");
  snprintf(buf, sizeof buf, "%s" STRAND("update { stabilize; }") "update { int n = length(sphere(1.0)); }\n" TAIL, head);
  PROG_BAD(buf, "'sphere' may only be used inside the strand");
  /* creation */
  snprintf(buf, sizeof buf, "%s" STRAND("update { stabilize; }") "create_array { S(i, j) | i in 0..1, j in 0..i };\n", head);
  PROG_BAD(buf, "iterator range may not refer to iterator 'i'");
  snprintf(buf, sizeof buf, "%s" STRAND("update { stabilize; }") "create_array { S(1.5) | i in 0..1 };\n", head);
  PROG_BAD(buf, "arguments of strand 'S' have types (real), expected (int)");
  snprintf(buf, sizeof buf, "%s" STRAND("update { stabilize; }") "create_array { T(i) | i in 0..1 };\n", head);
  PROG_BAD(buf, "'T' is not the name of a strand");
  snprintf(buf, sizeof buf, "%s" STRAND("update { stabilize; }") "create_array { S(i) | i in 3 };\n", head);
  PROG_BAD(buf, "iterator 'i' ranges over int, which is not a sequence");
  snprintf(buf, sizeof buf, "%s" STRAND("update { stabilize; }") "create_collection { S(i) | i in {1, 5, 7} };\n", head);
  PROG_OK(buf, NULL);
  snprintf(buf, sizeof buf, "%s" STRAND("update { y = S(1); stabilize; }") TAIL, head);
  PROG_BAD(buf, "strand 'S' cannot be called as a function");
  /* several independent errors in one run, no cascades from the first */
  Run r = run_src("#version 2.0\nreal a = 1 + true;\nreal b = a + 1;\nint c = 1.5;\n"
                  "vec3 d = q;\nreal e = d[0] * 2;\n" STRAND_TAIL,
                  NULL);
  CHECK(!r.ok);
  int n = 0;
  for (const char *p = r.msgs; p && (p = strstr(p, ": error: ")); p++) n++;
  CHECK_MSG(n == 3, "expected 3 errors, got %d:\n%s", n, r.msgs);
  run_free(&r);
  /* 1.0 dialect */
  PROG_OK("strand S(int i) { output real y = 0.0; update { stabilize; } }\ninitially [ S(i) | i in 0..1 ];\n",
          NULL);
  PROG_BAD("real x;\nstrand S(int i) { output real y = 0.0; update { stabilize; } }\ninitially [ S(i) | i in 0..1 ];\n",
           "global variable 'x' must be initialized in Diderot 1.0");
}

/* Hostile-but-parseable inputs: no crash, some diagnostic. */
static void test_robustness(void) {
  const char *progs[] = {
      "#version 2.0\nstrand S() { output real y = {}[0]; update { stabilize; } }\ncreate_array { S() | i in 0..1 };\n",
      "#version 2.0\nreal x = ((((((1))))));\nstrand S() { output real y = x; update { stabilize; } }\ncreate_array { S() | i in {} };\n",
      "#version 2.0\nint[] e = {} @ {};\nstrand S() { output int y = length(e); update { stabilize; } }\ncreate_array { S() | i in e };\n",
      "#version 2.0\nstrand S() { output real y = S.all; update { stabilize; } }\ncreate_array { 3 | i in 0..1 };\n",
      "#version 2.0\nstrand S() { output S y; update { stabilize; } }\ncreate_array { S | i in 0..1 };\n",
      "#version 2.0\nreal x = sphere;\nstrand S() { output real y = max(); update { y = y.y; stabilize; } }\ncreate_array { S() | i in 0..1 };\n",
      "#version 2.0\nfield#2(2)[] F = F;\nstrand S() { output real y = F(F); update { stabilize; } }\ncreate_array { S() | i in 0..1 };\n",
  };
  for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
    Run r = run_src(progs[i], NULL);
    CHECK_MSG(r.prog != NULL, "program %zu did not parse:\n%s", i, r.msgs);
    run_free(&r);
  }
}

/* Edit distances worked out by hand; the typo limit of suggest.h. */
static void test_suggest(void) {
  CHECK(suggest_distance("", "") == 0);
  CHECK(suggest_distance("abc", "") == 3);
  CHECK(suggest_distance("ctmrr", "ctmr") == 1);       /* deletion */
  CHECK(suggest_distance("stabilise", "stabilize") == 1); /* substitution */
  CHECK(suggest_distance("sqtr", "sqrt") == 1);        /* swap of neighbours */
  CHECK(suggest_distance("kitten", "sitting") == 3);
  Suggest s;
  suggest_init(&s, "radiuss");
  suggest_offer(&s, "zzz");
  suggest_offer(&s, "radius");
  suggest_offer(&s, "radii");
  CHECK_STR(suggest_best(&s), "radius");
  suggest_init(&s, "x"); /* one letter: everything is a rewrite */
  suggest_offer(&s, "y");
  CHECK(suggest_best(&s) == NULL);
  suggest_init(&s, "tenet"); /* 5 letters: at most 1 edit */
  suggest_offer(&s, "tent");
  suggest_offer(&s, "bspln3");
  CHECK_STR(suggest_best(&s), "tent");
  suggest_init(&s, "abcdef"); /* 6 letters: 2 edits, not 3 */
  suggest_offer(&s, "abxyzf");
  CHECK(suggest_best(&s) == NULL);
  suggest_offer(&s, "abxdyf");
  CHECK_STR(suggest_best(&s), "abxdyf");
}

int main(void) {
  test_suggest();
  Arena *a = arena_new();
  TypeCtx tc;
  type_ctx_init(&tc, a);
  test_printing(&tc);
  test_value_types(&tc);
  test_coercions(&tc);
  test_unify(&tc);
  test_signatures(a, &tc);
  test_scheme_match(a, &tc);
  arena_free(a);
  test_overloads();
  test_const_fold();
  test_overrides();
  test_programs();
  test_strands();
  test_robustness();
  return unit_finish("types");
}
