/* lexer.re -- the re2c scanner for both Diderot dialects (doc/language.md §2).
 *
 * re2c generates the token automaton; comments, strings, positions and
 * error recovery are plain C. The buffer is NUL-terminated and re2c runs
 * in "sentinel with bounds check" mode (re2c:eof), so an embedded NUL byte
 * is an ordinary (bad) character and the scan never reads past `lim`.
 *
 * Positions are computed lazily: `mark` is the last byte whose line/column
 * is known, and lx_pos() walks forward from it, so counting code points
 * costs one pass over the text in total whatever the token lengths.
 */
#include "frontend/lexer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct Lexer {
  Arena *arena;
  DiagCtx *diag;
  const Source *src;
  Dialect dialect;
  const unsigned char *base, *cur, *lim;
  const unsigned char *mark; /* bytes before mark are counted in line/col */
  int line, col;
};

/* ---- keywords --------------------------------------------------------- */

typedef struct LexKeyword {
  const char *word;
  unsigned char len, dialects;
  TokenKind kind;
} LexKeyword;

/* Binary-searched, so tokens.def must list KEYWORDs in strcmp order
 * (test_lexer checks this). */
static const LexKeyword lex_keywords[] = {
#define TOK(name, spelling)
#define KEYWORD(name, word, dialects) {word, sizeof(word) - 1, dialects, TOK_##name},
#include "frontend/tokens.def"
#undef TOK
};
enum { LEX_NKEYWORDS = sizeof lex_keywords / sizeof lex_keywords[0] };

/* The keyword token for s[0..n) when it is reserved in `dialect`, else TOK_ID. */
static TokenKind lex_keyword(const unsigned char *s, size_t n, Dialect dialect,
                             const char **word) {
  size_t lo = 0, hi = LEX_NKEYWORDS;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    const LexKeyword *k = &lex_keywords[mid];
    size_t m = n < k->len ? n : k->len;
    int c = memcmp(s, k->word, m);
    if (c == 0) c = n < k->len ? -1 : n > k->len ? 1 : 0;
    if (c == 0) {
      if (!(k->dialects & (dialect == DIALECT_V2 ? DIALECT_BIT_V2 : DIALECT_BIT_V1)))
        return TOK_ID;
      *word = k->word;
      return k->kind;
    }
    if (c < 0)
      hi = mid;
    else
      lo = mid + 1;
  }
  return TOK_ID;
}

/* ---- positions and UTF-8 ---------------------------------------------- */

/* Position of p; calls must not go backwards (p >= mark). A character is
 * one column, and so is each byte of invalid UTF-8 (source_char_len). */
static SrcPos lx_pos(Lexer *lx, const unsigned char *p) {
  const unsigned char *q = lx->mark;
  int line = lx->line, col = lx->col;
  while (q < p) {
    if (*q == '\n') {
      line++;
      col = 1;
      q++;
    } else {
      col++;
      q += *q < 0x80 ? 1 : source_char_len((const char *)q, (const char *)lx->lim);
    }
  }
  lx->mark = p;
  lx->line = line;
  lx->col = col;
  return (SrcPos){line, col};
}

static Span lx_span(Lexer *lx, const unsigned char *b, const unsigned char *e) {
  Span s;
  s.begin = lx_pos(lx, b);
  s.end = lx_pos(lx, e);
  return s;
}

static int lx_utf8(const unsigned char *p, const unsigned char *lim, unsigned *cp) {
  return source_utf8(p, lim, cp);
}

/* Characters that would be invisible or garble the terminal if printed
 * inside a message; they are reported by code point instead. */
static int lx_unprintable(unsigned cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0xA0) || cp == 0xAD ||
         (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
         (cp >= 0x2060 && cp <= 0x2064) || cp == 0xFEFF;
}

/* A character no rule accepts, at lx->cur: report it and skip it (one
 * byte when the UTF-8 is invalid, so decoding resynchronises). */
static void lx_stray(Lexer *lx) {
  const unsigned char *p = lx->cur;
  unsigned cp;
  int n = lx_utf8(p, lx->lim, &cp);
  if (n == 0) {
    diag_report(lx->diag, ERR_INVALID_UTF8, lx_span(lx, p, p + 1), (unsigned)p[0]);
    lx->cur = p + 1;
    return;
  }
  Span at = lx_span(lx, p, p + n);
  if (lx_unprintable(cp))
    diag_report(lx->diag, ERR_BAD_CHAR_CODE, at, cp);
  else
    diag_report(lx->diag, ERR_BAD_CHAR, at, arena_strndup(lx->arena, (const char *)p, (size_t)n));
  lx->cur = p + n;
}

