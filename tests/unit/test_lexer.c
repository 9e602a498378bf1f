/* test_lexer.c -- the scanner of both dialects against doc/language.md §2.
 *
 * Expected tokens, positions and values are derived by hand from the rules
 * there (files and the version line, keywords, literals, operator
 * characters), never from running the lexer.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lexer.h"
#include "unit.h"

/* Which token kinds some test produced: the last check asserts every kind
 * of tokens.def is exercised. */
static int seen[TOK_COUNT];

typedef struct Lex {
  Arena *a;
  Source *s;
  DiagCtx *d;
  Lexer *lx;
  FILE *f;
  char *msgs;
  size_t msgs_len;
} Lex;

static void lex_open(Lex *L, const char *text, size_t len, Dialect dl) {
  memset(L, 0, sizeof *L);
  L->a = arena_new();
  L->s = source_from_memory(L->a, "t.diderot", text, len);
  L->d = diag_new(L->a, L->s);
  L->f = open_memstream(&L->msgs, &L->msgs_len);
  diag_set_stream(L->d, L->f);
  L->lx = lexer_new(L->a, L->d, L->s, dl);
}

static Token lex_next(Lex *L) {
  Token t = lexer_next(L->lx);
  if ((unsigned)t.kind < TOK_COUNT) seen[t.kind]++;
  return t;
}

/* Flushes the diagnostics into `out` (may be NULL) and returns the error count. */
static int lex_close(Lex *L, char *out, size_t cap) {
  int errors = diag_error_count(L->d);
  /* diag_flush() with no messages would qsort(NULL, 0): UBSan flags it. */
  if (errors + diag_warning_count(L->d) > 0) diag_flush(L->d);
  fclose(L->f);
  if (out && cap) {
    snprintf(out, cap, "%s", L->msgs ? L->msgs : "");
  }
  free(L->msgs);
  arena_free(L->a);
  return errors;
}

/* Lex `text` in `dl` and compare the kinds with the TOK_EOF-terminated
 * list that follows `nerr`, the expected number of errors. */
static void check_seq_at(int line, Dialect dl, const char *text, size_t len, int nerr, ...) {
  Lex L;
  lex_open(&L, text, len, dl);
  va_list ap;
  va_start(ap, nerr);
  for (int i = 0;; i++) {
    int want = va_arg(ap, int);
    Token t = lex_next(&L);
    unit_checks++;
    if ((int)t.kind != want) {
      unit_failures++;
      fprintf(stderr, "test_lexer.c:%d: \"%s\" (v%d) token %d: got %s, want %s\n", line, text,
              (int)dl, i, token_kind_spelling(t.kind), token_kind_spelling((TokenKind)want));
      break;
    }
    if (want == TOK_EOF) break;
  }
  va_end(ap);
  int errs = lex_close(&L, NULL, 0);
  CHECK_MSG(errs == nerr, "line %d \"%s\": %d errors, want %d", line, text, errs, nerr);
}
#define SEQ(dl, text, nerr, ...) check_seq_at(__LINE__, dl, text, strlen(text), nerr, __VA_ARGS__, TOK_EOF)
#define SEQN(dl, text, len, nerr, ...) check_seq_at(__LINE__, dl, text, len, nerr, __VA_ARGS__, TOK_EOF)
#define BOTH(text, nerr, ...)                 \
  do {                                        \
    SEQ(DIALECT_V1, text, nerr, __VA_ARGS__); \
    SEQ(DIALECT_V2, text, nerr, __VA_ARGS__); \
  } while (0)

/* One token and its whole lexer state, for value checks. */
static Token lex_one(Lex *L, const char *text, Dialect dl) {
  lex_open(L, text, strlen(text), dl);
  return lex_next(L);
}

static int span_is(Span s, int l0, int c0, int l1, int c1) {
  return s.begin.line == l0 && s.begin.col == c0 && s.end.line == l1 && s.end.col == c1;
}

/* ---- keywords ----------------------------------------------------------- */

static const struct {
  const char *word;
  TokenKind kind;
  int dialects;
} keywords[] = {
#define TOK(name, spelling)
#define KEYWORD(name, word, dialects) {word, TOK_##name, dialects},
#include "frontend/tokens.def"
#undef TOK
};

static void test_keywords(void) {
  int n = (int)(sizeof keywords / sizeof keywords[0]);
  CHECK(n >= 40);
  for (int i = 0; i < n; i++) {
    /* The lexer binary-searches this list, so it must stay sorted. */
    if (i > 0) CHECK_MSG(strcmp(keywords[i - 1].word, keywords[i].word) < 0, "%s", keywords[i].word);
    for (int dl = DIALECT_V1; dl <= DIALECT_V2; dl++) {
      int bit = dl == DIALECT_V1 ? DIALECT_BIT_V1 : DIALECT_BIT_V2;
      Lex L;
      Token t = lex_one(&L, keywords[i].word, (Dialect)dl);
      if (keywords[i].dialects & bit) {
        CHECK_MSG(t.kind == keywords[i].kind, "'%s' in v%d is %s", keywords[i].word, dl,
                  token_kind_spelling(t.kind));
      } else {
        CHECK_MSG(t.kind == TOK_ID, "'%s' in v%d is %s", keywords[i].word, dl,
                  token_kind_spelling(t.kind));
        CHECK_STR(t.text, keywords[i].word);
      }
      CHECK(span_is(t.span, 1, 1, 1, 1 + (int)strlen(keywords[i].word)));
      CHECK(lex_next(&L).kind == TOK_EOF);
      CHECK(lex_close(&L, NULL, 0) == 0);
      /* A keyword with an extra identifier character is an identifier. */
      char buf[64];
      snprintf(buf, sizeof buf, "%s'", keywords[i].word);
      t = lex_one(&L, buf, (Dialect)dl);
      CHECK(t.kind == TOK_ID);
      CHECK_STR(t.text, buf);
      lex_close(&L, NULL, 0);
    }
  }
  /* The dialect differences listed in §1.4, independently of tokens.def. */
  static const char *const only_v2[] = {"const", "create_array", "create_collection",
                                         "initialize", "load_image", "load_sequence",
                                         "mat2", "mat3", "mat4", "start"};
  static const char *const only_v1[] = {"global", "initially", "load"};
  for (size_t i = 0; i < sizeof only_v2 / sizeof *only_v2; i++) {
    Lex L;
    CHECK(lex_one(&L, only_v2[i], DIALECT_V1).kind == TOK_ID);
    lex_close(&L, NULL, 0);
    CHECK(lex_one(&L, only_v2[i], DIALECT_V2).kind != TOK_ID);
    lex_close(&L, NULL, 0);
  }
  for (size_t i = 0; i < sizeof only_v1 / sizeof *only_v1; i++) {
    Lex L;
    CHECK(lex_one(&L, only_v1[i], DIALECT_V1).kind != TOK_ID);
    lex_close(&L, NULL, 0);
    CHECK(lex_one(&L, only_v1[i], DIALECT_V2).kind == TOK_ID);
    lex_close(&L, NULL, 0);
  }
  SEQ(DIALECT_V1, "start global", 0, TOK_ID, TOK_GLOBAL);
  SEQ(DIALECT_V2, "start global", 0, TOK_START, TOK_ID);
  SEQ(DIALECT_V2, "real int string bool", 0, TOK_KW_REAL, TOK_KW_INT, TOK_KW_STRING, TOK_BOOL);
  /* Built-in names are identifiers (§1.4). */
  BOTH("tent ctmr all active stable normalize", 0, TOK_ID, TOK_ID, TOK_ID, TOK_ID, TOK_ID, TOK_ID);
  Lex L;
  Token t = lex_one(&L, "strand", DIALECT_V2);
  CHECK(t.kind == TOK_STRAND);
  CHECK_STR(t.text, "strand");
  lex_close(&L, NULL, 0);
}

