/* test_parser.c -- both grammars, the AST they build, syntax errors and the
 * AST printer.
 *
 * Expected trees are written by hand from doc/language.md §5.1 and §3-§11 as
 * S-expressions produced by a walker in this file (independent of
 * ast_print.c); expected messages and positions are counted by hand in the
 * source text. The printer is checked by the round-trip property
 * print(parse(s)) == print(parse(print(parse(s)))) and by equality of the
 * printed forms of a 1.0 program and its hand-written 2.0 equivalent.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frontend/ast_print.h"
#include "frontend/parser.h"
#include "unit.h"

/* ------------------------------------------------------------ parsing */

typedef struct Parsed {
  Arena *a;
  Program *p;
  char *msgs; /* all diagnostics, as printed */
  int errors;
} Parsed;

static Parsed parse_src(const char *src) {
  Parsed r = {arena_new(), NULL, NULL, 0};
  Source *s = source_from_memory(r.a, "t.diderot", src, strlen(src));
  DiagCtx *d = diag_new(r.a, s);
  size_t len;
  FILE *f = open_memstream(&r.msgs, &len);
  diag_set_stream(d, f);
  r.p = parse_program(r.a, d, s);
  r.errors = diag_error_count(d);
  if (r.errors + diag_warning_count(d) > 0) diag_flush(d);
  fclose(f);
  return r;
}

static void parsed_free(Parsed *r) {
  free(r->msgs);
  arena_free(r->a);
}

/* The printed program (malloc'd), or NULL when it does not parse. */
static char *print_src(const char *src) {
  Parsed r = parse_src(src);
  char *out = NULL;
  if (r.p) {
    size_t len;
    FILE *f = open_memstream(&out, &len);
    ast_print_program(f, r.p);
    fclose(f);
  } else {
    fprintf(stderr, "unexpected parse failure:\n%s", r.msgs ? r.msgs : "");
  }
  parsed_free(&r);
  return out;
}

/* ------------------------------------------------ S-expression walker */

typedef struct Buf {
  char s[8192];
  size_t n;
} Buf;

static void bput(Buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (b->n < sizeof b->s) b->n += (size_t)vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
  va_end(ap);
  if (b->n > sizeof b->s) b->n = sizeof b->s;
}

static void sx(Buf *b, const Expr *e);

static void sx_list(Buf *b, const ExprList *l) {
  for (const Expr *x = l->head; x; x = x->next) {
    bput(b, " ");
    sx(b, x);
  }
}

static const char *unary_name(AstOp op) {
  switch (op) {
  case OP_NEG: return "neg";
  case OP_NOT: return "!";
  default: return ast_op_spelling(op);
  }
}

static void sx(Buf *b, const Expr *e) {
  if (!e) {
    bput(b, "NULL");
    return;
  }
  switch (e->kind) {
  case E_VAR: bput(b, "%s", e->name); break;
  case E_KERNEL_CONT: bput(b, "%s#%s", e->name, e->tok.text); break;
  case E_INT: case E_REAL: bput(b, "%s", e->tok.text); break;
  case E_STRING: bput(b, "\"%.*s\"", (int)e->tok.len, e->tok.text); break;
  case E_BOOL: bput(b, e->bval ? "true" : "false"); break;
  case E_BINARY:
    bput(b, "(%s ", ast_op_spelling(e->op));
    sx(b, e->a);
    bput(b, " ");
    sx(b, e->b);
    bput(b, ")");
    break;
  case E_UNARY:
    bput(b, "(%s ", unary_name(e->op));
    sx(b, e->a);
    bput(b, ")");
    break;
  case E_COND:
    bput(b, "(if ");
    sx(b, e->a);
    bput(b, " ");
    sx(b, e->c);
    bput(b, " ");
    sx(b, e->b);
    bput(b, ")");
    break;
  case E_RANGE:
    bput(b, "(.. ");
    sx(b, e->a);
    bput(b, " ");
    sx(b, e->b);
    bput(b, ")");
    break;
  case E_APPLY: case E_SUBSCRIPT:
    bput(b, e->kind == E_APPLY ? "(call " : "(sub ");
    sx(b, e->a);
    sx_list(b, &e->args);
    bput(b, ")");
    break;
  case E_SLICE_ALL: bput(b, ":"); break;
  case E_SELECT:
    bput(b, "(. ");
    sx(b, e->a);
    bput(b, " %s)", e->name);
    break;
  case E_REAL_CONV: case E_INT_CONV: case E_LOAD_SEQ: case E_LOAD_IMAGE: case E_IDENTITY:
  case E_NORM: case E_PAREN:
    bput(b, "(%s ", e->kind == E_REAL_CONV    ? "real"
                    : e->kind == E_INT_CONV   ? "int"
                    : e->kind == E_LOAD_SEQ   ? "load_sequence"
                    : e->kind == E_LOAD_IMAGE ? "load_image"
                    : e->kind == E_IDENTITY   ? "identity"
                    : e->kind == E_NORM       ? "norm"
                                              : "paren");
    sx(b, e->a);
    bput(b, ")");
    break;
  case E_ZEROS:
    bput(b, "(zeros");
    sx_list(b, &e->args);
    bput(b, ")");
    break;
  case E_NAN:
    if (!e->has_shape) {
      bput(b, "nan");
      break;
    }
    bput(b, "(nan");
    sx_list(b, &e->args);
    bput(b, ")");
    break;
  case E_SEQ: case E_TENSOR:
    bput(b, e->kind == E_SEQ ? "(seq" : "(tensor");
    sx_list(b, &e->args);
    bput(b, ")");
    break;
  case E_COMPREHENSION:
    bput(b, "(comp ");
    sx(b, e->a);
    for (const Iter *it = e->iters.head; it; it = it->next) {
      bput(b, " (in %s ", it->name);
      sx(b, it->src);
      bput(b, ")");
    }
    bput(b, ")");
    break;
  }
}

static const char *V2_TAIL = "\nstrand S(int i) { update { } }\ncreate_array { S(i) | i in 0..1 };\n";
static const char *V1_TAIL = "\nstrand S(int i) { update { } }\ninitially [ S(i) | i in 0..1 ];\n";

/* The tree of `expr` as the initializer of a global in dialect `v`. */
static void check_expr_at(int line, int v, const char *expr, const char *want) {
  char src[2048];
  snprintf(src, sizeof src, "%sreal x = %s;%s", v == 2 ? "#version 2.0\n" : "#version 1.0\n",
           expr, v == 2 ? V2_TAIL : V1_TAIL);
  Parsed r = parse_src(src);
  Buf b = {.n = 0};
  if (r.p && r.p->globals.head) sx(&b, r.p->globals.head->init);
  else bput(&b, "PARSE ERROR: %s", r.msgs ? r.msgs : "");
  unit_checks++;
  if (strcmp(b.s, want) != 0) {
    unit_failures++;
    fprintf(stderr, "test_parser.c:%d: v%d `%s`:\n  got  %s\n  want %s\n", line, v, expr, b.s,
            want);
  }
  parsed_free(&r);
}
#define CHECK_EXPR2(e, w) check_expr_at(__LINE__, 2, e, w)
#define CHECK_EXPR1(e, w) check_expr_at(__LINE__, 1, e, w)

/* The first line of the diagnostics for `src`, which must not parse. */
static void check_error_at(int line, const char *src, const char *want) {
  Parsed r = parse_src(src);
  char got[512] = "";
  if (r.msgs) {
    /* the first error (skipping e.g. a "no language version" warning) */
    const char *m = r.msgs, *e = strstr(m, ": error: ");
    if (e) {
      while (e > m && e[-1] != '\n') e--;
      m = e;
    }
    size_t n = strcspn(m, "\n");
    snprintf(got, sizeof got, "%.*s", (int)n, m);
  }
  unit_checks++;
  if (r.p != NULL || strcmp(got, want) != 0) {
    unit_failures++;
    fprintf(stderr, "test_parser.c:%d: %s\n  got  %s\n  want %s\n", line,
            r.p ? "parsed, but should not" : "wrong message", got, want);
  }
  parsed_free(&r);
}
#define CHECK_ERROR(src, w) check_error_at(__LINE__, src, w)

