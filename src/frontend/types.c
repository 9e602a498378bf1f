/* types.c -- type construction, unification, coercion, printing, and the
 * matching of built-in schemes against argument types. */
#include "frontend/types.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static Type *type_new(TypeCtx *tc, TypeKind k) {
  Type *t = ARENA_NEW(tc->arena, Type);
  t->kind = k;
  return t;
}

void type_ctx_init(TypeCtx *tc, Arena *a) {
  memset(tc, 0, sizeof *tc);
  tc->arena = a;
  tc->t_error = type_new(tc, TY_ERROR);
  tc->t_bool = type_new(tc, TY_BOOL);
  tc->t_int = type_new(tc, TY_INT);
  tc->t_string = type_new(tc, TY_STRING);
  tc->t_real = type_new(tc, TY_TENSOR);
}

/* ------------------------------------------------------------ shapes */

Shape shape_normalize(TypeCtx *tc, int order, const int *dims) {
  int n = 0;
  for (int i = 0; i < order; i++)
    if (dims[i] != 1) n++;
  Shape s = {0, NULL};
  if (n == 0) return s;
  int *d = ARENA_NEW_ARRAY(tc->arena, int, n);
  n = 0;
  for (int i = 0; i < order; i++)
    if (dims[i] != 1) d[n++] = dims[i];
  s.order = n;
  s.dims = d;
  return s;
}

Shape shape_concat(TypeCtx *tc, Shape a, Shape b) {
  if (a.order == 0) return b;
  if (b.order == 0) return a;
  int *d = ARENA_NEW_ARRAY(tc->arena, int, a.order + b.order);
  memcpy(d, a.dims, sizeof(int) * (size_t)a.order);
  memcpy(d + a.order, b.dims, sizeof(int) * (size_t)b.order);
  Shape s = {a.order + b.order, d};
  return s;
}

bool shape_equal(Shape a, Shape b) {
  if (a.order != b.order) return false;
  for (int i = 0; i < a.order; i++)
    if (a.dims[i] != b.dims[i]) return false;
  return true;
}

int shape_size(Shape s) {
  long long n = 1;
  for (int i = 0; i < s.order; i++) {
    n *= s.dims[i];
    if (n > INT_MAX) return INT_MAX;
  }
  return (int)n;
}

const char *shape_str(Arena *a, int order, const int *dims) {
  char buf[32 * 12 + 8];
  size_t n = 0;
  buf[n++] = '[';
  for (int i = 0; i < order && i < 32; i++)
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%d", i ? "," : "", dims[i]);
  if (order > 32) n += (size_t)snprintf(buf + n, sizeof buf - n, ",...");
  snprintf(buf + n, sizeof buf - n, "]");
  return arena_strdup(a, buf);
}

/* ------------------------------------------------------ construction */

const Type *type_tensor_shape(TypeCtx *tc, Shape s) {
  if (s.order == 0) return tc->t_real;
  bool small = s.order <= 2 && s.dims[0] <= 4 && (s.order == 1 || s.dims[1] <= 4);
  int i = small ? s.dims[0] : 0, j = small && s.order == 2 ? s.dims[1] : 0;
  if (small && tc->small_tensor[i][j]) return tc->small_tensor[i][j];
  Type *t = type_new(tc, TY_TENSOR);
  if (small) {
    /* own copy of the dims: `s` may point into a caller's buffer */
    int *d = ARENA_NEW_ARRAY(tc->arena, int, s.order);
    memcpy(d, s.dims, sizeof(int) * (size_t)s.order);
    s.dims = d;
    tc->small_tensor[i][j] = t;
  }
  t->shape = s;
  return t;
}

const Type *type_tensor(TypeCtx *tc, int order, const int *dims) {
  return type_tensor_shape(tc, shape_normalize(tc, order, dims));
}

const Type *type_vec(TypeCtx *tc, int n) { return type_tensor(tc, 1, &n); }

const Type *type_seq(TypeCtx *tc, const Type *elem, int len) {
  Type *t = type_new(tc, TY_SEQ);
  t->elem = elem;
  t->len = len;
  return t;
}

