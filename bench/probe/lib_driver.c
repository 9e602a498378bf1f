/* lib_driver.c -- times the diderotc-generated probe code through its
 * library API (doc/language.md §14): strand creation, the run and copying the
 * outputs out are timed separately, in wall and CPU time, for seq and omp
 * alike (the executables' -t reports clock(), the CPU time of all threads).
 *
 * Build against one generated library (its object already contains the
 * runtime): cc -I. -DLIB_H='"lib_bspln3.h"'
 * [-DHESS] [-DOMP -fopenmp] lib_driver.c lib_bspln3.o -lteem -lm
 * usage: lib_driver VOL.nrrd OUTDIR RES [NWORKERS]   (RES^3 points)
 *   (NWORKERS only with -DOMP) writes OUTDIR/v.nrrd, g.nrrd (h.nrrd) and prints
 *   "probe wall=S cpu=S" (all three phases) then each phase's times. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include LIB_H

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int save(Nrrd *nd, const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.nrrd", dir, name);
  int bad = nrrdSave(path, nd, NULL);
  if (bad) fprintf(stderr, "lib_driver: cannot save %s\n", path);
  return bad;
}

int main(int argc, char **argv) {
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: lib_driver VOL.nrrd OUTDIR RES [NWORKERS]\n");
    return 2;
  }
  Diderot_world_t *w = Diderot_new_world();
  if (!w || Diderot_init_world(w)) goto fail;
#ifdef OMP /* only the omp target's API has it */
  if (argc == 5 && Diderot_set_num_workers(w, (uint32_t)atoi(argv[4]))) goto fail;
#endif
  if (Diderot_input_set_by_name_vol(w, argv[1]) || Diderot_input_set_res(w, atoi(argv[3]))) goto fail;
  /* phases: strand creation (the grid of positions), the run (the probing),
   * copying the outputs out (what hand.c's stores into its arrays do) */
  double t[4], c[4];
  t[0] = now(), c[0] = (double)clock() / CLOCKS_PER_SEC;
  if (Diderot_create_strands(w)) goto fail;
  t[1] = now(), c[1] = (double)clock() / CLOCKS_PER_SEC;
  Diderot_run(w, 0);
  t[2] = now(), c[2] = (double)clock() / CLOCKS_PER_SEC;
  if (Diderot_any_errors(w)) goto fail;
  Nrrd *nv = nrrdNew(), *ng = nrrdNew(), *nh = nrrdNew();
  int bad = Diderot_output_get_v(w, nv) || Diderot_output_get_g(w, ng);
#ifdef HESS
  bad = bad || Diderot_output_get_h(w, nh);
#endif
  t[3] = now(), c[3] = (double)clock() / CLOCKS_PER_SEC;
  if (bad) goto fail;
  printf("probe wall=%f cpu=%f create wall=%f cpu=%f run wall=%f cpu=%f out wall=%f cpu=%f\n",
         t[3] - t[0], c[3] - c[0], t[1] - t[0], c[1] - c[0], t[2] - t[1], c[2] - c[1], t[3] - t[2],
         c[3] - c[2]);
  bad = save(nv, argv[2], "v") || save(ng, argv[2], "g");
#ifdef HESS
  bad = bad || save(nh, argv[2], "h");
#endif
  nrrdNuke(nv), nrrdNuke(ng), nrrdNuke(nh);
  Diderot_shutdown(w);
  return bad;
fail:
  if (w) {
    char *e = Diderot_get_errors(w);
    fprintf(stderr, "lib_driver: %s\n", e ? e : "failed");
    free(e);
  }
  return 1;
}
