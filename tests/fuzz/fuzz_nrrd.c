/* fuzz_nrrd.c -- libFuzzer entry: the runtime's NRRD readers with their
 * checks (rt_image.c, rt_sequence.c, rt_nrrd_explain.c) on any bytes.
 *
 * The first byte picks what the program expects (an image of dimension
 * 1-3 with 1, 2, 3 or 9 components, a required file type or any, or a
 * dynamic sequence of int, real, bool or 3-vectors); the rest is the file,
 * read through drt_image_load_file / drt_sequence_load_file as a program
 * reads its inputs (Teem's reader, then our checks and the explanation of
 * a refusal). Every input must end in a loaded value or errors, never a
 * crash, leak, hang or sanitizer report. Inputs that name a detached data
 * file are skipped: the fuzzer would make the reader open files of this
 * machine (/dev/zero, ...), which measures nothing of ours.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <teem/nrrd.h>

#include "diderot_rt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *path(void) {
  static char p[64];
  if (!p[0]) snprintf(p, sizeof p, "/dev/shm/fuzz_nrrd-%ld.nrrd", (long)getpid());
  return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  unsigned pick = data[0];
  data++, size--;
  if (memmem(data, size, "data file", 9) || memmem(data, size, "datafile", 8)) return 0;
  FILE *f = fopen(path(), "wb");
  if (!f) return 0;
  fwrite(data, 1, size, f);
  fclose(f);
  DrtErrors e;
  drt_errors_init(&e);
  if (pick & 0x80) {
    static const int types[] = {nrrdTypeInt, nrrdTypeDouble, nrrdTypeUChar, nrrdTypeFloat};
    unsigned k = pick & 3;
    DrtSeqSpec spec = {"input 'xs'", types[k], k == 3 ? 3u : 1u, k == 2};
    DrtSequence s;
    memset(&s, 0, sizeof s);
    if (!drt_sequence_load_file(&e, &spec, path(), &s) && s.len && !s.data) abort();
    free(s.data);
  } else {
    static const unsigned comps[] = {1, 2, 3, 9};
    static const int ftypes[] = {nrrdTypeDefault, nrrdTypeFloat, nrrdTypeUChar, nrrdTypeDouble};
    DrtImageSpec spec = {"input 'img'", 1 + (pick & 3) % 3, comps[(pick >> 2) & 3],
                         ftypes[(pick >> 4) & 3], (pick & 0x40) ? nrrdTypeDouble : nrrdTypeFloat};
    DrtImage img;
    memset(&img, 0, sizeof img);
    if (!drt_image_load_file(&e, &spec, path(), &img)) {
      /* a loaded image holds what it says */
      size_t n = img.ncomp;
      for (unsigned a = 0; a < img.dim; a++) n *= (size_t)img.size[a];
      if (n != img.nelems || !img.data) abort();
    }
    drt_image_free(&img);
  }
  (void)drt_errors_text(&e);
  drt_errors_free(&e);
  return 0;
}
