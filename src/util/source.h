/* source.h -- a source file in memory and positions within it.
 *
 * Positions are 1-based lines and 1-based columns counted in Unicode
 * characters (code points), not bytes, so carets line up under UTF-8 text.
 */
#ifndef DIDEROT_UTIL_SOURCE_H
#define DIDEROT_UTIL_SOURCE_H

#include <stddef.h>

#include "util/arena.h"

typedef struct SrcPos {
  int line, col; /* 0,0 means "no position" */
} SrcPos;

/* [begin, end): end is the position just past the last character. */
typedef struct Span {
  SrcPos begin, end;
} Span;

typedef struct Source {
  const char *name; /* file name as given on the command line */
  const char *text; /* NUL-terminated copy of the bytes */
  size_t len;
  int nlines;
  size_t *line_start; /* byte offset of each line (0-based index = line-1) */
} Source;

/* Load a file; NULL with errno set when it cannot be read. */
Source *source_load(Arena *a, const char *path);
/* Wrap a buffer (tests, fuzzing). The bytes are copied. */
Source *source_from_memory(Arena *a, const char *name, const char *text, size_t len);
/* Bytes of line `line` (1-based) without its newline; *len receives the length. */
const char *source_line(const Source *s, int line, size_t *len);

/* Strict UTF-8 decoding of the character at p (p < lim): its byte length,
 * or 0 for a bad lead byte, a truncated sequence, an overlong form, a
 * surrogate or a value above U+10FFFF. */
int source_utf8(const unsigned char *p, const unsigned char *lim, unsigned *cp);
/* Bytes of the character at p (p < lim): the length of a valid UTF-8
 * sequence, else 1, so that every byte of invalid UTF-8 is one column.
 * The lexer's positions and the caret lines both count with this. */
int source_char_len(const char *p, const char *lim);

static inline Span span_join(Span a, Span b) {
  Span s = {a.begin, b.end};
  return s;
}

#endif
