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
  bool last_kept; /* the latest diag_report made a message (diag_suggest) */
  bool color;
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

void diag_set_color(DiagCtx *d, bool on) { d->color = on; }

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
  d->last_kept = false;
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
  d->last_kept = true;
}

void diag_suggest(DiagCtx *d, const char *candidate) {
  if (!candidate || !d->last_kept || d->nmsgs == 0) return;
  Message *m = &d->msgs[d->nmsgs - 1];
  m->text = arena_printf(d->arena, "%s; did you mean '%s'?", m->text, candidate);
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

/* Output is assembled in memory and written with one fwrite: stderr is
 * unbuffered, and the caret line would otherwise cost a system call per
 * column. */
typedef struct DiagBuf {
  char *p;
  size_t n, cap;
} DiagBuf;

static void diag_put(DiagBuf *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + n + 1) cap *= 2;
    char *q = realloc(b->p, cap);
    if (!q) {
      fprintf(stderr, "diderotc: out of memory\n");
      exit(70);
    }
    b->p = q;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
}

static void diag_puts(DiagBuf *b, const char *s) { diag_put(b, s, strlen(s)); }

static void diag_putc(DiagBuf *b, char c) { diag_put(b, &c, 1); }

/* Source lines longer than this many characters are echoed as a window
 * around the caret, cut with "...": one huge line (generated code, a
 * hostile input) must not turn every message on it into megabytes. */
enum { DIAG_ECHO_MAX = 200, DIAG_ECHO_BEFORE = 60 };

/* Where character `ch` (1-based) of line `line` begins. Messages are
 * printed in position order, so seeks on one line only move forward and
 * many messages on one long line cost one pass over it. */
typedef struct DiagCursor {
  int line, ch;
  size_t off;
} DiagCursor;

/* Characters are counted as the lexer counts columns (source_char_len). */
static size_t diag_next_char(const char *text, size_t len, size_t i) {
  return i + (size_t)source_char_len(text + i, text + len);
}

static size_t diag_seek(DiagCursor *cur, int line, const char *text, size_t len, int ch) {
  if (cur->line != line || cur->ch > ch) *cur = (DiagCursor){line, 1, 0};
  for (; cur->ch < ch && cur->off < len; cur->ch++) cur->off = diag_next_char(text, len, cur->off);
  return cur->off;
}

/* Byte offset just past `n` characters from `from` (or len). */
static size_t diag_skip_chars(const char *text, size_t len, size_t from, int n) {
  size_t i = from;
  for (int k = 0; k < n && i < len; k++) i = diag_next_char(text, len, i);
  return i;
}

/* Echo line `lno` and put a caret under columns [col, endcol). Tabs are
 * copied so carets stay aligned. */
/* ANSI escapes, clang's choices: bold position, red errors, magenta
 * warnings, cyan notes, green carets. */
#define DIAG_BOLD "\033[1m"
#define DIAG_RESET "\033[0m"
static const char *diag_sev_color(DiagSeverity s) {
  return s == DIAG_ERROR ? "\033[1;31m" : s == DIAG_WARNING ? "\033[1;35m" : "\033[1;36m";
}

static void diag_echo(DiagBuf *b, DiagCursor *cur, int lno, const char *line, size_t len, int col,
                      int endcol, bool color) {
  bool long_line = diag_skip_chars(line, len, 0, DIAG_ECHO_MAX) < len;
  int first = long_line && col > DIAG_ECHO_BEFORE ? col - DIAG_ECHO_BEFORE : 1;
  size_t from = first > 1 ? diag_seek(cur, lno, line, len, first) : 0;
  size_t to = long_line ? diag_skip_chars(line, len, from, DIAG_ECHO_MAX) : len;
  diag_puts(b, first > 1 ? "  ..." : "  ");
  diag_put(b, line + from, to - from); /* NUL bytes are kept */
  diag_puts(b, to < len ? "...\n" : "\n");
  diag_puts(b, first > 1 ? "     " : "  ");
  int c = first;
  for (size_t i = from; i < len && c < col; i = diag_next_char(line, len, i), c++)
    diag_putc(b, line[i] == '\t' ? '\t' : ' ');
  if (color) diag_puts(b, "\033[1;32m");
  diag_putc(b, '^');
  if (long_line && endcol > first + DIAG_ECHO_MAX) endcol = first + DIAG_ECHO_MAX;
  for (c = col + 1; c < endcol; c++) diag_putc(b, '~');
  if (color) diag_puts(b, DIAG_RESET);
  diag_putc(b, '\n');
}

static const char *diag_sev_name(DiagSeverity s) {
  return s == DIAG_ERROR ? "error" : s == DIAG_WARNING ? "warning" : "note";
}

int diag_flush(DiagCtx *d) {
  int n = d->nmsgs;
  if (n > 1) qsort(d->msgs, (size_t)n, sizeof *d->msgs, diag_cmp);
  const char *name = d->src ? d->src->name : "diderotc";
  DiagBuf b = {0};
  DiagCursor cur = {0, 1, 0};
  for (int i = 0; i < n; i++) {
    Message *m = &d->msgs[i];
    SrcPos pos = m->at.begin;
    char head[64];
    if (d->color) diag_puts(&b, DIAG_BOLD);
    diag_puts(&b, name);
    if (pos.line > 0) snprintf(head, sizeof head, ":%d:%d: ", pos.line, pos.col);
    else snprintf(head, sizeof head, ": ");
    diag_puts(&b, head);
    if (d->color) diag_puts(&b, diag_sev_color(m->sev));
    diag_puts(&b, diag_sev_name(m->sev));
    diag_puts(&b, ": ");
    if (d->color) diag_puts(&b, DIAG_RESET DIAG_BOLD);
    diag_puts(&b, m->text);
    if (d->color) diag_puts(&b, DIAG_RESET);
    diag_putc(&b, '\n');
    if (pos.line > 0 && d->src && pos.line <= d->src->nlines) {
      size_t len;
      const char *line = source_line(d->src, pos.line, &len);
      int endcol = m->at.end.line == pos.line ? m->at.end.col : pos.col + 1;
      diag_echo(&b, &cur, pos.line, line, len, pos.col, endcol, d->color);
    }
  }
  if (b.n) fwrite(b.p, 1, b.n, d->out);
  fflush(d->out);
  free(b.p);
  free(d->msgs);
  d->msgs = NULL;
  d->nmsgs = d->cap = 0;
  return n;
}

void diag_discard(DiagCtx *d) {
  free(d->msgs);
  d->msgs = NULL;
  d->nmsgs = d->cap = 0;
}
