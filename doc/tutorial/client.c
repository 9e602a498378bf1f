/* client.c -- step 6 of doc/tutorial.md: grid.diderot used as a library.
 *   diderotc --namespace=Grid grid.diderot -o grid     (grid.h, grid.o)
 *   cc client.c grid.o -lteem -lm -o client
 * The call protocol is described in diderot-api(3). */
#include <stdio.h>
#include <stdlib.h>
#include "grid.h"

/* print the accumulated errors of the world, then give up */
static int fail(Grid_world_t *w, const char *what) {
  char *err = Grid_get_errors(w);
  fprintf(stderr, "client: %s: %s\n", what, err ? err : "(no message)");
  free(err);
  Grid_shutdown(w);
  return 1;
}

int main(void) {
  Grid_world_t *w = Grid_new_world();
  if (!w || Grid_init_world(w)) return w ? fail(w, "init_world") : 1;
  /* inputs: any that are not set keep the defaults of the program */
  if (Grid_input_set_res(w, 64) || Grid_input_set_freq(w, 2.0f)) return fail(w, "inputs");
  if (Grid_create_strands(w)) return fail(w, "create_strands");
  uint32_t steps = Grid_run(w, 0); /* 0: until no strand is active */
  if (Grid_any_errors(w)) return fail(w, "run");
  Nrrd *value = nrrdNew();
  if (Grid_output_get_value(w, value)) return fail(w, "output_get_value");
  const float *v = value->data;
  printf("%u step(s), %u strands; the value at the centre is %.3f\n", steps,
         Grid_num_strands(w), v[32 * 64 + 32]);
  if (nrrdSave("value.nrrd", value, NULL)) {
    char *e = biffGetDone(NRRD);
    fprintf(stderr, "client: %s", e);
    free(e);
  }
  nrrdNuke(value);
  Grid_shutdown(w);
  return 0;
}