const Type *type_image(TypeCtx *tc, int dim, Shape s) {
  Type *t = type_new(tc, TY_IMAGE);
  t->dim = dim;
  t->shape = s;
  return t;
}

const Type *type_field(TypeCtx *tc, int cont, int dim, Shape s) {
  Type *t = type_new(tc, TY_FIELD);
  t->cont = cont;
  t->dim = dim;
  t->shape = s;
  return t;
}

const Type *type_kernel(TypeCtx *tc, int cont) {
  Type *t = type_new(tc, TY_KERNEL);
  t->cont = cont;
  return t;
}

const Type *type_border(TypeCtx *tc) { return type_new(tc, TY_BORDER); }

const Type *type_strand(TypeCtx *tc, const char *name) {
  Type *t = type_new(tc, TY_STRAND);
  t->name = name;
  return t;
}

const Type *type_fun(TypeCtx *tc, int nparams, const Type *const *params, const Type *result) {
  Type *t = type_new(tc, TY_FUN);
  t->nparams = nparams;
  t->params = params;
  t->result = result;
  return t;
}

const Type *type_var(TypeCtx *tc) {
  Type *t = type_new(tc, TY_VAR);
  t->var = ARENA_NEW(tc->arena, TypeVarCell);
  t->var->id = tc->next_var++;
  return t;
}

/* ----------------------------------------------------------- queries */

const Type *type_prune(const Type *t) {
  while (t && t->kind == TY_VAR && t->var->bound) t = t->var->bound;
  return t;
}

bool type_is_error(const Type *t) {
  t = type_prune(t);
  return !t || t->kind == TY_ERROR;
}

bool type_has_error(const Type *t) {
  t = type_prune(t);
  if (!t || t->kind == TY_ERROR) return true;
  if (t->kind == TY_SEQ) return type_has_error(t->elem);
  if (t->kind == TY_FUN) {
    for (int i = 0; i < t->nparams; i++)
      if (type_has_error(t->params[i])) return true;
    return type_has_error(t->result);
  }
  return false;
}

bool type_is_real(const Type *t) {
  t = type_prune(t);
  return t && t->kind == TY_TENSOR && t->shape.order == 0;
}

bool type_is_scalar_field(const Type *t) {
  t = type_prune(t);
  return t && t->kind == TY_FIELD && t->shape.order == 0;
}

static bool value_type(const Type *t, bool strand_ok) {
  t = type_prune(t);
  if (!t) return false;
  switch (t->kind) {
  case TY_ERROR: /* already reported */
  case TY_BOOL:
  case TY_INT:
  case TY_STRING:
  case TY_TENSOR:
  case TY_VAR: /* element of `{}`: resolved from context */
    return true;
  case TY_STRAND:
    return strand_ok;
  case TY_SEQ:
    if (t->len == TYPE_SEQ_DYNAMIC && !type_has_fixed_size(t->elem)) return false;
    return value_type(t->elem, true);
  default:
    return false;
  }
}

bool type_is_value(const Type *t) {
  t = type_prune(t);
  if (t && t->kind == TY_SEQ) {
    /* a sequence of strands is fine as a value (sphere results) only
     * where the caller allows strands; see the _or_strand_seq variant */
    const Type *e = type_prune(t->elem);
    while (e && e->kind == TY_SEQ) e = type_prune(e->elem);
    if (e && e->kind == TY_STRAND) return false;
  }
  return value_type(t, false);
}

bool type_is_value_or_strand_seq(const Type *t) { return value_type(t, false); }

bool type_has_fixed_size(const Type *t) {
  t = type_prune(t);
  if (!t) return true;
  if (t->kind == TY_SEQ) return t->len != TYPE_SEQ_DYNAMIC && type_has_fixed_size(t->elem);
  return true;
}

