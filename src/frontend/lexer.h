/* lexer.h -- the re2c scanner for both dialects (doc/language.md §2). */
#ifndef DIDEROT_FRONTEND_LEXER_H
#define DIDEROT_FRONTEND_LEXER_H

#include "frontend/token.h"
#include "util/diag.h"

typedef struct Lexer Lexer;

/* Decide the dialect from the first line (§1.1): "#version 2.0" selects
 * 2.0, "#version 1.0" 1.0, no version line warns and selects 1.0. Bad or
 * unsupported versions and an empty file are reported to `d`; returns 0
 * then. `*version_span` receives the span of the directive (zero if none). */
Dialect lexer_detect_dialect(const Source *src, DiagCtx *d, Span *version_span);

/* A scanner over `src` in `dialect`. Token text is copied into `a`.
 * Lexical errors are reported to `d`; the scanner then skips the bad
 * characters and continues, so one run can report several errors. */
Lexer *lexer_new(Arena *a, DiagCtx *d, const Source *src, Dialect dialect);
/* The next token; TOK_EOF (repeatedly) at the end. The version line is
 * returned as TOK_VERSION when present. */
Token lexer_next(Lexer *lx);

#endif