/* ---- operators ---------------------------------------------------------- */

static void test_operators(void) {
  static const struct {
    const char *text;
    TokenKind kind;
    int chars;
  } ops[] = {
      {"||", TOK_OROR, 2},       {"&&", TOK_ANDAND, 2},   {"<", TOK_LT, 1},
      {"<=", TOK_LE, 2},         {"==", TOK_EQEQ, 2},     {"!=", TOK_NEQ, 2},
      {">=", TOK_GE, 2},         {">", TOK_GT, 1},        {"+", TOK_PLUS, 1},
      {"-", TOK_MINUS, 1},       {"*", TOK_STAR, 1},      {"/", TOK_SLASH, 1},
      {"%", TOK_PERCENT, 1},     {"^", TOK_CARET, 1},     {"@", TOK_AT, 1},
      {"(", TOK_LPAREN, 1},      {")", TOK_RPAREN, 1},    {"[", TOK_LBRACKET, 1},
      {"]", TOK_RBRACKET, 1},    {"{", TOK_LBRACE, 1},    {"}", TOK_RBRACE, 1},
      {",", TOK_COMMA, 1},       {";", TOK_SEMI, 1},      {":", TOK_COLON, 1},
      {"#", TOK_HASH, 1},        {"!", TOK_BANG, 1},      {"=", TOK_EQ, 1},
      {"+=", TOK_PLUSEQ, 2},     {"-=", TOK_MINUSEQ, 2},  {"*=", TOK_STAREQ, 2},
      {"/=", TOK_SLASHEQ, 2},    {"%=", TOK_PERCENTEQ, 2}, {"|", TOK_BAR, 1},
      {".", TOK_DOT, 1},         {"..", TOK_DOTDOT, 2},
      {"\xe2\x8a\x9b", TOK_CONVOLVE, 1},          /* U+229B ⊛ */
      {"\xe2\x80\xa2", TOK_DOT_PROD, 1},          /* U+2022 • */
      {"\xe2\x8b\x85", TOK_DOT_PROD, 1},          /* U+22C5 ⋅ */
      {"\xc3\x97", TOK_CROSS, 1},                 /* U+00D7 × */
      {"\xe2\x8a\x97", TOK_OUTER, 1},             /* U+2297 ⊗ */
      {"\xe2\x88\x98", TOK_COMPOSE, 1},           /* U+2218 ∘ */
      {"\xe2\x88\x87", TOK_NABLA, 1},             /* U+2207 ∇ */
      {"\xe2\x88\x87\xe2\x8a\x97", TOK_NABLA_OUTER, 2},
      {"\xe2\x88\x87\xe2\x80\xa2", TOK_NABLA_DOT, 2},
      {"\xe2\x88\x87\xe2\x8b\x85", TOK_NABLA_DOT, 2},
      {"\xe2\x88\x87\xc3\x97", TOK_NABLA_CROSS, 2},
  };
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
    for (int dl = DIALECT_V1; dl <= DIALECT_V2; dl++) {
      /* Surrounded by identifiers and a space, to check the span too. */
      char buf[64];
      snprintf(buf, sizeof buf, "a %sb", ops[i].text);
      Lex L;
      lex_open(&L, buf, strlen(buf), (Dialect)dl);
      Token a = lex_next(&L), t = lex_next(&L), b = lex_next(&L);
      CHECK(a.kind == TOK_ID);
      CHECK_MSG(t.kind == ops[i].kind, "'%s' lexed as %s", ops[i].text, token_kind_spelling(t.kind));
      CHECK_MSG(span_is(t.span, 1, 3, 1, 3 + ops[i].chars), "'%s' span %d-%d", ops[i].text,
                t.span.begin.col, t.span.end.col);
      CHECK(b.kind == TOK_ID && b.span.begin.col == 3 + ops[i].chars);
      CHECK(lex_next(&L).kind == TOK_EOF);
      CHECK(lex_close(&L, NULL, 0) == 0);
    }
  }
  /* Longest match between neighbours. */
  BOTH("<==", 0, TOK_LE, TOK_EQ);
  BOTH("===", 0, TOK_EQEQ, TOK_EQ);
  BOTH("!==", 0, TOK_NEQ, TOK_EQ);
  BOTH("...", 0, TOK_DOTDOT, TOK_DOT);
  BOTH("|||", 0, TOK_OROR, TOK_BAR);
  BOTH("+=-=*=/=%=", 0, TOK_PLUSEQ, TOK_MINUSEQ, TOK_STAREQ, TOK_SLASHEQ, TOK_PERCENTEQ);
  BOTH("a-=-b", 0, TOK_ID, TOK_MINUSEQ, TOK_MINUS, TOK_ID);
  BOTH("x.y", 0, TOK_ID, TOK_DOT, TOK_ID);
  BOTH("S.all", 0, TOK_ID, TOK_DOT, TOK_ID);
  BOTH("m[:,0]", 0, TOK_ID, TOK_LBRACKET, TOK_COLON, TOK_COMMA, TOK_INT, TOK_RBRACKET);
  BOTH("{ e | x in s }", 0, TOK_LBRACE, TOK_ID, TOK_BAR, TOK_ID, TOK_IN, TOK_ID, TOK_RBRACE);
  /* ∇ followed by a space is ∇ alone: the pairs must be written together. */
  BOTH("\xe2\x88\x87 \xe2\x8a\x97", 0, TOK_NABLA, TOK_OUTER);
  BOTH("\xe2\x88\x87\xe2\x88\x87" "F", 0, TOK_NABLA, TOK_NABLA, TOK_ID);
  BOTH("\xe2\x88\x87\xe2\x8a\x97\xe2\x88\x87" "F(x)", 0, TOK_NABLA_OUTER, TOK_NABLA, TOK_ID,
       TOK_LPAREN, TOK_ID, TOK_RPAREN);
  /* img ⊛ bspln3, a•b×c */
  BOTH("img\xe2\x8a\x9b" "bspln3", 0, TOK_ID, TOK_CONVOLVE, TOK_ID);
  BOTH("a\xe2\x80\xa2" "b\xc3\x97" "c", 0, TOK_ID, TOK_DOT_PROD, TOK_ID, TOK_CROSS, TOK_ID);
  /* field#2(3)[] and tent#1 */
  BOTH("field#2(3)[]", 0, TOK_FIELD, TOK_HASH, TOK_INT, TOK_LPAREN, TOK_INT, TOK_RPAREN,
       TOK_LBRACKET, TOK_RBRACKET);
  BOTH("kernel#1", 0, TOK_KERNEL, TOK_HASH, TOK_INT);
  /* A lone '&' is not an operator. */
  BOTH("a & b", 1, TOK_ID, TOK_ID);
}