bool type_equal(const Type *a, const Type *b) {
  a = type_prune(a);
  b = type_prune(b);
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  switch (a->kind) {
  case TY_ERROR:
  case TY_BOOL:
  case TY_INT:
  case TY_STRING:
    return true;
  case TY_TENSOR:
    return shape_equal(a->shape, b->shape);
  case TY_SEQ:
    return a->len == b->len && type_equal(a->elem, b->elem);
  case TY_IMAGE:
    return a->dim == b->dim && shape_equal(a->shape, b->shape);
  case TY_FIELD:
    return a->cont == b->cont && a->dim == b->dim && shape_equal(a->shape, b->shape);
  case TY_KERNEL:
    return a->cont == b->cont;
  case TY_BORDER:
    return true;
  case TY_STRAND:
    return a->name && b->name && strcmp(a->name, b->name) == 0;
  case TY_FUN:
    if (a->nparams != b->nparams || !type_equal(a->result, b->result)) return false;
    for (int i = 0; i < a->nparams; i++)
      if (!type_equal(a->params[i], b->params[i])) return false;
    return true;
  case TY_VAR:
    return a->var == b->var;
  }
  return false;
}

/* ------------------------------------------------------- unification */

static bool occurs(const TypeVarCell *v, const Type *t) {
  t = type_prune(t);
  if (!t) return false;
  if (t->kind == TY_VAR) return t->var == v;
  if (t->kind == TY_SEQ) return occurs(v, t->elem);
  return false;
}

static bool bind_var(TypeVarCell *v, const Type *t, TypeTrail *trail) {
  if (occurs(v, t)) return false;
  v->bound = t;
  if (trail && trail->n < TYPE_TRAIL_MAX) trail->cells[trail->n++] = v;
  return true;
}

void type_trail_undo(TypeTrail *trail, int mark) {
  if (!trail) return;
  while (trail->n > mark) trail->cells[--trail->n]->bound = NULL;
}

bool type_unify(const Type *a, const Type *b, TypeTrail *trail) {
  a = type_prune(a);
  b = type_prune(b);
  if (!a || !b) return true;
  if (a == b || a->kind == TY_ERROR || b->kind == TY_ERROR) return true;
  if (a->kind == TY_VAR) return bind_var(a->var, b, trail);
  if (b->kind == TY_VAR) return bind_var(b->var, a, trail);
  if (a->kind == TY_SEQ && b->kind == TY_SEQ)
    return a->len == b->len && type_unify(a->elem, b->elem, trail);
  return type_equal(a, b);
}

/* Coercion of sequence elements: equal, or int->real inside fixed
 * sequences (recursively). */
static Coercion coerce_elem(const Type *from, const Type *to, TypeTrail *trail) {
  from = type_prune(from);
  to = type_prune(to);
  if (type_unify(from, to, trail)) return COERCE_EQUAL;
  if (from->kind == TY_INT && type_is_real(to)) return COERCE_OK;
  if (from->kind == TY_SEQ && to->kind == TY_SEQ && from->len != TYPE_SEQ_DYNAMIC &&
      from->len == to->len)
    return coerce_elem(from->elem, to->elem, trail) == COERCE_FAIL ? COERCE_FAIL : COERCE_OK;
  return COERCE_FAIL;
}

Coercion type_coerce(const Type *from, const Type *to, TypeTrail *trail) {
  from = type_prune(from);
  to = type_prune(to);
  if (!from || !to || from->kind == TY_ERROR || to->kind == TY_ERROR) return COERCE_EQUAL;
  int mark = trail ? trail->n : 0;
  if (type_unify(from, to, trail)) return COERCE_EQUAL;
  type_trail_undo(trail, mark);
  if (from->kind == TY_INT && type_is_real(to)) return COERCE_OK;
  if (from->kind == TY_SEQ && to->kind == TY_SEQ && from->len != TYPE_SEQ_DYNAMIC) {
    if (to->len == TYPE_SEQ_DYNAMIC || to->len == from->len) {
      Coercion c = coerce_elem(from->elem, to->elem, trail);
      if (c != COERCE_FAIL) return COERCE_OK;
    }
    type_trail_undo(trail, mark);
    return COERCE_FAIL;
  }
  if (from->kind == TY_FIELD && to->kind == TY_FIELD && from->dim == to->dim &&
      shape_equal(from->shape, to->shape) && to->cont <= from->cont)
    return COERCE_OK;
  return COERCE_FAIL;
}

