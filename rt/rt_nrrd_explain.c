/* rt_nrrd_explain.c -- why a NRRD file could not be loaded, in the user's
 * terms.
 *
 * Teem's own reason is a chain of internal function names ("_nrrdEncoding
 * Raw_read: fread got only 24906 4-sized things, not 389017"). When a load
 * fails, this looks at the file itself and names the common causes the way
 * a user thinks of them: the file is missing or unreadable, empty, not a
 * NRRD file, or shorter than its header says (truncated), with the
 * expected and found sizes. Anything it cannot explain falls back to
 * Teem's text (drt_error_biff).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_internal.h"

/* The header fields that decide the data size. */
typedef struct NrrdHead {
  int type;              /* nrrdType*, nrrdTypeUnknown when absent or bad */
  unsigned long long count; /* product of the sizes (0 when absent) */
  char encoding[32];
  char data_file[1024];  /* detached data ("data file:"), or "" */
  long byte_skip, line_skip;
  long header_bytes;     /* attached data starts here (after the blank line) */
  int ended;             /* the header ended with a blank line */
  char bad_type[64];     /* a "type:" value that names no sample type */
} NrrdHead;

static void trim(char *s) {
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ')) s[--n] = '\0';
}

/* "key: value" lines up to the blank line; false on a line longer than the
 * buffer (a header we do not try to explain). */
static int read_head(FILE *f, NrrdHead *h) {
  char line[4096];
  long off = 0;
  memset(h, 0, sizeof *h);
  h->type = nrrdTypeUnknown;
  strcpy(h->encoding, "raw");
  while (fgets(line, sizeof line, f)) {
    size_t len = strlen(line);
    if (len == sizeof line - 1 && line[len - 1] != '\n') return 0;
    off += (long)len;
    trim(line);
    if (!line[0]) {
      h->ended = 1;
      break;
    }
    if (line[0] == '#' || strstr(line, ":=")) continue;
    char *colon = strstr(line, ": ");
    if (!colon) continue;
    *colon = '\0';
    const char *key = line, *val = colon + 2;
    if (!strcmp(key, "type")) {
      int t = airEnumVal(nrrdType, val);
      h->type = drt_type_ok(t) ? t : nrrdTypeUnknown;
      if (!drt_type_ok(t)) snprintf(h->bad_type, sizeof h->bad_type, "%s", val);
    } else if (!strcmp(key, "sizes")) {
      unsigned long long c = 1;
      char *end;
      for (const char *p = val; *p;) {
        unsigned long long v = strtoull(p, &end, 10);
        if (end == p) break;
        c *= v;
        p = end;
      }
      h->count = c;
    } else if (!strcmp(key, "encoding")) {
      snprintf(h->encoding, sizeof h->encoding, "%s", val);
    } else if (!strcmp(key, "data file") || !strcmp(key, "datafile")) {
      snprintf(h->data_file, sizeof h->data_file, "%s", val);
    } else if (!strcmp(key, "byte skip") || !strcmp(key, "byteskip")) {
      h->byte_skip = strtol(val, NULL, 10);
    } else if (!strcmp(key, "line skip") || !strcmp(key, "lineskip")) {
      h->line_skip = strtol(val, NULL, 10);
    }
  }
  h->header_bytes = off;
  return 1;
}

/* The detached data file's path: relative names are relative to the
 * header's directory. */
static void data_path(const char *file, const char *data, char *out, size_t n) {
  const char *slash = strrchr(file, '/');
  if (data[0] == '/' || !slash) snprintf(out, n, "%s", data);
  else snprintf(out, n, "%.*s/%s", (int)(slash - file), file, data);
}

/* A short, printable excerpt of the file's first bytes. */
static void excerpt(const unsigned char *b, size_t n, char *out, size_t len) {
  size_t k = 0;
  for (size_t i = 0; i < n && k + 2 < len && i < 16; i++) {
    if (b[i] == '\n' || b[i] == '\r') break;
    out[k++] = (b[i] >= 32 && b[i] < 127) ? (char)b[i] : '?';
  }
  out[k] = '\0';
}