/* ---- identifiers -------------------------------------------------------- */

static void test_identifiers(void) {
  Lex L;
  Token t = lex_one(&L, "phi'", DIALECT_V1);
  CHECK(t.kind == TOK_ID);
  CHECK_STR(t.text, "phi'");
  CHECK(t.len == 4);
  CHECK(lex_close(&L, NULL, 0) == 0);

  BOTH("x_1 a'' Z9_'z", 0, TOK_ID, TOK_ID, TOK_ID);
  /* Every Greek letter of §1.3 is a letter; together they make one identifier. */
  static const char greek[] = "\xce\xb1\xce\xb2\xce\xb3\xce\xb6\xce\xb7\xce\xb8\xce\xbb\xce\xbc"
                              "\xce\xbe\xcf\x80\xcf\x81\xcf\x83\xcf\x84\xcf\x86\xcf\x88\xcf\x89";
  t = lex_one(&L, greek, DIALECT_V2);
  CHECK(t.kind == TOK_ID);
  CHECK_STR(t.text, greek);
  CHECK(span_is(t.span, 1, 1, 1, 17)); /* 16 letters */
  CHECK(lex_next(&L).kind == TOK_EOF);
  CHECK(lex_close(&L, NULL, 0) == 0);
  /* Each of them alone starts an identifier (π alone is the literal). */
  for (int i = 0; i < 16; i++) {
    char buf[8];
    snprintf(buf, sizeof buf, "%.2sx", greek + 2 * i);
    t = lex_one(&L, buf, DIALECT_V1);
    CHECK_MSG(t.kind == TOK_ID && t.len == 3, "%s", buf);
    CHECK(span_is(t.span, 1, 1, 1, 3));
    CHECK(lex_close(&L, NULL, 0) == 0);
  }
  /* Greek letters outside the list are errors, not letters: δ ε κ ν Δ. */
  static const char *const bad_greek[] = {"\xce\xb4", "\xce\xb5", "\xce\xba", "\xce\xbd",
                                          "\xce\x94"};
  for (size_t i = 0; i < sizeof bad_greek / sizeof *bad_greek; i++) {
    char buf[16], msgs[512];
    snprintf(buf, sizeof buf, "a%sb", bad_greek[i]);
    lex_open(&L, buf, strlen(buf), DIALECT_V2);
    Token a = lex_next(&L), b = lex_next(&L);
    CHECK(a.kind == TOK_ID && a.len == 1);
    CHECK(b.kind == TOK_ID && b.len == 1 && b.span.begin.col == 3);
    CHECK(lex_next(&L).kind == TOK_EOF);
    CHECK(lex_close(&L, msgs, sizeof msgs) == 1);
    char want[64];
    snprintf(want, sizeof want, "t.diderot:1:2: error: unexpected character '%s'", bad_greek[i]);
    CHECK_MSG(strstr(msgs, want) != NULL, "%s", msgs);
  }
  /* Cannot start with '_' or a digit. */
  BOTH("_x", 1, TOK_ID);
  BOTH("9x", 0, TOK_INT, TOK_ID);
  /* Keywords are whole words. */
  BOTH("iffy if2 in_ ifif", 0, TOK_ID, TOK_ID, TOK_ID, TOK_ID);
  BOTH("x'' '", 1, TOK_ID);
}

/* ---- literals ----------------------------------------------------------- */

