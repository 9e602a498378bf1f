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
