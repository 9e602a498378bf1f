/* input_default_client.c -- the library form of input_default.diderot
 * (input_default.py builds it): the image set by name, vmin set by the
 * setter before the strands are created; after Def_create_strands the
 * getters give the computed defaults. Prints "NAME values..." lines for
 * the oracle, "FAIL ..." on an error. REAL is the program's real type. */
#include <stdio.h>

#include LIBH

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  Def_world_t *w = Def_new_world();
  if (!w || Def_init_world(w)) {
    printf("FAIL init\n");
    return 1;
  }
  REAL vmin = (REAL)0.0;
  if (Def_input_set_by_name_img(w, argv[1]) || Def_input_set_vmin(w, (REAL)2.5) ||
      Def_create_strands(w)) {
    printf("FAIL %s\n", Def_get_errors(w));
    return 1;
  }
  REAL lo[2], hi[2], vmax, mid;
  int32_t nx, ny;
  Def_input_get_lo(w, lo);
  Def_input_get_hi(w, hi);
  Def_input_get_vmin(w, &vmin);
  Def_input_get_vmax(w, &vmax);
  Def_input_get_mid(w, &mid);
  Def_input_get_nx(w, &nx);
  Def_input_get_ny(w, &ny);
  printf("lo %.17g %.17g\nhi %.17g %.17g\nvmin %.17g\nvmax %.17g\nmid %.17g\nnx %d\nny %d\n",
         (double)lo[0], (double)lo[1], (double)hi[0], (double)hi[1], (double)vmin, (double)vmax,
         (double)mid, (int)nx, (int)ny);
  Def_run(w, 0);
  if (Def_any_errors(w)) {
    printf("FAIL run: %s\n", Def_get_errors(w));
    return 1;
  }
  Def_shutdown(w);
  (void)argv[2];
  return 0;
}
