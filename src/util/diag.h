/* diag.h -- compiler diagnostics.
 *
 * Every message has an id from diagnostics.def (one catalogue, so tests and
 * code agree on wording), a severity and a span. Messages are collected and
 * printed sorted by position by diag_flush():
 *
 *     file:line:col: error: message
 *       line text
 *       ^~~~
 */
#ifndef DIDEROT_UTIL_DIAG_H
#define DIDEROT_UTIL_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "util/source.h"

typedef enum DiagSeverity { DIAG_NOTE, DIAG_WARNING, DIAG_ERROR } DiagSeverity;

typedef enum DiagId {
#define DIAG(id, sev, fmt) id,
#include "util/diagnostics.def"
#undef DIAG
  DIAG_COUNT
} DiagId;

typedef struct DiagCtx DiagCtx;

DiagCtx *diag_new(Arena *a, const Source *src);
/* Where flushed messages go (default stderr). */
void diag_set_stream(DiagCtx *d, FILE *out);
/* Colour the severity, file position and caret with ANSI escapes (as
 * clang does on a terminal); off by default. */
void diag_set_color(DiagCtx *d, bool on);
/* -Werror style promotion and suppression of warnings (-w). */
void diag_set_warnings(DiagCtx *d, bool enabled, bool as_errors);
/* Report message `id` at span `at`; the arguments follow the catalogue format. */
void diag_report(DiagCtx *d, DiagId id, Span at, ...);
void diag_vreport(DiagCtx *d, DiagId id, Span at, va_list ap);
/* Add "; did you mean 'candidate'?" to the message just reported (nothing
 * when candidate is NULL or that message was suppressed). */
void diag_suggest(DiagCtx *d, const char *candidate);
/* Print collected messages sorted by position; returns the number printed. */
int diag_flush(DiagCtx *d);
/* Drops the pending messages without printing them (a caller that only
 * wants to know whether a source is valid). */
void diag_discard(DiagCtx *d);
int diag_error_count(const DiagCtx *d);
int diag_warning_count(const DiagCtx *d);
/* Too many errors: callers may stop early (the limit is reported once). */
bool diag_too_many(const DiagCtx *d);
const char *diag_format(DiagId id);
DiagSeverity diag_severity(DiagId id);
const Source *diag_source(const DiagCtx *d);

#endif
