/* arena.h -- region allocation for compiler data.
 *
 * Everything the compiler builds for one compilation (tokens, AST, types, IR)
 * lives in an arena and is released in one call: no per-node frees, no leaks
 * on error paths.
 */
#ifndef DIDEROT_UTIL_ARENA_H
#define DIDEROT_UTIL_ARENA_H

#include <stddef.h>

typedef struct Arena Arena;

Arena *arena_new(void);
void arena_free(Arena *a);
/* Zero-filled, aligned for any object; aborts with a message on exhaustion. */
void *arena_alloc(Arena *a, size_t size);
#define ARENA_NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_NEW_ARRAY(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))
/* Copy of s[0..n) with a terminating NUL. */
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
/* printf into the arena. */
char *arena_printf(Arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Bytes handed out so far (for --stats). */
size_t arena_bytes_used(const Arena *a);

#endif
