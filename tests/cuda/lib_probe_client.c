/* lib_probe_client.c -- the C client of the cuda/lib/lib_probe test
 * (tests/run.py): compiled with -DLIBH='"NAME.h"' and -DREAL (float or
 * double) against the library that diderotc built from lib_probe.diderot
 * (CUDA target in emulation, or with nvcc, or the C target), linked with
 * it, and run in an empty directory. It drives the library API of
 * doc/language.md §14 (doc/diderot-api.3): errors before the inputs are set, the image from a
 * Nrrd made in memory (no file), scalar and vector inputs, runs of 1 step
 * and to the end with the strand counts after each, and the outputs,
 * saved as v.nrrd, g.nrrd and steps.nrrd for the oracle. Prints
 * "FAIL <what>" per broken expectation; exit status 0 when all held. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include LIBH

#ifndef REAL
#define REAL float
#endif

/* the image: IMG_X x IMG_Y samples, value 2x + y at index (x, y) */
#define IMG_X 8
#define IMG_Y 6

static int nfail = 0;
#define EXPECT(c, what) do { if (!(c)) { printf("FAIL %s\n", what); nfail++; } } while (0)

/* A float image with identity orientation, built in memory. */
static Nrrd *make_image(void) {
  Nrrd *nin = nrrdNew();
  if (nrrdAlloc_va(nin, nrrdTypeFloat, 2, (size_t)IMG_X, (size_t)IMG_Y)) {
    free(biffGetDone(NRRD));
    nrrdNuke(nin);
    return NULL;
  }
  float *d = (float *)nin->data;
  for (int y = 0; y < IMG_Y; y++)
    for (int x = 0; x < IMG_X; x++) d[x + IMG_X * y] = (float)(2 * x + y);
  double dirs[2][NRRD_SPACE_DIM_MAX] = {{1, 0}, {0, 1}};
  double origin[2] = {0, 0};
  nrrdSpaceDimensionSet(nin, 2);
  nrrdSpaceOriginSet(nin, origin);
  nrrdAxisInfoSet_va(nin, nrrdAxisInfoSpaceDirection, dirs[0], dirs[1]);
  nrrdAxisInfoSet_va(nin, nrrdAxisInfoKind, nrrdKindSpace, nrrdKindSpace);
  return nin;
}

/* The accumulated errors must mention `needle`; they are freed. */
static void errors_mention(Lib_world_t *w, const char *needle, const char *what) {
  char *e = Lib_get_errors(w);
  if (!e || !strstr(e, needle)) {
    printf("FAIL %s: errors %s do not mention '%s'\n", what, e ? e : "(none)", needle);
    nfail++;
  }
  free(e);
}

static void save(Nrrd *n, const char *file) {
  if (nrrdSave(file, n, NULL)) {
    free(biffGetDone(NRRD));
    printf("FAIL nrrdSave %s\n", file);
    nfail++;
  }
}

int main(void) {
  Nrrd *img = make_image();
  EXPECT(img != NULL, "making the image");
  if (!img) return 1;

  /* a world whose required inputs are never set */
  Lib_world_t *w = Lib_new_world();
  EXPECT(w && !Lib_init_world(w), "first world: init_world");
  if (!w) return 1;
  EXPECT(Lib_input_desc_n && strstr(Lib_input_desc_n, "strands per side"), "input_desc_n");
  REAL h = 7;
  Lib_input_get_h(w, &h);
  EXPECT(h == (REAL)0.25, "input_get_h gives the default");
  EXPECT(!Lib_input_set_img(w, img), "first world: input_set_img");
  EXPECT(Lib_create_strands(w), "create_strands without n is an error");
  errors_mention(w, "n", "create_strands without n");
  Lib_shutdown(w);

  /* the run */
  w = Lib_new_world();
  EXPECT(w && !Lib_init_world(w), "init_world");
  if (!w) return 1;
  EXPECT(!Lib_input_set_img(w, img), "input_set_img");
  EXPECT(!Lib_input_set_n(w, 3), "input_set_n");
  EXPECT(!Lib_input_set_h(w, (REAL)0.5), "input_set_h");
  REAL org[2] = {7, 7};
  Lib_input_get_org(w, org);
  EXPECT(org[0] == 1 && org[1] == 1, "input_get_org gives the default");
  EXPECT(!Lib_create_strands(w), "create_strands");
  EXPECT(Lib_num_strands(w) == 9 && Lib_num_active_strands(w) == 9, "9 active strands");
  /* strand (i, j) stabilizes in step i + j + 1 */
  EXPECT(Lib_run(w, 1) == 1, "run(1) takes 1 step");
  EXPECT(Lib_num_stable_strands(w) == 1 && Lib_num_active_strands(w) == 8, "1 stable after 1 step");
  EXPECT(Lib_run(w, 2) == 2, "run(2) takes 2 steps");
  EXPECT(Lib_num_stable_strands(w) == 6 && Lib_num_active_strands(w) == 3, "6 stable after 3 steps");
  EXPECT(Lib_run(w, 0) == 2, "run(0) takes the 2 remaining steps");
  EXPECT(Lib_num_stable_strands(w) == 9 && Lib_num_active_strands(w) == 0, "all stable");
  EXPECT(Lib_run(w, 0) == 0, "run after the end takes no step");
  Nrrd *nv = nrrdNew(), *ng = nrrdNew(), *ns = nrrdNew();
  EXPECT(!Lib_output_get_v(w, nv), "output_get_v");
  EXPECT(!Lib_output_get_g(w, ng), "output_get_g");
  EXPECT(!Lib_output_get_steps(w, ns), "output_get_steps");
  save(nv, "v.nrrd");
  save(ng, "g.nrrd");
  save(ns, "steps.nrrd");
  nrrdNuke(nv);
  nrrdNuke(ng);
  nrrdNuke(ns);
  EXPECT(!Lib_any_errors(w), "no errors after the run");
  Lib_shutdown(w);
  nrrdNuke(img);
  printf("%d failures\n", nfail);
  return nfail ? 1 : 0;
}
