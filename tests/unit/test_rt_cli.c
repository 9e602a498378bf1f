/* test_rt_cli.c -- the generated executable's command line (LANGUAGE.md §7.2).
 *
 * Command lines are parsed from arrays; usage and error text are captured
 * with memory streams. Expected behaviour is §7.2's: hest-style names
 * ("a,bb" is -a/--bb, "xyz" is -xyz), N words for a tensor, defaults shown
 * in the usage, required inputs, -h/--help exit 0, bad command lines exit
 * 2 with a message and the usage on stderr.
 */
#include <stdlib.h>

#include "diderot_rt.h"
#include "unit.h"

typedef struct Vals {
  DrtStdOptions so;
  const char *img, *name, *out;
  float cent[2];
  double iso;
  int32_t niter;
  bool flag, img_given, cent_given;
  int64_t big;
} Vals;

typedef struct Run {
  int r;
  char *out, *err;
  size_t nout, nerr;
} Run;

static DrtOption tab[32];

static unsigned make_table(Vals *v, unsigned features) {
  memset(v, 0, sizeof *v);
  v->big = 77; /* no default text: the value in dest is kept */
  unsigned n = drt_cli_std_options(tab, &v->so, features);
  tab[n++] = (DrtOption){"img", DRT_OPT_FILE, 1, "input image", NULL, true, &v->img,
                         &v->img_given};
  tab[n++] = (DrtOption){"cent", DRT_OPT_FLOAT, 2, "centre of the view", "290 414", false,
                         v->cent, &v->cent_given};
  tab[n++] = (DrtOption){"iso", DRT_OPT_DOUBLE, 1, "isovalue", "0.5", false, &v->iso, NULL};
  tab[n++] = (DrtOption){"niter", DRT_OPT_INT, 1, "iterations", "10", false, &v->niter, NULL};
  tab[n++] = (DrtOption){"flag", DRT_OPT_BOOL, 1, "a switch", "false", false, &v->flag, NULL};
  tab[n++] = (DrtOption){"name", DRT_OPT_STRING, 1, "a name", "hello world", false, &v->name,
                         NULL};
  tab[n++] = (DrtOption){"big", DRT_OPT_LONG, 1, NULL, NULL, false, &v->big, NULL};
  tab[n++] = (DrtOption){"o,output", DRT_OPT_FILE, 1, "output file", "out.nrrd", false,
                         &v->out, NULL};
  return n;
}

static Run run(unsigned nopts, int argc, const char *const *argv) {
  DrtCli cli = {"prog", "a test program", tab, nopts};
  Run r = {0, NULL, NULL, 0, 0};
  FILE *out = open_memstream(&r.out, &r.nout);
  FILE *err = open_memstream(&r.err, &r.nerr);
  r.r = drt_cli_parse(&cli, argc, argv, out, err);
  fclose(out);
  fclose(err);
  return r;
}

static void run_free(Run *r) {
  free(r->out);
  free(r->err);
}

#define ARGV(...) (const char *const[]){"prog", __VA_ARGS__}
#define NARGS(...) (int)(sizeof((const char *const[]){"prog", __VA_ARGS__}) / sizeof(char *))
#define PARSE(n, ...) run(n, NARGS(__VA_ARGS__), ARGV(__VA_ARGS__))

/* A bad command line: status 2, the message, then the usage, on stderr. */
static void expect_error(unsigned n, Run r, const char *msg) {
  CHECK(r.r == DRT_CLI_ERROR && drt_cli_exit_status(r.r) == 2);
  CHECK(r.nout == 0);
  char want[256];
  snprintf(want, sizeof want, "prog: %s\nUsage: prog ", msg);
  CHECK_MSG(strncmp(r.err, want, strlen(want)) == 0, "stderr: %s", r.err);
  (void)n;
  run_free(&r);
}