/* All error lines for `src` (without the source excerpts), '\n'-joined. */
static void check_errors_at(int line, const char *src, const char *want) {
  Parsed r = parse_src(src);
  char got[2048] = "";
  size_t n = 0;
  for (const char *m = r.msgs; m && *m;) {
    size_t len = strcspn(m, "\n");
    char one[512];
    snprintf(one, sizeof one, "%.*s", (int)len, m);
    if (strstr(one, ": error: ") && n + len + 2 < sizeof got)
      n += (size_t)snprintf(got + n, sizeof got - n, "%.*s\n", (int)len, m);
    m += len + (m[len] == '\n');
  }
  unit_checks++;
  if (r.p != NULL || strcmp(got, want) != 0) {
    unit_failures++;
    fprintf(stderr, "test_parser.c:%d: errors differ\n--- got\n%s--- want\n%s", line, got, want);
  }
  parsed_free(&r);
}
#define CHECK_ERRORS(src, w) check_errors_at(__LINE__, src, w)

/* ------------------------------------------------------- precedence */

static void test_precedence_v2(void) {
  /* 1: conditional, loosest, right (the else part is a full expression) */
  CHECK_EXPR2("a + b if c else d", "(if (+ a b) c d)");
  CHECK_EXPR2("a if b else c if d else e", "(if a b (if c d e))");
  CHECK_EXPR2("a if b || c else d", "(if a (|| b c) d)");
  CHECK_EXPR2("a .. b if c else d", "(if (.. a b) c d)");
  /* 2: range, non-associative */
  CHECK_EXPR2("a .. b + 1", "(.. a (+ b 1))");
  CHECK_EXPR2("a || b .. c && d", "(.. (|| a b) (&& c d))");
  /* 3, 4: || and && grouped to the right */
  CHECK_EXPR2("a || b || c", "(|| a (|| b c))");
  CHECK_EXPR2("a && b && c", "(&& a (&& b c))");
  CHECK_EXPR2("a && b || c && d", "(|| (&& a b) (&& c d))");
  CHECK_EXPR2("a < b && c", "(&& (< a b) c)");
  /* 5: comparisons, left */
  CHECK_EXPR2("a < b <= c", "(<= (< a b) c)");
  CHECK_EXPR2("a == b != c", "(!= (== a b) c)");
  CHECK_EXPR2("a >= b > c", "(> (>= a b) c)");
  CHECK_EXPR2("a + b == c - d", "(== (+ a b) (- c d))");
  /* 6: + - @, left */
  CHECK_EXPR2("a - b - c", "(- (- a b) c)");
  CHECK_EXPR2("a @ b + c", "(+ (@ a b) c)");
  CHECK_EXPR2("a + b @ c", "(@ (+ a b) c)");
  CHECK_EXPR2("a + b * c", "(+ a (* b c))");
  /* 7: one multiplicative level, left: a•b×c is (a•b)×c */
  CHECK_EXPR2("a • b × c", "(× (• a b) c)");
  CHECK_EXPR2("a × b • c", "(• (× a b) c)");
  CHECK_EXPR2("a * b / c % d", "(% (/ (* a b) c) d)");
  CHECK_EXPR2("img ⊛ h * 2", "(* (⊛ img h) 2)");
  CHECK_EXPR2("a ⊗ b : c", "(: (⊗ a b) c)");
  CHECK_EXPR2("a : b ⊗ c", "(⊗ (: a b) c)");
  CHECK_EXPR2("a / b • c", "(• (/ a b) c)");
  CHECK_EXPR2("a ⋅ b", "(• a b)"); /* U+22C5 is the same token */
  /* 8: ∘ above the products, below prefix minus */
  CHECK_EXPR2("a ∘ b * c", "(* (∘ a b) c)");
  CHECK_EXPR2("a * b ∘ c", "(* a (∘ b c))");
  CHECK_EXPR2("a ∘ b ∘ c", "(∘ (∘ a b) c)");
  CHECK_EXPR2("-a ∘ b", "(∘ (neg a) b)");
  /* 9: prefix - and !, recursive */
  CHECK_EXPR2("-a * b", "(* (neg a) b)");
  CHECK_EXPR2("- -a", "(neg (neg a))");
  CHECK_EXPR2("!a && b", "(&& (! a) b)");
  CHECK_EXPR2("!!a", "(! (! a))");
  CHECK_EXPR2("-!a", "(neg (! a))");
  /* 10: ^ right, above prefix minus: -x^2 = -(x^2) */
  CHECK_EXPR2("-x^2", "(neg (^ x 2))");
  CHECK_EXPR2("a^b^c", "(^ a (^ b c))");
  CHECK_EXPR2("a^b * c", "(* (^ a b) c)");
  CHECK_EXPR2("2 * x^2", "(* 2 (^ x 2))");
  CHECK_EXPR2("f(x)^2", "(^ (call f x) 2)");
  CHECK_EXPR2("a^f(x)[0]", "(^ a (sub (call f x) 0))");
  CHECK_EXPR2("real(i)^2", "(^ (real i) 2)");
  /* 11: suffixes, left */
  CHECK_EXPR2("f(x)[1].y", "(. (sub (call f x) 1) y)");
  CHECK_EXPR2("f(x)(y)", "(call (call f x) y)");
  CHECK_EXPR2("f()", "(call f)");
  CHECK_EXPR2("f(a, b + 1, c)", "(call f a (+ b 1) c)");
  CHECK_EXPR2("m[:, 0]", "(sub m : 0)");
  CHECK_EXPR2("m[1, :]", "(sub m 1 :)");
  CHECK_EXPR2("t[0, 1, 2]", "(sub t 0 1 2)");
  CHECK_EXPR2("m[a : b]", "(sub m (: a b))");
  CHECK_EXPR2("S.all", "(. S all)");
  CHECK_EXPR2("s.pos[0]", "(sub (. s pos) 0)");
  CHECK_EXPR2("real(n) / 2", "(/ (real n) 2)");
  CHECK_EXPR2("load_sequence(\"a.nrrd\")", "(load_sequence \"a.nrrd\")");
  CHECK_EXPR2("load_image(\"a.nrrd\")", "(load_image \"a.nrrd\")");
  CHECK_EXPR2("identity[3]", "(identity 3)");
  CHECK_EXPR2("identity[n + 1]", "(identity (+ n 1))");
  CHECK_EXPR2("zeros[2, 3]", "(zeros 2 3)");
  CHECK_EXPR2("zeros[]", "(zeros)");
  CHECK_EXPR2("nan", "nan");
  CHECK_EXPR2("nan[3]", "(nan 3)");
  CHECK_EXPR2("nan[2, 2] + a", "(+ (nan 2 2) a)");
  CHECK_EXPR2("mean{x.v | x in S.all}", "(call mean (comp (. x v) (in x (. S all))))");
  CHECK_EXPR2("mean({x | x in s})", "(call mean (comp x (in x s)))");
  /* Only a name may be applied to a comprehension (doc/differences.md), so a
   * '{' after another operand is an error where it stands. */
  CHECK_ERROR("#version 2.0\nreal x = ∇F{x | x in s};\n",
              "t.diderot:2:12: error: syntax error: found '{', expected an operator or ';'");
  CHECK_ERROR("#version 2.0\nreal x = (i > 0 {x | x in s};\n",
              "t.diderot:2:17: error: syntax error: found '{', expected an operator or ')'");
  /* 12: differential operators bind tighter than application */
  CHECK_EXPR2("∇F(x)", "(call (∇ F) x)");
  CHECK_EXPR2("∇⊗∇F", "(∇⊗ (∇ F))");
  CHECK_EXPR2("∇⊗∇F(p)", "(call (∇⊗ (∇ F)) p)");
  CHECK_EXPR2("∇•V(p)", "(call (∇• V) p)");
  CHECK_EXPR2("∇⋅V(p)", "(call (∇• V) p)");
  CHECK_EXPR2("∇×V(p)", "(call (∇× V) p)");
  CHECK_EXPR2("-∇F(x)", "(neg (call (∇ F) x))");
  CHECK_EXPR2("∇F(x)^2", "(^ (call (∇ F) x) 2)");
  CHECK_EXPR2("∇(F + G)(x)", "(call (∇ (paren (+ F G))) x)");
  CHECK_EXPR2("∇F.x", "(. (∇ F) x)");
  /* 13: atoms */
  CHECK_EXPR2("bspln3#1", "bspln3#1");
  CHECK_EXPR2("(a + b) * c", "(* (paren (+ a b)) c)");
  CHECK_EXPR2("((a))", "(paren (paren a))");
  CHECK_EXPR2("{}", "(seq)");
  CHECK_EXPR2("{1, 2, 3}", "(seq 1 2 3)");
  CHECK_EXPR2("{a}", "(seq a)");
  CHECK_EXPR2("{x * 2 | x in 0 .. 9}", "(comp (* x 2) (in x (.. 0 9)))");
  CHECK_EXPR2("[1.5, -2.0]", "(tensor 1.5 (neg 2.0))");
  CHECK_EXPR2("[[1, 0], [0, 1]]", "(tensor (tensor 1 0) (tensor 0 1))");
  CHECK_EXPR2("|a - b|", "(norm (- a b))");
  CHECK_EXPR2("|a| * |b|", "(* (norm a) (norm b))");
  CHECK_EXPR2("| |a| - 1|", "(norm (- (norm a) 1))"); /* "||" would be one token */
  CHECK_EXPR2("{ |v| | v in vs }", "(comp (norm v) (in v vs))");
  CHECK_EXPR2("π * r^2", "(* π (^ r 2))");
  CHECK_EXPR2("-∞", "(neg ∞)");
  CHECK_EXPR2("inf", "inf");
  CHECK_EXPR2("true && !false", "(&& true (! false))");
  CHECK_EXPR2("\"a\\tb\"", "\"a\tb\"");
  /* traps of §9 item 10, all at once */
  CHECK_EXPR2("-x^2 + a•b×c if p else q", "(if (+ (neg (^ x 2)) (× (• a b) c)) p q)");
  /* a range is at most one '..' */
  CHECK_ERROR("#version 2.0\nreal x = a .. b .. c;\n",
              "t.diderot:2:17: error: syntax error: found '..', expected an operator or ';'");
  /* the exponent is a suffix expression: no prefix minus */
  CHECK_ERROR("#version 2.0\nreal x = a ^ -b;\n",
              "t.diderot:2:14: error: syntax error: found '-', expected an operand");
  /* special forms take no further suffixes */
  CHECK_ERROR("#version 2.0\nreal x = real(a)[0];\n",
              "t.diderot:2:17: error: syntax error: found '[', expected an operator or ';'");
}