/* ---- comments and strings --------------------------------------------- */

/* Skip the body of a block comment that starts at `open` (the cursor
 * is just past it). Any bytes are allowed inside; the first star-slash ends it. */
static void lx_block_comment(Lexer *lx, const unsigned char *open) {
  const unsigned char *p = lx->cur, *lim = lx->lim;
  for (;;) {
    const unsigned char *star = memchr(p, '*', (size_t)(lim - p));
    if (!star || star + 1 >= lim) {
      diag_report(lx->diag, ERR_UNTERMINATED_COMMENT, lx_span(lx, open, open + 2));
      lx->cur = lim;
      return;
    }
    if (star[1] == '/') {
      lx->cur = star + 2;
      return;
    }
    p = star + 1;
  }
}

/* Text of a bad character for a message: printable characters as they
 * are, ASCII control bytes as \xNN. */
static const char *lx_char_text(Lexer *lx, const unsigned char *p, int n) {
  if (n == 1 && (p[0] < 0x20 || p[0] == 0x7F)) return arena_printf(lx->arena, "\\x%02x", p[0]);
  return arena_strndup(lx->arena, (const char *)p, (size_t)n);
}

/* A string literal whose opening quote is at `open` (cursor just past it).
 * Decodes escapes into an arena buffer; on errors it reports and goes on,
 * so the token is still returned and parsing can continue. */
static Token lx_string(Lexer *lx, const unsigned char *open) {
  const unsigned char *p = lx->cur, *lim = lx->lim, *end = p;
  Token t = {TOK_STRING, {{0, 0}, {0, 0}}, NULL, 0, 0.0, false};
  t.span.begin = lx_pos(lx, open);
  /* Pass 1: find the closing quote (or the newline / end of input), so the
   * decoded text, never longer than the source, gets one exact buffer. */
  while (end < lim && *end != '"' && *end != '\n') {
    if (*end == '\\' && end + 1 < lim && end[1] != '\n')
      end += 2;
    else
      end++;
  }
  char *buf = arena_alloc(lx->arena, (size_t)(end - p) + 1);
  size_t n = 0;
  while (p < end) {
    unsigned char c = *p;
    if (c >= 32 && c <= 126 && c != '\\') {
      buf[n++] = (char)c;
      p++;
      continue;
    }
    if (c == '\\') {
      if (p + 1 >= end) { /* backslash before newline / end: unterminated */
        p++;
        break;
      }
      static const char simple_from[] = "abfnrtv\\\"";
      static const char simple_to[] = "\a\b\f\n\r\t\v\\\"";
      const char *s = strchr(simple_from, p[1]);
      if (p[1] != 0 && s) {
        buf[n++] = simple_to[s - simple_from];
        p += 2;
        continue;
      }
      if (p[1] >= '0' && p[1] <= '9') { /* \ddd: exactly three decimal digits */
        int k = 0, v = 0;
        while (k < 3 && p + 1 + k < end && p[1 + k] >= '0' && p[1 + k] <= '9')
          v = v * 10 + (p[1 + k++] - '0');
        if (k == 3 && v <= 255) {
          buf[n++] = (char)v;
        } else {
          diag_report(lx->diag, ERR_STRING_BAD_ESCAPE, lx_span(lx, p, p + 1 + k),
                      arena_strndup(lx->arena, (const char *)p, (size_t)(1 + k)));
        }
        p += 1 + k;
        continue;
      }
      unsigned cp;
      int len = lx_utf8(p + 1, end, &cp);
      if (len == 0) len = 1;
      const char *txt = lx_char_text(lx, p + 1, len);
      diag_report(lx->diag, ERR_STRING_BAD_ESCAPE, lx_span(lx, p, p + 1 + len),
                  arena_printf(lx->arena, "\\%s", txt));
      p += 1 + len;
      continue;
    }
    unsigned cp;
    int len = lx_utf8(p, end, &cp);
    if (len == 0) {
      diag_report(lx->diag, ERR_INVALID_UTF8, lx_span(lx, p, p + 1), (unsigned)c);
      p++;
    } else if (cp >= 0x80 && !lx_unprintable(cp) && !(cp >= 0x2066 && cp <= 0x2069)) {
      /* a character beyond ASCII, kept as its UTF-8 bytes (an extension,
       * doc/language.md §2; the typechecker reports it under --strict) */
      memcpy(buf + n, p, (size_t)len);
      n += (size_t)len;
      p += len;
      t.utf8 = true;
    } else if (cp >= 0x80) {
      /* invisible, a control or a bidirectional override: what the
       * source shows would not be what the string holds */
      diag_report(lx->diag, ERR_STRING_BAD_CHAR_CODE, lx_span(lx, p, p + len), cp);
      p += len;
    } else {
      diag_report(lx->diag, ERR_STRING_BAD_CHAR, lx_span(lx, p, p + len),
                  lx_char_text(lx, p, len));
      p += len;
    }
  }
  buf[n] = '\0';
  t.text = buf;
  t.len = n;
  if (end < lim && *end == '"') {
    lx->cur = end + 1;
  } else {
    /* Stop before the newline so the next token's line stays right. */
    Span at = {t.span.begin, lx_pos(lx, end)}; /* positions only move forward */
    diag_report(lx->diag, ERR_UNTERMINATED_STRING, at);
    lx->cur = end;
  }
  t.span.end = lx_pos(lx, lx->cur);
  return t;
}

