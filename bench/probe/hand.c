/* hand.c -- hand-written C reference for the probe benchmark: value,
 * gradient (and, with bspln3, Hessian) of a 3-D float volume at an n^3
 * grid of world points, by straightforward separable convolution in float
 * (the precision of diderotc's default). Compile with -O3 -march=native;
 * add -fopenmp for the parallel variant (loop over z slices).
 *
 * usage: hand KERNEL VOL.nrrd OUTDIR [n lo step]
 *   KERNEL is bspln3 (v, g, h) or ctmr (v, g); writes OUTDIR/v.nrrd,
 *   g.nrrd (and h.nrrd) with the layout diderotc's outputs have, and prints
 *   the probing loop's wall and CPU time as "probe wall=S cpu=S". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bp_common.h"

typedef struct {
  int size[3];
  double dir[3][3]; /* dir[a] = world step of index axis a */
  double org[3];
  float *data;
} Vol;

/* Reads the raw little-endian float NRRDs gen_vol.c writes (no general
 * NRRD support: this is a benchmark, not a library). */
static int vol_load(const char *path, Vol *v) {
  FILE *f = fopen(path, "rb");
  if (!f) return perror(path), 1;
  char line[512];
  int got = 0;
  while (fgets(line, sizeof line, f) && strcmp(line, "\n") != 0) {
    if (sscanf(line, "sizes: %d %d %d", &v->size[0], &v->size[1], &v->size[2]) == 3) got |= 1;
    if (sscanf(line, "space directions: (%lf,%lf,%lf) (%lf,%lf,%lf) (%lf,%lf,%lf)", &v->dir[0][0],
               &v->dir[0][1], &v->dir[0][2], &v->dir[1][0], &v->dir[1][1], &v->dir[1][2],
               &v->dir[2][0], &v->dir[2][1], &v->dir[2][2]) == 9)
      got |= 2;
    if (sscanf(line, "space origin: (%lf,%lf,%lf)", &v->org[0], &v->org[1], &v->org[2]) == 3)
      got |= 4;
    if (strncmp(line, "type:", 5) == 0 && !strstr(line, "float")) got |= 8;
  }
  if (got != 7) return fprintf(stderr, "%s: not a gen_vol.c float volume\n", path), fclose(f), 1;
  size_t nv = (size_t)v->size[0] * v->size[1] * v->size[2];
  v->data = malloc(nv * sizeof(float));
  size_t r = v->data ? fread(v->data, sizeof(float), nv, f) : 0;
  fclose(f);
  if (r != nv) return fprintf(stderr, "%s: short data\n", path), 1;
  return 0;
}

/* Kernel weights for the 4 samples at offsets -1..2 from floor(p), t =
 * p - floor(p); w0 value, w1 first, w2 second derivative (Horner). */
static inline void bspln3_w(float t, float w0[4], float w1[4], float w2[4]) {
  float s = 1 - t;
  w0[0] = s * s * s * (1.0f / 6);
  w0[1] = (t * t * (3 * t - 6) + 4) * (1.0f / 6);
  w0[2] = (((-3 * t + 3) * t + 3) * t + 1) * (1.0f / 6);
  w0[3] = t * t * t * (1.0f / 6);
  w1[0] = -0.5f * s * s;
  w1[1] = (1.5f * t - 2) * t;
  w1[2] = (-1.5f * t + 1) * t + 0.5f;
  w1[3] = 0.5f * t * t;
  w2[0] = s;
  w2[1] = 3 * t - 2;
  w2[2] = -3 * t + 1;
  w2[3] = t;
}

static inline void ctmr_w(float t, float w0[4], float w1[4]) {
  w0[0] = ((-0.5f * t + 1) * t - 0.5f) * t;
  w0[1] = (1.5f * t - 2.5f) * t * t + 1;
  w0[2] = ((-1.5f * t + 2) * t + 0.5f) * t;
  w0[3] = (0.5f * t - 0.5f) * t * t;
  w1[0] = (-1.5f * t + 2) * t - 0.5f;
  w1[1] = (4.5f * t - 5) * t;
  w1[2] = (-4.5f * t + 4) * t + 0.5f;
  w1[3] = (1.5f * t - 1) * t;
}

typedef struct {
  int n, size[3];
  float lo, step, M[3][3], org[3];
  const float *V;
  float *ov, *og, *oh; /* outputs: value, gradient, Hessian */
} Job;

/* The probing loop; `hess` is a constant at each call, so the compiler
 * specializes it (no run-time test in the inner loops). */