static void test_good(void) {
  Vals v;
  unsigned n = make_table(&v, 0);
  Run r = PARSE(n, "-img", "x.nrrd", "-cent", "-1.5", "2", "-l", "100", "-v", "-flag",
                "true", "-niter", "-3", "--output", "o.nrrd", "-big", "-9000000000");
  CHECK_MSG(r.r == DRT_CLI_OK, "%s", r.err);
  CHECK(r.nout == 0 && r.nerr == 0);
  CHECK_STR(v.img, "x.nrrd");
  CHECK(v.img_given && v.cent_given);
  CHECK(v.cent[0] == -1.5f && v.cent[1] == 2.0f);
  CHECK(v.so.limit == 100 && v.so.verbose && !v.so.timing);
  CHECK_STR(v.so.print_file, "-");
  CHECK(v.flag && v.niter == -3 && v.iso == 0.5);
  CHECK_STR(v.out, "o.nrrd");
  CHECK_STR(v.name, "hello world");
  CHECK(v.big == -9000000000LL);
  run_free(&r);

  /* only the required input: every default */
  n = make_table(&v, 0);
  v.so.verbose = true; /* flags are reset when absent */
  r = PARSE(n, "-img", "y.nrrd");
  CHECK_MSG(r.r == DRT_CLI_OK, "%s", r.err);
  CHECK(!v.cent_given && v.img_given);
  CHECK(v.cent[0] == 290.0f && v.cent[1] == 414.0f && v.iso == 0.5 && v.niter == 10);
  CHECK(!v.flag && !v.so.verbose && v.so.limit == 0 && v.big == 77);
  CHECK_STR(v.out, "out.nrrd");
  CHECK_STR(v.so.print_file, "-");
  run_free(&r);

  /* long forms, boolean spellings */
  n = make_table(&v, 0);
  r = PARSE(n, "--limit", "7", "-img", "z", "-o", "a.nrrd", "--timing", "-flag", "YES",
            "-print", "p.txt", "--verbose");
  CHECK_MSG(r.r == DRT_CLI_OK, "%s", r.err);
  CHECK(v.so.limit == 7 && v.so.timing && v.so.verbose && v.flag);
  CHECK_STR(v.out, "a.nrrd");
  CHECK_STR(v.so.print_file, "p.txt");
  run_free(&r);
  n = make_table(&v, 0);
  r = PARSE(n, "-img", "z", "-flag", "0");
  CHECK(r.r == DRT_CLI_OK && !v.flag);
  run_free(&r);

  /* names of any length (-o-NAME for a long output name) */
  {
    const char *o1 = NULL;
    static const char longname[] =
        "o-anOutputVariableWithAVeryLongNameIndeedLongerThanSixtyFourCharacters,"
        "output-anOutputVariableWithAVeryLongNameIndeedLongerThanSixtyFourCharacters";
    n = make_table(&v, 0);
    tab[n++] = (DrtOption){longname, DRT_OPT_FILE, 1, "out", "x.nrrd", false, &o1, NULL};
    r = PARSE(n, "-img", "z",
              "--output-anOutputVariableWithAVeryLongNameIndeedLongerThanSixtyFourCharacters",
              "f.nrrd");
    CHECK_MSG(r.r == DRT_CLI_OK, "%s", r.err);
    CHECK_STR(o1, "f.nrrd");
    run_free(&r);
    r = PARSE(n, "-img", "z", "-o-anOutputVariableWithAVeryLongNameIndeedLongerThanSixty",
              "f.nrrd");
    CHECK(r.r == DRT_CLI_ERROR);
    run_free(&r);
    r = PARSE(n, "--help");
    CHECK(r.r == DRT_CLI_HELP && r.out &&
          strstr(r.out, "  -o-anOutputVariableWithAVeryLongNameIndeedLongerThanSixtyFour"
                        "Characters <file>, --output-anOutputVariableWithAVeryLongName"
                        "IndeedLongerThanSixtyFourCharacters <file>\n"));
    run_free(&r);
  }

  /* parallel + snapshot options */
  n = make_table(&v, DRT_CLI_PARALLEL | DRT_CLI_SNAPSHOT);
  CHECK(n == DRT_CLI_MAX_STD + 8);
  r = PARSE(n, "-img", "z", "-s", "5", "--nworkers", "4");
  CHECK_MSG(r.r == DRT_CLI_OK, "%s", r.err);
  CHECK(v.so.snapshot == 5 && v.so.nworkers == 4);
  run_free(&r);
  n = make_table(&v, DRT_CLI_SNAPSHOT);
  r = PARSE(n, "-img", "z");
  CHECK(r.r == DRT_CLI_OK && v.so.snapshot == 0); /* §10 Q13: default 0 */
  run_free(&r);
  /* without the feature, -s is unknown */
  n = make_table(&v, 0);
  expect_error(n, PARSE(n, "-img", "z", "-s", "5"), "unknown option '-s'");
}