static void test_precedence_v1(void) {
  CHECK_EXPR1("-x^2", "(neg (^ x 2))");
  CHECK_EXPR1("a^b^c", "(^ a (^ b c))");
  CHECK_EXPR1("a • b × c", "(× (• a b) c)");
  CHECK_EXPR1("a + b if c else d", "(if (+ a b) c d)");
  CHECK_EXPR1("a || b || c", "(|| a (|| b c))");
  CHECK_EXPR1("∇F(x)", "(call (∇ F) x)");
  CHECK_EXPR1("-a * b", "(* (neg a) b)");
  /* 1.0 forms and their 2.0 trees */
  CHECK_EXPR1("load(\"a.nrrd\")", "(load_sequence \"a.nrrd\")");
  CHECK_EXPR1("image(\"a.nrrd\")", "(load_image \"a.nrrd\")");
  CHECK_EXPR1("s{i + 1}", "(sub s (+ i 1))");
  CHECK_EXPR1("s{0}{1}", "(sub (sub s 0) 1)");
  CHECK_EXPR1("mean{x | x in s}", "(call mean (comp x (in x s)))");
  CHECK_EXPR1("max{x | x in 0 .. 9}", "(call max (comp x (in x (.. 0 9))))");
  CHECK_EXPR1("identity[3]", "(identity 3)");
  CHECK_EXPR1("zeros[3, 3]", "(zeros 3 3)");
  CHECK_EXPR1("nan[2]", "(nan 2)");
  CHECK_EXPR1("real(i)", "(real i)");
  CHECK_EXPR1("|v|", "(norm v)");
  /* no ∘ and no range expression in 1.0 */
  CHECK_ERROR("#version 1.0\nreal x = a ∘ b;\n",
              "t.diderot:2:12: error: syntax error: found '∘', expected an operator or ';'");
  CHECK_ERROR("#version 1.0\nreal x = a .. b;\n",
              "t.diderot:2:12: error: syntax error: found '..', expected an operator or ';'");
  /* 1.0 dimensions are integer literals */
  CHECK_ERROR("#version 1.0\nreal x = identity[n];\n",
              "t.diderot:2:19: error: syntax error: found identifier 'n', expected integer literal");
  CHECK_ERROR("#version 1.0\nreal x = load(f);\n",
              "t.diderot:2:15: error: syntax error: found identifier 'f', expected string literal");
}

/* ------------------------------------------------------------ program */

static const Stmt *nth_stmt(const Stmt *block, int n) {
  const Stmt *s = block && block->kind == S_BLOCK ? block->body.head : NULL;
  while (s && n-- > 0) s = s->next;
  return s;
}

static const char *sx_str(Buf *b, const Expr *e) {
  b->n = 0;
  b->s[0] = 0;
  sx(b, e);
  return b->s;
}

static void test_statements(void) {
  const char *src =
      "#version 2.0\n"
      "strand S (int i) {\n"
      "  output real y = 0.0;\n"
      "  update {\n"
      "    {}\n"                                      /* 0 */
      "    if (a) y = 1.0;\n"                         /* 1 */
      "    if (a) { y = 1.0; } else y = 2.0;\n"       /* 2 */
      "    if (a) if (b) y = 1.0; else y = 2.0;\n"    /* 3: else to inner if */
      "    foreach (int k in 0 .. 9) { y += 1.0; }\n" /* 4 */
      "    print();\n"                                /* 5 */
      "    print(\"y=\", y, \"\\n\");\n"              /* 6 */
      "    new S(i + 1);\n"                           /* 7 */
      "    stabilize;\n"                              /* 8 */
      "    die;\n"                                    /* 9 */
      "    continue;\n"                               /* 10 */
      "    real z;\n"                                 /* 11 */
      "    vec3 v = [1.0, 2.0, 3.0];\n"               /* 12 */
      "    y = z;\n"                                  /* 13 */
      "    y += 1.0; y -= 1.0; y *= 2.0; y /= 2.0; i %= 2;\n" /* 14..18 */
      "    S[2] pair = {a, b};\n"                     /* 19 */
      "  }\n"
      "}\n"
      "create_collection { S(i) | i in 0 .. 9 };\n";
  Parsed r = parse_src(src);
  CHECK(r.p != NULL);
  if (!r.p) {
    fprintf(stderr, "%s", r.msgs);
    parsed_free(&r);
    return;
  }
  Buf b;
  const Stmt *u = r.p->strand->methods[M_UPDATE]->body;
  CHECK(u->kind == S_BLOCK && u->body.len == 20);
  const Stmt *s = nth_stmt(u, 0);
  CHECK(s->kind == S_BLOCK && s->body.len == 0);
  s = nth_stmt(u, 1);
  CHECK(s->kind == S_IF && s->then->kind == S_ASSIGN && s->els == NULL);
  CHECK_STR(sx_str(&b, s->cond), "a");
  s = nth_stmt(u, 2);
  CHECK(s->kind == S_IF && s->then->kind == S_BLOCK && s->els && s->els->kind == S_ASSIGN);
  s = nth_stmt(u, 3);
  CHECK(s->kind == S_IF && s->els == NULL && s->then->kind == S_IF && s->then->els != NULL);
  s = nth_stmt(u, 4);
  CHECK(s->kind == S_FOREACH && s->type->kind == AT_INT && s->iter &&
        !strcmp(s->iter->name, "k") && s->then->kind == S_BLOCK);
  CHECK_STR(sx_str(&b, s->iter->src), "(.. 0 9)");
  s = nth_stmt(u, 5);
  CHECK(s->kind == S_PRINT && s->args.len == 0);
  s = nth_stmt(u, 6);
  CHECK(s->kind == S_PRINT && s->args.len == 3);
  CHECK(s->args.head->tok.len == 2 && !memcmp(s->args.head->tok.text, "y=", 2));
  s = nth_stmt(u, 7);
  CHECK(s->kind == S_NEW && !strcmp(s->name, "S") && s->args.len == 1);
  CHECK(nth_stmt(u, 8)->kind == S_STABILIZE);
  CHECK(nth_stmt(u, 9)->kind == S_DIE);
  CHECK(nth_stmt(u, 10)->kind == S_CONTINUE);
  s = nth_stmt(u, 11);
  CHECK(s->kind == S_DECL && s->type->kind == AT_REAL && !strcmp(s->name, "z") && !s->expr);
  s = nth_stmt(u, 12);
  CHECK(s->kind == S_DECL && s->type->kind == AT_VEC && s->type->n == 3 && s->expr);
  s = nth_stmt(u, 13);
  CHECK(s->kind == S_ASSIGN && s->op == OP__COUNT && !strcmp(s->name, "y"));
  static const AstOp ops[] = {OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD};
  for (int k = 0; k < 5; k++) {
    s = nth_stmt(u, 14 + k);
    CHECK(s && s->kind == S_ASSIGN && s->op == ops[k]);
  }
  s = nth_stmt(u, 19);
  CHECK(s->kind == S_DECL && s->type->kind == AT_SEQ && s->type->elem->kind == AT_NAMED &&
        !strcmp(s->type->elem->name, "S"));
  /* statement spans start at the keyword / assigned identifier */
  CHECK(nth_stmt(u, 1)->span.begin.line == 6 && nth_stmt(u, 1)->span.begin.col == 5);
  CHECK(nth_stmt(u, 15)->span.begin.line == 19 && nth_stmt(u, 15)->span.begin.col == 15);
  parsed_free(&r);

  /* 1.0: a foreach body may be any statement; print needs an argument */
  Parsed r1 = parse_src("strand S (int i) { output real y = 0.0; update {\n"
                        "  foreach (int k in 0 .. 9) y += 1.0;\n"
                        "  foreach (real x in xs) if (x > 0.0) y += x;\n"
                        "} }\ninitially [ S(i) | i in 0 .. 9 ];\n");
  CHECK(r1.p != NULL);
  if (r1.p) {
    const Stmt *u1 = r1.p->strand->methods[M_UPDATE]->body;
    CHECK(nth_stmt(u1, 0)->kind == S_FOREACH && nth_stmt(u1, 0)->then->kind == S_ASSIGN);
    CHECK_STR(sx_str(&b, nth_stmt(u1, 0)->iter->src), "(.. 0 9)");
    CHECK(nth_stmt(u1, 1)->then->kind == S_IF);
  }
  parsed_free(&r1);
  CHECK_ERROR("strand S (int i) { output real y = 0.0; update { print(); } }\n"
              "initially [ S(i) | i in 0 .. 9 ];\n",
              "t.diderot:1:56: error: syntax error: found ')', expected an expression");
  /* 2.0: the foreach body must be a block */
  CHECK_ERROR("#version 2.0\nstrand S (int i) { update { foreach (int k in 0 .. 9) die; } }\n",
              "t.diderot:2:55: error: syntax error: found 'die', expected '{'");
  /* assignment targets are identifiers only */
  CHECK_ERROR("#version 2.0\nstrand S (int i) { update { a[0] = 1; } }\n",
              "t.diderot:2:34: error: syntax error: found '=', expected identifier or '['");
}

