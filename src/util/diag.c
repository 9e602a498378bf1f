/* diag.c -- collecting, sorting and printing diagnostics with carets. */
#include "util/diag.h"

#include <stdlib.h>
#include <string.h>

enum { DIAG_MAX_ERRORS = 50 };

typedef struct Message {
  DiagSeverity sev;
  Span at;
  char *text;
  int seq; /* report order, to keep the sort stable */
} Message;

struct DiagCtx {
  Arena *arena;
  const Source *src;
  FILE *out;
  Message *msgs;
  int nmsgs, cap, seq;
  int errors, warnings;
  bool warn_enabled, warn_as_errors, stopped;
};

static const struct {
  DiagSeverity sev;
  const char *fmt;
} diag_table[DIAG_COUNT] = {
#define DIAG(id, sev, fmt) [id] = {sev, fmt},
#include "util/diagnostics.def"
#undef DIAG
};

const char *diag_format(DiagId id) { return diag_table[id].fmt; }
DiagSeverity diag_severity(DiagId id) { return diag_table[id].sev; }
const Source *diag_source(const DiagCtx *d) { return d->src; }

DiagCtx *diag_new(Arena *a, const Source *src) {
  DiagCtx *d = ARENA_NEW(a, DiagCtx);
  d->arena = a;
  d->src = src;
  d->out = stderr;
  d->warn_enabled = true;
  return d;
}

void diag_set_stream(DiagCtx *d, FILE *out) { d->out = out; }

void diag_set_warnings(DiagCtx *d, bool enabled, bool as_errors) {
  d->warn_enabled = enabled;
  d->warn_as_errors = as_errors;
}

int diag_error_count(const DiagCtx *d) { return d->errors; }
int diag_warning_count(const DiagCtx *d) { return d->warnings; }
bool diag_too_many(const DiagCtx *d) { return d->stopped; }

static void diag_push(DiagCtx *d, DiagSeverity sev, Span at, char *text) {
  if (d->nmsgs == d->cap) {
    d->cap = d->cap ? 2 * d->cap : 16;
    Message *m = realloc(d->msgs, sizeof *m * (size_t)d->cap);
    if (!m) {
      fprintf(stderr, "diderotc: out of memory\n");
      exit(70);
    }
    d->msgs = m;
  }
  d->msgs[d->nmsgs++] = (Message){sev, at, text, d->seq++};
}

void diag_vreport(DiagCtx *d, DiagId id, Span at, va_list ap) {
  DiagSeverity sev = diag_table[id].sev;
  if (sev == DIAG_WARNING) {
    if (!d->warn_enabled) return;
    if (d->warn_as_errors) sev = DIAG_ERROR;
  }
  if (d->stopped) return;
  if (sev == DIAG_ERROR && d->errors >= DIAG_MAX_ERRORS) {
    d->stopped = true;
    diag_push(d, DIAG_ERROR, at, arena_strdup(d->arena, diag_table[ERR_TOO_MANY_ERRORS].fmt));
    return;
  }
  va_list cp;
  va_copy(cp, ap);
  int n = vsnprintf(NULL, 0, diag_table[id].fmt, cp);
  va_end(cp);
  char *text = arena_alloc(d->arena, (size_t)(n < 0 ? 0 : n) + 1);
  vsnprintf(text, (size_t)(n < 0 ? 0 : n) + 1, diag_table[id].fmt, ap);
  if (sev == DIAG_ERROR) d->errors++;
  if (sev == DIAG_WARNING) d->warnings++;
  diag_push(d, sev, at, text);
}

void diag_report(DiagCtx *d, DiagId id, Span at, ...) {
  va_list ap;
  va_start(ap, at);
  diag_vreport(d, id, at, ap);
  va_end(ap);
}

static int diag_cmp(const void *x, const void *y) {
  const Message *a = x, *b = y;
  if (a->at.begin.line != b->at.begin.line) return a->at.begin.line - b->at.begin.line;
  if (a->at.begin.col != b->at.begin.col) return a->at.begin.col - b->at.begin.col;
  return a->seq - b->seq;
}

/* Width in columns of the first `chars` characters of a UTF-8 line, and
 * the byte length of that prefix (tabs are copied so carets stay aligned). */
static void diag_caret_line(FILE *out, const char *line, size_t len, int col, int endcol) {
  fputs("  ", out);
  int c = 1;
  for (size_t i = 0; i < len && c < col; i++) {
    unsigned char ch = (unsigned char)line[i];
    if ((ch & 0xC0) == 0x80) continue; /* continuation byte: same character */
    fputc(ch == '\t' ? '\t' : ' ', out);
    c++;
  }
  fputc('^', out);
  for (c = col + 1; c < endcol; c++) fputc('~', out);
  fputc('\n', out);
}

static const char *diag_sev_name(DiagSeverity s) {
  return s == DIAG_ERROR ? "error" : s == DIAG_WARNING ? "warning" : "note";
}

int diag_flush(DiagCtx *d) {
  int n = d->nmsgs;
  if (n > 1) qsort(d->msgs, (size_t)n, sizeof *d->msgs, diag_cmp);
  const char *name = d->src ? d->src->name : "diderotc";
  for (int i = 0; i < n; i++) {
    Message *m = &d->msgs[i];
    SrcPos b = m->at.begin;
    if (b.line > 0)
      fprintf(d->out, "%s:%d:%d: %s: %s\n", name, b.line, b.col, diag_sev_name(m->sev), m->text);
    else
      fprintf(d->out, "%s: %s: %s\n", name, diag_sev_name(m->sev), m->text);
    if (b.line > 0 && d->src && b.line <= d->src->nlines) {
      size_t len;
      const char *line = source_line(d->src, b.line, &len);
      fprintf(d->out, "  %.*s\n", (int)len, line);
      int endcol = m->at.end.line == b.line ? m->at.end.col : b.col + 1;
      diag_caret_line(d->out, line, len, b.col, endcol);
    }
  }
  fflush(d->out);
  free(d->msgs);
  d->msgs = NULL;
  d->nmsgs = d->cap = 0;
  return n;
}
