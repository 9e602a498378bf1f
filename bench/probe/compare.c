/* compare.c -- max |a - b| between two raw float NRRDs of equal size (the
 * probe benchmark's outputs), relative to max(max |a|, SCALE): float
 * rounding of an index-space derivative of order k is amplified by w^k (w
 * the world-to-index scale), so run.sh passes SCALE = vmax w^k / 2 as the
 * end-to-end tests do (tests/e2e/programs/gage_3d.py).
 * usage: compare A.nrrd B.nrrd RTOL [SCALE]   (exit 1 if the relative max > RTOL) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float *load(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return perror(path), NULL;
  char line[512];
  int is_float = 0, raw = 0;
  while (fgets(line, sizeof line, f) && strcmp(line, "\n") != 0) {
    if (strncmp(line, "type:", 5) == 0) is_float = strstr(line, "float") != NULL;
    if (strncmp(line, "encoding:", 9) == 0) raw = strstr(line, "raw") != NULL;
  }
  long at = ftell(f);
  fseek(f, 0, SEEK_END);
  *n = (size_t)(ftell(f) - at) / sizeof(float);
  fseek(f, at, SEEK_SET);
  float *d = malloc(*n * sizeof(float) + 1);
  if (!is_float || !raw || !d || fread(d, sizeof(float), *n, f) != *n) {
    fprintf(stderr, "%s: not a raw float NRRD\n", path);
    fclose(f);
    free(d);
    return NULL;
  }
  fclose(f);
  return d;
}

int main(int argc, char **argv) {
  if (argc != 4 && argc != 5) return fprintf(stderr, "usage: compare A.nrrd B.nrrd RTOL [SCALE]\n"), 2;
  size_t na, nb;
  float *a = load(argv[1], &na), *b = load(argv[2], &nb);
  if (!a || !b) return free(a), free(b), 2;
  if (na != nb) return fprintf(stderr, "compare: %zu vs %zu values\n", na, nb), 1;
  double dmax = 0, amax = 0;
  for (size_t i = 0; i < na; i++) {
    double d = fabs((double)a[i] - b[i]);
    if (!(d <= dmax)) dmax = d; /* NaN sticks */
    if (fabs(a[i]) > amax) amax = fabs(a[i]);
  }
  double scale = argc == 5 ? atof(argv[4]) : 0;
  if (amax > scale) scale = amax;
  double rel = scale > 0 ? dmax / scale : dmax;
  int ok = rel <= atof(argv[3]);
  printf("%zu values, max|a| %.4g, max|a-b| %.3g, relative to %.4g: %.2g %s\n", na, amax, dmax, scale,
         rel, ok ? "ok" : "DIFFER");
  free(a), free(b);
  return !ok;
}
