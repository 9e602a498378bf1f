/* token.c -- names of token kinds for syntax errors (tokens.def). */
#include "frontend/token.h"

static const char *const token_spellings[TOK_COUNT] = {
#define TOK(name, spelling) [TOK_##name] = spelling,
#include "frontend/tokens.def"
#undef TOK
};

const char *token_kind_spelling(TokenKind k) {
  if ((unsigned)k >= TOK_COUNT) return "unknown token";
  return token_spellings[k];
}
