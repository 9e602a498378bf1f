/* failmalloc.c -- an LD_PRELOAD library for tests/mpi/faults.py
 * (mpi/fault/exchange-rank1): malloc of exactly FAIL_MALLOC_SIZE bytes
 * returns NULL, every other malloc is the C library's. Given to one rank
 * alone, it makes an allocation inside an exchange that has begun fail on
 * that rank, which no other rank can know of. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

void *malloc(size_t n) {
  static void *(*real)(size_t);
  static size_t target;
  static int read_env;
  if (!real) real = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
  if (!read_env) {
    const char *t = getenv("FAIL_MALLOC_SIZE");
    target = t ? (size_t)strtoull(t, NULL, 10) : 0; /* 0: none fails */
    read_env = 1;
  }
  if (target && n == target) return NULL;
  return real(n);
}
