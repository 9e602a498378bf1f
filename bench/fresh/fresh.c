/* fresh.c -- what the first touch of fresh memory costs, by page kind.
 *
 *   cc -O2 -o fresh bench/fresh/fresh.c && ./fresh [MiB] [rounds]
 *
 * Each round allocates MiB of new memory (2 MiB-aligned, so that it can
 * be transparent huge pages), advises it one of four ways, writes every
 * byte (memset) and frees it; prints the median ms of the advice and of
 * the writes per way: 4 KiB pages faulted one by one, MADV_HUGEPAGE,
 * MADV_POPULATE_WRITE (4 KiB pages mapped in one call, Linux 5.14+), and
 * both. The runtime's drt_big_alloc (rt/rt_world.c) takes its rule from
 * these numbers (bench/results.md, "Fresh memory"). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? (size_t)atoi(argv[1]) : 8;
  int rounds = argc > 2 ? atoi(argv[2]) : 9;
  if (mib == 0 || rounds < 1 || rounds > 99) {
    fprintf(stderr, "usage: fresh [MiB > 0] [rounds 1..99]\n");
    return 2;
  }
  size_t bytes = mib << 20;
  static const char *name[4] = {"4 KiB pages, faulted", "MADV_HUGEPAGE", "MADV_POPULATE_WRITE",
                                "HUGEPAGE + POPULATE_WRITE"};
  double adv[4][99], wr[4][99];
  for (int r = 0; r < rounds; r++)
    for (int way = 0; way < 4; way++) { /* interleaved */
      void *p = NULL;
      if (posix_memalign(&p, 2u << 20, bytes)) return 1;
      double t0 = now_ms();
#ifdef MADV_HUGEPAGE
      if (way & 1) (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
      if (way & 2) (void)madvise(p, bytes, MADV_POPULATE_WRITE);
#endif
      double t1 = now_ms();
      memset(p, 1, bytes);
      double t2 = now_ms();
      adv[way][r] = t1 - t0;
      wr[way][r] = t2 - t1;
      if (((volatile char *)p)[bytes / 2] != 1) return 1;
      free(p);
    }
  printf("%zu MiB, median of %d rounds\n| way | advice ms | writes ms | total ms |\n|---|---|---|---|\n",
         mib, rounds);
  for (int way = 0; way < 4; way++) {
    qsort(adv[way], (size_t)rounds, sizeof(double), cmp);
    qsort(wr[way], (size_t)rounds, sizeof(double), cmp);
    double a = adv[way][rounds / 2], w = wr[way][rounds / 2];
    printf("| %s | %.2f | %.2f | %.2f |\n", name[way], a, w, a + w);
  }
  return 0;
}
