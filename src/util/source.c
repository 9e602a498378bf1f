/* source.c -- loading source files and finding their lines. */
#include "util/source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void source_index_lines(Arena *a, Source *s) {
  int n = 1;
  for (size_t i = 0; i < s->len; i++)
    if (s->text[i] == '\n') n++;
  s->line_start = ARENA_NEW_ARRAY(a, size_t, n);
  s->nlines = n;
  int k = 0;
  s->line_start[k++] = 0;
  for (size_t i = 0; i < s->len; i++)
    if (s->text[i] == '\n') s->line_start[k++] = i + 1;
}

Source *source_from_memory(Arena *a, const char *name, const char *text, size_t len) {
  Source *s = ARENA_NEW(a, Source);
  s->name = arena_strdup(a, name);
  s->text = arena_strndup(a, text, len);
  s->len = len;
  source_index_lines(a, s);
  return s;
}

Source *source_load(Arena *a, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  if (!buf) {
    fclose(f);
    errno = ENOMEM;
    return NULL;
  }
  for (;;) {
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (len < cap) break;
    char *nb = realloc(buf, cap *= 2);
    if (!nb) {
      free(buf);
      fclose(f);
      errno = ENOMEM;
      return NULL;
    }
    buf = nb;
  }
  int err = ferror(f) ? errno : 0;
  fclose(f);
  if (err) {
    free(buf);
    errno = err;
    return NULL;
  }
  Source *s = source_from_memory(a, path, buf, len);
  free(buf);
  return s;
}

const char *source_line(const Source *s, int line, size_t *len) {
  if (line < 1 || line > s->nlines) {
    *len = 0;
    return "";
  }
  /* O(1): the next line's start is one past this line's newline. */
  size_t b = s->line_start[line - 1], e = line < s->nlines ? s->line_start[line] - 1 : s->len;
  if (e > b && s->text[e - 1] == '\r') e--;
  *len = e - b;
  return s->text + b;
}

int source_utf8(const unsigned char *p, const unsigned char *lim, unsigned *cp) {
  unsigned c = p[0], v, min;
  int n;
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2, v = c & 0x1F, min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3, v = c & 0x0F, min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4, v = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (lim - p < n) return 0;
  for (int i = 1; i < n; i++) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    v = (v << 6) | (p[i] & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return n;
}

int source_char_len(const char *p, const char *lim) {
  if ((unsigned char)*p < 0x80) return 1;
  unsigned cp;
  int n = source_utf8((const unsigned char *)p, (const unsigned char *)lim, &cp);
  return n > 0 ? n : 1;
}