static void test_numbers(void) {
  const double pi = 3.14159265358979323846;
  Lex L;
  Token t = lex_one(&L, "42", DIALECT_V2);
  CHECK(t.kind == TOK_INT);
  CHECK_STR(t.text, "42");
  CHECK(t.len == 2);
  lex_close(&L, NULL, 0);
  /* No range check in the lexer (doc/differences.md Q25 belongs to the typechecker). */
  t = lex_one(&L, "123456789012345678901234567890", DIALECT_V1);
  CHECK(t.kind == TOK_INT);
  CHECK_STR(t.text, "123456789012345678901234567890");
  CHECK(lex_close(&L, NULL, 0) == 0);
  t = lex_one(&L, "007", DIALECT_V1);
  CHECK(t.kind == TOK_INT);
  CHECK_STR(t.text, "007");
  lex_close(&L, NULL, 0);

  static const struct {
    const char *text;
    double value;
  } reals[] = {
      {"1.5", 1.5},     {"0.001", 0.001},  {"2.0", 2.0},         {"1.5e3", 1500.0},
      {"1.5E3", 1500.0}, {"1.0e-3", 0.001}, {"2.5e+2", 250.0},   {"10.25", 10.25},
      {"0.0", 0.0},     {"3.14159265358979", 3.14159265358979},
  };
  for (size_t i = 0; i < sizeof reals / sizeof *reals; i++) {
    t = lex_one(&L, reals[i].text, DIALECT_V2);
    CHECK_MSG(t.kind == TOK_REAL, "%s", reals[i].text);
    CHECK_STR(t.text, reals[i].text);
    CHECK(t.len == strlen(reals[i].text));
    CHECK_NEAR(t.real, reals[i].value, 1e-15 * fabs(reals[i].value));
    CHECK(span_is(t.span, 1, 1, 1, 1 + (int)strlen(reals[i].text)));
    CHECK(lex_next(&L).kind == TOK_EOF);
    CHECK(lex_close(&L, NULL, 0) == 0);
  }
  /* Digits on both sides of '.', and exponents only after a fraction. */
  BOTH("1e5", 0, TOK_INT, TOK_ID);
  BOTH("1e-3", 0, TOK_INT, TOK_ID, TOK_MINUS, TOK_INT);
  /* "2." is reported (ERR_REAL_NEEDS_DIGITS) and read as the real 2.0 so
   * that parsing goes on; "1..5" stays a range. */
  BOTH("2.", 1, TOK_REAL);
  BOTH("2.;", 1, TOK_REAL, TOK_SEMI);
  BOTH("2. * x", 1, TOK_REAL, TOK_STAR, TOK_ID);
  BOTH(".5", 0, TOK_DOT, TOK_INT);
  BOTH("1.5e", 0, TOK_REAL, TOK_ID);
  BOTH("1.5e+", 0, TOK_REAL, TOK_ID, TOK_PLUS);
  BOTH("1.5.2", 0, TOK_REAL, TOK_DOT, TOK_INT);
  BOTH("-3", 0, TOK_MINUS, TOK_INT);
  /* Ranges. */
  BOTH("0..n", 0, TOK_INT, TOK_DOTDOT, TOK_ID);
  BOTH("1..5", 0, TOK_INT, TOK_DOTDOT, TOK_INT);
  BOTH("0 .. n-1", 0, TOK_INT, TOK_DOTDOT, TOK_ID, TOK_MINUS, TOK_INT);
  BOTH("[0..2]", 0, TOK_LBRACKET, TOK_INT, TOK_DOTDOT, TOK_INT, TOK_RBRACKET);
  lex_open(&L, "1..5", 4, DIALECT_V2);
  Token a = lex_next(&L), b = lex_next(&L), c = lex_next(&L);
  CHECK(span_is(a.span, 1, 1, 1, 2) && span_is(b.span, 1, 2, 1, 4) && span_is(c.span, 1, 4, 1, 5));
  CHECK_STR(a.text, "1");
  CHECK_STR(c.text, "5");
  lex_close(&L, NULL, 0);

  /* π, ∞ and inf. */
  t = lex_one(&L, "\xcf\x80", DIALECT_V1);
  CHECK(t.kind == TOK_REAL);
  CHECK_NEAR(t.real, pi, 1e-15);
  CHECK_STR(t.text, "\xcf\x80");
  CHECK(span_is(t.span, 1, 1, 1, 2));
  lex_close(&L, NULL, 0);
  t = lex_one(&L, "\xcf\x80r", DIALECT_V2);
  CHECK(t.kind == TOK_ID);
  CHECK_STR(t.text, "\xcf\x80r");
  lex_close(&L, NULL, 0);
  BOTH("\xcf\x80" "2", 0, TOK_ID);
  BOTH("2\xcf\x80", 0, TOK_INT, TOK_REAL);
  BOTH("2*\xcf\x80*r", 0, TOK_INT, TOK_STAR, TOK_REAL, TOK_STAR, TOK_ID);
  t = lex_one(&L, "\xe2\x88\x9e", DIALECT_V2);
  CHECK(t.kind == TOK_REAL && isinf(t.real) && t.real > 0);
  CHECK(span_is(t.span, 1, 1, 1, 2));
  lex_close(&L, NULL, 0);
  for (int dl = DIALECT_V1; dl <= DIALECT_V2; dl++) {
    t = lex_one(&L, "inf", (Dialect)dl);
    CHECK(t.kind == TOK_REAL && isinf(t.real) && t.real > 0);
    CHECK_STR(t.text, "inf");
    lex_close(&L, NULL, 0);
  }
  BOTH("-\xe2\x88\x9e", 0, TOK_MINUS, TOK_REAL);
  BOTH("info inf' inf_", 0, TOK_ID, TOK_ID, TOK_ID);
  BOTH("\xe2\x88\x9ex", 0, TOK_REAL, TOK_ID);
  BOTH("nan nan[3]", 0, TOK_KW_NAN, TOK_KW_NAN, TOK_LBRACKET, TOK_INT, TOK_RBRACKET);
  BOTH("true false", 0, TOK_TRUE, TOK_FALSE);
}

/* ---- strings ------------------------------------------------------------ */

