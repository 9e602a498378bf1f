/* ein_print.c -- a stable, readable printer for EIN expressions/operators.
 *
 * The output is deterministic (it depends only on the structure), so tests
 * may compare printed forms. Parentheses follow precedence:
 *   Σ (extends to the right) < + - < * / < unary - < ^ < atoms,
 * with the operands of * and / printed at unary level so that nested
 * products stay visible: a*(b*c) is not a*b*c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ein.h"

typedef struct Buf {
  char *p;
  size_t n, cap;
  bool ascii;
} Buf;

static void put(Buf *b, const char *s) {
  size_t len = strlen(s);
  if (b->n + len + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (b->n + len + 1 > cap) cap *= 2;
    char *np = realloc(b->p, cap);
    if (!np) return; /* drop output rather than crash; the arena copy stays valid */
    b->p = np;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, len + 1);
  b->n += len;
}

static void putf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(Buf *b, const char *fmt, ...) {
  char tmp[64];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  put(b, tmp);
}

static const char *sym(const Buf *b, const char *uni, const char *ascii) {
  return b->ascii ? ascii : uni;
}

static void put_var(Buf *b, int v) {
  static const char names[] = "ijklmnpqrstuvw";
  if (v >= 0 && v < (int)sizeof names - 1) {
    char s[2] = {names[v], 0};
    put(b, s);
  } else {
    putf(b, "i%d", v);
  }
}

static void put_idx(Buf *b, EinIdx x) {
  if (ein_idx_is_var(x))
    put_var(b, ein_idx_val(x));
  else
    putf(b, "%d", ein_idx_val(x));
}

static void put_idx_list(Buf *b, int n, const EinIdx *idx) {
  for (int i = 0; i < n; i++) {
    if (i) put(b, ",");
    put_idx(b, idx[i]);
  }
}

/* Parameters print as their kind letter and position; the node says which
 * kind it refers to, so no operator is needed to print an expression. */
static void put_param(Buf *b, char kind, int p) { putf(b, "%c%d", kind, p); }

static char kind_letter(EinParamKind k) {
  switch (k) {
  case EIN_PARAM_TENSOR: return 'T';
  case EIN_PARAM_FIELD: return 'F';
  case EIN_PARAM_IMAGE: return 'V';
  case EIN_PARAM_KERNEL: return 'H';
  }
  return '?';
}

enum { P_SUM = 0, P_ADD = 1, P_MUL = 2, P_UNARY = 3, P_POW = 4, P_ATOM = 5 };

static int prec(const EinExpr *e) {
  switch (e->tag) {
  case EIN_SUM: return P_SUM;
  case EIN_ADD:
  case EIN_SUB: return P_ADD;
  case EIN_MUL:
  case EIN_DIV: return P_MUL;
  case EIN_NEG: return P_UNARY;
  case EIN_POW: return P_POW;
  case EIN_CONST:
    if (e->c.is_real) return e->c.real < 0 || signbit(e->c.real) ? P_UNARY : P_ATOM;
    if (e->c.den != 1) return P_MUL;
    return e->c.num < 0 ? P_UNARY : P_ATOM;
  default: return P_ATOM;
  }
}

static void put_const(Buf *b, const EinConst *k) {
  if (!k->is_real) {
    if (k->den == 1)
      putf(b, "%lld", (long long)k->num);
    else
      putf(b, "%lld/%lld", (long long)k->num, (long long)k->den);
    return;
  }
  char tmp[40];
  snprintf(tmp, sizeof tmp, "%.17g", k->real);
  /* Mark reals so that 2.0 never reads as the exact rational 2. */
  if (!strpbrk(tmp, ".eEn")) strcat(tmp, ".0");
  put(b, tmp);
}

static void pr(Buf *b, const EinExpr *e, int ctx);

static void pr_kids(Buf *b, const EinExpr *e, const char *sep, int ctx) {
  for (int i = 0; i < e->nkids; i++) {
    if (i) put(b, sep);
    pr(b, e->kids[i], ctx);
  }
}