static void test_declarations(void) {
  const char *src =
      "#version 2.0\n"
      "const int N = 3;\n"
      "const real eps;\n"
      "input real r0;\n"
      "input int n (\"count\");\n"
      "input vec3 p (\"position\") = [0.0, 0.0, 0.0];\n"
      "image(2)[] img = load_image(\"a.nrrd\");\n"
      "field#1(2)[] F = img ⊛ ctmr;\n"
      "real g;\n"
      "field#2(3)[] G(x) = x • x;\n"
      "field(2)[] H(tensor[2] y) = y[0];\n"
      "function real sq (real x) = x * x;\n"
      "function vec3 f () { return [1.0, 2.0, 3.0]; };\n"
      "function int two (int a, int b) { return a + b; }\n"
      "initialize { g = 1.0; }\n"
      "strand S (int i, real t) {\n"
      "  real a = 0.0;\n"
      "  output vec3 pos;\n"
      "  initialize { a = 1.0; }\n"
      "  stabilize { a = 2.0; }\n"
      "  update { stabilize; }\n"
      "  start { a = 3.0; }\n"
      "  update { die; }\n"
      "};\n"
      "start { g = 2.0; }\n"
      "update { g = 3.0; }\n"
      "create_array { S(i, t) | i in 0 .. N-1, t in {0.5, 1.5} };\n";
  Parsed r = parse_src(src);
  CHECK(r.p != NULL);
  if (!r.p) {
    fprintf(stderr, "%s", r.msgs);
    parsed_free(&r);
    return;
  }
  Buf b;
  const Program *p = r.p;
  CHECK(p->dialect == DIALECT_V2 && p->version_span.begin.line == 1);
  CHECK(p->globals.len == 13);
  const Decl *d = p->globals.head;
  CHECK(d->kind == D_CONST && d->type->kind == AT_INT && !strcmp(d->name, "N") && d->init);
  CHECK(d->name_span.begin.line == 2 && d->name_span.begin.col == 11);
  d = d->next;
  CHECK(d->kind == D_CONST && d->init == NULL);
  d = d->next;
  CHECK(d->kind == D_INPUT && !d->has_desc && !d->init);
  d = d->next;
  CHECK(d->kind == D_INPUT && d->has_desc && d->desc.len == 5 && !memcmp(d->desc.text, "count", 5));
  d = d->next;
  CHECK(d->kind == D_INPUT && d->has_desc && d->init && d->init->kind == E_TENSOR);
  d = d->next;
  CHECK(d->kind == D_VAR && d->type->kind == AT_IMAGE && d->init->kind == E_LOAD_IMAGE);
  d = d->next;
  CHECK(d->kind == D_VAR && d->type->kind == AT_FIELD && d->type->has_cont);
  d = d->next;
  CHECK(d->kind == D_VAR && !d->init);
  d = d->next;
  CHECK(d->kind == D_FIELD_FUNC && !strcmp(d->name, "G") && d->params.len == 1 &&
        d->params.head->type == NULL && !strcmp(d->params.head->name, "x"));
  CHECK_STR(sx_str(&b, d->init), "(• x x)");
  d = d->next;
  CHECK(d->kind == D_FIELD_FUNC && d->type->kind == AT_FIELD && !d->type->has_cont &&
        d->params.head->type && d->params.head->type->kind == AT_TENSOR);
  d = d->next;
  CHECK(d->kind == D_FUNC && d->params.len == 1 && d->init && !d->body);
  d = d->next;
  CHECK(d->kind == D_FUNC && d->params.len == 0 && !d->init && d->body &&
        d->body->kind == S_BLOCK);
  CHECK(nth_stmt(d->body, 0)->kind == S_RETURN && nth_stmt(d->body, 0)->expr->kind == E_TENSOR);
  d = d->next;
  CHECK(d->kind == D_FUNC && d->params.len == 2 && d->body);
  CHECK(p->global_init && p->global_init->kind == S_BLOCK);
  const StrandDecl *s = p->strand;
  CHECK(!strcmp(s->name, "S") && s->params.len == 2 && s->state.len == 2);
  CHECK(s->state.head->is_output == false && s->state.tail->is_output == true &&
        s->state.tail->init == NULL);
  CHECK(s->init && s->init->kind == S_BLOCK);
  CHECK(s->methods[M_START] && s->methods[M_UPDATE] && s->methods[M_STABILIZE]);
  /* the first update is kept; the second is recorded as a duplicate */
  CHECK(nth_stmt(s->methods[M_UPDATE]->body, 0)->kind == S_STABILIZE);
  CHECK(s->dup_method[M_UPDATE] && !s->dup_method[M_START] && !s->dup_method[M_STABILIZE]);
  CHECK(s->dup_method_span[M_UPDATE].begin.line == 23 &&
        s->dup_method_span[M_UPDATE].begin.col == 3);
  CHECK(p->global_start && p->global_update);
  CHECK(p->create && p->create->kind == CREATE_ARRAY && p->create->iters.len == 2);
  CHECK_STR(sx_str(&b, p->create->expr), "(call S i t)");
  CHECK_STR(sx_str(&b, p->create->iters.head->src), "(.. 0 (- N 1))");
  CHECK_STR(sx_str(&b, p->create->iters.tail->src), "(seq 0.5 1.5)");
  CHECK(p->create->span.begin.line == 27 && p->create->span.begin.col == 1);
  parsed_free(&r);

  /* the parts of a program come in a fixed order */
  CHECK_ERROR("#version 2.0\nstrand S (int i) { update { } }\nreal x = 1.0;\n",
              "t.diderot:3:1: error: syntax error: found 'real', expected 'create_array', "
              "'create_collection', 'start', 'update' or ';'");
  CHECK_ERROR("#version 2.0\nstrand S (int i) { update { } initialize { } }\n",
              "t.diderot:2:31: error: syntax error: found 'initialize', expected 'stabilize', "
              "'start', 'update', '}' or ';'");
  CHECK_ERROR("#version 2.0\nstrand S (int i) { update { } }\n",
              "t.diderot:3:1: error: syntax error: unexpected end of file, expected "
              "'create_array', 'create_collection', 'start', 'update' or ';'");
}