const Type *type_join(const Type *a, const Type *b, TypeTrail *trail) {
  a = type_prune(a);
  b = type_prune(b);
  if (!a || a->kind == TY_ERROR) return b;
  if (!b || b->kind == TY_ERROR) return a;
  if (type_coerce(b, a, trail) != COERCE_FAIL) return type_prune(a);
  if (type_coerce(a, b, trail) != COERCE_FAIL) return type_prune(b);
  return NULL;
}

const Type *type_zonk(TypeCtx *tc, const Type *t, const Type *dflt) {
  if (!t) return t;
  const Type *p = type_prune(t);
  if (p->kind == TY_VAR) return dflt;
  if (p->kind == TY_SEQ) {
    const Type *e = type_zonk(tc, p->elem, dflt);
    return e == p->elem ? p : type_seq(tc, e, p->len);
  }
  return p;
}

/* ---------------------------------------------------------- printing */

typedef struct Buf {
  char *p;
  size_t n, len;
} Buf;

static void buf_puts(Buf *b, const char *s) {
  size_t l = strlen(s);
  if (b->len + 1 < b->n) {
    size_t room = b->n - 1 - b->len;
    size_t k = l < room ? l : room;
    memcpy(b->p + b->len, s, k);
    b->len += k;
    b->p[b->len] = 0;
  }
}

static void buf_int(Buf *b, int v) {
  char tmp[16];
  snprintf(tmp, sizeof tmp, "%d", v);
  buf_puts(b, tmp);
}

static void buf_shape(Buf *b, Shape s) {
  buf_puts(b, "[");
  for (int i = 0; i < s.order; i++) {
    if (i) buf_puts(b, ",");
    buf_int(b, s.dims[i]);
  }
  buf_puts(b, "]");
}

static void print_type(Buf *b, const Type *t) {
  t = type_prune(t);
  if (!t) {
    buf_puts(b, "<error>");
    return;
  }
  switch (t->kind) {
  case TY_ERROR: buf_puts(b, "<error>"); break;
  case TY_BOOL: buf_puts(b, "bool"); break;
  case TY_INT: buf_puts(b, "int"); break;
  case TY_STRING: buf_puts(b, "string"); break;
  case TY_TENSOR:
    if (t->shape.order == 0) {
      buf_puts(b, "real");
    } else {
      buf_puts(b, "tensor");
      buf_shape(b, t->shape);
    }
    break;
  case TY_SEQ:
    print_type(b, t->elem);
    buf_puts(b, "[");
    if (t->len != TYPE_SEQ_DYNAMIC) buf_int(b, t->len);
    buf_puts(b, "]");
    break;
  case TY_IMAGE:
    buf_puts(b, "image(");
    buf_int(b, t->dim);
    buf_puts(b, ")");
    buf_shape(b, t->shape);
    break;
  case TY_FIELD:
    buf_puts(b, "field");
    if (t->cont != TYPE_CONT_INF) {
      buf_puts(b, "#");
      buf_int(b, t->cont);
    }
    buf_puts(b, "(");
    buf_int(b, t->dim);
    buf_puts(b, ")");
    buf_shape(b, t->shape);
    break;
  case TY_KERNEL:
    buf_puts(b, "kernel#");
    buf_int(b, t->cont);
    break;
  case TY_BORDER: buf_puts(b, "border"); break;
  case TY_STRAND: buf_puts(b, t->name ? t->name : "<strand>"); break;
  case TY_FUN:
    buf_puts(b, "(");
    for (int i = 0; i < t->nparams; i++) {
      if (i) buf_puts(b, ", ");
      print_type(b, t->params[i]);
    }
    buf_puts(b, ") -> ");
    print_type(b, t->result);
    break;
  case TY_VAR: buf_puts(b, "?"); break;
  }
}

char *type_print(const Type *t, char *buf, size_t n) {
  Buf b = {buf, n, 0};
  if (n) buf[0] = 0;
  print_type(&b, t);
  return buf;
}

