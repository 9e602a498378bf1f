/* arena.c -- bump allocator over a chain of chunks. */
#include "util/arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ARENA_CHUNK = 64 * 1024, ARENA_ALIGN = 16 };

typedef struct Chunk {
  struct Chunk *next;
  size_t size, used;
  _Alignas(ARENA_ALIGN) unsigned char data[];
} Chunk;

struct Arena {
  Chunk *head;
  size_t total;
};

static void *arena_die(size_t n) {
  fprintf(stderr, "diderotc: out of memory (requested %zu bytes)\n", n);
  exit(70);
}

Arena *arena_new(void) {
  Arena *a = calloc(1, sizeof *a);
  if (!a) arena_die(sizeof *a);
  return a;
}

void arena_free(Arena *a) {
  if (!a) return;
  for (Chunk *c = a->head, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  free(a);
}

void *arena_alloc(Arena *a, size_t size) {
  size_t need = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  if (need == 0) need = ARENA_ALIGN;
  Chunk *c = a->head;
  if (!c || c->size - c->used < need) {
    /* Big requests get a chunk of their own so small ones keep packing. */
    size_t cap = need > ARENA_CHUNK / 4 ? need : ARENA_CHUNK;
    Chunk *n = malloc(sizeof *n + cap);
    if (!n) arena_die(need);
    n->size = cap;
    n->used = 0;
    if (c && cap == need) { /* keep the partly used chunk at the head */
      n->next = c->next;
      c->next = n;
    } else {
      n->next = c;
      a->head = n;
    }
    c = n;
  }
  void *p = c->data + c->used;
  c->used += need;
  a->total += need;
  memset(p, 0, need);
  return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) n = 0;
  char *p = arena_alloc(a, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return p;
}

size_t arena_bytes_used(const Arena *a) { return a->total; }
