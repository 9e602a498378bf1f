/* bench_spatial.c -- timings of the sphere() spatial index (rt_spatial.c).
 *
 * For n uniform random points in the unit square/cube and the radius that
 * gives about 6 neighbours per query (a typical particle system), it times
 * the build (first, with allocation, and rebuilds, which reuse memory) and
 * all n queries sphere(pos_i, r) excluding i, on one thread and on all
 * OpenMP threads, and reports the index's bytes per point.
 *
 *   bench_spatial [-d] [-nohint] [-outliers] [-nbrs K] [N ...]
 *   (default N: 1e5 3e5 1e6)
 *   -d: double positions (default float); -nohint: no radius hint;
 *   -nbrs K: the radius for about K neighbours per query (default 6; some
 *   50 exercise the sort of results over a wide index range, halftone's
 *   case);
 *   -outliers: every 1000th point is moved 1e6 further away, which makes
 *   the occupied cell box huge and so selects the hashed grid.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "diderot_rt.h"

#define PI 3.14159265358979323846

/* Single-thread timings use the thread's CPU clock: the machine may be
 * shared, and time slices lost to other processes are not ours. */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t rng_next(uint64_t *s) {   /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* All n queries, strand i's centred at its position and excluding it, in
 * the order order[0..n) (NULL: strand order). */
static long long queries(const DrtSpatial *sp, const void *pos, bool dbl,
                         unsigned dim, size_t n, double r, int threads,
                         const uint32_t *order) {
  long long total = 0, errors = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total, errors)
  {
    DrtStrandList l = {0};
#pragma omp for schedule(static, 1024)
    for (long long j = 0; j < (long long)n; j++) {
      long long i = order ? order[j] : j;
      l.len = 0;
      if (dbl)
        errors += drt_spatial_sphere_d(sp, (const double *)pos + dim * i, r,
                                       (uint32_t)i, &l);
      else
        errors += drt_spatial_sphere_f(sp, (const float *)pos + dim * i,
                                       (float)r, (uint32_t)i, &l);
      total += (long long)l.len;
    }
    drt_strand_list_free(&l);
  }
  return errors ? -1 : total;
}

static const char *mode_name(int mode) {
  return mode == DRT_SPATIAL_DENSE ? "dense"
         : mode == DRT_SPATIAL_HASH ? "hash" : "brute";
}

