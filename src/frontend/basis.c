/* basis.c -- the built-in table (basis.def) and name lookup. */
#include "frontend/basis.h"

#include <string.h>

const Builtin basis_table[BI__COUNT] = {
#define BUILTIN(id, name, flags, sig) [BI_##id] = {BI_##id, name, (flags), sig},
#include "frontend/basis.def"
#undef BUILTIN
};

/* The table is small (~200 entries) and the overloads of a name are
 * consecutive, so a scan that compares the first byte before strcmp is
 * cheap and needs no index (hence no mutable state). */
const Builtin *basis_lookup(const char *name, int *count) {
  if (count) *count = 0;
  if (!name) return NULL;
  for (int i = 0; i < BI__COUNT; i++) {
    const char *n = basis_table[i].name;
    if (n[0] != name[0] || strcmp(n, name) != 0) continue;
    int j = i + 1;
    while (j < BI__COUNT && strcmp(basis_table[j].name, name) == 0) j++;
    if (count) *count = j - i;
    return &basis_table[i];
  }
  return NULL;
}