/* ---- the version directive -------------------------------------------- */

static int lx_is_hspace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

static int lx_is_ascii_idchar(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '\'';
}

static const char lx_version_word[] = "#version";
enum { LX_VERSION_LEN = sizeof lx_version_word - 1 };

static int lx_starts_version(const unsigned char *p, const unsigned char *lim) {
  return lim - p >= LX_VERSION_LEN && memcmp(p, lx_version_word, LX_VERSION_LEN) == 0;
}

/* Bytes of the first line without its newline and trailing whitespace. */
static const unsigned char *lx_first_line_end(const unsigned char *p, const unsigned char *lim) {
  const unsigned char *e = memchr(p, '\n', (size_t)(lim - p));
  if (!e) e = lim;
  while (e > p && lx_is_hspace(e[-1])) e--;
  return e;
}

/* Characters (code points) in [p, e), for spans computed without a Lexer. */
static int lx_count_chars(const unsigned char *p, const unsigned char *e) {
  int n = 0;
  for (; p < e; p += source_char_len((const char *)p, (const char *)e)) n++;
  return n;
}

Dialect lexer_detect_dialect(const Source *src, DiagCtx *d, Span *version_span) {
  Span none = {{0, 0}, {0, 0}};
  if (version_span) *version_span = none;
  if (src->len == 0) {
    diag_report(d, ERR_EMPTY_SOURCE, none);
    return 0;
  }
  const unsigned char *p = (const unsigned char *)src->text, *lim = p + src->len;
  if (!lx_starts_version(p, lim)) {
    Span at = {{1, 1}, {1, 1}};
    diag_report(d, WARN_NO_VERSION, at);
    return DIALECT_V1;
  }
  const unsigned char *e = lx_first_line_end(p, lim);
  Span at = {{1, 1}, {1, 1 + lx_count_chars(p, e)}};
  if (version_span) *version_span = at;
  /* "#version", whitespace, then M or M.N in decimal. */
  const unsigned char *q = p + LX_VERSION_LEN, *num;
  if (q >= e || !lx_is_hspace(*q)) goto bad;
  while (q < e && lx_is_hspace(*q)) q++;
  num = q;
  long major = 0, minor = 0;
  if (q >= e || !(*q >= '0' && *q <= '9')) goto bad;
  for (; q < e && *q >= '0' && *q <= '9'; q++)
    if (major < 1000000) major = major * 10 + (*q - '0'); /* saturate: only 1, 2 matter */
  if (q < e && *q == '.') {
    q++;
    if (q >= e || !(*q >= '0' && *q <= '9')) goto bad;
    for (; q < e && *q >= '0' && *q <= '9'; q++)
      if (minor < 1000000) minor = minor * 10 + (*q - '0');
  }
  if (q != e) goto bad;
  if (minor == 0 && major == 1) return DIALECT_V1;
  if (minor == 0 && major == 2) return DIALECT_V2;
  {
    /* The number as written (bounded: it is only echoed in the message). */
    char txt[40];
    size_t n = (size_t)(e - num);
    if (n >= sizeof txt) n = sizeof txt - 1;
    memcpy(txt, num, n);
    txt[n] = '\0';
    diag_report(d, ERR_UNSUPPORTED_VERSION, at, txt);
    return 0;
  }
bad:
  diag_report(d, ERR_BAD_VERSION, at);
  return 0;
}

