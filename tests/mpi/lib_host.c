/* lib_host.c -- a host program of a --target=mpi library (tests/mpi/mpi.py,
 * mpi/library): every rank makes the same calls on a world over
 * MPI_COMM_WORLD (rebalance.diderot, namespace R); then each rank writes
 * what it got for the two outputs, as text, to OUT.RANK ("v i value" and
 * "seen i value" lines, %.9g), so the test can check that every rank holds
 * every strand's result. With a third argument, "self", it then makes a
 * second world over MPI_COMM_SELF, which must be refused (one
 * communicator per process): its init's error is printed, status 3.
 * Built with mpicc against the library's object. */
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include <teem/nrrd.h>

#include "reb.h"

static int fail(R_world_t *w, const char *what) {
  char *e = w ? R_get_errors(w) : NULL;
  fprintf(stderr, "lib_host: %s failed: %s\n", what, e ? e : "(no message)");
  free(e);
  return 1;
}

static int dump(FILE *f, const char *name, R_world_t *w, bool (*get)(R_world_t *, Nrrd *)) {
  Nrrd *n = nrrdNew();
  if (get(w, n)) return fail(w, name);
  const float *v = n->data;
  for (size_t i = 0; i < n->axis[0].size; i++) fprintf(f, "%s %zu %.9g\n", name, i, (double)v[i]);
  nrrdNuke(n);
  return 0;
}

int main(int argc, char **argv) {
  int provided = 0, rank = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int st = 0;
  R_world_t *w = R_new_world_comm(MPI_COMM_WORLD);
  if (!w) st = fail(NULL, "R_new_world_comm");
  else if (R_init_world(w)) st = fail(w, "R_init_world");
  else if (R_input_set_N(w, argc > 2 ? atoi(argv[2]) : 2000)) st = fail(w, "R_input_set_N");
  else if (R_create_strands(w)) st = fail(w, "R_create_strands");
  else {
    R_run(w, 0);
    if (R_any_errors(w)) st = fail(w, "R_run");
  }
  if (!st) {
    char name[256];
    snprintf(name, sizeof name, "%s.%d", argc > 1 ? argv[1] : "out", rank);
    FILE *f = fopen(name, "w");
    if (!f) st = 1;
    else {
      st = dump(f, "v", w, R_output_get_v) || dump(f, "seen", w, R_output_get_seen);
      fclose(f);
    }
  }
  if (!st && argc > 3 && !strcmp(argv[3], "self")) {
    R_world_t *w2 = R_new_world_comm(MPI_COMM_SELF);
    if (w2 && R_init_world(w2)) {
      char *e = R_get_errors(w2);
      fprintf(stderr, "second world: %s\n", e ? e : "(no message)");
      free(e);
      st = 3;
    }
    if (w2) R_shutdown(w2);
  }
  if (w) R_shutdown(w);
  MPI_Finalize();
  return st;
}
