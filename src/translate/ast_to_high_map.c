/* ast_to_high_map.c -- the translation's hash maps (ThMap: 64-bit keys to
 * pointers, open addressing, arena memory). A leaf: every part of the
 * translation uses them, they use nothing of it. */
#include "translate/ast_to_high_impl.h"

static size_t th_hash(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  return (size_t)k;
}

void *th_map_get(const ThMap *m, uint64_t key) {
  if (!m->cap) return NULL;
  for (size_t i = th_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    if (m->keys[i] == 0) return NULL;
    if (m->keys[i] == key + 1) return m->vals[i];
  }
}

void th_map_put(Arena *a, ThMap *m, uint64_t key, void *val) {
  if ((m->n + 1) * 2 > m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 64;
    uint64_t *keys = ARENA_NEW_ARRAY(a, uint64_t, cap);
    void **vals = ARENA_NEW_ARRAY(a, void *, cap);
    for (size_t i = 0; i < m->cap; i++) {
      if (!m->keys[i]) continue;
      size_t j = th_hash(m->keys[i] - 1) & (cap - 1);
      while (keys[j]) j = (j + 1) & (cap - 1);
      keys[j] = m->keys[i];
      vals[j] = m->vals[i];
    }
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
  }
  size_t i = th_hash(key) & (m->cap - 1);
  while (m->keys[i] && m->keys[i] != key + 1) i = (i + 1) & (m->cap - 1);
  if (!m->keys[i]) m->n++;
  m->keys[i] = key + 1;
  m->vals[i] = val;
}