static void test_types(void) {
  const char *src =
      "#version 2.0\n"
      "bool t1; int t2; real t3; string t4;\n"
      "tensor[] t5; tensor[3] t6; tensor[2,3,4] t7;\n"
      "vec2 t8; vec3 t9; vec4 t10; mat2 t11; mat3 t12; mat4 t13;\n"
      "image(3)[2] t14; field#2(3)[] t15; field(2)[2,2] t16; kernel#4 t17;\n"
      "S t18; int[3] t19; real[] t20; tensor[3][2][] t21; vec3[N+1] t22;\n"
      "strand S (int i) { update { } }\n"
      "create_collection { S(i) | i in 0 .. 9 };\n";
  Parsed r = parse_src(src);
  CHECK(r.p != NULL);
  if (!r.p) {
    fprintf(stderr, "%s", r.msgs);
    parsed_free(&r);
    return;
  }
  const AstType *t[23] = {0};
  int n = 1;
  for (const Decl *d = r.p->globals.head; d && n < 23; d = d->next) t[n++] = d->type;
  CHECK(n == 23);
  if (n != 23) {
    parsed_free(&r);
    return;
  }
  Buf b;
  CHECK(t[1]->kind == AT_BOOL && t[2]->kind == AT_INT && t[3]->kind == AT_REAL &&
        t[4]->kind == AT_STRING);
  CHECK(t[5]->kind == AT_TENSOR && t[5]->shape.len == 0);
  CHECK(t[6]->kind == AT_TENSOR && t[6]->shape.len == 1);
  CHECK(t[7]->kind == AT_TENSOR && t[7]->shape.len == 3);
  CHECK_STR(sx_str(&b, t[7]->shape.tail), "4");
  CHECK(t[8]->kind == AT_VEC && t[8]->n == 2 && t[10]->n == 4);
  CHECK(t[11]->kind == AT_MAT && t[11]->n == 2 && t[13]->kind == AT_MAT && t[13]->n == 4);
  CHECK(t[14]->kind == AT_IMAGE && t[14]->shape.len == 1);
  CHECK_STR(sx_str(&b, t[14]->dim), "3");
  CHECK(t[15]->kind == AT_FIELD && t[15]->has_cont && !strcmp(t[15]->cont.text, "2") &&
        t[15]->shape.len == 0);
  CHECK(t[16]->kind == AT_FIELD && !t[16]->has_cont && t[16]->shape.len == 2);
  CHECK(t[17]->kind == AT_KERNEL && !strcmp(t[17]->cont.text, "4"));
  CHECK(t[18]->kind == AT_NAMED && !strcmp(t[18]->name, "S"));
  CHECK(t[19]->kind == AT_SEQ && t[19]->elem->kind == AT_INT && t[19]->len);
  CHECK(t[20]->kind == AT_SEQ && t[20]->elem->kind == AT_REAL && !t[20]->len);
  /* tensor[3][2][] is ((tensor[3])[2])[] */
  CHECK(t[21]->kind == AT_SEQ && !t[21]->len && t[21]->elem->kind == AT_SEQ &&
        t[21]->elem->elem->kind == AT_TENSOR);
  CHECK_STR(sx_str(&b, t[21]->elem->len), "2");
  CHECK_STR(sx_str(&b, t[22]->len), "(+ N 1)");
  /* spans of types: from the first token to the last */
  CHECK(t[7]->span.begin.line == 3 && t[7]->span.begin.col == 28 && t[7]->span.end.col == 41);
  parsed_free(&r);

  /* a dynamic [] comes last */
  CHECK_ERROR("#version 2.0\nreal[][3] x;\n",
              "t.diderot:2:7: error: syntax error: found '[', expected identifier");

  /* 1.0 types */
  Parsed r1 = parse_src("int{3} a = {1,2,3};\nreal{} b = load(\"b.nrrd\");\n"
                        "vec3{2}{} c = {};\nfield#0(2)[] F = img ⊛ tent;\n"
                        "image(2)[2,2] img = image(\"x.nrrd\");\n"
                        "strand S (int i) { update { } }\ninitially { S(i) | i in 0 .. 9 };\n");
  CHECK(r1.p != NULL && r1.p->dialect == DIALECT_V1);
  if (r1.p) {
    const Decl *d = r1.p->globals.head;
    CHECK(d->type->kind == AT_SEQ && d->type->len && d->type->elem->kind == AT_INT);
    d = d->next;
    CHECK(d->type->kind == AT_SEQ && !d->type->len && d->init->kind == E_LOAD_SEQ);
    d = d->next;
    CHECK(d->type->kind == AT_SEQ && !d->type->len && d->type->elem->kind == AT_SEQ &&
          d->type->elem->len);
    d = d->next;
    CHECK(d->type->kind == AT_FIELD && d->type->has_cont);
    d = d->next;
    CHECK(d->type->kind == AT_IMAGE && d->init->kind == E_LOAD_IMAGE);
  }
  parsed_free(&r1);
  /* 1.0: #k is required; mat3 is no keyword, so a (strand) type name */
  CHECK_ERROR("field(2)[] F = img ⊛ tent;\n",
              "t.diderot:1:6: error: syntax error: found '(', expected '#'");
  r1 = parse_src("mat3 m = identity[3];\nstrand S (int i) { update { } }\n"
                 "initially { S(i) | i in 0 .. 9 };\n");
  CHECK(r1.p && r1.p->globals.head->type->kind == AT_NAMED &&
        !strcmp(r1.p->globals.head->type->name, "mat3"));
  parsed_free(&r1);
}

/* ---------------------------------------------------------- dialects */

static void check_same_print_at(int line, const char *a, const char *b) {
  char *pa = print_src(a), *pb = print_src(b);
  char *paa = pa ? print_src(pa) : NULL; /* and the round trip */
  unit_checks++;
  if (!pa || !pb || !paa || strcmp(pa, pb) != 0 || strcmp(pa, paa) != 0) {
    unit_failures++;
    fprintf(stderr, "test_parser.c:%d: printed forms differ:\n--- first\n%s--- second\n%s", line,
            pa ? pa : "(null)\n", pb ? pb : "(null)\n");
  }
  free(pa);
  free(pb);
  free(paa);
}
#define CHECK_SAME_PRINT(a, b) check_same_print_at(__LINE__, a, b)

