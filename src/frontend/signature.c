/* signature.c -- parser for the signature mini-language of basis.def
 * (grammar in basis.h) into type schemes (types.h). */
#include <stdio.h>
#include <string.h>

#include "frontend/types.h"

typedef struct SigParser {
  Arena *arena;
  const char *s, *p;
  char *err;
  size_t errlen;
  bool failed;
} SigParser;

static void sig_fail(SigParser *sp, const char *what) {
  if (sp->failed) return;
  sp->failed = true;
  if (sp->err && sp->errlen)
    snprintf(sp->err, sp->errlen, "%s at offset %d of \"%s\"", what, (int)(sp->p - sp->s), sp->s);
}

static void skip_ws(SigParser *sp) {
  while (*sp->p == ' ' || *sp->p == '\t') sp->p++;
}

/* Consume `lit` if it comes next (after blanks). */
static bool eat(SigParser *sp, const char *lit) {
  skip_ws(sp);
  size_t n = strlen(lit);
  if (strncmp(sp->p, lit, n) != 0) return false;
  sp->p += n;
  return true;
}

static void expect(SigParser *sp, const char *lit) {
  if (!eat(sp, lit)) {
    char msg[48];
    snprintf(msg, sizeof msg, "expected '%s'", lit);
    sig_fail(sp, msg);
  }
}

/* A keyword: `lit` not followed by an identifier character. */
static bool eat_word(SigParser *sp, const char *lit) {
  skip_ws(sp);
  size_t n = strlen(lit);
  if (strncmp(sp->p, lit, n) != 0) return false;
  char c = sp->p[n];
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
    return false;
  sp->p += n;
  return true;
}

static bool parse_int(SigParser *sp, int *out) {
  skip_ws(sp);
  if (*sp->p < '0' || *sp->p > '9') return false;
  int v = 0;
  while (*sp->p >= '0' && *sp->p <= '9') {
    if (v < 100000) v = v * 10 + (*sp->p - '0');
    sp->p++;
  }
  *out = v;
  return true;
}

static const char *const dimvars[SCHEME_NDIMVARS] = {"d", "n", "m", "p"};
static const char *const shapevars[SCHEME_NSHAPEVARS] = {"σ", "α", "β"};

static bool parse_dimvar(SigParser *sp, int *var) {
  for (int i = 0; i < SCHEME_NDIMVARS; i++)
    if (eat_word(sp, dimvars[i])) {
      *var = i;
      return true;
    }
  return false;
}

static PDim parse_dim(SigParser *sp) {
  PDim d = {0, -1};
  if (parse_int(sp, &d.value)) return d;
  if (parse_dimvar(sp, &d.var)) return d;
  sig_fail(sp, "expected a dimension");
  return d;
}

static PShape parse_shape(SigParser *sp) {
  PShape sh = {0, NULL, -1, 0};
  PDim items[16];
  expect(sp, "[");
  if (!eat(sp, "]")) {
    do {
      bool got = false;
      for (int i = 0; i < SCHEME_NSHAPEVARS && !got; i++)
        if (eat(sp, shapevars[i])) {
          if (sh.svar >= 0) sig_fail(sp, "two shape variables in one shape");
          sh.svar = i;
          sh.spos = sh.n;
          got = true;
        }
      if (got) continue;
      PDim d = parse_dim(sp);
      if (sp->failed) return sh;
      if (d.var < 0 && d.value == 1) continue; /* [1] is [] */
      if (sh.n == 16) {
        sig_fail(sp, "shape too long");
        return sh;
      }
      items[sh.n++] = d;
    } while (!sp->failed && eat(sp, ","));
    expect(sp, "]");
  }
  if (sh.n) {
    sh.items = ARENA_NEW_ARRAY(sp->arena, PDim, sh.n);
    memcpy(sh.items, items, sizeof(PDim) * (size_t)sh.n);
  }
  return sh;
}

