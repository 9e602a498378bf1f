/* parser.h -- lemon parsers for Diderot 1.0 and 2.0, building one AST. */
#ifndef DIDEROT_FRONTEND_PARSER_H
#define DIDEROT_FRONTEND_PARSER_H

#include "frontend/ast.h"
#include "util/diag.h"

/* Lex and parse `src`, choosing the grammar from the version line.
 * Returns NULL when there were syntax errors (all reported to `d`). */
Program *parse_program(Arena *a, DiagCtx *d, const Source *src);

#endif