static void test_dialects(void) {
  /* A 1.0 program and its 2.0 translation, written by hand. */
  CHECK_SAME_PRINT(
      "// 1.0\n"
      "input int res (\"resolution\") = 10;\n"
      "input real{} vals = load(\"vals.nrrd\");\n"
      "input image(2)[] img = image(\"img.nrrd\");\n"
      "field#1(2)[] F = img ⊛ ctmr;\n"
      "real{3} w = {1.0, 2.0, 3.0};\n"
      "function real sq (real x) = x * x;\n"
      "strand P (int i, int j) {\n"
      "  output real v = 0.0;\n"
      "  int k = 0;\n"
      "  update {\n"
      "    foreach (int q in 0 .. 2) v += w{q};\n"
      "    v = v + mean{x | x in vals} + sq(F([real(i), real(j)]));\n"
      "    stabilize;\n"
      "  }\n"
      "  stabilize { k = 1; }\n"
      "}\n"
      "global { res = res; }\n"
      "initially [ P(i, j) | i in 0 .. res-1, j in 0 .. res-1 ];\n",
      "#version 2.0\n"
      "// 2.0\n"
      "input int res (\"resolution\") = 10;\n"
      "input real[] vals = load_sequence(\"vals.nrrd\");\n"
      "input image(2)[] img = load_image(\"img.nrrd\");\n"
      "field#1(2)[] F = img ⊛ ctmr;\n"
      "real[3] w = {1.0, 2.0, 3.0};\n"
      "function real sq (real x) = x * x;\n"
      "strand P (int i, int j) {\n"
      "  output real v = 0.0;\n"
      "  int k = 0;\n"
      "  stabilize { k = 1; }\n"
      "  update {\n"
      "    foreach (int q in 0 .. 2) { v += w[q]; }\n"
      "    v = v + mean({x | x in vals}) + sq(F([real(i), real(j)]));\n"
      "    stabilize;\n"
      "  }\n"
      "}\n"
      "update { res = res; }\n"
      "create_array { P(i, j) | i in 0 .. res-1, j in 0 .. res-1 };\n");
  /* collections; an optional '#version 1.0' line */
  CHECK_SAME_PRINT("#version 1.0\nstrand S (int i) { update { die; } }\n"
                   "initially { S(i) | i in 0 .. 9 };\n",
                   "#version 2.0\nstrand S (int i) { update { die; } }\n"
                   "create_collection { S(i) | i in 0 .. 9 };\n");
  /* 1.0 names that are 2.0 keywords get an apostrophe */
  CHECK_SAME_PRINT("real start = 1.0;\nint const = 2;\n"
                   "strand S (int i) { output real mat2 = start; update { stabilize; } }\n"
                   "initially { S(i) | i in 0 .. 9 };\n",
                   "#version 2.0\nreal start' = 1.0;\nint const' = 2;\n"
                   "strand S (int i) { output real mat2' = start'; update { stabilize; } }\n"
                   "create_collection { S(i) | i in 0 .. 9 };\n");
  /* in 2.0, 'global', 'initially' and 'load' are identifiers */
  CHECK_EXPR2("global + initially * load", "(+ global (* initially load))");
  /* 1.0 global variables may lack initializers here (the typechecker
   * reports it); strand state needs one */
  Parsed r = parse_src("real g;\nstrand S (int i) { update { } }\ninitially { S(i) | i in 0 .. 9 };\n");
  CHECK(r.p && r.p->globals.head && r.p->globals.head->init == NULL);
  parsed_free(&r);
  CHECK_ERROR("strand S (int i) { real a; update { } }\ninitially { S(i) | i in 0 .. 9 };\n",
              "t.diderot:1:26: error: syntax error: found ';', expected '='");
  /* 1.0 creation iterators are ranges */
  CHECK_ERROR("strand S (int i) { update { } }\ninitially { S(i) | i in xs };\n",
              "t.diderot:2:28: error: syntax error: found '}', expected an operator or '..'");
  /* 1.0 input initializers: beyond the literals, the first other part is
   * recorded (the typechecker's extension, rejected by --strict) */
  r = parse_src("input real x = 1.0 + 2.0;\ninput vec2 y = [1.0, z];\n"
                "strand S (int i) { update { } }\ninitially { S(i) | i in 0 .. 9 };\n");
  CHECK(r.p != NULL && r.errors == 0);
  if (r.p && r.p->globals.head && r.p->globals.head->next) {
    const Decl *x = r.p->globals.head, *y = x->next;
    CHECK(x->v1_nonliteral && x->v1_nonliteral->span.begin.col == 16);
    CHECK(y->v1_nonliteral && y->v1_nonliteral->span.begin.col == 22);
  }
  parsed_free(&r);
  r = parse_src("input vec2 x = [-1.0, 2.0];\ninput tensor[2,2] m = identity[2];\n"
                "input real{} s = {};\ninput int n = -3;\ninput string f = \"a\";\n"
                "input bool b = true;\ninput vec3 z = zeros[3];\n"
                "input image(2)[] i = image(\"i.nrrd\");\ninput real{} l = load(\"l.nrrd\");\n"
                "strand S (int i) { update { } }\ninitially { S(i) | i in 0 .. 9 };\n");
  CHECK(r.p != NULL && r.errors == 0);
  for (const Decl *d = r.p ? r.p->globals.head : NULL; d; d = d->next) CHECK(!d->v1_nonliteral);
  parsed_free(&r);
}

/* ----------------------------------------------------- syntax errors */

static void test_syntax_errors(void) {
  CHECK_ERROR("#version 2.0\nreal x = 1 2;\n",
              "t.diderot:2:12: error: syntax error: found integer literal '2', "
              "expected an operator or ';'");
  CHECK_ERROR("#version 2.0\nreal x = ;\n",
              "t.diderot:2:10: error: syntax error: found ';', expected an expression");
  CHECK_ERROR("#version 2.0\nreal x = f(a,;\n",
              "t.diderot:2:14: error: syntax error: found ';', expected an expression");
  CHECK_ERROR("#version 2.0\nreal x = a.;\n",
              "t.diderot:2:12: error: syntax error: found ';', expected identifier");
  CHECK_ERROR("#version 2.0\n+\n",
              "t.diderot:2:1: error: syntax error: found '+', expected a declaration, "
              "'initialize' or 'strand'");
  /* a ';' missing at the end of a line is reported where it belongs */
  CHECK_ERROR("#version 2.0\nstrand S (int i) {\n  update {\n    x = 1\n  }\n}\n",
              "t.diderot:4:10: error: syntax error: expected ';' after integer literal '1'");
  CHECK_ERROR("#version 2.0\nstrand S (int i) { update { if x } }\n",
              "t.diderot:2:32: error: syntax error: found identifier 'x', expected '('");
  CHECK_ERROR("#version 2.0\nstrand S (int i) { update { ) } }\n",
              "t.diderot:2:29: error: syntax error: found ')', expected a statement or '}'");
  /* after a word in the state: its name, a type (the word was a qualifier,
   * 'position' x, doc/language.md §9.3), 'output' or a sequence's '[' */
  CHECK_ERROR("#version 2.0\nstrand S (int i) { real x = 1; foo }\n",
              "t.diderot:2:36: error: syntax error: found '}', expected a type, 'output' or '['");
  CHECK_ERROR("#version 2.0\nstrand S (int i) { update { x = 1; }\n",
              "t.diderot:3:1: error: syntax error: unexpected end of file, expected 'stabilize', "
              "'start', 'update', '}' or ';'");
  CHECK_ERROR("#version 2.0\nstrand S (int i) { update {} }\n"
              "create_array { S(i) | i in 0 .. 1 }; x\n",
              "t.diderot:3:38: error: syntax error: found identifier 'x', expected end of file");
  CHECK_ERROR("#version 2.0\nreal x = if;\n",
              "t.diderot:2:10: error: syntax error: found 'if', expected an expression");
  CHECK_ERROR("#version 2.0\nreal x = a if b;\n",
              "t.diderot:2:16: error: syntax error: found ';', expected an operator or 'else'");
  CHECK_ERROR("#version 2.0\nreal x = 1.5 π;\n",
              "t.diderot:2:14: error: syntax error: found real literal 'π', "
              "expected an operator or ';'");
  CHECK_ERROR("#version 2.0\ntensor[3 x;\n",
              "t.diderot:2:10: error: syntax error: found identifier 'x', "
              "expected an operator, ']' or ','");
  /* long names are cut in messages, between characters */
  CHECK_ERROR("#version 2.0\nreal x = 1 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaαβγ;\n",
              "t.diderot:2:12: error: syntax error: found identifier "
              "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaα...', expected an operator or ';'");
  CHECK_ERROR("#version 2.0\nreal x = 1 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaαβγ;\n",
              "t.diderot:2:12: error: syntax error: found identifier "
              "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...', expected an operator or ';'");
  /* columns count characters, not bytes */
  CHECK_ERROR("#version 2.0\nreal x = ∇∇ ⊛;\n",
              "t.diderot:2:13: error: syntax error: found '⊛', expected an operand");
  /* 2.0 needs the version line first; 1.0 does not */
  CHECK_ERROR("#version 2.0\n#version 2.0\n", "t.diderot:2:1: error: '#version' must be on the first line");
  /* a lexical error is not echoed as a syntax error */
  Parsed r = parse_src("#version 2.0\nreal x = a $ b;\n");
  CHECK(r.p == NULL && r.errors == 1 && r.msgs && strstr(r.msgs, "unexpected character '$'"));
  parsed_free(&r);
  /* recovery: one message per broken statement or declaration */
  CHECK_ERRORS("#version 2.0\nreal x = 1 2;\nreal y = 3 4;\nreal z = (;\n"
               "strand S (int i) {\n  output real a = 1 1;\n  real b = ;\n"
               "  update {\n    x = 1\n    y = 2;\n    z = 3 3;\n    w = 1;\n  }\n}\n"
               "create_array { S(i) | i in 0 .. 1 };\n",
               "t.diderot:2:12: error: syntax error: found integer literal '2', expected an "
               "operator or ';'\n"
               "t.diderot:3:12: error: syntax error: found integer literal '4', expected an "
               "operator or ';'\n"
               "t.diderot:4:11: error: syntax error: found ';', expected an expression\n"
               "t.diderot:6:21: error: syntax error: found integer literal '1', expected an "
               "operator or ';'\n"
               "t.diderot:7:12: error: syntax error: found ';', expected an expression\n"
               "t.diderot:9:10: error: syntax error: expected ';' after integer literal '1'\n"
               "t.diderot:11:11: error: syntax error: found integer literal '3', expected an "
               "operator or ';'\n");
  /* ... and no cascade when the structure is broken */
  CHECK_ERRORS("#version 2.0\nstrand S (int i {\n  update { x = 1; }\n}\n"
               "create_array { S(i) | i in 0 .. 1 };\n",
               "t.diderot:2:17: error: syntax error: found '{', expected ')' or ','\n");
  CHECK_ERRORS("#version 2.0\nstrand S (int i) {\n  update { x = 1;\n}\n"
               "create_array { S(i) | i in 0 .. 1 };\n",
               "t.diderot:5:1: error: syntax error: found 'create_array', expected 'stabilize', "
               "'start', 'update', '}' or ';'\n");
  CHECK_ERRORS("#version 2.0\nstrand S (int i) {\n  update {\n    if (x) { y = 1;\n"
               "    z = 1;\n  }\n}\ncreate_array { S(i) | i in 0 .. 1 };\n",
               "t.diderot:8:1: error: syntax error: found 'create_array', expected 'stabilize', "
               "'start', 'update', '}' or ';'\n");
  CHECK_ERRORS("#version 2.0\nreal x = {1, 2;\nreal y = 2;\nstrand S (int i) { update { } }\n"
               "create_array { S(i) | i in 0 .. 1 };\n",
               "t.diderot:2:15: error: syntax error: found ';', expected an operator, '}' or "
               "','\n");
  /* a '}' where no block is open: one message, then stop */
  CHECK_ERRORS("#version 2.0\nreal x = 1;\nreal y = 2 }\nreal z = 3;\n",
               "t.diderot:3:12: error: syntax error: found '}', expected an operator or ';'\n");
  /* a statement skipped after an error does not hide the next one for long */
  CHECK_ERRORS("#version 2.0\nstrand S (int i) { update {\n  if (a) x = 1 2; else y = 3;\n"
               "  z = 1 1;\n} }\ncreate_array { S(i) | i in 0 .. 1 };\n",
               "t.diderot:3:16: error: syntax error: found integer literal '2', expected an "
               "operator or ';'\n"
               "t.diderot:4:9: error: syntax error: found integer literal '1', expected an "
               "operator or ';'\n");
  /* recovery after blocks were closed and opened since the last full copy
   * of the stack (parser_boundary copies only what changed) */
  CHECK_ERRORS("#version 2.0\nstrand S (int i) {\n  update {\n"
               "    if (a) { if (b) { x = 1; } y = 2; }\n    z = 1 1;\n"
               "    if (c) { w = 2; }\n    v = 2 2;\n"
               "    if (a) { if (b) { if (c) { x = 1; } y = 1 1; } q = 3 3; }\n  }\n}\n"
               "create_array { S(i) | i in 0 .. 1 };\n",
               "t.diderot:5:11: error: syntax error: found integer literal '1', expected an "
               "operator or ';'\n"
               "t.diderot:7:11: error: syntax error: found integer literal '2', expected an "
               "operator or ';'\n"
               "t.diderot:8:47: error: syntax error: found integer literal '1', expected an "
               "operator or ';'\n"
               "t.diderot:8:58: error: syntax error: found integer literal '3', expected an "
               "operator or ';'\n");
  /* ... but a lexical error in an earlier statement does not hide one */
  r = parse_src("#version 2.0\nstring s = \"\\q\";\nreal y = 1 2;\n");
  CHECK(r.p == NULL && r.errors == 2 && r.msgs &&
        strstr(r.msgs, "t.diderot:3:12: error: syntax error: found integer literal '2'"));
  parsed_free(&r);
  /* deep nesting is refused cleanly */
  size_t depth = 100000;
  char *deep = malloc(2 * depth + 64);
  strcpy(deep, "#version 2.0\nreal x = ");
  size_t k = strlen(deep);
  for (size_t i = 0; i < depth; i++) deep[k++] = '(';
  deep[k++] = 'a';
  for (size_t i = 0; i < depth; i++) deep[k++] = ')';
  strcpy(deep + k, ";\n");
  r = parse_src(deep);
  CHECK(r.p == NULL && r.errors == 1 && r.msgs &&
        strstr(r.msgs, "program nested too deeply for the parser"));
  parsed_free(&r);
  free(deep);
  /* moderate nesting is fine */
  CHECK_EXPR2("((((((((((((((((((((a))))))))))))))))))))",
              "(paren (paren (paren (paren (paren (paren (paren (paren (paren (paren (paren "
              "(paren (paren (paren (paren (paren (paren (paren (paren (paren a))))))))))))))))))))");
}

