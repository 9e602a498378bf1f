/* suggest.c -- closest-spelling suggestions (see suggest.h). */
#include "util/suggest.h"

#include <stdlib.h>
#include <string.h>

/* Names are identifiers and option names: short. Longer ones are never
 * compared (no suggestion), so the rows fit on the stack. */
enum { SUGGEST_MAX_LEN = 64 };

size_t suggest_distance(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b);
  if (n > SUGGEST_MAX_LEN || m > SUGGEST_MAX_LEN) return (size_t)-1;
  /* three rows: i-2, i-1, i (the swap looks two rows back) */
  size_t r0[SUGGEST_MAX_LEN + 1], r1[SUGGEST_MAX_LEN + 1], r2[SUGGEST_MAX_LEN + 1];
  size_t *pp = r0, *p = r1, *c = r2;
  for (size_t j = 0; j <= m; j++) p[j] = j;
  for (size_t i = 1; i <= n; i++) {
    c[0] = i;
    for (size_t j = 1; j <= m; j++) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      size_t v = p[j - 1] + cost;
      if (p[j] + 1 < v) v = p[j] + 1;
      if (c[j - 1] + 1 < v) v = c[j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
        v = pp[j - 2] + 1;
      c[j] = v;
    }
    size_t *t = pp;
    pp = p;
    p = c;
    c = t;
  }
  return p[m];
}

void suggest_init(Suggest *s, const char *name) {
  s->name = name ? name : "";
  s->best = NULL;
  s->best_dist = (size_t)-1;
  size_t len = strlen(s->name);
  s->limit = len < 3 ? 1 : len / 3;
  /* a one-letter name is "close" to every other one-letter name */
  if (len < 2) s->limit = 0;
}

void suggest_offer(Suggest *s, const char *candidate) {
  if (!candidate || !candidate[0] || strcmp(candidate, s->name) == 0) return;
  size_t d = suggest_distance(s->name, candidate);
  /* a rewrite of every letter is no typo (`x` for `y`, `ab` for `cd`) */
  if (d > s->limit || d >= strlen(candidate)) return;
  if (d < s->best_dist) { /* ties keep the first offered: scopes come innermost first */
    s->best = candidate;
    s->best_dist = d;
  }
}

const char *suggest_best(const Suggest *s) { return s->best; }
