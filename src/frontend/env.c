/* env.c -- hashed scopes and symbol tables. */
#include "frontend/env.h"

#include <string.h>

unsigned env_hash(const char *s) {
  unsigned h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

const char *sym_kind_name(SymKind k) {
  switch (k) {
  case SYM_CONST: return "constant";
  case SYM_INPUT: return "input";
  case SYM_GLOBAL: return "global variable";
  case SYM_LOCAL: return "variable";
  case SYM_STATE: return "state variable";
  case SYM_PARAM: return "parameter";
  case SYM_STRAND_PARAM: return "strand parameter";
  case SYM_ITER: return "iteration variable";
  case SYM_FUNC: return "function";
  case SYM_FIELD_FUNC: return "field function";
  case SYM_STRAND: return "strand";
  case SYM_BUILTIN: return "built-in function";
  case SYM_KERNEL: return "kernel";
  }
  return "name";
}

bool sym_is_variable(const Symbol *s) {
  switch (s->kind) {
  case SYM_FUNC:
  case SYM_STRAND:
  case SYM_BUILTIN:
  case SYM_KERNEL:
    return false;
  default:
    return true;
  }
}

/* ---------------------------------------------------------------- Env */

typedef struct Binding Binding;
struct Binding {
  Symbol *sym;
  unsigned hash;
  int depth;
  Binding *next;       /* bucket chain, innermost first */
  Binding *scope_next; /* bindings of the same scope, newest first */
};

typedef struct Scope Scope;
struct Scope {
  Binding *bindings;
  Scope *outer;
};

struct Env {
  Arena *arena;
  Binding **buckets;
  unsigned mask;
  int count;
  Scope *top;
  int depth;
  Scope *free_scopes;
  Binding *free_bindings;
};

Env *env_new(Arena *a) {
  Env *e = ARENA_NEW(a, Env);
  e->arena = a;
  e->mask = 255;
  e->buckets = ARENA_NEW_ARRAY(a, Binding *, e->mask + 1);
  env_push(e);
  return e;
}

void env_push(Env *e) {
  Scope *s = e->free_scopes;
  if (s) e->free_scopes = s->outer;
  else s = ARENA_NEW(e->arena, Scope);
  s->bindings = NULL;
  s->outer = e->top;
  e->top = s;
  e->depth++;
}

void env_pop(Env *e) {
  Scope *s = e->top;
  if (!s || !s->outer) return; /* never pop the outermost scope */
  /* Bindings of the top scope are the newest, so each is at the head of
   * its bucket when removed newest first. */
  for (Binding *b = s->bindings, *nb; b; b = nb) {
    nb = b->scope_next;
    Binding **slot = &e->buckets[b->hash & e->mask];
    while (*slot && *slot != b) slot = &(*slot)->next;
    if (*slot) *slot = b->next;
    e->count--;
    b->next = e->free_bindings;
    e->free_bindings = b;
  }
  e->top = s->outer;
  e->depth--;
  s->outer = e->free_scopes;
  e->free_scopes = s;
}

int env_depth(const Env *e) { return e->depth; }

void env_each(const Env *e, void (*fn)(Symbol *s, void *ctx), void *ctx) {
  for (const Scope *s = e->top; s; s = s->outer)
    for (const Binding *b = s->bindings; b; b = b->scope_next) fn(b->sym, ctx);
}

static void env_grow(Env *e) {
  unsigned nmask = e->mask * 2 + 1;
  Binding **nb = ARENA_NEW_ARRAY(e->arena, Binding *, nmask + 1);
  for (unsigned i = 0; i <= e->mask; i++) {
    /* reverse the chain (oldest first), then push each onto its new
     * bucket: every new chain is again innermost first */
    Binding *rev = NULL;
    for (Binding *b = e->buckets[i], *n; b; b = n) {
      n = b->next;
      b->next = rev;
      rev = b;
    }
    for (Binding *b = rev, *n; b; b = n) {
      n = b->next;
      b->next = nb[b->hash & nmask];
      nb[b->hash & nmask] = b;
    }
  }
  e->buckets = nb;
  e->mask = nmask;
}

void env_bind(Env *e, Symbol *s) {
  if ((unsigned)e->count > e->mask) env_grow(e);
  Binding *b = e->free_bindings;
  if (b) e->free_bindings = b->next;
  else b = ARENA_NEW(e->arena, Binding);
  b->sym = s;
  b->hash = env_hash(s->name);
  b->depth = e->depth;
  b->next = e->buckets[b->hash & e->mask];
  e->buckets[b->hash & e->mask] = b;
  b->scope_next = e->top->bindings;
  e->top->bindings = b;
  e->count++;
}

static Binding *find(const Env *e, const char *name) {
  unsigned h = env_hash(name);
  for (Binding *b = e->buckets[h & e->mask]; b; b = b->next)
    if (b->hash == h && strcmp(b->sym->name, name) == 0) return b;
  return NULL;
}

Symbol *env_lookup(const Env *e, const char *name) {
  if (!name) return NULL;
  Binding *b = find(e, name);
  return b ? b->sym : NULL;
}

Symbol *env_lookup_local(const Env *e, const char *name) {
  if (!name) return NULL;
  Binding *b = find(e, name);
  return b && b->depth == e->depth ? b->sym : NULL;
}

/* ----------------------------------------------------------- SymTable */

struct SymTable {
  Symbol **slots;
  unsigned mask;
};

SymTable *symtab_new(Arena *a, int expected) {
  SymTable *t = ARENA_NEW(a, SymTable);
  unsigned n = 8;
  while (n < 2u * (unsigned)(expected > 0 ? expected : 1)) n *= 2;
  t->mask = n - 1;
  t->slots = ARENA_NEW_ARRAY(a, Symbol *, n);
  return t;
}

/* The caller sizes the table for all its entries (open addressing). */
void symtab_put(SymTable *t, Symbol *s) {
  unsigned i = env_hash(s->name) & t->mask;
  for (unsigned probes = 0; probes <= t->mask; probes++, i = (i + 1) & t->mask) {
    if (!t->slots[i]) {
      t->slots[i] = s;
      return;
    }
    if (strcmp(t->slots[i]->name, s->name) == 0) return; /* keep the first */
  }
}

Symbol *symtab_get(const SymTable *t, const char *name) {
  if (!t || !name) return NULL;
  unsigned i = env_hash(name) & t->mask;
  for (unsigned probes = 0; probes <= t->mask; probes++, i = (i + 1) & t->mask) {
    if (!t->slots[i]) return NULL;
    if (strcmp(t->slots[i]->name, name) == 0) return t->slots[i];
  }
  return NULL;
}