/* ------------------------------------------------------ round trips */

static void check_round_trip_at(int line, const char *src) {
  char *p1 = print_src(src);
  char *p2 = p1 ? print_src(p1) : NULL;
  unit_checks++;
  if (!p1 || !p2 || strcmp(p1, p2) != 0) {
    unit_failures++;
    fprintf(stderr, "test_parser.c:%d: round trip failed:\n--- first\n%s--- second\n%s", line,
            p1 ? p1 : "(null)\n", p2 ? p2 : "(null)\n");
  }
  free(p1);
  free(p2);
}
#define CHECK_ROUND_TRIP(src) check_round_trip_at(__LINE__, src)

static void test_round_trip(void) {
  CHECK_ROUND_TRIP(
      "#version 2.0\n"
      "const int N = 4;\n"
      "input real r (\"a \\\"radius\\\"\\n\\t\\\\ \\007\") = 1.0e-3;\n"
      "input image(3)[] vol = load_image(\"vol.nrrd\");\n"
      "field#2(3)[] F = vol ⊛ bspln3;\n"
      "field#2(3)[3] V = ∇F;\n"
      "real pi2 = π * 2.0 + ∞ - inf;\n"
      "tensor[3,3] I = identity[3] + zeros[3,3] + nan[3,3];\n"
      "real[] s = load_sequence(\"s.nrrd\");\n"
      "field#2(3)[] G(x) = |x|^2;\n"
      "function real f (vec3 p, real t) = -p[0]^2 if t > 0.0 && !(t > 1.0) else t;\n"
      "function vec3 g (tensor[3,3] m) { return m[:,0] + m[1,:] • m; }\n"
      "initialize { r = 2.0; }\n"
      "strand S (int i, vec3 p0) {\n"
      "  output vec3 pos = p0;\n"
      "  real t = 0.0;\n"
      "  initialize { t = 1.0; }\n"
      "  start { t = 2.0; }\n"
      "  update {\n"
      "    if (a) if (b) t = 1.0; else t = 2.0;\n"
      "    if (a) { if (b) t = 1.0; } else t = 2.0;\n"
      "    if (a) t = 0.0; else if (b) t = 1.0; else { t = 2.0; }\n"
      "    foreach (S n in sphere(1.0)) { pos += n.pos; }\n"
      "    real m = mean{x.t | x in S.all};\n"
      "    tensor[3,3] j = ∇⊗V(pos) + ∇⊗∇F(pos) + (∇•V)(pos) * ∇×V(pos) ⊗ pos;\n"
      "    real q = (1 .. 3) @ {1, 2} @ {} @ {k * 2 | k in 0 .. 3};\n"
      "    real w = | |pos| - 1.0| + a ∘ b + bspln3#1 + f(pos, t):m % 2;\n"
      "    print(\"t=\", t, \"\\n\");\n"
      "    new S(i + 1, pos);\n"
      "    pos *= 2.0; t /= 3.0; t -= 1.0; t %= 4.0; t = -(-t);\n"
      "    { continue; }\n"
      "    stabilize;\n"
      "  }\n"
      "  stabilize { die; }\n"
      "}\n"
      "start { r = 3.0; }\n"
      "update { r = 4.0; }\n"
      "create_collection { S(i, [real(i), 0.0, 0.0]) | i in 0 .. N-1 };\n");
  CHECK_ROUND_TRIP(
      "// 1.0\n"
      "input real{} vals = load(\"vals.nrrd\");\n"
      "real start = 1.0;\n"
      "strand P (int i) {\n"
      "  output real v = start;\n"
      "  update {\n"
      "    foreach (int q in 0 .. 2) if (q > 0) v += vals{q}; else v -= 1.0;\n"
      "    v = v + mean{x | x in vals};\n"
      "  }\n"
      "}\n"
      "global { start = 2.0; }\n"
      "initially [ P(i) | i in 0 .. 9 if true else 8 ];\n");
}

