/* gage_probe.c -- Teem's gage on the probe benchmark: the same n^3 world
 * points as probe_*.diderot and hand.c, probed with gageProbeSpace; only the
 * probing loop is timed (gage computes in double).
 *
 * usage: gage_probe KERNEL VOL.nrrd OUTDIR [n lo step]
 *   KERNEL is bspln3 (value, gradient, Hessian) or ctmr (value, gradient);
 *   writes OUTDIR/v.nrrd, g.nrrd (and h.nrrd) as float, like hand.c, and
 *   prints "probe wall=S cpu=S". Link: -lteem (Debian libteem-dev). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <teem/gage.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int save(const char *dir, const char *name, const float *d, int comp, const char *kind,
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

static int fail(const char *what) {
  char *err = biffGetDone(GAGE);
  fprintf(stderr, "gage_probe: %s: %s\n", what, err ? err : "(no message)");
  free(err);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 4 && argc != 7) {
    fprintf(stderr, "usage: gage_probe bspln3|ctmr VOL.nrrd OUTDIR [n lo step]\n");
    return 2;
  }
  int hess = strcmp(argv[1], "bspln3") == 0;
  if (!hess && strcmp(argv[1], "ctmr") != 0) return fprintf(stderr, "gage_probe: unknown kernel\n"), 2;
  int n = argc == 7 ? atoi(argv[4]) : 100;
  float lo = argc == 7 ? (float)atof(argv[5]) : -0.96875f;
  float step = argc == 7 ? (float)atof(argv[6]) : 0.01953125f;
  if (n < 1 || n > 2000) return fprintf(stderr, "gage_probe: bad n\n"), 2;

  Nrrd *nin = nrrdNew();
  if (nrrdLoad(nin, argv[2], NULL)) {
    char *err = biffGetDone(NRRD);
    fprintf(stderr, "gage_probe: %s", err);
    free(err);
    return 1;
  }
  double kparm[NRRD_KERNEL_PARMS_NUM] = {1.0, 0.0, 0.5}; /* ignored by these kernels */
  gageContext *ctx = gageContextNew();
  gagePerVolume *pvl = gagePerVolumeNew(ctx, nin, gageKindScl);
  if (!pvl || gagePerVolumeAttach(ctx, pvl)) return fail("volume");
  const NrrdKernel *k0 = hess ? nrrdKernelBSpline3 : nrrdKernelCatmullRom;
  const NrrdKernel *k1 = hess ? nrrdKernelBSpline3D : nrrdKernelCatmullRomD;
  if (gageKernelSet(ctx, gageKernel00, k0, kparm) || gageKernelSet(ctx, gageKernel11, k1, kparm) ||
      (hess && gageKernelSet(ctx, gageKernel22, nrrdKernelBSpline3DD, kparm)))
    return fail("kernels");
  if (gageQueryItemOn(ctx, pvl, gageSclValue) || gageQueryItemOn(ctx, pvl, gageSclGradVec) ||
      (hess && gageQueryItemOn(ctx, pvl, gageSclHessian)))
    return fail("query");
  if (gageUpdate(ctx)) return fail("update");
  const double *av = gageAnswerPointer(ctx, pvl, gageSclValue);
  const double *ag = gageAnswerPointer(ctx, pvl, gageSclGradVec);
  const double *ah = hess ? gageAnswerPointer(ctx, pvl, gageSclHessian) : NULL;

  size_t np = (size_t)n * n * n;
  /* calloc: points outside the volume (reported) keep zeros */
  float *ov = calloc(np, sizeof(float)), *og = calloc(3 * np, sizeof(float));
  float *oh = hess ? calloc(9 * np, sizeof(float)) : NULL;
  if (!ov || !og || (hess && !oh)) return fprintf(stderr, "gage_probe: out of memory\n"), 1;
  int outside = 0;
  double w0 = now();
  clock_t c0 = clock();
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        size_t id = ((size_t)k * n + j) * n + i;
        /* the same float positions as the Diderot program and hand.c */
        float x = lo + step * i, y = lo + step * j, z = lo + step * k;
        if (gageProbeSpace(ctx, x, y, z, AIR_FALSE, AIR_FALSE)) {
          outside++;
          continue;
        }
        ov[id] = (float)av[0];
        for (int a = 0; a < 3; a++) og[3 * id + a] = (float)ag[a];
        if (hess)
          for (int a = 0; a < 9; a++) oh[9 * id + a] = (float)ah[a];
      }
  double cpu = (double)(clock() - c0) / CLOCKS_PER_SEC, wall = now() - w0;
  printf("probe wall=%f cpu=%f\n", wall, cpu);
  if (outside) fprintf(stderr, "gage_probe: %d points outside the volume\n", outside);
  int bad = save(argv[3], "v", ov, 1, NULL, n) || save(argv[3], "g", og, 3, "3-vector", n) ||
            (hess && save(argv[3], "h", oh, 9, "3D-matrix", n));
  free(ov), free(og), free(oh);
  gageContextNix(ctx);
  nrrdNuke(nin);
  return bad;
}
