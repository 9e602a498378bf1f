/* suggest.h -- "did you mean ...?" for misspelled names.
 *
 * A Suggest collects candidate spellings one at a time (names in scope,
 * built-ins, kernels, keywords, options) and keeps the closest to the
 * misspelled name by edit distance (insertions, deletions, substitutions
 * and swaps of neighbours each cost 1). A candidate is only offered back
 * when it is close enough to be a likely typo: at most a third of the
 * name's length (at least 1) and never a whole rewrite.
 */
#ifndef DIDEROT_UTIL_SUGGEST_H
#define DIDEROT_UTIL_SUGGEST_H

#include <stddef.h>

typedef struct Suggest {
  const char *name; /* the misspelled name */
  const char *best; /* the closest candidate so far, or NULL */
  size_t best_dist;
  size_t limit;     /* the largest distance that counts as a typo */
} Suggest;

void suggest_init(Suggest *s, const char *name);
void suggest_offer(Suggest *s, const char *candidate);
/* The closest candidate within the limit, or NULL. */
const char *suggest_best(const Suggest *s);
/* Edit distance (optimal string alignment) in bytes; exposed for tests. */
size_t suggest_distance(const char *a, const char *b);

#endif
