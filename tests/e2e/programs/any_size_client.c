/* any_size_client.c -- the C client of the any_size e2e test: one library
 * (compiled once against proxies of other sizes), two worlds alive at once,
 * each given images of its own sizes, spacing and orientation (one image
 * from a Nrrd in memory, one by file name). Usage:
 *   client IMG1 VOL1 IMG2 VOL2
 * Writes w1-NAME.nrrd and w2-NAME.nrrd for the outputs v, g, ins and n, and
 * prints "FAIL <what>" per broken expectation; exit status 0 when all held. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include LIBH

static int nfail = 0;
#define EXPECT(c, what) do { if (!(c)) { printf("FAIL %s\n", what); nfail++; } } while (0)

static void errors(Any_world_t *w, const char *what) {
  char *e = Any_get_errors(w);
  if (e) {
    printf("FAIL %s: %s\n", what, e);
    nfail++;
  }
  free(e);
}

static Any_world_t *world(const char *img, const char *vol, bool img_from_nrrd) {
  Any_world_t *w = Any_new_world();
  EXPECT(w && !Any_init_world(w), "new and init world");
  if (!w) return NULL;
  Nrrd *n = nrrdNew();
  const char *file = img_from_nrrd ? img : vol;
  if (nrrdLoad(n, file, NULL)) {
    free(biffGetDone(NRRD));
    printf("FAIL nrrdLoad %s\n", file);
    nfail++;
  } else if (img_from_nrrd) {
    EXPECT(!Any_input_set_img(w, n), "input_set_img from a Nrrd");
    EXPECT(!Any_input_set_by_name_vol(w, vol), "input_set_by_name_vol");
  } else {
    EXPECT(!Any_input_set_by_name_img(w, img), "input_set_by_name_img");
    EXPECT(!Any_input_set_vol(w, n), "input_set_vol from a Nrrd");
  }
  nrrdNuke(n);
  errors(w, "setting the images");
  EXPECT(!Any_create_strands(w), "create_strands");
  return w;
}

static void save(Any_world_t *w, const char *tag) {
  static const char *names[] = {"v", "g", "ins", "n"};
  for (int i = 0; i < 4; i++) {
    Nrrd *n = nrrdNew();
    bool bad = i == 0   ? Any_output_get_v(w, n)
               : i == 1 ? Any_output_get_g(w, n)
               : i == 2 ? Any_output_get_ins(w, n)
                        : Any_output_get_n(w, n);
    char f[64];
    snprintf(f, sizeof f, "%s-%s.nrrd", tag, names[i]);
    EXPECT(!bad, names[i]);
    if (!bad && nrrdSave(f, n, NULL)) {
      free(biffGetDone(NRRD));
      printf("FAIL nrrdSave %s\n", f);
      nfail++;
    }
    nrrdNuke(n);
  }
  errors(w, tag);
}

int main(int argc, char **argv) {
  if (argc != 5) return 2;
  Any_world_t *w1 = world(argv[1], argv[2], true), *w2 = world(argv[3], argv[4], false);
  if (!w1 || !w2) return 1;
  EXPECT(Any_run(w1, 0) > 0, "run world 1");
  EXPECT(Any_run(w2, 0) > 0, "run world 2");
  save(w1, "w1");
  save(w2, "w2");
  Any_shutdown(w1);
  Any_shutdown(w2);
  return nfail ? 1 : 0;
}