static PCont parse_cont(SigParser *sp) {
  PCont c = {PC_CONST, 0, 0};
  if (eat_word(sp, "inf")) {
    c.kind = PC_INF;
  } else if (parse_int(sp, &c.value)) {
    c.kind = PC_CONST;
  } else if (eat_word(sp, "k")) {
    c.kind = PC_VAR;
    /* "k-1": a '-' right after k (there is no other use of '-' here) */
    if (eat(sp, "-")) {
      int one = 0;
      if (!parse_int(sp, &one) || one != 1) sig_fail(sp, "expected k-1");
      c.offset = -1;
    }
  } else {
    sig_fail(sp, "expected a continuity");
  }
  return c;
}

static PType *new_ptype(SigParser *sp, TypeKind k) {
  PType *t = ARENA_NEW(sp->arena, PType);
  t->kind = k;
  t->shape.svar = -1;
  t->dim.var = -1;
  t->len.var = -1;
  return t;
}

static const PType *parse_type(SigParser *sp) {
  PType *t = NULL;
  if (eat_word(sp, "bool")) t = new_ptype(sp, TY_BOOL);
  else if (eat_word(sp, "int")) t = new_ptype(sp, TY_INT);
  else if (eat_word(sp, "string")) t = new_ptype(sp, TY_STRING);
  else if (eat_word(sp, "real")) t = new_ptype(sp, TY_TENSOR);
  else if (eat_word(sp, "T")) t = new_ptype(sp, TY_VAR);
  else if (eat_word(sp, "tensor")) {
    t = new_ptype(sp, TY_TENSOR);
    t->shape = parse_shape(sp);
  } else if (eat_word(sp, "image")) {
    t = new_ptype(sp, TY_IMAGE);
    expect(sp, "(");
    t->dim = parse_dim(sp);
    expect(sp, ")");
    t->shape = parse_shape(sp);
  } else if (eat_word(sp, "field")) {
    t = new_ptype(sp, TY_FIELD);
    expect(sp, "#");
    t->cont = parse_cont(sp);
    expect(sp, "(");
    t->dim = parse_dim(sp);
    expect(sp, ")");
    t->shape = parse_shape(sp);
  } else if (eat_word(sp, "kernel")) {
    t = new_ptype(sp, TY_KERNEL);
    expect(sp, "#");
    t->cont = parse_cont(sp);
  } else {
    sig_fail(sp, "expected a type");
    return NULL;
  }
  /* sequence suffixes: ty[] / ty[dim], left to right */
  while (!sp->failed && eat(sp, "[")) {
    PType *s = new_ptype(sp, TY_SEQ);
    s->elem = t;
    if (eat(sp, "]")) {
      s->dynamic = true;
    } else {
      s->len = parse_dim(sp);
      expect(sp, "]");
    }
    t = s;
  }
  return sp->failed ? NULL : t;
}

Scheme *basis_parse_signature(Arena *a, const char *sig, char *err, size_t errlen) {
  SigParser sp = {a, sig ? sig : "", sig ? sig : "", err, errlen, false};
  if (err && errlen) err[0] = 0;
  const PType *params[16];
  int n = 0;
  expect(&sp, "(");
  if (!sp.failed && !eat(&sp, ")")) {
    do {
      const PType *t = parse_type(&sp);
      if (!t) break;
      if (n == 16) {
        sig_fail(&sp, "too many parameters");
        break;
      }
      params[n++] = t;
    } while (eat(&sp, ","));
    expect(&sp, ")");
  }
  expect(&sp, "->");
  const PType *res = sp.failed ? NULL : parse_type(&sp);
  skip_ws(&sp);
  if (!sp.failed && *sp.p) sig_fail(&sp, "trailing characters");
  if (sp.failed || !res) return NULL;
  Scheme *s = ARENA_NEW(a, Scheme);
  s->nparams = n;
  s->params = ARENA_NEW_ARRAY(a, const PType *, n ? n : 1);
  memcpy(s->params, params, sizeof(PType *) * (size_t)n);
  s->result = res;
  return s;
}