static void test_bad(void) {
  Vals v;
  unsigned n = make_table(&v, 0);
  expect_error(n, PARSE(n, "-img", "x", "-foo"), "unknown option '-foo'");
  expect_error(n, PARSE(n, "-img", "x", "stray"), "unexpected argument 'stray'");
  expect_error(n, PARSE(n, "-img", "x", "-niter", "1.5"),
               "option '-niter': bad value '1.5' (expected a 32-bit integer)");
  expect_error(n, PARSE(n, "-img", "x", "-niter", "3000000000"),
               "option '-niter': bad value '3000000000' (expected a 32-bit integer)");
  expect_error(n, PARSE(n, "-img", "x", "-iso"), "option '-iso' needs a value");
  expect_error(n, PARSE(n, "-img", "x", "-cent", "1", "-v"),
               "option '-cent' needs 2 values, got 1");
  expect_error(n, PARSE(n, "-cent", "1", "2"), "missing required option '-img'");
  expect_error(n, PARSE(n, "-img", "x", "-l", "1", "--limit", "2"),
               "option '--limit' given more than once");
  expect_error(n, PARSE(n, "-img", "x", "-l", "-1"),
               "option '-l': bad value '-1' (expected a non-negative integer)");
  expect_error(n, PARSE(n, "-img", "x", "-flag", "maybe"),
               "option '-flag': bad value 'maybe' (expected true or false)");
  expect_error(n, PARSE(n, "-img", "x", "-cent", "1e39", "0"),
               "option '-cent': bad value '1e39' (expected a number)");
  expect_error(n, PARSE(n, "-img", "x", "-iso", "abc"),
               "option '-iso': bad value 'abc' (expected a number)");
  expect_error(n, PARSE(n, "-img"), "option '-img' needs a value");
  expect_error(n, PARSE(n, "-limit", "3", "-img", "x"), "unknown option '-limit'");
  /* 1e39 overflows float but not double */
  Run r = PARSE(n, "-img", "x", "-iso", "1e39");
  CHECK(r.r == DRT_CLI_OK && v.iso == 1e39);
  run_free(&r);
  /* a bad default in the table is reported, not ignored */
  n = make_table(&v, 0);
  tab[n++] = (DrtOption){"bad", DRT_OPT_INT, 2, "x", "1", false, &v.niter, NULL};
  expect_error(n, PARSE(n, "-img", "x"), "option '-bad': bad default '1' (internal error)");
}