const char *type_str(Arena *a, const Type *t) {
  char tmp[256];
  return arena_strdup(a, type_print(t, tmp, sizeof tmp));
}

const char *type_list_str(Arena *a, const Type *const *ts, int n) {
  char tmp[1024];
  Buf b = {tmp, sizeof tmp, 0};
  tmp[0] = 0;
  buf_puts(&b, "(");
  for (int i = 0; i < n; i++) {
    if (i) buf_puts(&b, ", ");
    print_type(&b, ts[i]);
  }
  buf_puts(&b, ")");
  return arena_strdup(a, tmp);
}

/* ------------------------------------------------- scheme matching */

typedef enum { M_NO, M_YES, M_DEFER } MRes;

/* A shape pattern with the bound variables substituted: each slot is a
 * known dimension (>= 2, ones dropped) or an unbound dimension variable;
 * `svar_at` is the slot index of an unbound shape variable, or -1. */
typedef struct Slots {
  int n;
  int val[32]; /* value, or -1 - var for an unbound dimension variable */
  int svar, svar_at;
  bool overflow;
} Slots;

static void slots_push(Slots *s, int v) {
  if (s->n < 32) s->val[s->n++] = v;
  else s->overflow = true;
}

static void pdim_slot(Slots *s, const Subst *su, PDim d) {
  if (d.var < 0) {
    if (d.value != 1) slots_push(s, d.value);
  } else if (su->dim_set[d.var]) {
    if (su->dim[d.var] != 1) slots_push(s, su->dim[d.var]);
  } else {
    slots_push(s, -1 - d.var);
  }
}

static Slots subst_shape(const Subst *su, const PShape *p) {
  Slots s;
  s.n = 0;
  s.svar = -1;
  s.svar_at = -1;
  s.overflow = false;
  for (int i = 0; i <= p->n; i++) {
    if (p->svar >= 0 && p->spos == i) {
      if (su->shape_set[p->svar]) {
        Shape sh = su->shape[p->svar];
        for (int j = 0; j < sh.order; j++) slots_push(&s, sh.dims[j]);
      } else {
        s.svar = p->svar;
        s.svar_at = s.n;
      }
    }
    if (i < p->n) pdim_slot(&s, su, p->items[i]);
  }
  return s;
}

static bool bind_dim(Subst *su, int var, int v) {
  if (su->dim_set[var]) return su->dim[var] == v;
  su->dim_set[var] = true;
  su->dim[var] = v;
  return true;
}

static bool match_slot(Subst *su, int slot, int v) {
  if (slot >= 0) return slot == v;
  return bind_dim(su, -1 - slot, v);
}

static MRes match_shape(TypeCtx *tc, Subst *su, const PShape *p, Shape a) {
  Slots s = subst_shape(su, p);
  if (s.overflow) return M_NO;
  bool unbound = false;
  for (int i = 0; i < s.n; i++)
    if (s.val[i] < 0) unbound = true;
  if (s.svar < 0) {
    if (s.n != a.order) return unbound ? M_DEFER : M_NO;
    for (int i = 0; i < s.n; i++)
      if (!match_slot(su, s.val[i], a.dims[i])) return M_NO;
    return M_YES;
  }
  if (a.order < s.n) return unbound ? M_DEFER : M_NO;
  int pre = s.svar_at, post = s.n - s.svar_at, mid = a.order - s.n;
  for (int i = 0; i < pre; i++)
    if (!match_slot(su, s.val[i], a.dims[i])) return M_NO;
  for (int i = 0; i < post; i++)
    if (!match_slot(su, s.val[pre + i], a.dims[pre + mid + i])) return M_NO;
  Shape m = {mid, NULL};
  if (mid) {
    int *d = ARENA_NEW_ARRAY(tc->arena, int, mid);
    memcpy(d, a.dims + pre, sizeof(int) * (size_t)mid);
    m.dims = d;
  }
  su->shape_set[s.svar] = true;
  su->shape[s.svar] = m;
  return M_YES;
}