static void test_strings(void) {
  Lex L;
  char msgs[1024];
  const char *src;
  Token t = lex_one(&L, "\"hello, world!\"", DIALECT_V2);
  CHECK(t.kind == TOK_STRING);
  CHECK_STR(t.text, "hello, world!");
  CHECK(t.len == 13);
  CHECK(span_is(t.span, 1, 1, 1, 16));
  CHECK(lex_close(&L, NULL, 0) == 0);

  t = lex_one(&L, "\"\"", DIALECT_V1);
  CHECK(t.kind == TOK_STRING && t.len == 0 && t.text && t.text[0] == 0);
  lex_close(&L, NULL, 0);

  /* Every escape of §1.5, by their ASCII codes. */
  t = lex_one(&L, "\"\\a\\b\\f\\n\\r\\t\\v\\\\\\\"\"", DIALECT_V2);
  static const unsigned char want_esc[] = {7, 8, 12, 10, 13, 9, 11, 92, 34};
  CHECK(t.kind == TOK_STRING);
  CHECK(t.len == sizeof want_esc);
  CHECK(t.len == sizeof want_esc && memcmp(t.text, want_esc, sizeof want_esc) == 0);
  CHECK(lex_close(&L, NULL, 0) == 0);

  /* \ddd is decimal: \065 is 'A' (65), \255 is byte 255, \000 a NUL byte. */
  t = lex_one(&L, "\"\\065\\255x\\000y\\0090\"", DIALECT_V1);
  static const unsigned char want_dec[] = {'A', 255, 'x', 0, 'y', 9, '0'};
  CHECK(t.kind == TOK_STRING && t.len == sizeof want_dec);
  CHECK(t.len == sizeof want_dec && memcmp(t.text, want_dec, sizeof want_dec) == 0);
  CHECK(lex_close(&L, NULL, 0) == 0);

  /* All printable ASCII except " and \ is allowed as is. */
  char all[128];
  size_t n = 0;
  all[n++] = '"';
  for (int c = 32; c <= 126; c++)
    if (c != '"' && c != '\\') all[n++] = (char)c;
  all[n++] = '"';
  all[n] = 0;
  t = lex_one(&L, all, DIALECT_V2);
  CHECK(t.kind == TOK_STRING && t.len == 93);
  CHECK(t.len == 93 && memcmp(t.text, all + 1, 93) == 0);
  CHECK(lex_close(&L, NULL, 0) == 0);

  /* Bad escapes: value > 255, fewer than three digits, unknown letters. */
  static const struct {
    const char *src, *shown;
  } bad_esc[] = {
      {"\"a\\256b\"", "\\256"}, {"\"a\\12b\"", "\\12"}, {"\"a\\1\"", "\\1"},
      {"\"a\\qb\"", "\\q"},     {"\"a\\x41\"", "\\x"},  {"\"a\\'\"", "\\'"},
      {"\"a\\999\"", "\\999"},
  };
  for (size_t i = 0; i < sizeof bad_esc / sizeof *bad_esc; i++) {
    lex_open(&L, bad_esc[i].src, strlen(bad_esc[i].src), DIALECT_V2);
    t = lex_next(&L);
    CHECK(t.kind == TOK_STRING);
    CHECK(t.text[0] == 'a');
    CHECK(span_is(t.span, 1, 1, 1, 1 + (int)strlen(bad_esc[i].src)));
    CHECK(lex_next(&L).kind == TOK_EOF);
    CHECK_MSG(lex_close(&L, msgs, sizeof msgs) == 1, "%s", bad_esc[i].src);
    char want[128];
    snprintf(want, sizeof want,
             "t.diderot:1:3: error: bad escape sequence '%s' in string literal", bad_esc[i].shown);
    CHECK_MSG(strstr(msgs, want) != NULL, "got: %s", msgs);
  }

  /* A newline ends the string with an error; the next line lexes normally. */
  lex_open(&L, "x = \"abc\ny;", 11, DIALECT_V2);
  CHECK(lex_next(&L).kind == TOK_ID);
  CHECK(lex_next(&L).kind == TOK_EQ);
  t = lex_next(&L);
  CHECK(t.kind == TOK_STRING);
  CHECK_STR(t.text, "abc");
  Token y = lex_next(&L);
  CHECK(y.kind == TOK_ID && span_is(y.span, 2, 1, 2, 2));
  CHECK(lex_next(&L).kind == TOK_SEMI);
  CHECK(lex_next(&L).kind == TOK_EOF);
  CHECK(lex_close(&L, msgs, sizeof msgs) == 1);
  CHECK_MSG(strstr(msgs, "t.diderot:1:5: error: unterminated string literal") != NULL, "%s", msgs);

  /* Errors inside an unterminated string: each at its own place. */
  lex_open(&L, "  \"a\\q\x01\n x", 10, DIALECT_V2);
  t = lex_next(&L);
  CHECK(t.kind == TOK_STRING && span_is(t.span, 1, 3, 1, 8));
  CHECK_STR(t.text, "a");
  t = lex_next(&L);
  CHECK(t.kind == TOK_ID && span_is(t.span, 2, 2, 2, 3));
  CHECK(lex_close(&L, msgs, sizeof msgs) == 3);
  CHECK_MSG(strstr(msgs, "t.diderot:1:3: error: unterminated string literal"), "%s", msgs);
  CHECK_MSG(strstr(msgs, "t.diderot:1:5: error: bad escape sequence '\\q'"), "%s", msgs);
  CHECK_MSG(strstr(msgs, "t.diderot:1:7: error: bad character '\\x01'"), "%s", msgs);

  /* End of input inside a string, also right after a backslash. */
  BOTH("\"abc", 1, TOK_STRING);
  BOTH("\"abc\\", 1, TOK_STRING);
  BOTH("\"abc\\\nx", 1, TOK_STRING, TOK_ID);

  /* Control characters: tab, DEL; one error each. Beyond ASCII (an
   * extension, language.md §2): é and a 4-byte character kept as UTF-8. */
  src = "\"a\tb\xc3\xa9" "c\x7f\xf0\x9f\x98\x80\"";
  lex_open(&L, src, strlen(src), DIALECT_V1);
  t = lex_next(&L);
  CHECK(t.kind == TOK_STRING);
  CHECK_STR(t.text, "ab\xc3\xa9" "c\xf0\x9f\x98\x80");
  CHECK(t.utf8);
  CHECK(span_is(t.span, 1, 1, 1, 10)); /* 9 characters: " a TAB b é c DEL 😀 " */
  CHECK(lex_next(&L).kind == TOK_EOF);
  CHECK(lex_close(&L, msgs, sizeof msgs) == 2);
  CHECK_MSG(strstr(msgs, "t.diderot:1:3: error: bad character"), "%s", msgs);
  CHECK_MSG(strstr(msgs, "t.diderot:1:7: error: bad character"), "%s", msgs);

  /* Invisible, C1 control and bidirectional characters are not kept. */
  src = "\"a\xe2\x80\x8b" "b\xc2\x85" "c\xe2\x80\xae" "d\xe2\x81\xa6\"";
  lex_open(&L, src, strlen(src), DIALECT_V2);
  t = lex_next(&L);
  CHECK_STR(t.text, "abcd");
  CHECK(!t.utf8);
  CHECK(lex_close(&L, msgs, sizeof msgs) == 4);
  CHECK_MSG(strstr(msgs, "t.diderot:1:3: error: invisible or control character U+200B in string literal"),
            "%s", msgs);
  CHECK_MSG(strstr(msgs, "t.diderot:1:5: error: invisible or control character U+0085"), "%s", msgs);
  CHECK_MSG(strstr(msgs, "t.diderot:1:7: error: invisible or control character U+202E"), "%s", msgs);
  CHECK_MSG(strstr(msgs, "t.diderot:1:9: error: invisible or control character U+2066"), "%s", msgs);

  /* ASCII only: no flag. */
  lex_open(&L, "\"abc\\200\"", 10, DIALECT_V2);
  t = lex_next(&L);
  CHECK(t.len == 4 && !t.utf8);
  CHECK(lex_close(&L, msgs, sizeof msgs) == 0);

  /* Invalid UTF-8 and NUL inside a string. */
  lex_open(&L, "\"a\xff" "b\0c\"z", 8, DIALECT_V2);
  t = lex_next(&L);
  CHECK(t.kind == TOK_STRING);
  CHECK_STR(t.text, "abc");
  CHECK(lex_next(&L).kind == TOK_ID);
  CHECK(lex_next(&L).kind == TOK_EOF);
  CHECK(lex_close(&L, msgs, sizeof msgs) == 2);
  CHECK_MSG(strstr(msgs, "invalid UTF-8 byte 0xff in source"), "%s", msgs);

  /* Strings next to other tokens. */
  BOTH("print(\"x\\n\");", 0, TOK_PRINT, TOK_LPAREN, TOK_STRING, TOK_RPAREN, TOK_SEMI);
  BOTH("\"a\"\"b\"", 0, TOK_STRING, TOK_STRING);
  BOTH("\"//not a comment\" x", 0, TOK_STRING, TOK_ID);
}

/* ---- comments and whitespace -------------------------------------------- */