static void test_usage(void) {
  Vals v;
  unsigned n = make_table(&v, 0);
  Run r = PARSE(n, "-img", "x", "-h");
  CHECK(r.r == DRT_CLI_HELP && drt_cli_exit_status(r.r) == 0);
  CHECK(r.nerr == 0);
  const char *want[] = {
      "prog: a test program\nUsage: prog [-h] [-l <N>] [-print <file>] [-v] [-t] -img <file>",
      "  -h, --help\n      print this usage and exit\n",
      "  -l <N>, --limit <N>\n      super-step limit (0 = unlimited) (default: 0)\n",
      "  -print <file>\n      where print output goes (- is stdout) (default: \"-\")\n",
      "  -v, --verbose\n      runtime messages on stderr\n",
      "  -img <file>\n      input image (required)\n",
      "  -cent <real real>\n      centre of the view (default: 290 414)\n",
      "  -flag <bool>\n      a switch (default: false)\n",
      "  -name <string>\n      a name (default: \"hello world\")\n",
      "  -big <int>\n  -o <file>",
      "  -o <file>, --output <file>\n      output file (default: \"out.nrrd\")\n",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    CHECK_MSG(r.out && strstr(r.out, want[i]), "missing:\n%s\nin:\n%s", want[i], r.out);
  /* the synopsis wraps under 80 columns and lists every option */
  if (r.out) {
    size_t col = 0;
    for (const char *p = r.out; *p; p++) {
      col = *p == '\n' ? 0 : col + 1;
      CHECK(col < 80);
    }
    CHECK(strstr(r.out, "[-o <file>]") && strstr(r.out, "[-big <int>]"));
  }
  run_free(&r);
  Run r2 = PARSE(n, "--help");
  CHECK(r2.r == DRT_CLI_HELP && r2.out && strstr(r2.out, "input image (required)"));
  run_free(&r2);

  /* the exact text for a tiny table */
  int32_t k = 0;
  DrtOption one[1] = {{"k", DRT_OPT_INT, 1, "a number", "3", false, &k, NULL}};
  DrtCli cli = {"tiny", NULL, one, 1};
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  drt_cli_usage(&cli, NULL, f, true);
  fclose(f);
  CHECK_STR(buf, "Usage: tiny [-h] [-k <int>]\n\n"
                 "  -h, --help\n      print this usage and exit\n"
                 "  -k <int>\n      a number (default: 3)\n");
  free(buf);
}

/* Program inputs named like the short form of a standard option (`h`,
 * `n` with the parallel target's -n/--nworkers) take that short form; the
 * standard option keeps its long form (§7.2's names come from the program). */
static void test_shadowing(void) {
  DrtStdOptions so;
  DrtOption t2[DRT_CLI_MAX_STD + 2];
  unsigned n = drt_cli_std_options(t2, &so, DRT_CLI_PARALLEL);
  int32_t h = 0, nn = 0;
  t2[n++] = (DrtOption){"h", DRT_OPT_INT, 1, "height", "10", false, &h, NULL};
  t2[n++] = (DrtOption){"n", DRT_OPT_INT, 1, "count", "5", false, &nn, NULL};
  DrtCli cli = {"prog", NULL, t2, n};
  char *o = NULL, *e = NULL;
  size_t no = 0, ne = 0;
  FILE *out = open_memstream(&o, &no), *err = open_memstream(&e, &ne);
  const char *argv[] = {"prog", "-h", "7", "-n", "250", "--nworkers", "4"};
  CHECK(drt_cli_parse(&cli, 7, argv, out, err) == DRT_CLI_OK);
  CHECK(h == 7 && nn == 250 && so.nworkers == 4);
  const char *help[] = {"prog", "--help"};
  CHECK(drt_cli_parse(&cli, 2, help, out, err) == DRT_CLI_HELP);
  fclose(out);
  fclose(err);
  CHECK_MSG(o && strstr(o, "Usage: prog [--help] ") && strstr(o, "\n  --help\n") &&
                strstr(o, "\n  --nworkers <N>\n") && strstr(o, "\n  -h <int>\n") &&
                strstr(o, "\n  -n <int>\n") && !strstr(o, "-n <N>"),
            "usage with shadowed short names: %s", o ? o : "");
  free(o);
  free(e);
}

int main(void) {
  test_good();
  test_bad();
  test_usage();
  test_shadowing();
  return unit_finish("rt_cli");
}
