/* rt_error.c -- the caller-owned error context of the runtime.
 *
 * Messages are kept as text, one per line, because everything that
 * consumes them (NS_get_errors, the executable's report on stderr) wants
 * text. Out of memory loses the message but is remembered (oom), so an
 * error is never silently turned into success.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <teem/biff.h>

#include "rt_internal.h"

void drt_errors_init(DrtErrors *e) { memset(e, 0, sizeof *e); }

void drt_errors_free(DrtErrors *e) {
  free(e->errors.s);
  free(e->warnings.s);
  memset(e, 0, sizeof *e);
}

static bool text_reserve(DrtText *t, size_t extra) {
  if (t->len + extra + 1 <= t->cap) return true;
  size_t cap = t->cap ? t->cap : 128;
  while (cap < t->len + extra + 1) cap *= 2;
  char *s = realloc(t->s, cap);
  if (!s) return false;
  t->s = s;
  t->cap = cap;
  return true;
}

/* Append PREFIX (may be NULL) and the formatted message as one line:
 * inner newlines become "; " so that there is one line per message. */
static bool text_vadd(DrtText *t, const char *prefix, const char *fmt,
                      va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) return false;
  char *msg = malloc((size_t)n + 1);
  if (!msg) return false;
  vsnprintf(msg, (size_t)n + 1, fmt, ap);
  size_t m = (size_t)n;
  while (m > 0 && (msg[m - 1] == '\n' || msg[m - 1] == ' ')) m--;
  size_t plen = prefix ? strlen(prefix) : 0;
  if (!text_reserve(t, plen + 2 * m + 1)) {
    free(msg);
    return false;
  }
  char *out = t->s + t->len;
  if (plen) memcpy(out, prefix, plen);
  out += plen;
  for (size_t i = 0; i < m; i++) {
    if (msg[i] != '\n') {
      *out++ = msg[i];
    } else {
      *out++ = ';';
      *out++ = ' ';
    }
  }
  *out++ = '\n';
  *out = '\0';
  t->len = (size_t)(out - t->s);
  free(msg);
  return true;
}

static void add(DrtErrors *e, bool warning, const char *prefix,
                const char *fmt, va_list ap) {
  DrtText *t = warning ? &e->warnings : &e->errors;
  if (!text_vadd(t, prefix, fmt, ap)) e->oom = true;
  if (warning) e->nwarnings++;
  else e->nerrors++;
}

/* "WHAT (file 'FILE'): " in a malloc'd string (NULL if out of memory). */
static char *source_prefix(const char *what, const char *file) {
  if (!what) what = "image";
  size_t n = strlen(what) + (file ? strlen(file) : 0) + 32;
  char *p = malloc(n);
  if (!p) return NULL;
  if (file) snprintf(p, n, "%s (file '%s'): ", what, file);
  else snprintf(p, n, "%s (nrrd): ", what);
  return p;
}

void drt_error(DrtErrors *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  add(e, false, NULL, fmt, ap);
  va_end(ap);
}

void drt_warning(DrtErrors *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  add(e, true, NULL, fmt, ap);
  va_end(ap);
}

void drt_error_at(DrtErrors *e, const char *what, const char *file,
                  const char *fmt, ...) {
  char *p = source_prefix(what, file);
  va_list ap;
  va_start(ap, fmt);
  add(e, false, p, fmt, ap);
  va_end(ap);
  free(p);
}

void drt_warning_at(DrtErrors *e, const char *what, const char *file,
                    const char *fmt, ...) {
  char *p = source_prefix(what, file);
  va_list ap;
  va_start(ap, fmt);
  add(e, true, p, fmt, ap);
  va_end(ap);
  free(p);
}

void drt_error_biff(DrtErrors *e, const char *what, const char *file,
                    const char *doing, const char *key) {
  char *msg = biffGetDone(key);
  const char *m = msg ? msg : "";
  /* Teem prefixes each line with "[nrrd] "; drop it for readability. */
  size_t klen = strlen(key);
  char *clean = malloc(strlen(m) + 1);
  if (clean) {
    char *o = clean;
    for (const char *s = m; *s;) {
      if (s[0] == '[' && strncmp(s + 1, key, klen) == 0 && s[1 + klen] == ']') {
        s += 2 + klen;
        while (*s == ' ') s++;
      }
      while (*s && *s != '\n') *o++ = *s++;
      if (*s == '\n') *o++ = *s++;
    }
    *o = '\0';
  }
  const char *text = clean ? clean : m;
  if (*text) drt_error_at(e, what, file, "%s: %s", doing, text);
  else drt_error_at(e, what, file, "%s", doing);
  free(clean);
  free(msg);
}

static void text_append(DrtText *to, const DrtText *from, bool *oom) {
  if (!from->len) return;
  if (!text_reserve(to, from->len)) {
    *oom = true;
    return;
  }
  memcpy(to->s + to->len, from->s, from->len + 1);
  to->len += from->len;
}

void drt_errors_move(DrtErrors *to, DrtErrors *from) {
  text_append(&to->errors, &from->errors, &to->oom);
  text_append(&to->warnings, &from->warnings, &to->oom);
  to->nerrors += from->nerrors;
  to->nwarnings += from->nwarnings;
  to->oom |= from->oom;
  drt_errors_free(from);
}

bool drt_any_errors(const DrtErrors *e) { return e->nerrors > 0 || e->oom; }

const char *drt_errors_text(const DrtErrors *e) {
  if (e->errors.s) return e->errors.s;
  return e->oom ? "out of memory while recording an error\n" : "";
}

const char *drt_warnings_text(const DrtErrors *e) {
  return e->warnings.s ? e->warnings.s : "";
}

char *drt_errors_take(DrtErrors *e) {
  if (!drt_any_errors(e)) return NULL;
  char *s = e->errors.s;
  if (!s) {
    const char *m = drt_errors_text(e);
    s = malloc(strlen(m) + 1);
    if (s) strcpy(s, m);
  }
  e->errors.s = NULL;
  e->errors.len = e->errors.cap = 0;
  e->nerrors = 0;
  e->oom = false;
  return s;
}

void drt_errors_report(const DrtErrors *e, FILE *f, const char *prog) {
  /* "PROG: error: MESSAGE", one line per message, as compilers write them:
   * the program's base name, so a script's log says which program failed */
  const char *slash = prog ? strrchr(prog, '/') : NULL;
  const char *name = slash ? slash + 1 : prog ? prog : "diderot";
  const char *t = drt_errors_text(e);
  while (*t) {
    size_t n = strcspn(t, "\n");
    fprintf(f, "%s: error: %.*s\n", name, (int)n, t);
    t += n + (t[n] == '\n');
  }
}