static inline __attribute__((always_inline)) int probe_all(const Job *jb, const int hess) {
  const int n = jb->n, *size = jb->size, sx = size[0], sxy = size[0] * size[1];
  const float lo = jb->lo, step = jb->step, *org = jb->org, *V = jb->V;
  const float(*M)[3] = jb->M;
  float *ov = jb->ov, *og = jb->og, *oh = jb->oh;
  int outside = 0;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(+ : outside)
#endif
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        size_t id = ((size_t)k * n + j) * n + i;
        float x[3] = {lo + step * i - org[0], lo + step * j - org[1], lo + step * k - org[2]};
        float p[3], t[3];
        int b[3];
        for (int a = 0; a < 3; a++) {
          p[a] = M[a][0] * x[0] + M[a][1] * x[1] + M[a][2] * x[2];
          float fl = floorf(p[a]);
          b[a] = (int)fl - 1;
          t[a] = p[a] - fl;
        }
        if (b[0] < 0 || b[1] < 0 || b[2] < 0 || b[0] + 3 >= size[0] || b[1] + 3 >= size[1] ||
            b[2] + 3 >= size[2]) {
          outside++;
          continue;
        }
        float wx0[4], wx1[4], wx2[4], wy0[4], wy1[4], wy2[4], wz0[4], wz1[4], wz2[4];
        if (hess) {
          bspln3_w(t[0], wx0, wx1, wx2);
          bspln3_w(t[1], wy0, wy1, wy2);
          bspln3_w(t[2], wz0, wz1, wz2);
        } else {
          ctmr_w(t[0], wx0, wx1);
          ctmr_w(t[1], wy0, wy1);
          ctmr_w(t[2], wz0, wz1);
        }
        const float *base = V + (size_t)b[2] * sxy + (size_t)b[1] * sx + b[0];
        /* g[abc] = derivative of order a in x, b in y, c in z (index space) */
        float g000 = 0, g100 = 0, g010 = 0, g001 = 0;
        float g200 = 0, g110 = 0, g101 = 0, g020 = 0, g011 = 0, g002 = 0;
        for (int dz = 0; dz < 4; dz++) {
          float a00 = 0, a10 = 0, a01 = 0, a20 = 0, a11 = 0, a02 = 0;
          for (int dy = 0; dy < 4; dy++) {
            const float *row = base + dz * sxy + dy * sx;
            float r0 = 0, r1 = 0, r2 = 0;
            for (int dx = 0; dx < 4; dx++) {
              r0 += wx0[dx] * row[dx];
              r1 += wx1[dx] * row[dx];
              if (hess) r2 += wx2[dx] * row[dx];
            }
            a00 += wy0[dy] * r0;
            a10 += wy0[dy] * r1;
            a01 += wy1[dy] * r0;
            if (hess) {
              a20 += wy0[dy] * r2;
              a11 += wy1[dy] * r1;
              a02 += wy2[dy] * r0;
            }
          }
          g000 += wz0[dz] * a00;
          g100 += wz0[dz] * a10;
          g010 += wz0[dz] * a01;
          g001 += wz1[dz] * a00;
          if (hess) {
            g200 += wz0[dz] * a20;
            g110 += wz0[dz] * a11;
            g020 += wz0[dz] * a02;
            g101 += wz1[dz] * a10;
            g011 += wz1[dz] * a01;
            g002 += wz2[dz] * a00;
          }
        }
        float gi[3] = {g100, g010, g001};
        ov[id] = g000;
        for (int a = 0; a < 3; a++) og[3 * id + a] = M[0][a] * gi[0] + M[1][a] * gi[1] + M[2][a] * gi[2];
        if (hess) {
          float H[3][3] = {{g200, g110, g101}, {g110, g020, g011}, {g101, g011, g002}}, HM[3][3];
          for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) HM[r][c] = H[r][0] * M[0][c] + H[r][1] * M[1][c] + H[r][2] * M[2][c];
          for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
              oh[9 * id + 3 * r + c] = M[0][r] * HM[0][c] + M[1][r] * HM[1][c] + M[2][r] * HM[2][c];
        }
      }
  return outside;
}

static int probe_bspln3(const Job *jb) { return probe_all(jb, 1); }
static int probe_ctmr(const Job *jb) { return probe_all(jb, 0); }

int main(int argc, char **argv) {
  BpArgs args;
  int st = bp_args(argc, argv, "hand", &args);
  if (st) return st;
  Vol vol;
  if (vol_load(args.vol, &vol)) return 1;

  /* world-to-index: p = M (x - org), M = inverse of the direction matrix D
   * (columns dir[a]); world derivatives are M^T g and M^T H M. */
  double (*d)[3] = vol.dir, det, Md[3][3];
  det = d[0][0] * (d[1][1] * d[2][2] - d[2][1] * d[1][2]) - d[1][0] * (d[0][1] * d[2][2] - d[2][1] * d[0][2]) +
        d[2][0] * (d[0][1] * d[1][2] - d[1][1] * d[0][2]);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      /* inverse of D (D[r][c] = dir[c][r]) via cofactors */
      int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
      Md[r][c] = (d[c1][r1] * d[c2][r2] - d[c1][r2] * d[c2][r1]) / det;
    }
  float M[3][3], org[3] = {(float)vol.org[0], (float)vol.org[1], (float)vol.org[2]};
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) M[r][c] = (float)Md[r][c];

  BpOut o;
  if (bp_out_alloc(&args, &o)) return 1;
  Job jb = {args.n, {vol.size[0], vol.size[1], vol.size[2]}, args.lo, args.step, {{0}},
            {org[0], org[1], org[2]}, vol.data, o.v, o.g, o.h};
  memcpy(jb.M, M, sizeof M);

  double w0 = bp_now();
  clock_t c0 = clock();
  int outside = args.hess ? probe_bspln3(&jb) : probe_ctmr(&jb);
  int bad = bp_finish(&args, &o, w0, c0, outside);
  free(vol.data);
  return bad;
}