static int bench(size_t n, unsigned dim, bool dbl, bool hint, bool outliers,
                 double nbrs, int nthreads) {
  size_t esize = dbl ? sizeof(double) : sizeof(float);
  void *pos = malloc(n * dim * esize);
  if (!pos) return 1;
  uint64_t seed = 12345 + n + dim;
  for (size_t i = 0; i < n * dim; i++) {
    double v = (double)(rng_next(&seed) >> 11) * 0x1p-53;
    if (outliers && i / dim % 1000 == 0) v += 1e6;
    if (dbl)
      ((double *)pos)[i] = v;
    else
      ((float *)pos)[i] = (float)v;
  }
  /* about k neighbours: π r² n = k (2-D), 4/3 π r³ n = k (3-D) */
  double r = dim == 2 ? sqrt(nbrs / (PI * (double)n))
                      : cbrt(0.75 * nbrs / (PI * (double)n));
  DrtSpatialPoints p = {.dim = dim, .type = dbl ? nrrdTypeDouble
                                                : nrrdTypeFloat,
                        .count = n, .base = pos, .block_stride = dim * esize,
                        .comp_stride = esize};
  DrtSpatialOptions opt = {hint ? r : 0, false};
  DrtSpatial sp = {0};
  DrtErrors e = {0};
  double t0 = cpu_now();
  bool err = drt_spatial_build(&e, &sp, &p, &opt);
  double t_first = cpu_now() - t0, t_build = 1e30;
  for (int rep = 0; rep < 5 && !err; rep++) {
    t0 = cpu_now();
    err = drt_spatial_build(&e, &sp, &p, &opt);
    double t = cpu_now() - t0;
    if (t < t_build) t_build = t;
  }
  if (err) {
    fprintf(stderr, "%s", drt_errors_text(&e));
    return 1;
  }
  /* strands in the index's cell order: the locality a periodic spatial
   * re-sort of the strands (MDH.md §3.4) would give */
  uint32_t *order = malloc(n * sizeof *order);
  if (!order) return 1;
  drt_spatial_order(&sp, order);
  double t_q1 = 1e30, t_qn = 1e30, t_qc = 1e30;
  long long found = 0;
  for (int rep = 0; rep < 3; rep++) {
    t0 = cpu_now();
    found = queries(&sp, pos, dbl, dim, n, r, 1, NULL);
    double t = cpu_now() - t0;
    if (t < t_q1) t_q1 = t;
    t0 = cpu_now();
    long long f3 = queries(&sp, pos, dbl, dim, n, r, 1, order);
    t = cpu_now() - t0;
    if (t < t_qc) t_qc = t;
    t0 = now();
    long long f2 = queries(&sp, pos, dbl, dim, n, r, nthreads, NULL);
    t = now() - t0;
    if (t < t_qn) t_qn = t;
    if (f2 != found || f3 != found) {
      fprintf(stderr, "query rounds disagree\n");
      return 1;
    }
  }
  free(order);
  printf("| %u | %s | %zu | %s | %.1f | %.1f | %.0f | %.1f | %.0f | %.0f | "
         "%.1f | %.2f | %.1f |\n",
         dim, dbl ? "double" : "float", n, mode_name(sp.mode),
         1e3 * t_first, 1e3 * t_build, 1e9 * t_build / (double)n,
         1e3 * t_q1, 1e9 * t_q1 / (double)n, 1e9 * t_qc / (double)n,
         1e3 * t_qn,
         (double)found / (double)n, (double)drt_spatial_bytes(&sp) / n);
  drt_spatial_free(&sp);
  drt_errors_free(&e);
  free(pos);
  return 0;
}

int main(int argc, char **argv) {
  bool dbl = false, hint = true, outliers = false;
  double nbrs = 6;
  size_t ns[16], nn = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-d"))
      dbl = true;
    else if (!strcmp(argv[i], "-nohint"))
      hint = false;
    else if (!strcmp(argv[i], "-outliers"))
      outliers = true;
    else if (!strcmp(argv[i], "-nbrs") && i + 1 < argc && atof(argv[i + 1]) > 0)
      nbrs = atof(argv[++i]);
    else if (nn < 16 && atof(argv[i]) >= 1)
      ns[nn++] = (size_t)atof(argv[i]);
    else {
      fprintf(stderr, "usage: %s [-d] [-nohint] [-outliers] [-nbrs K] [N ...]\n",
              argv[0]);
      return 2;
    }
  }
  if (nn == 0) {
    ns[0] = 100000;
    ns[1] = 300000;
    ns[2] = 1000000;
    nn = 3;
  }
  int nthreads = 1;
#ifdef _OPENMP
  nthreads = omp_get_max_threads();
#endif
  printf("radius hint: %s%s; best of 5 rebuilds / 3 query rounds; one-thread "
         "times are thread CPU time\n\n", hint ? "yes" : "no",
         outliers ? "; 0.1% outliers" : "");
  printf("| dim | real | n | mode | first build ms | rebuild ms | "
         "rebuild ns/pt | n queries ms | ns/query | ns/query, cell order | "
         "n queries ms, %d threads (wall) | nbrs/query | bytes/pt |\n",
         nthreads);
  printf("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (unsigned dim = 2; dim <= 3; dim++)
    for (size_t i = 0; i < nn; i++)
      if (bench(ns[i], dim, dbl, hint, outliers, nbrs, nthreads)) return 1;
  return 0;
}
