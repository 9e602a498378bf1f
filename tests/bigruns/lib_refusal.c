/* lib_refusal.c -- a library client of tests/bigruns' grid program (built
 * with --namespace=G): create_strands of a grid far beyond memory returns
 * the memory error at once (the generated create function stops at the
 * refusal instead of walking every cell), and the world is then unusable
 * only for the strands it refused: a second world of a small grid runs.
 * Prints one line per check, "FAIL ..." for a failed one; exit status 0
 * when every check passed.
 *
 *   lib_refusal N   N x N strands (N = 2000000: 4e12 strands) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"

static int bad;

static void check(int ok, const char *what, const char *detail) {
  printf("%s %s%s%s\n", ok ? "ok" : "FAIL", what, detail ? ": " : "", detail ? detail : "");
  bad += !ok;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2000000;
  G_world_t *w = G_new_world();
  check(w && !G_init_world(w) && !G_input_set_n(w, n), "world set up", NULL);
  if (!w) return 1;
  int refused = G_create_strands(w);
  char *msg = G_get_errors(w);
  check(refused, "create_strands refuses the grid", msg);
  check(msg && strstr(msg, " strands of ") && strstr(msg, "; this process may use "),
        "the memory error", msg);
  check(G_num_strands(w) == 0, "no strand was created", NULL);
  free(msg);
  G_shutdown(w);
  /* the library is still usable */
  w = G_new_world();
  check(w && !G_init_world(w) && !G_input_set_n(w, 3) && !G_create_strands(w) && G_run(w, 0) > 0 && !G_any_errors(w),
        "a 3 x 3 grid then runs", NULL);
  if (w) G_shutdown(w);
  return bad != 0;
}
