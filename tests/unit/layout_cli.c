/* layout_cli.c -- a line-oriented driver of the layout library for the
 * differential test tests/layout/test_oracle.py (which compares it with the
 * independent Python oracle). Static sizes only.
 *
 * Input, one request per line (layouts in CuTe notation, no spaces;
 * a tiler is "<L1,L2,...>"):
 *   coalesce L | coalesce_modes L N | compose A B | complement A M
 *   logical_divide A B | zipped_divide A T | tiled_divide A T | flat_divide A T
 *   logical_product A B | blocked_product A B | raked_product A B
 *   right_inverse L | inverse L | emitc L | prelude
 * Output, one line per request:
 *   ok LAYOUT size=S cosize=C rank=R depth=D f=v0,v1,...   (f: L(i), i < S)
 *   err STATUS message
 * For "inverse L" the f list is the flat index i of the natural coordinate
 * computed by the emitted inverse expression at each offset (L(inv(x)) = x).
 * "emitc L" answers "ok RAW ;; SIMPLIFIED ;; LOWERED", the C text of the 1-D
 * forward map in the variable i; "prelude" prints IX_C_PRELUDE then "//end".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"

enum { MAXT = 8, MAXF = 1 << 14 };

static const char *status_name(LytStatus s) {
  switch (s) {
  case LYT_OK: return "ok";
  case LYT_E_ARG: return "arg";
  case LYT_E_DIVISIBILITY: return "divisibility";
  case LYT_E_ADMISSIBILITY: return "admissibility";
  case LYT_E_UNPROVEN: return "unproven";
  case LYT_E_NOT_BIJECTIVE: return "not_bijective";
  case LYT_E_PARSE: return "parse";
  }
  return "?";
}

static void print_result(IxCtx *c, const Layout *r, const LytError *err) {
  if (!r) {
    printf("err %s %s\n", status_name(err->status), err->msg ? err->msg : "");
    return;
  }
  const IxExpr *sz = lyt_size(c, r), *co = lyt_cosize(c, r);
  if (!ix_is_const(sz) || !ix_is_const(co) || sz->k > MAXF) {
    printf("err arg result too large or symbolic\n");
    return;
  }
  printf("ok %s size=%lld cosize=%lld rank=%d depth=%d f=", lyt_to_string(c, r),
         (long long)sz->k, (long long)co->k, lyt_rank(r), lyt_depth(r));
  for (int64_t i = 0; i < sz->k; i++) {
    int64_t v = 0;
    if (!lyt_eval(r, i, NULL, &v)) v = -1;
    printf(i ? ",%lld" : "%lld", (long long)v);
  }
  printf("\n");
}

/* The emitted inverse, checked by evaluation at every offset. */
static void do_inverse(IxCtx *c, const Layout *l) {
  LytError err = {LYT_OK, NULL};
  const IxExpr *sz = lyt_size(c, l);
  if (!ix_is_const(sz) || sz->k > MAXF) {
    printf("err arg size\n");
    return;
  }
  const IxExpr *x = ix_var(c, "x", 0, sz->k - 1);
  int nl = lyt_nleaves(l);
  const IxExpr **crd = ARENA_NEW_ARRAY(ix_arena(c), const IxExpr *, nl);
  if (!lyt_emit_inv(c, l, x, crd, &err)) {
    printf("err %s %s\n", status_name(err.status), err.msg);
    return;
  }
  const IxExpr **shape = ARENA_NEW_ARRAY(ix_arena(c), const IxExpr *, nl);
  lyt_leaves(l, shape, NULL);
  int64_t *env = calloc((size_t)ix_nvars(c), sizeof *env);
  printf("ok %s size=%lld cosize=0 rank=%d depth=%d f=", lyt_to_string(c, l),
         (long long)sz->k, lyt_rank(l), lyt_depth(l));
  for (int64_t i = 0; i < sz->k; i++) {
    env[x->k] = i;
    int64_t flat = 0, mul = 1; /* colex 1-D index of the natural coordinate */
    for (int j = 0; j < nl; j++) {
      int64_t v = -1;
      const IxExpr *s = ix_simplify(c, crd[j]);
      if (!ix_eval(s, env, &v) || v < 0 || v >= shape[j]->k) { flat = -1; break; }
      flat += v * mul;
      mul *= shape[j]->k;
    }
    printf(i ? ",%lld" : "%lld", (long long)flat);
  }
  printf("\n");
  free(env);
}

