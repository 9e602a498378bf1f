/* bp_common.h -- what the probe benchmark's reference programs (hand.c,
 * gage_probe.c) share: the command line, the grid of points, the output
 * arrays and how they are timed and written. Header-only (static): each
 * program is a single file compiled on its own by run.sh.
 *
 * usage: PROG KERNEL VOL.nrrd OUTDIR [n lo step]
 *   KERNEL is bspln3 (value, gradient, Hessian) or ctmr (value, gradient);
 *   the points are the n^3 world positions (lo + step*i, lo + step*j,
 *   lo + step*k) in float, as probe_*.diderot computes them (default n 100,
 *   lo -0.96875, step 0.01953125). */
#ifndef BP_COMMON_H
#define BP_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  const char *prog;   /* for messages */
  int hess;           /* bspln3 (with the Hessian) rather than ctmr */
  const char *vol, *outdir;
  int n;
  float lo, step;
} BpArgs;

/* Outputs, point id = (k*n + j)*n + i: value, gradient (3 floats) and, with
 * the Hessian, 9 floats per point. */
typedef struct {
  float *v, *g, *h;
} BpOut;

static double bp_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* 0 when the command line is good, else the exit status (after a message). */
static int bp_args(int argc, char **argv, const char *prog, BpArgs *a) {
  a->prog = prog;
  if (argc != 4 && argc != 7) {
    fprintf(stderr, "usage: %s bspln3|ctmr VOL.nrrd OUTDIR [n lo step]\n", prog);
    return 2;
  }
  a->hess = strcmp(argv[1], "bspln3") == 0;
  if (!a->hess && strcmp(argv[1], "ctmr") != 0)
    return fprintf(stderr, "%s: unknown kernel\n", prog), 2;
  a->vol = argv[2];
  a->outdir = argv[3];
  a->n = argc == 7 ? atoi(argv[4]) : 100;
  a->lo = argc == 7 ? (float)atof(argv[5]) : -0.96875f;
  a->step = argc == 7 ? (float)atof(argv[6]) : 0.01953125f;
  if (a->n < 1 || a->n > 2000) return fprintf(stderr, "%s: bad n\n", prog), 2;
  return 0;
}

/* calloc: points outside the volume (reported) keep zeros. 0 on success. */
static int bp_out_alloc(const BpArgs *a, BpOut *o) {
  size_t np = (size_t)a->n * a->n * a->n;
  o->v = calloc(np, sizeof(float));
  o->g = calloc(3 * np, sizeof(float));
  o->h = a->hess ? calloc(9 * np, sizeof(float)) : NULL;
  if (!o->v || !o->g || (a->hess && !o->h))
    return fprintf(stderr, "%s: out of memory\n", a->prog), 1;
  return 0;
}

/* Raw little-endian float NRRD, the layout diderotc's outputs have. */
static int bp_save(const char *dir, const char *name, const float *d, int comp, const char *kind,
                   int n) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.nrrd", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f) return perror(path), 1;
  if (comp == 1)
    fprintf(f, "NRRD0004\ntype: float\ndimension: 3\nsizes: %d %d %d\n", n, n, n);
  else
    fprintf(f, "NRRD0004\ntype: float\ndimension: 4\nsizes: %d %d %d %d\nkinds: %s space space space\n",
            comp, n, n, n, kind);
  fprintf(f, "endian: little\nencoding: raw\n\n");
  size_t cnt = (size_t)comp * n * n * n;
  int bad = fwrite(d, sizeof(float), cnt, f) != cnt;
  return (fclose(f) != 0) | bad;
}

/* End of the probing loop started at wall time w0 and CPU clock c0: print
 * "probe wall=S cpu=S" and the points outside the volume, write
 * OUTDIR/v.nrrd, g.nrrd (and h.nrrd), free the outputs. Nonzero if a
 * write failed. */
static int bp_finish(const BpArgs *a, BpOut *o, double w0, clock_t c0, int outside) {
  double cpu = (double)(clock() - c0) / CLOCKS_PER_SEC, wall = bp_now() - w0;
  printf("probe wall=%f cpu=%f\n", wall, cpu);
  if (outside) fprintf(stderr, "%s: %d points outside the volume\n", a->prog, outside);
  int n = a->n;
  int bad = bp_save(a->outdir, "v", o->v, 1, NULL, n) ||
            bp_save(a->outdir, "g", o->g, 3, "3-vector", n) ||
            (a->hess && bp_save(a->outdir, "h", o->h, 9, "3D-matrix", n));
  free(o->v), free(o->g), free(o->h);
  return bad;
}

#endif