static void pr(Buf *b, const EinExpr *e, int ctx) {
  bool paren = prec(e) < ctx;
  if (paren) put(b, "(");
  switch (e->tag) {
  case EIN_CONST: put_const(b, &e->c); break;
  case EIN_DELTA:
  case EIN_EPS:
    put(b, e->tag == EIN_DELTA ? sym(b, "δ[", "delta[") : sym(b, "ε[", "eps["));
    put_idx_list(b, e->nidx, e->idx);
    put(b, "]");
    break;
  case EIN_TENSOR:
  case EIN_FIELD:
    put_param(b, e->tag == EIN_TENSOR ? 'T' : 'F', e->param);
    if (e->nidx) {
      put(b, "[");
      put_idx_list(b, e->nidx, e->idx);
      put(b, "]");
    }
    break;
  case EIN_CONV:
    put_param(b, 'V', e->param);
    if (e->nidx) {
      put(b, "[");
      put_idx_list(b, e->nidx, e->idx);
      put(b, "]");
    }
    put(b, sym(b, "⊛", "(*)"));
    put_param(b, 'H', e->param2);
    if (e->nidx2) {
      put(b, "^{");
      put_idx_list(b, e->nidx2, e->idx2);
      put(b, "}");
    }
    break;
  case EIN_LIFT:
    put(b, "lift(");
    pr(b, e->kids[0], P_SUM);
    put(b, ")");
    break;
  case EIN_FUN:
    put(b, ein_fun_name((EinFun)e->fun));
    put(b, "(");
    pr(b, e->kids[0], P_SUM);
    put(b, ")");
    break;
  case EIN_POW:
    pr(b, e->kids[0], P_ATOM);
    if (e->power < 0)
      putf(b, "^(%d)", e->power);
    else
      putf(b, "^%d", e->power);
    break;
  case EIN_NEG:
    put(b, "-");
    pr(b, e->kids[0], P_POW);
    break;
  case EIN_ADD: pr_kids(b, e, " + ", P_ADD); break;
  case EIN_SUB:
    pr(b, e->kids[0], P_ADD);
    put(b, " - ");
    pr(b, e->kids[1], P_MUL);
    break;
  case EIN_MUL: pr_kids(b, e, "*", P_UNARY); break;
  case EIN_DIV: pr_kids(b, e, "/", P_UNARY); break;
  case EIN_SUM:
    put(b, sym(b, "Σ_{", "sum_{"));
    for (int i = 0; i < e->nbind; i++) {
      if (i) put(b, ",");
      put_var(b, e->bind[i].var);
      putf(b, "=%d..%d", e->bind[i].lo, e->bind[i].hi);
    }
    put(b, "} ");
    pr(b, e->kids[0], P_SUM);
    break;
  case EIN_DIFF:
    put(b, sym(b, "∂_", "d_"));
    put_idx(b, e->idx[0]);
    put(b, "(");
    pr(b, e->kids[0], P_SUM);
    put(b, ")");
    break;
  case EIN_PROBE:
    put(b, "(");
    pr(b, e->kids[0], P_SUM);
    put(b, ")@");
    put_param(b, 'T', e->param);
    break;
  case EIN_TAG_COUNT: put(b, "?"); break;
  }
  if (paren) put(b, ")");
}

static char *finish(Arena *a, Buf *b) {
  char *s = arena_strdup(a, b->p ? b->p : "");
  free(b->p);
  return s;
}

char *ein_expr_str(Arena *a, const EinExpr *e, unsigned flags) {
  Buf b = {NULL, 0, 0, (flags & EIN_PRINT_ASCII) != 0};
  pr(&b, e, P_SUM);
  return finish(a, &b);
}

static void pr_op(Buf *b, const EinOp *op) {
  put(b, sym(b, "λ", "\\"));
  for (int i = 0; i < op->nparams; i++) {
    if (i) put(b, ",");
    put_param(b, kind_letter(op->params[i].kind), i);
  }
  put(b, sym(b, "⟨", "<"));
  pr(b, op->body, P_SUM);
  put(b, sym(b, "⟩_{", ">_{"));
  for (int i = 0; i < op->nsigma; i++) {
    if (i) put(b, ",");
    put_var(b, i);
    putf(b, ":%d", op->sigma[i]);
  }
  put(b, "}");
}

char *ein_op_str(Arena *a, const EinOp *op, unsigned flags) {
  Buf b = {NULL, 0, 0, (flags & EIN_PRINT_ASCII) != 0};
  pr_op(&b, op);
  return finish(a, &b);
}

void ein_op_fprint(FILE *out, const EinOp *op, unsigned flags) {
  Buf b = {NULL, 0, 0, (flags & EIN_PRINT_ASCII) != 0};
  pr_op(&b, op);
  if (b.p) fputs(b.p, out);
  free(b.p);
}
