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

#include "bp_common.h"

static int fail(const char *what) {
  char *err = biffGetDone(GAGE);
  fprintf(stderr, "gage_probe: %s: %s\n", what, err ? err : "(no message)");
  free(err);
  return 1;
}

int main(int argc, char **argv) {
  BpArgs args;
  int st = bp_args(argc, argv, "gage_probe", &args);
  if (st) return st;
  const int hess = args.hess, n = args.n;
  const float lo = args.lo, step = args.step;

  Nrrd *nin = nrrdNew();
  if (nrrdLoad(nin, args.vol, NULL)) {
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

  BpOut o;
  if (bp_out_alloc(&args, &o)) return 1;
  float *ov = o.v, *og = o.g, *oh = o.h;
  int outside = 0;
  double w0 = bp_now();
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
  int bad = bp_finish(&args, &o, w0, c0, outside);
  gageContextNix(ctx);
  nrrdNuke(nin);
  return bad;
}