/* C text of the 1-D forward map i -> L(i): raw, simplified, lowered. */
static void do_emitc(IxCtx *c, const Layout *l) {
  const IxExpr *sz = lyt_size(c, l);
  if (!ix_is_const(sz)) {
    printf("err arg size\n");
    return;
  }
  const IxExpr *i = ix_var(c, "i", 0, sz->k - 1);
  const IxExpr *raw = lyt_emit_fwd(c, l, &i, 1, NULL), *s = ix_simplify(c, raw);
  printf("ok %s ;; %s ;; %s\n", ix_to_c(c, raw), ix_to_c(c, s), ix_to_c(c, ix_lower(c, s)));
}

int main(void) {
  char line[4096];
  while (fgets(line, sizeof line, stdin)) {
    Arena *arena = arena_new();
    IxCtx *c = ix_ctx_new(arena);
    char op[64], a1[1024], a2[1024];
    op[0] = a1[0] = a2[0] = '\0';
    int n = sscanf(line, "%63s %1023s %1023s", op, a1, a2);
    if (!strcmp(op, "prelude")) { /* the helpers emitted C code relies on */
      printf("%s//end\n", IX_C_PRELUDE);
      arena_free(arena);
      fflush(stdout);
      continue;
    }
    LytError err = {LYT_OK, NULL};
    const Layout *a = n >= 2 ? lyt_parse(c, a1, &err) : NULL;
    if (n < 2 || !a) {
      printf("err parse %s\n", err.msg ? err.msg : "missing operand");
      arena_free(arena);
      fflush(stdout);
      continue;
    }
    const Layout *t[MAXT];
    int nt = 0;
    bool by_mode = a2[0] == '<';
    if (n >= 3 && strcmp(op, "coalesce_modes") != 0 && strcmp(op, "complement") != 0)
      nt = lyt_parse_tiler(c, a2, t, MAXT, &err);
    const Layout *r = NULL;
    if (err.status != LYT_OK) {
      /* fall through to print the parse error */
    } else if (!strcmp(op, "coalesce")) {
      r = lyt_coalesce(c, a);
    } else if (!strcmp(op, "coalesce_modes")) {
      r = lyt_coalesce_modes(c, a, atoi(a2));
    } else if (!strcmp(op, "complement")) {
      r = lyt_complement(c, a, ix_const(c, atoll(a2)), &err);
    } else if (!strcmp(op, "right_inverse")) {
      r = lyt_right_inverse(c, a, &err);
    } else if (!strcmp(op, "emitc")) {
      do_emitc(c, a);
      arena_free(arena);
      fflush(stdout);
      continue;
    } else if (!strcmp(op, "inverse")) {
      do_inverse(c, a);
      arena_free(arena);
      fflush(stdout);
      continue;
    } else if (nt < 1) {
      err.status = LYT_E_PARSE;
      err.msg = "missing second operand";
    } else if (!strcmp(op, "compose")) {
      r = by_mode ? lyt_compose_tiler(c, a, t, nt, &err) : lyt_compose(c, a, t[0], &err);
    } else if (!strcmp(op, "logical_divide")) {
      r = by_mode ? lyt_logical_divide_tiler(c, a, t, nt, &err)
                  : lyt_logical_divide(c, a, t[0], &err);
    } else if (!strcmp(op, "zipped_divide")) {
      r = lyt_zipped_divide(c, a, t, nt, &err);
    } else if (!strcmp(op, "tiled_divide")) {
      r = lyt_tiled_divide(c, a, t, nt, &err);
    } else if (!strcmp(op, "flat_divide")) {
      r = lyt_flat_divide(c, a, t, nt, &err);
    } else if (!strcmp(op, "logical_product")) {
      r = by_mode ? lyt_logical_product_tiler(c, a, t, nt, &err)
                  : lyt_logical_product(c, a, t[0], &err);
    } else if (!strcmp(op, "blocked_product")) {
      r = lyt_blocked_product(c, a, t[0], &err);
    } else if (!strcmp(op, "raked_product")) {
      r = lyt_raked_product(c, a, t[0], &err);
    } else {
      err.status = LYT_E_PARSE;
      err.msg = "unknown operation";
    }
    if (!r && err.status == LYT_OK) { err.status = LYT_E_ARG; err.msg = "no result"; }
    print_result(c, r, &err);
    arena_free(arena);
    fflush(stdout);
  }
  return 0;
}