/* ---- the scanner ------------------------------------------------------ */

Lexer *lexer_new(Arena *a, DiagCtx *d, const Source *src, Dialect dialect) {
  Lexer *lx = ARENA_NEW(a, Lexer);
  lx->arena = a;
  lx->diag = d;
  lx->src = src;
  lx->dialect = dialect == DIALECT_V2 ? DIALECT_V2 : DIALECT_V1;
  lx->base = lx->cur = lx->mark = (const unsigned char *)src->text;
  lx->lim = lx->base + src->len;
  lx->line = lx->col = 1;
  return lx;
}

static Token lx_token(Lexer *lx, TokenKind k, const unsigned char *b) {
  Token t = {k, lx_span(lx, b, lx->cur), NULL, 0, 0.0, false};
  return t;
}

static Token lx_text_token(Lexer *lx, TokenKind k, const unsigned char *b) {
  Token t = lx_token(lx, k, b);
  t.len = (size_t)(lx->cur - b);
  t.text = arena_strndup(lx->arena, (const char *)b, t.len);
  return t;
}

static Token lx_real_const(Lexer *lx, const unsigned char *b, const char *spelling, double v) {
  Token t = lx_token(lx, TOK_REAL, b);
  t.text = spelling;
  t.len = strlen(spelling);
  t.real = v;
  return t;
}

/*!re2c
  re2c:define:YYCTYPE = "unsigned char";
  re2c:define:YYCURSOR = "lx->cur";
  re2c:define:YYLIMIT = "lx->lim";
  re2c:define:YYMARKER = "mar";
  re2c:yyfill:enable = 0;
  re2c:eof = 0;

  letter = [a-zA-Z] | [αβγζηθλμξπρστφψω];
  idchar = letter | [0-9_'];
  digits = [0-9]+;
  hspace = [ \t\v\f\r];
*/