static void test_comments(void) {
  Lex L;
  char msgs[512];
  BOTH("a // b c\nd", 0, TOK_ID, TOK_ID);
  BOTH("a // b", 0, TOK_ID);
  BOTH("//", 0, TOK_EOF);
  BOTH("a /* b \n c */ d", 0, TOK_ID, TOK_ID);
  BOTH("/**/x/***/y", 0, TOK_ID, TOK_ID);
  BOTH("a/b", 0, TOK_ID, TOK_SLASH, TOK_ID);
  BOTH("a/ /b", 0, TOK_ID, TOK_SLASH, TOK_SLASH, TOK_ID);
  /* Comments do not nest: the first star-slash ends them. */
  BOTH("/* /* */ x */", 0, TOK_ID, TOK_STAR, TOK_SLASH);
  BOTH("/* // */ x", 0, TOK_ID);
  BOTH("// /* \n x", 0, TOK_ID);
  /* Any bytes in comments, even ones that are errors elsewhere. */
  BOTH("/* \xce\xb4 $ \xff \" */ x // \xff \xe2\x88 $\ny", 0, TOK_ID, TOK_ID);
  SEQN(DIALECT_V2, "/* \0 */ x // \0\ny", 16, 0, TOK_ID, TOK_ID);
  /* All whitespace characters of §1.2. */
  BOTH(" \t\n\v\f\r a \r\n b", 0, TOK_ID, TOK_ID);

  /* Positions after a multi-line comment. */
  lex_open(&L, "a /* 1\n22\n333 */ b", 18, DIALECT_V1);
  CHECK(span_is(lex_next(&L).span, 1, 1, 1, 2));
  CHECK(span_is(lex_next(&L).span, 3, 8, 3, 9));
  CHECK(lex_close(&L, NULL, 0) == 0);

  /* Unterminated: reported at the opening characters, then end of file. */
  static const char *const unterminated[] = {"x\n  /* abc", "x\n  /* abc *", "x\n  /*/",
                                             "x\n  /* abc\n\n"};
  for (size_t i = 0; i < sizeof unterminated / sizeof *unterminated; i++) {
    lex_open(&L, unterminated[i], strlen(unterminated[i]), DIALECT_V2);
    CHECK(lex_next(&L).kind == TOK_ID);
    CHECK(lex_next(&L).kind == TOK_EOF);
    CHECK(lex_next(&L).kind == TOK_EOF);
    CHECK(lex_close(&L, msgs, sizeof msgs) == 1);
    CHECK_MSG(strstr(msgs, "t.diderot:2:3: error: unterminated block comment"), "%s", msgs);
  }
}

/* ---- positions ---------------------------------------------------------- */

static void test_positions(void) {
  Lex L;
  /* real α = π;  ->  real 1-5, α 6-7, = 8-9, π 10-11, ; 11-12 */
  const char *src = "real \xce\xb1 = \xcf\x80;";
  lex_open(&L, src, strlen(src), DIALECT_V2);
  Token t[5];
  for (int i = 0; i < 5; i++) t[i] = lex_next(&L);
  CHECK(t[0].kind == TOK_KW_REAL && span_is(t[0].span, 1, 1, 1, 5));
  CHECK(t[1].kind == TOK_ID && span_is(t[1].span, 1, 6, 1, 7));
  CHECK_STR(t[1].text, "\xce\xb1");
  CHECK(t[1].len == 2);
  CHECK(t[2].kind == TOK_EQ && span_is(t[2].span, 1, 8, 1, 9));
  CHECK(t[3].kind == TOK_REAL && span_is(t[3].span, 1, 10, 1, 11));
  CHECK(t[4].kind == TOK_SEMI && span_is(t[4].span, 1, 11, 1, 12));
  Token e = lex_next(&L);
  CHECK(e.kind == TOK_EOF && span_is(e.span, 1, 12, 1, 12));
  CHECK(lex_close(&L, NULL, 0) == 0);

  /* Several lines, tabs (one column), CRLF, Unicode operators. */
  src = "x\n\tv = a\xe2\x80\xa2" "b;\r\n\xe2\x88\x87\xc3\x97" "F(p)  ";
  lex_open(&L, src, strlen(src), DIALECT_V1);
  Token x = lex_next(&L), v = lex_next(&L), eq = lex_next(&L), a = lex_next(&L),
        dot = lex_next(&L), b = lex_next(&L), semi = lex_next(&L), curl = lex_next(&L),
        f = lex_next(&L);
  CHECK(span_is(x.span, 1, 1, 1, 2));
  CHECK(span_is(v.span, 2, 2, 2, 3));
  CHECK(span_is(eq.span, 2, 4, 2, 5));
  CHECK(span_is(a.span, 2, 6, 2, 7));
  CHECK(dot.kind == TOK_DOT_PROD && span_is(dot.span, 2, 7, 2, 8));
  CHECK(span_is(b.span, 2, 8, 2, 9));
  CHECK(span_is(semi.span, 2, 9, 2, 10));
  CHECK(curl.kind == TOK_NABLA_CROSS && span_is(curl.span, 3, 1, 3, 3));
  CHECK(f.kind == TOK_ID && span_is(f.span, 3, 3, 3, 4));
  lex_next(&L);
  lex_next(&L);
  lex_next(&L);
  e = lex_next(&L);
  CHECK(e.kind == TOK_EOF && span_is(e.span, 3, 9, 3, 9));
  CHECK(lex_close(&L, NULL, 0) == 0);

  /* Empty input: EOF at 1:1, repeatedly. */
  lex_open(&L, "", 0, DIALECT_V2);
  e = lex_next(&L);
  CHECK(e.kind == TOK_EOF && span_is(e.span, 1, 1, 1, 1));
  CHECK(lex_next(&L).kind == TOK_EOF);
  CHECK(lex_close(&L, NULL, 0) == 0);
}

/* ---- bad input ---------------------------------------------------------- */

