/* fuzz_frontend.c -- libFuzzer entry: lex, parse and typecheck any bytes.
 *
 * The frontend must answer every input with diagnostics, never a crash,
 * leak or sanitizer report. Diagnostics go to /dev/null.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "frontend/parser.h"
#include "frontend/typecheck.h"
#include "util/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static FILE *sink;
  if (!sink) sink = fopen("/dev/null", "w");
  Arena *a = arena_new();
  Source *src = source_from_memory(a, "fuzz.diderot", (const char *)data, size);
  DiagCtx *d = diag_new(a, src);
  diag_set_stream(d, sink);
  Program *p = parse_program(a, d, src);
  if (p && diag_error_count(d) == 0) {
    /* Proxy paths resolve in a directory that holds no NRRD files, so the
     * fuzzer explores the missing-proxy error path without touching disk data. */
    TypecheckOptions opts = {.proxy_dir = "/nonexistent-proxy-dir"};
    typecheck_program(a, d, p, &opts);
  }
  diag_flush(d);
  arena_free(a);
  return 0;
}