/* Trees not built by the parser still print so that they read back. */
static void test_printer_parens(void) {
  Arena *a = arena_new();
  Span z = {{0, 0}, {0, 0}};
  Expr *x = ast_expr(a, E_VAR, z), *y = ast_expr(a, E_VAR, z), *w = ast_expr(a, E_VAR, z);
  x->name = "x";
  y->name = "y";
  w->name = "w";
  /* (x + y) * w without an E_PAREN node */
  Expr *sum = ast_expr(a, E_BINARY, z);
  sum->op = OP_ADD;
  sum->a = x;
  sum->b = y;
  Expr *prod = ast_expr(a, E_BINARY, z);
  prod->op = OP_MUL;
  prod->a = sum;
  prod->b = w;
  /* (-x)^y: the base of ^ is a suffix expression */
  Expr *neg = ast_expr(a, E_UNARY, z);
  neg->op = OP_NEG;
  neg->a = x;
  Expr *pw = ast_expr(a, E_BINARY, z);
  pw->op = OP_POW;
  pw->a = neg;
  pw->b = y;
  /* x - (y - w): right operand of a left-grouped operator */
  Expr *d1 = ast_expr(a, E_BINARY, z);
  d1->op = OP_SUB;
  d1->a = y;
  d1->b = w;
  Expr *d2 = ast_expr(a, E_BINARY, z);
  d2->op = OP_SUB;
  d2->a = x;
  d2->b = d1;
  char *out = NULL;
  size_t len;
  FILE *f = open_memstream(&out, &len);
  ast_print_expr(f, prod);
  fputs(" ; ", f);
  ast_print_expr(f, pw);
  fputs(" ; ", f);
  ast_print_expr(f, d2);
  fclose(f);
  CHECK_STR(out, "(x + y) * w ; (-x)^y ; x - (y - w)");
  free(out);
  arena_free(a);

  /* if (a) [if (b) x = 1;] else x = 2; with no block around the inner if:
   * the printer must add braces or the else would move inward */
  Parsed r = parse_src("#version 2.0\nstrand S (int i) { update {\n"
                       "  if (a) { if (b) x = 1; } else x = 2;\n} }\n"
                       "create_array { S(i) | i in 0 .. 1 };\n");
  CHECK(r.p != NULL);
  if (!r.p) return;
  Stmt *outer = r.p->strand->methods[M_UPDATE]->body->body.head;
  outer->then = outer->then->body.head; /* drop the block */
  out = NULL;
  f = open_memstream(&out, &len);
  ast_print_program(f, r.p);
  fclose(f);
  parsed_free(&r);
  r = parse_src(out);
  CHECK(r.p != NULL);
  if (r.p) {
    const Stmt *o = r.p->strand->methods[M_UPDATE]->body->body.head;
    CHECK(o->kind == S_IF && o->els && o->els->kind == S_ASSIGN);
    const Stmt *in = o->then->kind == S_BLOCK ? o->then->body.head : o->then;
    CHECK(in && in->kind == S_IF && in->els == NULL);
  }
  parsed_free(&r);
  free(out);
}

/* A generated 10,000-line program parses quickly (no quadratic work). */
static void test_performance(void) {
  size_t cap = 1 << 20, n = 0;
  char *src = malloc(cap);
  n += (size_t)snprintf(src + n, cap - n, "#version 2.0\n");
  for (int i = 0; i < 5000; i++)
    n += (size_t)snprintf(src + n, cap - n, "real g%d = %d.5 * (g%d + 1.0) - |[1.0, 2.0]|;\n", i,
                          i, i > 0 ? i - 1 : 0);
  n += (size_t)snprintf(src + n, cap - n, "strand S (int i) {\n  output real y = 0.0;\n  update {\n");
  for (int i = 0; i < 4990; i++)
    n += (size_t)snprintf(src + n, cap - n, "    if (y < %d.0) { y += g%d; } else y = 0.0;\n", i,
                          i);
  n += (size_t)snprintf(src + n, cap - n,
                        "  }\n}\ncreate_collection { S(i) | i in 0 .. 9 };\n");
  clock_t t0 = clock();
  Parsed r = parse_src(src);
  double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
  CHECK(r.p != NULL && r.p->globals.len == 5000);
  CHECK(r.p && r.p->strand->methods[M_UPDATE]->body->body.len == 4990);
  CHECK_MSG(secs < 2.0, "10,000 lines took %.3f s", secs);
  parsed_free(&r);
  free(src);
}

/* ------------------------------------------------------ nesting limit */

/* "#version 2.0\n" + head + n copies of rep + tail, malloc'd. */
static char *repeat_src(const char *head, const char *rep, int n, const char *tail) {
  size_t hl = strlen(head), rl = strlen(rep), tl = strlen(tail);
  char *src = malloc(13 + hl + rl * (size_t)n + tl + 1), *q = src;
  memcpy(q, "#version 2.0\n", 13), q += 13;
  memcpy(q, head, hl), q += hl;
  for (int i = 0; i < n; i++) memcpy(q, rep, rl), q += rl;
  memcpy(q, tail, tl + 1);
  return src;
}

/* Left-associative chains do not grow the parser stack but make the tree
 * as deep as they are long, and later passes recurse over it: more than
 * 4000 levels (the parser's nesting limit) must be refused, not crash. */
#define PROGRAM_END "strand S (int i) { update {} }\ncreate_array { S(i) | i in 0 .. 1 };\n"
static void test_nesting_limits(void) {
  static const struct {
    const char *head, *rep, *tail;
  } chains[] = {
      {"real x = 1", "+1", ";\n" PROGRAM_END},  {"real x = 1", "*1", ";\n" PROGRAM_END},
      {"real x = a", "[0]", ";\n" PROGRAM_END}, {"real x = f", "(1)", ";\n" PROGRAM_END},
      {"real x = a", ".b", ";\n" PROGRAM_END},  {"input int", "[1]", " x;\n" PROGRAM_END},
      {"real x = 1", "-1", ";\n" PROGRAM_END},  {"bool x = a", "<a", ";\n" PROGRAM_END},
  };
  const char *msg = "error: program nested too deeply for the parser";
  for (size_t i = 0; i < sizeof chains / sizeof chains[0]; i++) {
    for (int n = 3999; n <= 4001; n++) {
      char *src = repeat_src(chains[i].head, chains[i].rep, n, chains[i].tail);
      Parsed r = parse_src(src);
      bool deep = r.msgs && strstr(r.msgs, msg);
      if (n <= 4000)
        CHECK_MSG(r.p != NULL && !deep, "%s%s x %d should parse", chains[i].head, chains[i].rep, n);
      else
        CHECK_MSG(r.p == NULL && deep && r.errors == 1, "%s%s x %d should be too deep",
                  chains[i].head, chains[i].rep, n);
      parsed_free(&r);
      free(src);
    }
  }
  /* A binary chain is reduced at the token after its last operand: the
   * 4001st '+' node when ';' arrives, at column 10 + 2 * 4001 + 1. */
  char *src = repeat_src("real x = 1", "+1", 4001, ";\n");
  char want[128];
  snprintf(want, sizeof want, "t.diderot:2:%d: %s\n", 10 + 2 * 4001 + 1, msg);
  CHECK_ERRORS(src, want);
  free(src);
  /* Far beyond the limit: one message, no crash, no cascade. */
  src = repeat_src("real x = x", "[0]", 200000, ";\n");
  Parsed r = parse_src(src);
  CHECK(r.p == NULL && r.errors == 1);
  parsed_free(&r);
  free(src);
}

/* ------------------------------------------------- long source lines */

/* Lines over 200 characters are echoed as a 200-character window that
 * starts 60 characters before the caret, cut with "...". */
static void test_long_line_echo(void) {
  /* Error at column 312 ('2'): the window starts at column 252, inside
   * the run of "1+" that fills columns 10..309, and reaches the end. */
  char *src = repeat_src("real x = ", "1+", 150, "1 2;\n");
  Parsed r = parse_src(src);
  char want[1024];
  int n = snprintf(want, sizeof want,
                   "t.diderot:2:312: error: syntax error: found integer literal '2', "
                   "expected an operator or ';'\n  ...");
  for (int i = 0; i < 29; i++) n += snprintf(want + n, sizeof want - (size_t)n, "1+");
  n += snprintf(want + n, sizeof want - (size_t)n, "1 2;\n     %60s^\n", "");
  CHECK_STR(r.msgs ? r.msgs : "", want);
  parsed_free(&r);
  free(src);
  /* Error at column 12: the first 200 characters, cut at the end. */
  src = repeat_src("real x = 1 2", "+1", 150, ";\n");
  r = parse_src(src);
  n = snprintf(want, sizeof want,
               "t.diderot:2:12: error: syntax error: found integer literal '2', "
               "expected an operator or ';'\n  real x = 1 2");
  for (int i = 0; i < 94; i++) n += snprintf(want + n, sizeof want - (size_t)n, "+1");
  n += snprintf(want + n, sizeof want - (size_t)n, "...\n  %11s^\n", "");
  CHECK_STR(r.msgs ? r.msgs : "", want);
  parsed_free(&r);
  free(src);
}

int main(void) {
  test_precedence_v2();
  test_precedence_v1();
  test_statements();
  test_declarations();
  test_types();
  test_dialects();
  test_syntax_errors();
  test_round_trip();
  test_printer_parens();
  test_performance();
  test_nesting_limits();
  test_long_line_echo();
  return unit_finish("parser");
}