static void test_bad_input(void) {
  Lex L;
  char msgs[2048];
  /* Stray ASCII characters: each reported once with its text, then skipped. */
  lex_open(&L, "a $ b ? c ~ d ` e \\ f", 21, DIALECT_V2);
  int ids = 0;
  for (Token t; (t = lex_next(&L)).kind != TOK_EOF;) ids += t.kind == TOK_ID;
  CHECK(ids == 6);
  CHECK(lex_close(&L, msgs, sizeof msgs) == 5);
  CHECK_MSG(strstr(msgs, "t.diderot:1:3: error: unexpected character '$'"), "%s", msgs);
  CHECK_MSG(strstr(msgs, "t.diderot:1:19: error: unexpected character '\\'"), "%s", msgs);

  /* A control character is shown by its code. */
  lex_open(&L, "a\x01" "b", 3, DIALECT_V1);
  CHECK(lex_next(&L).kind == TOK_ID);
  CHECK(lex_next(&L).kind == TOK_ID);
  CHECK(lex_close(&L, msgs, sizeof msgs) == 1);
  CHECK_MSG(strstr(msgs, "t.diderot:1:2: error: unexpected character U+0001"), "%s", msgs);

  /* NUL bytes do not end the scan. */
  lex_open(&L, "a\0b\0", 4, DIALECT_V2);
  Token a = lex_next(&L), b = lex_next(&L);
  CHECK(a.kind == TOK_ID && b.kind == TOK_ID);
  CHECK(span_is(b.span, 1, 3, 1, 4));
  CHECK(lex_next(&L).kind == TOK_EOF);
  CHECK(lex_close(&L, msgs, sizeof msgs) == 2);
  CHECK_MSG(strstr(msgs, "unexpected character U+0000"), "%s", msgs);
  SEQN(DIALECT_V1, "\0", 1, 1, TOK_EOF);
  SEQN(DIALECT_V1, "1\0.5", 4, 1, TOK_INT, TOK_DOT, TOK_INT);
  SEQN(DIALECT_V1, "\xe2\x88\0", 3, 3, TOK_EOF); /* truncated ∇/∘ then NUL */

  /* Invalid UTF-8: one error per bad byte, then lexing resumes. */
  static const struct {
    const char *src;
    int errors;
    unsigned first;
  } bad[] = {
      {"a\xff" "b", 1, 0xff},            /* never valid */
      {"a\x80" "b", 1, 0x80},            /* stray continuation byte */
      {"a\xc0\x80" "b", 2, 0xc0},        /* overlong NUL */
      {"a\xe0\x80\xaf" "b", 3, 0xe0},    /* overlong '/' */
      {"a\xed\xa0\x80" "b", 3, 0xed},    /* UTF-16 surrogate U+D800 */
      {"a\xf4\x90\x80\x80" "b", 4, 0xf4}, /* above U+10FFFF */
      {"a\xe2\x88" "b", 2, 0xe2},        /* truncated: lead and continuation */
      {"a \xe2\x88", 2, 0xe2},           /* truncated at the end of input */
      {"a \xcf", 1, 0xcf},               /* truncated π */
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    lex_open(&L, bad[i].src, strlen(bad[i].src), DIALECT_V2);
    int n = 0;
    for (Token t; (t = lex_next(&L)).kind != TOK_EOF && n < 10;) n += t.kind == TOK_ID;
    CHECK_MSG(n == (bad[i].src[strlen(bad[i].src) - 1] == 'b' ? 2 : 1), "case %zu: %d ids", i, n);
    int errs = lex_close(&L, msgs, sizeof msgs);
    CHECK_MSG(errs == bad[i].errors, "case %zu: %d errors", i, errs);
    char want[80];
    snprintf(want, sizeof want, "error: invalid UTF-8 byte 0x%02x in source", bad[i].first);
    CHECK_MSG(strstr(msgs, want), "case %zu: %s", i, msgs);
  }
  /* Every byte of invalid UTF-8 is one column (tests/programs/README.md),
   * so the columns after it stay those an editor shows. */
  lex_open(&L, "a\xe0\x80\xaf" "b \x80\x80 c", 10, DIALECT_V2);
  CHECK(lex_next(&L).kind == TOK_ID);
  Token tb = lex_next(&L), tc = lex_next(&L);
  CHECK_MSG(tb.kind == TOK_ID && span_is(tb.span, 1, 5, 1, 6), "b at %d:%d", tb.span.begin.line,
            tb.span.begin.col);
  CHECK_MSG(tc.kind == TOK_ID && span_is(tc.span, 1, 10, 1, 11), "c at %d:%d", tc.span.begin.line,
            tc.span.begin.col);
  CHECK(lex_close(&L, msgs, sizeof msgs) == 5);
  CHECK_MSG(strstr(msgs, "1:2: error: invalid UTF-8 byte 0xe0") &&
                strstr(msgs, "1:3: error: invalid UTF-8 byte 0x80") &&
                strstr(msgs, "1:4: error: invalid UTF-8 byte 0xaf") &&
                strstr(msgs, "1:7: error: invalid UTF-8 byte 0x80") &&
                strstr(msgs, "1:8: error: invalid UTF-8 byte 0x80"),
            "%s", msgs);
  /* A valid but unknown character is one error for the whole character. */
  lex_open(&L, "a\xe2\x88\x99" "b", 5, DIALECT_V2); /* U+2219 ∙ BULLET OPERATOR */
  CHECK(lex_next(&L).kind == TOK_ID);
  Token t = lex_next(&L);
  CHECK(t.kind == TOK_ID && span_is(t.span, 1, 3, 1, 4));
  CHECK(lex_close(&L, msgs, sizeof msgs) == 1);
  CHECK_MSG(strstr(msgs, "1:2: error: unexpected character '\xe2\x88\x99'"), "%s", msgs);
  BOTH("\xef\xbb\xbfx", 1, TOK_ID); /* a byte-order mark is not whitespace */
  BOTH("\xf0\x9f\x98\x80", 1, TOK_EOF);

  /* Every byte value, alone and inside text: no crash, never past the end. */
  for (int c = 0; c < 256; c++) {
    char buf[4] = {(char)c, 'x', (char)c, 0};
    for (size_t len = 1; len <= 3; len += 2) {
      lex_open(&L, buf, len, DIALECT_V2);
      int k = 0;
      while (lex_next(&L).kind != TOK_EOF && k < 10) k++;
      CHECK(k < 10);
      lex_close(&L, NULL, 0);
    }
  }
  /* A long run of garbage: errors are capped by diag, the scan still ends. */
  enum { NGARBAGE = 5000 };
  char *garbage = malloc(NGARBAGE);
  for (int i = 0; i < NGARBAGE; i++) garbage[i] = (char)(0x80 + i % 64);
  lex_open(&L, garbage, NGARBAGE, DIALECT_V1);
  CHECK(lex_next(&L).kind == TOK_EOF);
  CHECK(lex_close(&L, NULL, 0) > 0);
  free(garbage);
}

/* ---- #version ----------------------------------------------------------- */

static Dialect detect(const char *text, size_t len, int *errors, int *warnings, Span *vs,
                      char *msgs, size_t cap) {
  Arena *a = arena_new();
  Source *s = source_from_memory(a, "t.diderot", text, len);
  DiagCtx *d = diag_new(a, s);
  char *buf = NULL;
  size_t blen = 0;
  FILE *f = open_memstream(&buf, &blen);
  diag_set_stream(d, f);
  Dialect dl = lexer_detect_dialect(s, d, vs);
  *errors = diag_error_count(d);
  *warnings = diag_warning_count(d);
  if (*errors + *warnings > 0) diag_flush(d);
  fclose(f);
  snprintf(msgs, cap, "%s", buf ? buf : "");
  free(buf);
  arena_free(a);
  return dl;
}