static bool match_pdim(Subst *su, PDim p, int v) {
  if (p.var < 0) return p.value == v;
  return bind_dim(su, p.var, v);
}

/* Continuity: exact, or (fields in the coercion pass) an upper bound. */
static bool match_cont(Subst *su, PCont p, int c, bool bound_only) {
  if (p.kind == PC_INF) return c == TYPE_CONT_INF || bound_only;
  if (p.kind == PC_CONST) return bound_only ? p.value <= c : p.value == c;
  /* k + offset = c, i.e. k = c - offset (∞ stays ∞) */
  int k = c == TYPE_CONT_INF ? TYPE_CONT_INF : c - p.offset;
  if (bound_only) {
    if (!su->cont_bounded || k < su->cont_upper) su->cont_upper = k;
    su->cont_bounded = true;
    return true;
  }
  if (su->cont_set) return su->cont == k;
  su->cont_set = true;
  su->cont = k;
  return true;
}

static const Type *instantiate(TypeCtx *tc, const Subst *su, const PType *p, bool *neg);

static void bind_ones(Subst *su, const PType *p) {
  /* only shape items are 1-ambiguous; domain dims and lengths are not */
  for (int i = 0; i < p->shape.n; i++) {
    int v = p->shape.items[i].var;
    if (v >= 0 && !su->dim_set[v]) bind_dim(su, v, 1);
  }
  if (p->elem) bind_ones(su, p->elem);
}

static MRes match_type(TypeCtx *tc, Subst *su, const PType *p, const Type *a, bool coerce) {
  a = type_prune(a);
  if (!a || a->kind == TY_ERROR) return M_YES;
  if (p->kind == TY_VAR) {
    if (!su->tvar) {
      su->tvar = a;
      return M_YES;
    }
    if (coerce) return type_coerce(a, su->tvar, &su->trail) != COERCE_FAIL ? M_YES : M_NO;
    return type_unify(su->tvar, a, &su->trail) ? M_YES : M_NO;
  }
  if (a->kind == TY_VAR) {
    /* an unknown element type: take the pattern's type if it is known */
    bool neg = false;
    const Type *t = instantiate(tc, su, p, &neg);
    if (!t) return M_DEFER;
    return type_unify(a, t, &su->trail) ? M_YES : M_NO;
  }
  switch (p->kind) {
  case TY_BOOL:
  case TY_INT:
  case TY_STRING:
    return a->kind == p->kind ? M_YES : M_NO;
  case TY_TENSOR: {
    Shape none = {0, NULL};
    if (a->kind == TY_TENSOR) return match_shape(tc, su, &p->shape, a->shape);
    if (a->kind == TY_INT && coerce) return match_shape(tc, su, &p->shape, none);
    return M_NO;
  }
  case TY_SEQ:
    if (a->kind != TY_SEQ) return M_NO;
    if (p->dynamic) {
      if (a->len == TYPE_SEQ_DYNAMIC) return match_type(tc, su, p->elem, a->elem, false);
      if (!coerce) return M_NO;
      return match_type(tc, su, p->elem, a->elem, true);
    }
    if (a->len == TYPE_SEQ_DYNAMIC || !match_pdim(su, p->len, a->len)) return M_NO;
    return match_type(tc, su, p->elem, a->elem, coerce);
  case TY_IMAGE:
    if (a->kind != TY_IMAGE || !match_pdim(su, p->dim, a->dim)) return M_NO;
    return match_shape(tc, su, &p->shape, a->shape);
  case TY_FIELD: {
    if (a->kind != TY_FIELD || !match_pdim(su, p->dim, a->dim)) return M_NO;
    MRes r = match_shape(tc, su, &p->shape, a->shape);
    if (r != M_YES) return r;
    return match_cont(su, p->cont, a->cont, coerce) ? M_YES : M_NO;
  }
  case TY_KERNEL:
    if (a->kind != TY_KERNEL) return M_NO;
    return match_cont(su, p->cont, a->cont, false) ? M_YES : M_NO;
  default:
    return M_NO;
  }
}

