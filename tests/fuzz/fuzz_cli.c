/* fuzz_cli.c -- libFuzzer entry: the hest-style command line of a
 * generated executable (rt_cli.c) on any words.
 *
 * The input is split at NUL bytes into argv[1..]; the option table is a
 * generated program's: the standard options (with -n and the snapshot
 * ones) and inputs of every kind (a required image file, a 2-vector, a
 * real, an int, a bool, a string, a 64-bit int, a 3x3 tensor, an output).
 * Every command line must end in OK (with every value set), help or an
 * error message, never a crash, leak or sanitizer report. Usage and
 * messages go to /dev/null.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diderot_rt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_WORDS = 64 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static FILE *sink;
  if (!sink) sink = fopen("/dev/null", "w");
  if (size > 4096) return 0;
  char *buf = malloc(size + 1);
  if (!buf) return 0;
  memcpy(buf, data, size);
  buf[size] = '\0';
  const char *argv[MAX_WORDS + 2] = {"prog"};
  int argc = 1;
  for (size_t i = 0; i <= size && argc <= MAX_WORDS; i++) {
    argv[argc++] = buf + i;
    i += strlen(buf + i);
  }
  if (size == 0) argc = 1;
  struct {
    DrtStdOptions so;
    const char *img, *name, *out, *sp;
    float cent[2], m[9];
    double iso;
    int32_t niter;
    int64_t big;
    bool flag, img_given;
  } v;
  memset(&v, 0, sizeof v);
  DrtOption tab[DRT_CLI_MAX_STD + 12];
  unsigned n = drt_cli_std_options(tab, &v.so, DRT_CLI_PARALLEL | DRT_CLI_SNAPSHOT);
  tab[n++] = (DrtOption){"img", DRT_OPT_FILE, 1, "input image", NULL, true, &v.img, &v.img_given};
  tab[n++] = (DrtOption){"cent", DRT_OPT_FLOAT, 2, "centre", "290 414", false, v.cent, NULL};
  tab[n++] = (DrtOption){"iso", DRT_OPT_DOUBLE, 1, "isovalue", "0.5", false, &v.iso, NULL};
  tab[n++] = (DrtOption){"niter", DRT_OPT_INT, 1, "iterations", "10", false, &v.niter, NULL};
  tab[n++] = (DrtOption){"flag", DRT_OPT_BOOL, 1, "a switch", "false", false, &v.flag, NULL};
  tab[n++] = (DrtOption){"name", DRT_OPT_STRING, 1, "a name", "hello  world", false, &v.name, NULL};
  tab[n++] = (DrtOption){"big", DRT_OPT_LONG, 1, NULL, NULL, false, &v.big, NULL};
  tab[n++] = (DrtOption){"m", DRT_OPT_FLOAT, 9, "a matrix", "1 0 0 0 1 0 0 0 1", false, v.m, NULL};
  tab[n++] = (DrtOption){"o,output", DRT_OPT_FILE, 1, "output file", "out.nrrd", false, &v.out, NULL};
  tab[n++] = (DrtOption){"sp,snapshot-prefix", DRT_OPT_FILE, 1, "prefix", "out", false, &v.sp, NULL};
  DrtCli cli = {"prog", "a fuzzed program", tab, n, NULL};
  int r = drt_cli_parse(&cli, argc, argv, sink, sink);
  if (r == DRT_CLI_OK && (!v.img || !v.out || !v.img_given)) abort(); /* required, defaulted */
  if (r == DRT_CLI_OK && (strlen(v.img) + strlen(v.out) + (v.name ? strlen(v.name) : 0)) > size + 64)
    abort();
  drt_cli_free(&cli);
  free(buf);
  return 0;
}