static void test_version(void) {
  int errs, warns;
  Span vs;
  char msgs[512];
  static const struct {
    const char *src;
    int dialect; /* 0: rejected */
    int errors, warnings;
    const char *message;
    int span_end; /* end column of the directive span, 0: no span */
  } cases[] = {
      {"#version 2.0\nstrand", DIALECT_V2, 0, 0, NULL, 13},
      {"#version 1.0\n", DIALECT_V1, 0, 0, NULL, 13},
      {"#version 2", DIALECT_V2, 0, 0, NULL, 11},
      {"#version 1", DIALECT_V1, 0, 0, NULL, 11},
      {"#version \t 2.0 \t\r\nx", DIALECT_V2, 0, 0, NULL, 15},
      {"#version 3.0\n", 0, 1, 0, "1:1: error: no support for Diderot version 3.0", 13},
      {"#version 1.5\n", 0, 1, 0, "no support for Diderot version 1.5", 13},
      {"#version 0\n", 0, 1, 0, "no support for Diderot version 0", 11},
      {"#version 12.0\n", 0, 1, 0, "no support for Diderot version 12.0", 14},
      {"#version\n", 0, 1, 0, "1:1: error: invalid '#version' directive", 9},
      {"#version x\n", 0, 1, 0, "invalid '#version' directive", 11},
      {"#version 2.\n", 0, 1, 0, "invalid '#version' directive", 12},
      {"#version 2.0x\n", 0, 1, 0, "invalid '#version' directive", 14},
      {"#version 2.0 // c\n", 0, 1, 0, "invalid '#version' directive", 18},
      {"#version2.0\n", 0, 1, 0, "invalid '#version' directive", 12},
      {"#version -1\n", 0, 1, 0, "invalid '#version' directive", 12},
      {"#version 2.0.0\n", 0, 1, 0, "invalid '#version' directive", 15},
      {"x = 1;\n", DIALECT_V1, 0, 1,
       "1:1: warning: no language version specified; assuming '#version 1.0'", 0},
      {"\n#version 2.0\n", DIALECT_V1, 0, 1, "no language version specified", 0},
      {" #version 2.0\n", DIALECT_V1, 0, 1, "no language version specified", 0},
      {"// comment\n", DIALECT_V1, 0, 1, "no language version specified", 0},
      {" ", DIALECT_V1, 0, 1, "no language version specified", 0},
      {"", 0, 1, 0, "error: empty source file", 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    Dialect dl = detect(cases[i].src, strlen(cases[i].src), &errs, &warns, &vs, msgs, sizeof msgs);
    CHECK_MSG((int)dl == cases[i].dialect, "\"%s\": dialect %d", cases[i].src, (int)dl);
    CHECK_MSG(errs == cases[i].errors && warns == cases[i].warnings, "\"%s\": %d errors %d warnings",
              cases[i].src, errs, warns);
    if (cases[i].message) CHECK_MSG(strstr(msgs, cases[i].message), "\"%s\": %s", cases[i].src, msgs);
    if (cases[i].span_end)
      CHECK_MSG(span_is(vs, 1, 1, 1, cases[i].span_end), "\"%s\": span ends at %d", cases[i].src,
                vs.end.col);
    else
      CHECK(vs.begin.line == 0);
  }
  /* The directive as the first token. */
  Lex L;
  const char *src = "#version 2.0\nstrand S () {}";
  lex_open(&L, src, strlen(src), DIALECT_V2);
  Token t = lex_next(&L);
  CHECK(t.kind == TOK_VERSION && span_is(t.span, 1, 1, 1, 13));
  t = lex_next(&L);
  CHECK(t.kind == TOK_STRAND && span_is(t.span, 2, 1, 2, 7));
  lex_close(&L, NULL, 0);
  SEQ(DIALECT_V1, "#version 1.0\r\nx", 0, TOK_VERSION, TOK_ID);
  SEQ(DIALECT_V2, "#version 2", 0, TOK_VERSION);
  /* Anywhere else it is an error, and scanning goes on after it. */
  lex_open(&L, "x\n#version 2.0\ny", 16, DIALECT_V2);
  CHECK(lex_next(&L).kind == TOK_ID);
  t = lex_next(&L);
  CHECK(t.kind == TOK_ID && span_is(t.span, 3, 1, 3, 2));
  CHECK(lex_next(&L).kind == TOK_EOF);
  CHECK(lex_close(&L, msgs, sizeof msgs) == 1);
  CHECK_MSG(strstr(msgs, "t.diderot:2:1: error: '#version' must be on the first line"), "%s", msgs);
  BOTH(" #version 2.0", 1, TOK_EOF);
  BOTH("x #version", 1, TOK_ID);
  /* '#' alone, and words that only start with "version". */
  BOTH("#", 0, TOK_HASH);
  BOTH("a #versions", 0, TOK_ID, TOK_HASH, TOK_ID);
  BOTH("tent#1", 0, TOK_ID, TOK_HASH, TOK_INT);
  BOTH("# version", 0, TOK_HASH, TOK_ID);
}

/* ---- spellings, coverage, volume ---------------------------------------- */

static void test_spellings(void) {
  CHECK_STR(token_kind_spelling(TOK_EOF), "end of file");
  CHECK_STR(token_kind_spelling(TOK_ID), "identifier");
  CHECK_STR(token_kind_spelling(TOK_PLUS), "'+'");
  CHECK_STR(token_kind_spelling(TOK_DOTDOT), "'..'");
  CHECK_STR(token_kind_spelling(TOK_STRAND), "'strand'");
  CHECK_STR(token_kind_spelling(TOK_NABLA_OUTER), "'\xe2\x88\x87\xe2\x8a\x97'");
  for (int k = 0; k < TOK_COUNT; k++) {
    const char *s = token_kind_spelling((TokenKind)k);
    CHECK(s != NULL && s[0] != 0);
  }
  CHECK(token_kind_spelling(TOK_COUNT) != NULL);
}

/* A realistic 1.0 program repeated: no errors, and the expected count. */
static void test_volume(void) {
  static const char unit_src[] =
      "strand S (int i) {\n"
      "  output real y = 0.0;\n"
      "  vec3 p = [0.5, 1.0e-2, \xcf\x80];\n"
      "  update { /* step */ y += |\xe2\x88\x87" "F(p)|\xe2\x80\xa2[1.0,0.0,0.0]; // c\n"
      "    if (y > 10.0) stabilize; }\n"
      "}\n";
  /* Tokens per copy, counted by hand:
   * strand S ( int i ) {                        7
   * output real y = 0.0 ;                       6
   * vec3 p = [ 0.5 , 1.0e-2 , π ] ;             11
   * update { y += | ∇ F ( p ) | • [ 1.0 , 0.0 , 0.0 ] ;   20
   * if ( y > 10.0 ) stabilize ; }               9
   * }                                           1   -> 54 */
  enum { COPIES = 2000 };
  size_t ulen = strlen(unit_src);
  char *big = malloc(ulen * COPIES + 1);
  for (int i = 0; i < COPIES; i++) memcpy(big + ulen * (size_t)i, unit_src, ulen);
  big[ulen * COPIES] = 0;
  Lex L;
  lex_open(&L, big, ulen * COPIES, DIALECT_V1);
  long n = 0;
  Token t;
  while ((t = lex_next(&L)).kind != TOK_EOF) n++;
  CHECK_MSG(n == 54L * COPIES, "%ld tokens", n);
  CHECK(t.span.begin.line == 6 * COPIES + 1);
  CHECK(lex_close(&L, NULL, 0) == 0);
  free(big);
}

int main(void) {
  test_keywords();
  test_operators();
  test_identifiers();
  test_numbers();
  test_strings();
  test_comments();
  test_positions();
  test_bad_input();
  test_version();
  test_spellings();
  test_volume();
  for (int k = 0; k < TOK_COUNT; k++)
    CHECK_MSG(seen[k] > 0, "token kind %s never produced", token_kind_spelling((TokenKind)k));
  return unit_finish("lexer");
}