static int final_cont(const Subst *su) {
  if (su->cont_set) return su->cont;
  if (su->cont_bounded) return su->cont_upper;
  return TYPE_CONT_INF;
}

/* The type `p` denotes under `su`; NULL when a variable it needs is
 * unbound. *neg is set when a continuity comes out negative. */
static const Type *instantiate(TypeCtx *tc, const Subst *su, const PType *p, bool *neg) {
  switch (p->kind) {
  case TY_VAR:
    return su->tvar;
  case TY_BOOL: return tc->t_bool;
  case TY_INT: return tc->t_int;
  case TY_STRING: return tc->t_string;
  case TY_SEQ: {
    const Type *e = instantiate(tc, su, p->elem, neg);
    if (!e) return NULL;
    int len = TYPE_SEQ_DYNAMIC;
    if (!p->dynamic) {
      if (p->len.var < 0) len = p->len.value;
      else if (su->dim_set[p->len.var]) len = su->dim[p->len.var];
      else return NULL;
    }
    return type_seq(tc, e, len);
  }
  case TY_KERNEL:
  case TY_TENSOR:
  case TY_IMAGE:
  case TY_FIELD:
    break;
  default:
    return NULL;
  }
  int cont = 0;
  if (p->kind == TY_FIELD || p->kind == TY_KERNEL) {
    if (p->cont.kind == PC_INF) cont = TYPE_CONT_INF;
    else if (p->cont.kind == PC_CONST) cont = p->cont.value;
    else {
      int k = final_cont(su);
      cont = k == TYPE_CONT_INF ? k : k + p->cont.offset;
    }
    if (cont < 0) {
      *neg = true;
      cont = 0;
    }
    if (p->kind == TY_KERNEL) return type_kernel(tc, cont);
  }
  int dim = 0;
  if (p->kind == TY_IMAGE || p->kind == TY_FIELD) {
    if (p->dim.var < 0) dim = p->dim.value;
    else if (su->dim_set[p->dim.var]) dim = su->dim[p->dim.var];
    else return NULL;
  }
  Slots s = subst_shape(su, &p->shape);
  if (s.svar >= 0 || s.overflow) return NULL;
  for (int i = 0; i < s.n; i++)
    if (s.val[i] < 0) return NULL;
  Shape sh = shape_normalize(tc, s.n, s.val);
  if (p->kind == TY_TENSOR) return type_tensor_shape(tc, sh);
  if (p->kind == TY_IMAGE) return type_image(tc, dim, sh);
  return type_field(tc, cont, dim, sh);
}

SchemeMatch scheme_match(TypeCtx *tc, const Scheme *s, const Type *const *args, int nargs,
                         bool coerce, const Type **params_out, const Type **result_out) {
  if (!s || nargs != s->nparams) return SCHEME_FAIL;
  /* cheap rejection on the outermost kinds before any binding */
  for (int i = 0; i < nargs; i++) {
    const Type *a = type_prune(args[i]);
    TypeKind pk = s->params[i]->kind;
    if (!a || a->kind == TY_ERROR || a->kind == TY_VAR || pk == TY_VAR || pk == a->kind) continue;
    if (coerce && pk == TY_TENSOR && a->kind == TY_INT) continue;
    return SCHEME_FAIL;
  }
  Subst su;
  /* only the flags need clearing (the trail's cells are written first) */
  memset(su.dim_set, 0, sizeof su.dim_set);
  memset(su.shape_set, 0, sizeof su.shape_set);
  su.cont_set = su.cont_bounded = false;
  su.cont = su.cont_upper = 0;
  su.tvar = NULL;
  su.trail.n = 0;
  enum { MAXA = 16 };
  if (nargs > MAXA) return SCHEME_FAIL;
  bool done[MAXA] = {false};
  int ndone = 0;
  /* Arguments whose shape depends on a dimension another argument binds
   * (tensor[d] against real before the field fixes d) are retried; as a
   * last resort their unbound dimension variables are taken as 1 (§3.1:
   * [] equals [1]). */
  bool ones = false;
  while (ndone < nargs) {
    bool progress = false;
    for (int i = 0; i < nargs; i++) {
      if (done[i]) continue;
      if (ones) bind_ones(&su, s->params[i]);
      MRes r = match_type(tc, &su, s->params[i], args[i], coerce);
      if (r == M_NO) goto fail;
      if (r == M_YES) {
        done[i] = true;
        ndone++;
        progress = true;
      }
    }
    if (!progress) {
      if (ones) goto fail;
      ones = true;
    }
  }
  if (ndone < nargs) goto fail;
  if (su.cont_set && su.cont_bounded && su.cont > su.cont_upper) goto fail;
  bool neg = false;
  /* an exact match needs no coercion: the parameters are the arguments */
  for (int i = 0; params_out && i < nargs; i++) {
    const Type *pt = coerce ? instantiate(tc, &su, s->params[i], &neg) : NULL;
    params_out[i] = pt ? pt : type_prune(args[i]);
  }
  neg = false;
  const Type *res = instantiate(tc, &su, s->result, &neg);
  if (!res) goto fail;
  *result_out = res;
  return neg ? SCHEME_NEG_CONT : SCHEME_OK;
fail:
  type_trail_undo(&su.trail, 0);
  return SCHEME_FAIL;
}

