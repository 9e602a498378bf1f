/* rt_nrrd_guard.c -- what must not reach Teem's NRRD reader.
 *
 * Teem 1.12 (Debian 12's libteem2) formats each of its error messages into
 * a fixed 1,025-byte stack buffer (biffMsgAddVL, with vsprintf) and reads
 * each ascii sample into another. A message that quotes a long header
 * line, a long file name, or a long word among ascii samples therefore
 * overruns the stack, and the process dies ("*** stack smashing detected
 * ***") instead of reporting a bad input. fuzz_nrrd found the first (a
 * 3,000-byte line of no field after the magic); measured here with a bare
 * nrrdLoad: an unknown field or a bad "space directions" value of 1,000
 * bytes, an ascii sample of 1,100 digits or a 1,000-byte non-number among
 * the samples crash, 520 bytes do not.
 *
 * So before Teem reads a file, this reads it once and refuses, in the
 * user's terms, a file name, a header line or an ascii word longer than
 * DRT_NRRD_MAX_WORD bytes. Lines Teem keeps without parsing (comments,
 * "key:=value" pairs, "content:") may be of any length: Teem quotes them
 * in no message. Only NRRD files are read here (the other formats Teem
 * reads quote nothing of the file; a plain-text file with a 3,000-byte bad
 * word is refused without a crash). Standard input is guarded through the
 * copy rt_image.c makes of it (drt_nrrd_guard_stream).
 */
#include <stdio.h>
#include <string.h>

#include "rt_nrrd_guard.h"

/* Half of the 1,024 bytes of Teem's buffer: room for its own words
 * (function names, quotes, "didn't recognize any field in key") beside
 * the quoted text. */
enum { DRT_NRRD_MAX_WORD = 512 };

/* Where a too-long piece was found, for the message. */
typedef struct GuardScan {
  FILE *f;
  long line;        /* the current line, from 1 */
  int ascii;        /* "encoding: ascii" (or txt, text) was seen */
  int data_file;    /* "data file:" was seen: the samples are elsewhere */
  char detached[1024];
} GuardScan;

/* The next line into buf (without its newline) and its full length, which
 * may exceed cap; -1 at the end of the file. */
static long next_line(GuardScan *g, char *buf, size_t cap) {
  long n = 0;
  int c;
  while ((c = getc(g->f)) != EOF && c != '\n') {
    if ((size_t)n + 1 < cap) buf[n] = (char)c;
    n++;
  }
  if (c == EOF && n == 0) return -1;
  buf[(size_t)n < cap ? (size_t)n : cap - 1] = '\0';
  g->line++;
  return n;
}

static int starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The header's lines up to the blank line: 1 (msg filled) on a line Teem
 * would quote that is too long. */
static int scan_header(GuardScan *g, char *msg, size_t len) {
  char line[DRT_NRRD_MAX_WORD * 2 + 2];
  long n;
  while ((n = next_line(g, line, sizeof line)) >= 0) {
    if (n == 0 || (n == 1 && line[0] == '\r')) return 0; /* the samples follow */
    if (g->line == 1) continue;                           /* the magic */
    if (line[0] == '#' || strstr(line, ":=") || starts(line, "content:")) continue;
    if (n > DRT_NRRD_MAX_WORD) {
      snprintf(msg, len, "header line %ld is %ld bytes long; Teem's reader quotes a line in its "
                         "messages and cannot take one of more than %d bytes",
               g->line, n, DRT_NRRD_MAX_WORD);
      return 1;
    }
    if (starts(line, "encoding:")) {
      const char *v = line + strlen("encoding:");
      while (*v == ' ' || *v == '\t') v++;
      g->ascii = starts(v, "ascii") || starts(v, "txt") || starts(v, "text");
    } else if (starts(line, "data file:") || starts(line, "datafile:")) {
      const char *v = strchr(line, ':') + 1;
      while (*v == ' ' || *v == '\t') v++;
      g->data_file = 1;
      /* one named file (not LIST, not a format with a range) */
      if (!strchr(v, ' ') && !strchr(v, '%') && strcmp(v, "LIST") != 0)
        snprintf(g->detached, sizeof g->detached, "%s", v);
    }
  }
  return 0;
}

/* The ascii samples from here to the end: 1 (msg filled) on a word longer
 * than Teem's buffer; `where` names the file in the message. */
static int scan_words(FILE *f, const char *where, char *msg, size_t len) {
  long word = 0, value = 0;
  int c;
  while ((c = getc(f)) != EOF) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',') {
      if (word) value++;
      word = 0;
      continue;
    }
    if (++word > DRT_NRRD_MAX_WORD) {
      snprintf(msg, len, "%s: ascii value %ld is more than %d characters long; Teem's reader "
                         "cannot take it",
               where, value + 1, DRT_NRRD_MAX_WORD);
      return 1;
    }
  }
  return 0;
}

/* The directory part of `file` and `name` joined, as Teem finds a detached
 * data file named relative to its header. */
static void beside(const char *file, const char *name, char *out, size_t cap) {
  const char *slash = strrchr(file, '/');
  if (name[0] == '/' || !slash) snprintf(out, cap, "%s", name);
  else snprintf(out, cap, "%.*s/%s", (int)(slash - file), file, name);
}

int drt_nrrd_guard(const char *file, char *msg, size_t len) {
  size_t flen = strlen(file);
  if (flen > DRT_NRRD_MAX_WORD) {
    snprintf(msg, len, "the file name is %zu bytes long; Teem's reader quotes it in its messages "
                       "and cannot take one of more than %d bytes",
             flen, DRT_NRRD_MAX_WORD);
    return 1;
  }
  FILE *f = fopen(file, "rb");
  if (!f) return 0; /* Teem says why it cannot open it, briefly */
  int bad = drt_nrrd_guard_stream(f, file, msg, len);
  fclose(f);
  return bad;
}

int drt_nrrd_guard_stream(FILE *f, const char *file, char *msg, size_t len) {
  GuardScan g = {.f = f};
  char magic[8];
  int bad = 0;
  if (fread(magic, 1, 7, g.f) == 7 && memcmp(magic, "NRRD000", 7) == 0) {
    rewind(g.f);
    bad = scan_header(&g, msg, len);
    if (!bad && g.ascii && !g.data_file) bad = scan_words(g.f, "the data", msg, len);
  }
  rewind(g.f);
  if (bad || !g.detached[0]) return bad;
  char path[2048];
  beside(file, g.detached, path, sizeof path);
  if (strlen(path) > DRT_NRRD_MAX_WORD) {
    snprintf(msg, len, "the path of its data file is %zu bytes long; Teem's reader quotes it in "
                       "its messages and cannot take one of more than %d bytes",
             strlen(path), DRT_NRRD_MAX_WORD);
    return 1;
  }
  if (!g.ascii) return 0;
  FILE *d = fopen(path, "rb");
  if (!d) return 0; /* Teem reports the missing file */
  bad = scan_words(d, g.detached, msg, len);
  fclose(d);
  return bad;
}