int drt_nrrd_explain(const char *file, char *msg, size_t len) {
  struct stat st;
  if (stat(file, &st) != 0) {
    snprintf(msg, len, "the file cannot be opened: %s", strerror(errno));
    return 1;
  }
  if (S_ISDIR(st.st_mode)) {
    snprintf(msg, len, "the file is a directory, not a NRRD file");
    return 1;
  }
  FILE *f = fopen(file, "rb");
  if (!f) {
    snprintf(msg, len, "the file cannot be opened: %s", strerror(errno));
    return 1;
  }
  unsigned char magic[16];
  size_t got = fread(magic, 1, sizeof magic, f);
  if (got == 0) {
    fclose(f);
    snprintf(msg, len, "the file is empty (0 bytes), not a NRRD file");
    return 1;
  }
  if (got < 7 || memcmp(magic, "NRRD000", 7) != 0) {
    fclose(f);
    /* Teem also reads PNG, PNM, VTK and plain text: only say "not NRRD"
     * for what none of those start with */
    static const char *const others[] = {"\x89PNG", "P2", "P3", "P5", "P6", "# vtk"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
      if (got >= strlen(others[i]) && !memcmp(magic, others[i], strlen(others[i]))) return 0;
    if ((magic[0] >= '0' && magic[0] <= '9') || magic[0] == '-' || magic[0] == '#') return 0;
    char ex[32];
    excerpt(magic, got, ex, sizeof ex);
    snprintf(msg, len, "the file is not a NRRD file (it starts with \"%s\", not \"NRRD000\")", ex);
    return 1;
  }
  rewind(f);
  NrrdHead h;
  int ok = read_head(f, &h);
  fclose(f);
  if (ok && h.bad_type[0]) {
    snprintf(msg, len, "the file's header gives the sample type '%s', which NRRD does not know "
                       "(float, double, uchar, short, int, ...)", h.bad_type);
    return 1;
  }
  if (!ok || h.type == nrrdTypeUnknown || h.count == 0) return 0; /* Teem's message says more */
  unsigned long long want = h.count * (unsigned long long)nrrdTypeSize[h.type];
  const char *tname = airEnumStr(nrrdType, h.type);
  int raw = !strcmp(h.encoding, "raw");
  if (!h.data_file[0]) {
    if (!h.ended) {
      snprintf(msg, len, "the file has a NRRD header but no data (the header never ends with a blank line)");
      return 1;
    }
    if (!raw || h.byte_skip != 0 || h.line_skip != 0) return 0;
    long long have = (long long)st.st_size - h.header_bytes;
    if (have >= 0 && (unsigned long long)have < want) {
      snprintf(msg, len,
               "the file is truncated: its header promises %llu %s samples (%llu bytes of data), but "
               "only %lld bytes follow the header",
               h.count, tname, want, have);
      return 1;
    }
    return 0;
  }
  char path[2048];
  data_path(file, h.data_file, path, sizeof path);
  struct stat dst;
  if (!strncmp(h.data_file, "LIST", 4) || strchr(h.data_file, '%')) return 0; /* multi-file */
  if (stat(path, &dst) != 0) {
    snprintf(msg, len, "the header names the data file '%s', which cannot be opened: %s", path,
             strerror(errno));
    return 1;
  }
  /* byte skip -1: the data are the file's last bytes */
  unsigned long long skip = h.byte_skip > 0 ? (unsigned long long)h.byte_skip : 0;
  if (raw && h.line_skip == 0 && h.byte_skip >= -1 &&
      (unsigned long long)dst.st_size < want + skip) {
    snprintf(msg, len,
             "the file is truncated: its data file '%s' should hold %llu %s samples (%llu bytes), but "
             "has %lld bytes",
             path, h.count, tname, want + skip,
             (long long)dst.st_size);
    return 1;
  }
  return 0;
}

void drt_nrrd_reason(char *biff, char *msg, size_t len) {
  /* Teem's chain is outermost first; its last line is the cause:
   * "[nrrd] _nrrdReadNrrdParse_sizes: couldn't parse ..." */
  size_t n = strlen(biff);
  while (n > 0 && (biff[n - 1] == '\n' || biff[n - 1] == ' ')) biff[--n] = '\0';
  char *line = strrchr(biff, '\n');
  line = line ? line + 1 : biff;
  if (line[0] == '[') {
    char *close = strchr(line, ']');
    if (close) line = close + 1;
  }
  while (*line == ' ') line++;
  char *colon = strstr(line, ": ");
  if (colon) { /* "function: " */
    char *p = line;
    while (p < colon && (*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                         (*p >= '0' && *p <= '9')))
      p++;
    if (p == colon) line = colon + 2;
  }
  snprintf(msg, len, "the file is not a valid NRRD file: %s", line[0] ? line : "unknown error");
}
