/* tune_inputs.c -- the inputs of a tuned run as a cache key (tune.h): their
 * signature, and how far apart two signatures are (the nearest entry when
 * none was tuned on these inputs).
 *
 * A signature is the program's arguments with every readable file replaced
 * by its shape: "nrrd(TYPE;SIZES)" for a NRRD, "file(N bytes)" for another,
 * e.g. "-vol nrrd(float;64 64 64) -imgResU 48". Two signatures are
 * comparable when they have the same words but for sizes: the NRRDs' sizes
 * (same type and axis count), the other files' byte counts and positive
 * numbers; the distance is the sum of |ln(a/b)| over those, so a volume
 * twice as large on each of three axes is as far as one eight times as
 * many bytes, whichever way.
 */
#include "tune/tune.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- the inputs' signature ----------------------------------------------------------- */

/* A NRRD header's "type: ..." and "sizes: ..." fields, or NULL. */
static const char *nrrd_shape(Arena *a, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char line[512], type[64] = "", sizes[256] = "";
  bool magic = false;
  for (int n = 0; n < 200 && fgets(line, sizeof line, f); n++) {
    line[strcspn(line, "\r\n")] = '\0';
    if (n == 0) {
      magic = !strncmp(line, "NRRD000", 7);
      if (!magic) break;
      continue;
    }
    if (!line[0]) break; /* the end of the header */
    if (!strncmp(line, "type:", 5)) snprintf(type, sizeof type, "%s", line + 5 + strspn(line + 5, " "));
    if (!strncmp(line, "sizes:", 6)) snprintf(sizes, sizeof sizes, "%s", line + 6 + strspn(line + 6, " "));
  }
  fclose(f);
  if (!magic) return NULL;
  return arena_printf(a, "nrrd(%s;%s)", type, sizes);
}

const char *tune_inputs_signature(Arena *a, char *const *args, int nargs) {
  const char *sig = "";
  for (int i = 0; i < nargs; i++) {
    struct stat st;
    const char *w = args[i];
    if (stat(args[i], &st) == 0 && S_ISREG(st.st_mode)) {
      const char *shape = nrrd_shape(a, args[i]);
      w = shape ? shape : arena_printf(a, "file(%lld bytes)", (long long)st.st_size);
    }
    sig = arena_printf(a, "%s%s%s", sig, i ? " " : "", w);
  }
  /* one line in the file: no newline may end the field early */
  char *s = arena_strdup(a, sig);
  for (char *p = s; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
  return s;
}

/* ---- the distance between two signatures ----------------------------------------- */

/* The next word of a signature at *p (NULL at the end): "nrrd(...)" and
 * "file(...)" whole (their sizes hold spaces), another up to a space. */
static const char *next_word(const char **p, size_t *n) {
  const char *s = *p;
  while (*s == ' ') s++;
  if (!*s) return NULL;
  const char *e = s;
  if (!strncmp(s, "nrrd(", 5) || !strncmp(s, "file(", 5)) {
    e = strchr(s, ')');
    e = e ? e + 1 : s + strlen(s);
  } else {
    while (*e && *e != ' ') e++;
  }
  *n = (size_t)(e - s);
  *p = e;
  return s;
}

/* A positive finite number filling the n bytes at s, else 0. */
static double size_of(const char *s, size_t n) {
  char buf[64];
  if (n == 0 || n >= sizeof buf) return 0;
  memcpy(buf, s, n);
  buf[n] = '\0';
  char *end;
  double v = strtod(buf, &end);
  return *end == '\0' && v > 0 && isfinite(v) ? v : 0;
}

/* |ln(a/b)| of two lists of sizes ("64 64 64"), or -1 when their counts
 * differ or one is not a positive number. */
static double sizes_distance(const char *a, size_t na, const char *b, size_t nb) {
  double d = 0;
  const char *ea = a + na, *eb = b + nb;
  for (;;) {
    while (a < ea && *a == ' ') a++;
    while (b < eb && *b == ' ') b++;
    if (a == ea || b == eb) return a == ea && b == eb ? d : -1;
    const char *wa = a, *wb = b;
    while (a < ea && *a != ' ') a++;
    while (b < eb && *b != ' ') b++;
    double x = size_of(wa, (size_t)(a - wa)), y = size_of(wb, (size_t)(b - wb));
    if (x <= 0 || y <= 0) return -1;
    d += fabs(log(x / y));
  }
}

/* The distance of two words, -1 when they are not the same but for sizes. */
static double word_distance(const char *a, size_t na, const char *b, size_t nb) {
  if (na == nb && !memcmp(a, b, na)) return 0;
  if (na == 0 || nb == 0) return -1;
  bool closed = a[na - 1] == ')' && b[nb - 1] == ')'; /* else a word like any other */
  if (closed && na > 6 && nb > 6 && !strncmp(a, "nrrd(", 5) && !strncmp(b, "nrrd(", 5)) {
    const char *sa = memchr(a, ';', na), *sb = memchr(b, ';', nb);
    if (!sa || !sb || sa - a != sb - b || memcmp(a, b, (size_t)(sa - a))) return -1; /* the type */
    return sizes_distance(sa + 1, na - (size_t)(sa + 1 - a) - 1, sb + 1, nb - (size_t)(sb + 1 - b) - 1);
  }
  if (closed && na > 12 && nb > 12 && !strncmp(a, "file(", 5) && !strncmp(b, "file(", 5))
    return sizes_distance(a + 5, na - 12, b + 5, nb - 12); /* "file(" N " bytes)" */
  double x = size_of(a, na), y = size_of(b, nb);
  return x > 0 && y > 0 ? fabs(log(x / y)) : -1;
}

double tune_inputs_distance(const char *a, const char *b) {
  double d = 0;
  for (;;) {
    size_t na = 0, nb = 0;
    const char *wa = next_word(&a, &na), *wb = next_word(&b, &nb);
    if (!wa || !wb) return !wa && !wb ? d : -1;
    double w = word_distance(wa, na, wb, nb);
    if (w < 0) return -1;
    d += w;
  }
}