Token lexer_next(Lexer *lx) {
  const unsigned char *mar = lx->cur;
  /* The directive is a token only at the very start (§1.1); the whole
   * line is taken: lexer_detect_dialect() has already judged its form. */
  if (lx->cur == lx->base && lx_starts_version(lx->cur, lx->lim)) {
    const unsigned char *b = lx->cur;
    lx->cur = lx_first_line_end(b, lx->lim);
    return lx_text_token(lx, TOK_VERSION, b);
  }
  for (;;) {
    const unsigned char *tok = lx->cur;
    /*!re2c
      $ { return lx_token(lx, TOK_EOF, tok); }
      [ \t\n\v\f\r]+ { continue; }
      "//" {
        const unsigned char *nl = memchr(lx->cur, '\n', (size_t)(lx->lim - lx->cur));
        lx->cur = nl ? nl : lx->lim;
        continue;
      }
      "/*" { lx_block_comment(lx, tok); continue; }
      ["] { return lx_string(lx, tok); }

      "#version" (hspace+ digits ("." digits)?)? {
        /* "#versions" and the like are '#' then an identifier. */
        if (lx->cur - tok == LX_VERSION_LEN && lx->cur < lx->lim && lx_is_ascii_idchar(*lx->cur)) {
          lx->cur = tok + 1;
          return lx_token(lx, TOK_HASH, tok);
        }
        diag_report(lx->diag, ERR_VERSION_NOT_FIRST, lx_span(lx, tok, lx->cur));
        continue;
      }

      digits {
        /* "2." is not a literal (§1.5). Say so, instead of the puzzling
         * syntax error an INT followed by '.' would give, and go on with
         * the real the user meant. "1..5" is a range, "2.5" a real. */
        const unsigned char *c = lx->cur;
        if (c < lx->lim && *c == '.' && (c + 1 >= lx->lim || (c[1] != '.' && !(c[1] >= '0' && c[1] <= '9')))) {
          lx->cur++;
          diag_report(lx->diag, ERR_REAL_NEEDS_DIGITS, lx_span(lx, tok, lx->cur));
          Token t = lx_text_token(lx, TOK_REAL, tok);
          t.real = strtod(t.text, NULL);
          return t;
        }
        return lx_text_token(lx, TOK_INT, tok);
      }
      digits "." digits ([eE] [+-]? digits)? {
        Token t = lx_text_token(lx, TOK_REAL, tok);
        t.real = strtod(t.text, NULL);
        return t;
      }
      "π" { return lx_real_const(lx, tok, "π", 3.14159265358979323846); }
      "∞" { return lx_real_const(lx, tok, "∞", HUGE_VAL); }
      "inf" { return lx_real_const(lx, tok, "inf", HUGE_VAL); }
      letter idchar* {
        const char *word = NULL;
        TokenKind k = lex_keyword(tok, (size_t)(lx->cur - tok), lx->dialect, &word);
        if (k == TOK_ID) return lx_text_token(lx, TOK_ID, tok);
        Token t = lx_token(lx, k, tok);
        t.text = word;
        t.len = (size_t)(lx->cur - tok);
        return t;
      }

      "||" { return lx_token(lx, TOK_OROR, tok); }
      "&&" { return lx_token(lx, TOK_ANDAND, tok); }
      "<"  { return lx_token(lx, TOK_LT, tok); }
      "<=" { return lx_token(lx, TOK_LE, tok); }
      "==" { return lx_token(lx, TOK_EQEQ, tok); }
      "!=" { return lx_token(lx, TOK_NEQ, tok); }
      ">=" { return lx_token(lx, TOK_GE, tok); }
      ">"  { return lx_token(lx, TOK_GT, tok); }
      "+"  { return lx_token(lx, TOK_PLUS, tok); }
      "-"  { return lx_token(lx, TOK_MINUS, tok); }
      "*"  { return lx_token(lx, TOK_STAR, tok); }
      "/"  { return lx_token(lx, TOK_SLASH, tok); }
      "%"  { return lx_token(lx, TOK_PERCENT, tok); }
      "^"  { return lx_token(lx, TOK_CARET, tok); }
      "@"  { return lx_token(lx, TOK_AT, tok); }
      "("  { return lx_token(lx, TOK_LPAREN, tok); }
      ")"  { return lx_token(lx, TOK_RPAREN, tok); }
      "["  { return lx_token(lx, TOK_LBRACKET, tok); }
      "]"  { return lx_token(lx, TOK_RBRACKET, tok); }
      "{"  { return lx_token(lx, TOK_LBRACE, tok); }
      "}"  { return lx_token(lx, TOK_RBRACE, tok); }
      ","  { return lx_token(lx, TOK_COMMA, tok); }
      ";"  { return lx_token(lx, TOK_SEMI, tok); }
      ":"  { return lx_token(lx, TOK_COLON, tok); }
      "#"  { return lx_token(lx, TOK_HASH, tok); }
      "!"  { return lx_token(lx, TOK_BANG, tok); }
      "="  { return lx_token(lx, TOK_EQ, tok); }
      "+=" { return lx_token(lx, TOK_PLUSEQ, tok); }
      "-=" { return lx_token(lx, TOK_MINUSEQ, tok); }
      "*=" { return lx_token(lx, TOK_STAREQ, tok); }
      "/=" { return lx_token(lx, TOK_SLASHEQ, tok); }
      "%=" { return lx_token(lx, TOK_PERCENTEQ, tok); }
      "|"  { return lx_token(lx, TOK_BAR, tok); }
      "."  { return lx_token(lx, TOK_DOT, tok); }
      ".." { return lx_token(lx, TOK_DOTDOT, tok); }

      "⊛" { return lx_token(lx, TOK_CONVOLVE, tok); }
      "•" | "⋅" { return lx_token(lx, TOK_DOT_PROD, tok); }
      "×" { return lx_token(lx, TOK_CROSS, tok); }
      "⊗" { return lx_token(lx, TOK_OUTER, tok); }
      "∘" { return lx_token(lx, TOK_COMPOSE, tok); }
      "∇" { return lx_token(lx, TOK_NABLA, tok); }
      "∇⊗" { return lx_token(lx, TOK_NABLA_OUTER, tok); }
      "∇•" | "∇⋅" { return lx_token(lx, TOK_NABLA_DOT, tok); }
      "∇×" { return lx_token(lx, TOK_NABLA_CROSS, tok); }

      * {
        lx->cur = tok;
        lx_stray(lx);
        continue;
      }
    */
  }
}
