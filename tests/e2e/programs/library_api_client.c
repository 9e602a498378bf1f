/* library_api_client.c -- the C client of the library_api e2e test:
 * library_api.py compiles it with -DLIBH='"NAME.h"' and -DREAL (float or
 * double), links it with NAME.o or NAME.so, and runs it with the names of
 * an image and a sequence file. It drives the generated library through
 * the API of doc/language.md §14 and doc/diderot-api.3 (stage order, errors, inputs from files and
 * from Nrrds, a required input, runs of N steps and to the end) and writes
 * the outputs with nrrdSave. Prints "FAIL <what>" per broken expectation;
 * exit status 0 when all held. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include LIBH

#ifndef REAL
#define REAL float
#endif

static int nfail = 0;
#define EXPECT(c, what) do { if (!(c)) { printf("FAIL %s\n", what); nfail++; } } while (0)

/* The accumulated errors, checked to mention `needle`, then freed. */
static void errors_mention(Lib_world_t *w, const char *needle, const char *what) {
  char *e = Lib_get_errors(w);
  if (!e || !strstr(e, needle)) {
    printf("FAIL %s: errors %s do not mention '%s'\n", what, e ? e : "(none)", needle);
    nfail++;
  }
  free(e);
}

int main(int argc, char **argv) {
  (void)argc;
  const char *img2 = argv[1], *xs2 = argv[2];
  Lib_world_t *w = Lib_new_world();
  EXPECT(w != NULL, "new_world");
  if (!w) return 1;
  /* out of order: run and create_strands before init_world */
  EXPECT(Lib_run(w, 1) == 0 && Lib_any_errors(w), "run before init_world is an error");
  free(Lib_get_errors(w));
  EXPECT(Lib_create_strands(w), "create_strands before init_world is an error");
  free(Lib_get_errors(w));
  EXPECT(!Lib_init_world(w), "init_world");
  EXPECT(Lib_init_world(w), "a second init_world is an error");
  free(Lib_get_errors(w));
  EXPECT(!Lib_any_errors(w), "get_errors clears the errors");
  /* descriptions and defaults */
  EXPECT(Lib_input_desc_n && strstr(Lib_input_desc_n, "number of strands"), "input_desc_n");
  REAL pos[2] = {7, 7};
  Lib_input_get_pos(w, pos);
  EXPECT(pos[0] == 0 && pos[1] == 0, "input_get_pos gives the default");
  /* a bad file: an error naming the file; the input keeps working */
  EXPECT(Lib_input_set_by_name_img(w, "no-such-image.nrrd"), "set_by_name of a missing file fails");
  errors_mention(w, "no-such-image.nrrd", "set_by_name of a missing file");
  /* an image from a file name, a sequence from a Nrrd in memory */
  EXPECT(!Lib_input_set_by_name_img(w, img2), "input_set_by_name_img");
  Nrrd *nx = nrrdNew();
  if (nrrdLoad(nx, xs2, NULL)) { free(biffGetDone(NRRD)); printf("FAIL nrrdLoad %s\n", xs2); nfail++; }
  EXPECT(!Lib_input_set_xs(w, nx), "input_set_xs from a Nrrd");
  nrrdNuke(nx);
  Nrrd *bad = nrrdNew(); /* a 2-D Nrrd for a real[] sequence: refused */
  size_t bsz[2] = {2, 2};
  if (nrrdMaybeAlloc_nva(bad, nrrdTypeFloat, 2, bsz)) { free(biffGetDone(NRRD)); }
  EXPECT(Lib_input_set_xs(w, bad), "input_set_xs with a 2-D Nrrd fails");
  errors_mention(w, "xs", "input_set_xs with a 2-D Nrrd");
  nrrdNuke(bad);
  /* n has no default: create_strands reports it */
  EXPECT(Lib_create_strands(w), "create_strands without n is an error");
  errors_mention(w, "n", "create_strands without n");
  Lib_shutdown(w);

  /* a fresh world for the run */
  w = Lib_new_world();
  EXPECT(w && !Lib_init_world(w), "second world: init_world");
  if (!w) return 1;
  EXPECT(!Lib_input_set_by_name_img(w, img2), "second world: input_set_by_name_img");
  EXPECT(!Lib_input_set_by_name_xs(w, xs2), "second world: input_set_by_name_xs");
  EXPECT(!Lib_input_set_n(w, 5), "input_set_n");
  REAL p2[2] = {(REAL)1.5, (REAL)0.5};
  EXPECT(!Lib_input_set_pos(w, p2), "input_set_pos");
  EXPECT(!Lib_create_strands(w), "create_strands");
  EXPECT(Lib_num_active_strands(w) == 5 && Lib_num_strands(w) == 5, "5 active strands");
  EXPECT(Lib_run(w, 2) == 2, "run(2) takes 2 steps");
  EXPECT(Lib_num_stable_strands(w) == 2 && Lib_num_active_strands(w) == 3, "2 stable after 2 steps");
  EXPECT(Lib_run(w, 0) == 3, "run(0) takes the 3 remaining steps");
  EXPECT(Lib_num_stable_strands(w) == 5 && Lib_num_active_strands(w) == 0, "all stable");
  EXPECT(Lib_run(w, 0) == 0, "run after the end takes no step");
  Nrrd *nv = nrrdNew(), *nlen = nrrdNew(), *ndata = nrrdNew();
  EXPECT(!Lib_output_get_v(w, nv), "output_get_v");
  EXPECT(!Lib_output_get_ws(w, nlen, ndata), "output_get_ws");
  if (nrrdSave("v.nrrd", nv, NULL) || nrrdSave("ws-len.nrrd", nlen, NULL) ||
      nrrdSave("ws-data.nrrd", ndata, NULL)) {
    free(biffGetDone(NRRD));
    printf("FAIL nrrdSave\n");
    nfail++;
  }
  nrrdNuke(nv);
  nrrdNuke(nlen);
  nrrdNuke(ndata);
  EXPECT(!Lib_any_errors(w), "no errors after the run");
  Lib_shutdown(w);
  printf("%d failures\n", nfail);
  return nfail ? 1 : 0;
}