/* ----------------------------------------------- printing schemes */

static const char *const dim_var_names[SCHEME_NDIMVARS] = {"d", "n", "m", "p"};
static const char *const shape_var_names[SCHEME_NSHAPEVARS] = {"σ", "α", "β"};

static void print_pdim(Buf *b, PDim d) {
  if (d.var >= 0) buf_puts(b, dim_var_names[d.var]);
  else buf_int(b, d.value);
}

static void print_pshape(Buf *b, const PShape *s) {
  buf_puts(b, "[");
  bool first = true;
  for (int i = 0; i <= s->n; i++) {
    if (s->svar >= 0 && s->spos == i) {
      if (!first) buf_puts(b, ",");
      buf_puts(b, shape_var_names[s->svar]);
      first = false;
    }
    if (i < s->n) {
      if (!first) buf_puts(b, ",");
      print_pdim(b, s->items[i]);
      first = false;
    }
  }
  buf_puts(b, "]");
}

static void print_pcont(Buf *b, PCont c) {
  if (c.kind == PC_INF) return;
  buf_puts(b, "#");
  if (c.kind == PC_CONST) buf_int(b, c.value);
  else buf_puts(b, c.offset ? "k-1" : "k");
}

static void print_ptype(Buf *b, const PType *p) {
  switch (p->kind) {
  case TY_VAR: buf_puts(b, "T"); break;
  case TY_BOOL: buf_puts(b, "bool"); break;
  case TY_INT: buf_puts(b, "int"); break;
  case TY_STRING: buf_puts(b, "string"); break;
  case TY_TENSOR:
    if (p->shape.n == 0 && p->shape.svar < 0) {
      buf_puts(b, "real");
    } else {
      buf_puts(b, "tensor");
      print_pshape(b, &p->shape);
    }
    break;
  case TY_SEQ:
    print_ptype(b, p->elem);
    buf_puts(b, "[");
    if (!p->dynamic) print_pdim(b, p->len);
    buf_puts(b, "]");
    break;
  case TY_IMAGE:
    buf_puts(b, "image(");
    print_pdim(b, p->dim);
    buf_puts(b, ")");
    print_pshape(b, &p->shape);
    break;
  case TY_FIELD:
    buf_puts(b, "field");
    print_pcont(b, p->cont);
    buf_puts(b, "(");
    print_pdim(b, p->dim);
    buf_puts(b, ")");
    print_pshape(b, &p->shape);
    break;
  case TY_KERNEL:
    buf_puts(b, "kernel");
    print_pcont(b, p->cont);
    break;
  default:
    buf_puts(b, "?");
  }
}

const char *scheme_type_str(Arena *a, const PType *p) {
  char tmp[256];
  Buf b = {tmp, sizeof tmp, 0};
  tmp[0] = 0;
  print_ptype(&b, p);
  return arena_strdup(a, tmp);
}
