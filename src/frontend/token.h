/* token.h -- tokens produced by the lexer (see tokens.def). */
#ifndef DIDEROT_FRONTEND_TOKEN_H
#define DIDEROT_FRONTEND_TOKEN_H

#include <stdbool.h>
#include <stddef.h>

#include "util/source.h"

typedef enum Dialect { DIALECT_V1 = 1, DIALECT_V2 = 2 } Dialect;
#define DIALECT_BIT_V1 1
#define DIALECT_BIT_V2 2

typedef enum TokenKind {
#define TOK(name, spelling) TOK_##name,
#include "frontend/tokens.def"
#undef TOK
  TOK_COUNT
} TokenKind;

typedef struct Token {
  TokenKind kind;
  Span span;
  /* ID, INT: the source text; STRING: decoded bytes (may contain NUL,
   * see len); REAL: the source spelling ("π", "inf", "1.5e3"). */
  const char *text;
  size_t len;
  double real; /* REAL: the value */
  bool utf8;   /* STRING: has characters beyond ASCII (an extension) */
} Token;

/* "identifier", "'+'", ... as used in syntax errors. */
const char *token_kind_spelling(TokenKind k);

#endif
