/* test_rt_cli.c -- the generated executable's command line (doc/language.md §12).
 *
 * Command lines are parsed from arrays; usage and error text are captured
 * with memory streams. Expected behaviour is that of doc/language.md §12, as Teem's hest gives
 * it: "a,bb" is -a/--bb, "xyz" is -xyz; N words for a tensor; a repeated
 * option takes its last value; defaults shown in hest's glossary; required
 * inputs; -h (usage) and --help (usage and glossary) exit 0; bad command
 * lines exit 2 with a message naming the option and the value, then the
 * usage, on stderr.
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

/* One parse: its result and text. The DrtCli stays alive (string values
 * live in it) until run_free. */
typedef struct Run {
  int r;
  char *out, *err;
  size_t nout, nerr;
  DrtCli cli;
} Run;

static DrtOption tab[32];

static unsigned make_table(Vals *v, unsigned features) {
  memset(v, 0, sizeof *v);
  v->big = 77; /* no default text: the value in dest is kept (and shown) */
  unsigned n = drt_cli_std_options(tab, &v->so, features);
  tab[n++] = (DrtOption){"img", DRT_OPT_FILE, 1, "input image", NULL, true, &v->img,
                         &v->img_given};
  tab[n++] = (DrtOption){"cent", DRT_OPT_FLOAT, 2, "centre of the view", "290 414", false,
                         v->cent, &v->cent_given};
  tab[n++] = (DrtOption){"iso", DRT_OPT_DOUBLE, 1, "isovalue", "0.5", false, &v->iso, NULL};
  tab[n++] = (DrtOption){"niter", DRT_OPT_INT, 1, "iterations", "10", false, &v->niter, NULL};
  tab[n++] = (DrtOption){"flag", DRT_OPT_BOOL, 1, "a switch", "false", false, &v->flag, NULL};
  tab[n++] = (DrtOption){"name", DRT_OPT_STRING, 1, "a name", "hello  world", false, &v->name,
                         NULL};
  tab[n++] = (DrtOption){"big", DRT_OPT_LONG, 1, NULL, NULL, false, &v->big, NULL};
  tab[n++] = (DrtOption){"o,output", DRT_OPT_FILE, 1, "output file", "out.nrrd", false,
                         &v->out, NULL};
  return n;
}

static Run run_opts(const DrtOption *opts, unsigned nopts, int argc, const char *const *argv) {
  Run r = {0, NULL, NULL, 0, 0, {"prog", "a test program", opts, nopts, NULL}};
  FILE *out = open_memstream(&r.out, &r.nout);
  FILE *err = open_memstream(&r.err, &r.nerr);
  r.r = drt_cli_parse(&r.cli, argc, argv, out, err);
  fclose(out);
  fclose(err);
  return r;
}

static Run run(unsigned nopts, int argc, const char *const *argv) {
  return run_opts(tab, nopts, argc, argv);
}

static void run_free(Run *r) {
  drt_cli_free(&r->cli);
  drt_cli_free(&r->cli); /* harmless twice */
  free(r->out);
  free(r->err);
}

/* text with every run of white space one space: the glossary's column and
 * wrapping follow its longest option (-sched-chunk <int>) */
static char *flat(const char *t) {
  char *f = malloc(strlen(t ? t : "") + 1), *q = f;
  bool sp = false;
  for (const char *p = t ? t : ""; *p; p++) {
    bool w = *p == ' ' || *p == '\n' || *p == '\t';
    if (w && sp) continue;
    *q++ = w ? ' ' : *p;
    sp = w;
  }
  *q = '\0';
  return f;
}

#define ARGV(...) (const char *const[]){"prog", __VA_ARGS__}
#define NARGS(...) (int)(sizeof((const char *const[]){"prog", __VA_ARGS__}) / sizeof(char *))
#define PARSE(n, ...) run(n, NARGS(__VA_ARGS__), ARGV(__VA_ARGS__))

/* A bad command line: status 2, "prog: MSG", then hest's usage and a hint,
 * on stderr. */
static void expect_error(Run r, const char *msg) {
  CHECK(r.r == DRT_CLI_ERROR && drt_cli_exit_status(r.r) == 2);
  CHECK(r.nout == 0);
  char want[512];
  snprintf(want, sizeof want, "prog: %s\n\nUsage: prog ", msg);
  CHECK_MSG(r.err && strncmp(r.err, want, strlen(want)) == 0, "want:\n%s\nstderr:\n%s", want,
            r.err);
  CHECK_MSG(r.err && strstr(r.err, "\nUse 'prog --help' for a description of every option.\n"),
            "stderr: %s", r.err);
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
  CHECK_STR(v.name, "hello  world"); /* the default text itself, spaces and all */
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

  /* long forms, boolean spellings (hest's: airBool), a value "-" */
  n = make_table(&v, 0);
  r = PARSE(n, "--limit", "7", "-img", "z", "-o", "a.nrrd", "--timing", "-flag", "YES",
            "-print", "p.txt", "--verbose", "-name", "-");
  CHECK_MSG(r.r == DRT_CLI_OK, "%s", r.err);
  CHECK(v.so.limit == 7 && v.so.timing && v.so.verbose && v.flag);
  CHECK_STR(v.out, "a.nrrd");
  CHECK_STR(v.so.print_file, "p.txt");
  CHECK_STR(v.name, "-");
  run_free(&r);
  static const char *const yes[] = {"true", "yes", "on", "t", "y", "1"};
  static const char *const no[] = {"false", "no", "off", "f", "n", "0"};
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
    n = make_table(&v, 0);
    r = PARSE(n, "-img", "z", "-flag", yes[i]);
    CHECK_MSG(r.r == DRT_CLI_OK && v.flag, "-flag %s", yes[i]);
    run_free(&r);
    v.flag = true;
    r = PARSE(n, "-img", "z", "-flag", no[i]);
    CHECK_MSG(r.r == DRT_CLI_OK && !v.flag, "-flag %s", no[i]);
    run_free(&r);
  }

  /* no arguments at all is not by itself a problem (hest's
   * noArgsIsNoProblem, as the original): the table without -img */
  n = make_table(&v, 0);
  {
    DrtOption t2[32];
    unsigned m = 0;
    for (unsigned i = 0; i < n; i++)
      if (strcmp(tab[i].name, "img") != 0) t2[m++] = tab[i];
    Run r0 = run_opts(t2, m, 1, ARGV(NULL));
    CHECK_MSG(r0.r == DRT_CLI_OK, "%s", r0.err);
    run_free(&r0);
  }

  /* names of any length up to DRT_CLI_MAX_NAME (-o-NAME for a long output name) */
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
    CHECK_MSG(r.r == DRT_CLI_HELP && r.out &&
                  strstr(r.out, "[-o-anOutputVariableWithAVeryLongNameIndeedLongerThanSixtyFour"
                                "Characters,--output-anOutputVariableWithAVeryLongName"
                                "IndeedLongerThanSixtyFourCharacters <str>]"),
              "%s", r.out);
    run_free(&r);
    /* beyond hest's buffers: refused, not overflowed */
    char huge[2 * DRT_CLI_MAX_NAME];
    memset(huge, 'q', sizeof huge - 1);
    huge[sizeof huge - 1] = '\0';
    n = make_table(&v, 0);
    tab[n++] = (DrtOption){huge, DRT_OPT_FILE, 1, "out", "x.nrrd", false, &o1, NULL};
    r = PARSE(n, "-img", "z");
    CHECK(r.r == DRT_CLI_ERROR && r.err && strstr(r.err, "internal error"));
    run_free(&r);
  }

  /* parallel + snapshot options, in the original's order, and ours
   * (-trace: every feature gives DRT_CLI_MAX_STD entries) */
  n = make_table(&v, DRT_CLI_PARALLEL | DRT_CLI_SNAPSHOT | DRT_CLI_TRACE);
  CHECK(n == DRT_CLI_MAX_STD + 8);
  CHECK_STR(tab[7].name, "trace,trace");
  CHECK_STR(tab[0].name, "l,limit");
  CHECK_STR(tab[1].name, "s,snapshot");
  CHECK_STR(tab[2].name, "print");
  CHECK_STR(tab[5].name, "n,nworkers");
  CHECK_STR(tab[6].name, "q,quiet"); /* ours, after the original's */
  r = PARSE(n, "-img", "z", "-s", "5", "--nworkers", "4");
  CHECK_MSG(r.r == DRT_CLI_OK, "%s", r.err);
  CHECK(v.so.snapshot == 5 && v.so.nworkers == 4 && !v.so.quiet && !v.so.trace_file);
  run_free(&r);
  r = PARSE(n, "-img", "z", "-q");
  CHECK_MSG(r.r == DRT_CLI_OK && v.so.quiet, "%s", r.err);
  run_free(&r);
  r = PARSE(n, "-img", "z", "-trace", "t.txt");
  CHECK_MSG(r.r == DRT_CLI_OK && v.so.trace_file && !strcmp(v.so.trace_file, "t.txt"), "%s", r.err);
  run_free(&r);
  n = make_table(&v, DRT_CLI_SNAPSHOT);
  r = PARSE(n, "-img", "z");
  CHECK(r.r == DRT_CLI_OK && v.so.snapshot == 0); /* doc/differences.md Q13: default 0 */
  run_free(&r);
  /* without the feature, -s is unknown */
  n = make_table(&v, 0);
  expect_error(PARSE(n, "-img", "z", "-s", "5"),
               "unexpected arg (or unrecognized flag): \"-s\"");
  /* nor -trace (the CUDA and MPI targets' executables) */
  expect_error(PARSE(n, "-img", "z", "-trace", "t.txt"),
               "unexpected arg (or unrecognized flag): \"-trace\"");
}

/* A repeated option takes its last value (hest's rule, the original's
 * `./mip -camFOV 20 ... -camFOV 30`); it used to be a usage error. */
static void test_repeated(void) {
  Vals v;
  unsigned n = make_table(&v, DRT_CLI_PARALLEL);
  Run r = PARSE(n, "-niter", "1", "-img", "a.nrrd", "-cent", "1", "2", "-niter", "2",
                "-l", "1", "--limit", "2", "-img", "b.nrrd", "-cent", "3", "4", "-v", "-v",
                "-flag", "true", "-flag", "false", "-name", "p", "-name", "q", "-n", "3",
                "--nworkers", "5", "-big", "1", "-big", "-2", "-iso", "0.25", "-iso", "0.75");
  CHECK_MSG(r.r == DRT_CLI_OK, "%s", r.err);
  CHECK(v.niter == 2 && v.so.limit == 2 && v.so.verbose && !v.flag && v.so.nworkers == 5);
  CHECK(v.cent[0] == 3.0f && v.cent[1] == 4.0f && v.big == -2 && v.iso == 0.75);
  CHECK_STR(v.img, "b.nrrd");
  CHECK_STR(v.name, "q");
  run_free(&r);
  /* a bad first value is overridden by a good last one: only the last
   * value is parsed */
  n = make_table(&v, 0);
  r = PARSE(n, "-img", "a", "-niter", "x", "-niter", "4");
  CHECK_MSG(r.r == DRT_CLI_OK && v.niter == 4, "%s", r.err);
  run_free(&r);
}

/* Every type of value: the words it takes and how hest names it. */
static void test_types(void) {
  bool fl = true, b = false;
  int32_t i[3] = {0};
  int64_t l = 0;
  uint32_t u = 9;
  float x = 0, v2[2] = {0}, v3[3] = {0}, v4[4] = {0}, m9[9] = {0}, fx = 0.1f;
  double d = 0, dv[3] = {0}, dx = 0.1;
  const char *s = NULL, *f = NULL, *sd = "computed";
  DrtOption t[] = {
      {"fl", DRT_OPT_FLAG, 0, "a flag", NULL, false, &fl, NULL},
      {"b", DRT_OPT_BOOL, 1, "bool", "false", false, &b, NULL},
      {"i", DRT_OPT_INT, 3, "int[3]", "0 0 0", false, i, NULL},
      {"l", DRT_OPT_LONG, 1, "long", "0", false, &l, NULL},
      {"u", DRT_OPT_UINT, 1, "uint", NULL, false, &u, NULL},
      {"x", DRT_OPT_FLOAT, 1, "real", "0", false, &x, NULL},
      {"v2", DRT_OPT_FLOAT, 2, "vec2", "0 0", false, v2, NULL},
      {"v3", DRT_OPT_FLOAT, 3, "vec3", "0 0 0", false, v3, NULL},
      {"v4", DRT_OPT_FLOAT, 4, "vec4", "0 0 0 0", false, v4, NULL},
      {"m9", DRT_OPT_FLOAT, 9, "mat3", NULL, false, m9, NULL},
      {"fx", DRT_OPT_FLOAT, 1, "computed float", NULL, false, &fx, NULL},
      {"d", DRT_OPT_DOUBLE, 1, "double", "0", false, &d, NULL},
      {"dv", DRT_OPT_DOUBLE, 3, "dvec3", "0 0 0", false, dv, NULL},
      {"dx", DRT_OPT_DOUBLE, 1, "computed double", NULL, false, &dx, NULL},
      {"s", DRT_OPT_STRING, 1, "string", "", false, &s, NULL},
      {"sd", DRT_OPT_STRING, 1, "computed string", NULL, false, &sd, NULL},
      {"f", DRT_OPT_FILE, 1, "image", NULL, true, &f, NULL},
  };
  unsigned nt = sizeof t / sizeof t[0];
  const char *argv[] = {"prog", "-fl", "-b", "on", "-i", "1", "-2", "3", "-l", "-5000000000",
                        "-u", "4000000000", "-x", "1.5", "-v2", "1", "2", "-v3", "1", "2",
                        "-3e2", "-v4", "1", "2", "3", "4", "-m9", "1", "2", "3", "4", "5", "6",
                        "7", "8", "9", "-d", "1e300", "-dv", "0.1", "-0.2", "inf", "-s",
                        "two words", "-f", "img.nrrd"};
  Run r = run_opts(t, nt, (int)(sizeof argv / sizeof argv[0]), argv);
  CHECK_MSG(r.r == DRT_CLI_OK, "%s", r.err);
  CHECK(fl && b && i[0] == 1 && i[1] == -2 && i[2] == 3 && l == -5000000000LL);
  CHECK(u == 4000000000u && x == 1.5f && v2[1] == 2.0f && v3[2] == -300.0f && v4[3] == 4.0f);
  CHECK(m9[0] == 1.0f && m9[8] == 9.0f && d == 1e300 && dv[0] == 0.1 && dv[1] == -0.2);
  CHECK(isinf(dv[2]) && fx == 0.1f && dx == 0.1);
  CHECK_STR(s, "two words");
  CHECK_STR(f, "img.nrrd");
  CHECK_STR(sd, "computed");
  run_free(&r);
  /* absent: the defaults, and the values of the options without one */
  fl = true;
  r = run_opts(t, nt, 3, (const char *const[]){"prog", "-f", "g"});
  CHECK_MSG(r.r == DRT_CLI_OK, "%s", r.err);
  CHECK(!fl && !b && i[1] == 0 && u == 4000000000u && m9[8] == 9.0f && fx == 0.1f);
  CHECK_STR(s, "");
  CHECK_STR(sd, "computed");
  run_free(&r);
  /* hest's value names and types in the usage and glossary; the values
   * kept from dest are hest's defaults (the shortest text of 0.1f) */
  r = run_opts(t, nt, 2, (const char *const[]){"prog", "--help"});
  CHECK(r.r == DRT_CLI_HELP);
  const char *want[] = {
      "[-fl]", "[-b <bool>]", "[-i <int int int>]", "[-l <int>]", "[-u <int>]", "[-x <x>]",
      "[-v2 <x y>]", "[-v3 <x y z>]", "[-v4 <x y z w>]", "[-m9 <x1", "x8 x9>]",
      "\n-m9 <x1 x2 x3 x4 x5 x6 x7 x8 x9> = mat3 (9 floats);\n",
      "[-s <str>]", "-f <str>",
      "= a flag\n", "= bool (bool); default: \"false\"", "= int[3] (3 ints); default: \"0 0 0\"",
      "= long (long int)", "= uint (unsigned int); default: \"4000000000\"",
      "= real (float)", "= vec2 (2 floats)", "(9 floats)",
      "= computed float (float); default: \"0.1\"", "= double (double)",
      "= computed double (double); default: \"0.1\"",
      "= string (string); default: \"\"", "= computed string (string);\n",
      "default: \"computed\"\n",
      "= image (string)\n",
  };
  for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
    CHECK_MSG(r.out && strstr(r.out, want[k]), "missing %s in:\n%s", want[k], r.out);
  run_free(&r);

  /* long fixed sequences: hest's name stays short (its glossary buffer is
   * about 2000 characters), the glossary counts the values */
  {
    static float big[300];
    static int32_t ints[6];
    DrtOption t3[] = {{"big", DRT_OPT_FLOAT, 300, "real[300]", NULL, false, big, NULL},
                      {"ints", DRT_OPT_INT, 6, "int[6]", NULL, false, ints, NULL}};
    static const char *words[2 + 300];
    char text[300][8];
    words[0] = "prog";
    words[1] = "-big";
    for (int j = 0; j < 300; j++) {
      snprintf(text[j], sizeof text[j], "%d", j);
      words[2 + j] = text[j];
    }
    r = run_opts(t3, 2, 302, words);
    CHECK_MSG(r.r == DRT_CLI_OK && big[299] == 299.0f && big[1] == 1.0f, "%s", r.err);
    run_free(&r);
    r = run_opts(t3, 2, 2, (const char *const[]){"prog", "--help"});
    CHECK_MSG(r.r == DRT_CLI_HELP && r.out && strstr(r.out, "[-big <x1 x2 ... x300>]") &&
                  strstr(r.out, "(300 floats)") && strstr(r.out, "[-ints <i1 i2 i3 i4 i5 i6>]"),
              "%s", r.out);
    run_free(&r);
  }
}

static void test_bad(void) {
  Vals v;
  unsigned n = make_table(&v, 0);
  expect_error(PARSE(n, "-img", "x", "-foo"), "unexpected arg (or unrecognized flag): \"-foo\"");
  expect_error(PARSE(n, "-img", "x", "stray"), "unexpected arg: \"stray\"");
  expect_error(PARSE(n, "-img", "x", "-niter", "1.5"),
               "option '-niter': bad value '1.5' (expected a 32-bit integer)");
  expect_error(PARSE(n, "-img", "x", "-niter", "3abc"),
               "option '-niter': bad value '3abc' (expected a 32-bit integer)");
  expect_error(PARSE(n, "-img", "x", "-niter", "3000000000"),
               "option '-niter': bad value '3000000000' (expected a 32-bit integer)");
  expect_error(PARSE(n, "-img", "x", "-big", "1e3"),
               "option '-big': bad value '1e3' (expected a 64-bit integer)");
  expect_error(PARSE(n, "-img", "x", "-iso"),
               "hit end of line before getting 1 parameter for \"-iso\" option (got 0)");
  expect_error(PARSE(n, "-img", "x", "-cent", "1", "-v"),
               "hit -v option before getting 2 parameters for \"-cent\" option (got 1)");
  expect_error(PARSE(n, "-cent", "1", "2"), "didn't get required \"-img\" option");
  expect_error(PARSE(n, "-img", "x", "-l", "-1"),
               "option '-l': bad value '-1' (expected a non-negative integer)");
  expect_error(PARSE(n, "-img", "x", "--limit", "many"),
               "option '-l': bad value 'many' (expected a non-negative integer)");
  expect_error(PARSE(n, "-img", "x", "-flag", "maybe"),
               "option '-flag': bad value 'maybe' (expected true or false)");
  expect_error(PARSE(n, "-img", "x", "-cent", "1e39", "0"),
               "option '-cent': bad value '1e39' (expected a number)");
  expect_error(PARSE(n, "-img", "x", "-cent", "0", "x"),
               "option '-cent': bad value 'x' (expected a number)");
  expect_error(PARSE(n, "-img", "x", "-iso", "abc"),
               "option '-iso': bad value 'abc' (expected a number)");
  expect_error(PARSE(n, "-img", "x", "-iso", "--"),
               "option '-iso': bad value '--' (expected a number)");
  expect_error(PARSE(n, "-img"),
               "hit end of line before getting 1 parameter for \"-img\" option (got 0)");
  expect_error(PARSE(n, "-limit", "3", "-img", "x"),
               "unexpected arg (or unrecognized flag): \"-limit\"");
  /* 1e39 overflows float but not double */
  Run r = PARSE(n, "-img", "x", "-iso", "1e39");
  CHECK(r.r == DRT_CLI_OK && v.iso == 1e39);
  run_free(&r);
  /* a bad default in the table is reported, not ignored */
  n = make_table(&v, 0);
  tab[n++] = (DrtOption){"bad", DRT_OPT_INT, 2, "x", "1", false, &v.niter, NULL};
  r = PARSE(n, "-img", "x");
  CHECK(r.r == DRT_CLI_ERROR && r.err &&
        strstr(r.err, "prog: option '-bad': bad default '1' (internal error)\n"));
  run_free(&r);
  n = make_table(&v, 0);
  tab[n++] = (DrtOption){"bad", DRT_OPT_INT, 1, "x", "one", false, &v.niter, NULL};
  r = PARSE(n, "-img", "x");
  CHECK(r.r == DRT_CLI_ERROR && r.err &&
        strstr(r.err, "prog: option '-bad': bad default 'one' (internal error)\n"));
  run_free(&r);
  /* a bad value read with --help: help wins (found before parsing) */
  n = make_table(&v, 0);
  r = PARSE(n, "-niter", "x", "--help");
  CHECK(r.r == DRT_CLI_HELP && r.nerr == 0);
  run_free(&r);
}

static void test_usage(void) {
  Vals v;
  unsigned n = make_table(&v, 0);
  /* -h: hest's usage only; anywhere, even with a required option missing */
  Run r = PARSE(n, "-l", "2", "-h");
  CHECK(r.r == DRT_CLI_HELP && drt_cli_exit_status(r.r) == 0);
  CHECK(r.nerr == 0);
  static const char usage[] = "\nUsage: prog [-h,--help] [-l,--limit <int>] [-print <str>] "
                              "[-v,--verbose] \\\n       [-t,--timing] [-q,--quiet] [-sched-chunk "
                              "<int>] [-sched-steps <str>] \\\n       [-schedule <str>] -img <str> [-cent <x y>]";
  CHECK_MSG(r.out && strncmp(r.out, usage, sizeof usage - 1) == 0 &&
                !strstr(r.out, " = "),
            "%s", r.out);
  run_free(&r);
  /* --help: the description, the usage and the glossary */
  r = PARSE(n, "--help");
  CHECK(r.r == DRT_CLI_HELP && r.nerr == 0);
  const char *want[] = {
      "\nprog: a test program\n\nUsage: prog [-h,--help] [-l,--limit <int>]",
      " -h , --help = print usage information (--help: with this glossary)",
      " -l <int> , --limit <int> = specify limit on number of super-steps (0 means\n",
      "unlimited) (unsigned int); default: \"0\"\n",
      "\n-print <str> = specify where to direct printed output (- means stdout)\n",
      "(string); default: \"-\"\n",
      " -v , --verbose = enable runtime-system messages\n",
      " -img <str> = input image (string)\n",
      " -cent <x y> = centre of the view (2 floats); default: \"290 414\"\n",
      "\n-flag <bool> = a switch (bool); default: \"false\"\n",
      " -name <str> = a name (string); default: \"hello  world\"\n",
      " -big <int> = (long int); default: \"77\"\n",
      " -o <str> , --output <str> = output file (string); default: \"out.nrrd\"\n",
  };
  char *fo = flat(r.out);
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    char *fw = flat(want[i]);
    CHECK_MSG(r.out && strstr(fo, fw), "missing:\n%s\nin:\n%s", want[i], r.out);
    free(fw);
  }
  free(fo);
  /* hest wraps at 79 columns */
  if (r.out) {
    size_t col = 0;
    for (const char *p = r.out; *p; p++) {
      col = *p == '\n' ? 0 : col + 1;
      CHECK(col < 80);
    }
  }
  run_free(&r);

  /* drt_cli_usage: the exact text for a tiny table */
  int32_t k = 0;
  DrtOption one[1] = {{"k", DRT_OPT_INT, 1, "a number", "3", false, &k, NULL}};
  DrtCli cli = {"tiny", NULL, one, 1, NULL};
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  drt_cli_usage(&cli, NULL, f, true);
  drt_cli_usage(&cli, NULL, f, false);
  fclose(f);
  CHECK_STR(buf, "\nUsage: tiny [-h,--help] [-k <int>]\n\n"
                 "      -h , --help = print usage information (--help: with this glossary) and\n"
                 "           exit\n"
                 "-k <int> = a number (int); default: \"3\"\n"
                 "\nUsage: tiny [-h,--help] [-k <int>]\n");
  free(buf);

  /* a synopsis longer than hest's buffer: a short one, and every option
   * in the glossary */
  {
    enum { N = 120 };
    static DrtOption many[N];
    static char names[N][32];
    static float vals[N];
    for (int i = 0; i < N; i++) {
      snprintf(names[i], sizeof names[i], "someInputNumber%d", i);
      many[i] = (DrtOption){names[i], DRT_OPT_FLOAT, 1, "x", "1", false, &vals[i], NULL};
    }
    r = run_opts(many, N, 2, (const char *const[]){"prog", "--help"});
    CHECK(r.r == DRT_CLI_HELP && r.out && strstr(r.out, "\nUsage: prog [options]\n") &&
          strstr(r.out, "\n-someInputNumber119 <x> = x (float)"));
    run_free(&r);
    r = run_opts(many, N, 3, (const char *const[]){"prog", "-someInputNumber7", "2"});
    CHECK(r.r == DRT_CLI_OK && vals[7] == 2.0f && vals[8] == 1.0f);
    run_free(&r);
  }
}

/* Program inputs named like the short form of a standard option (`h`,
 * `n` with the parallel target's -n/--nworkers) take that short form; the
 * standard option keeps its long form (§7.2's names come from the program). */
static void test_shadowing(void) {
  DrtStdOptions so;
  DrtOption t2[DRT_CLI_MAX_STD + 3];
  unsigned n = drt_cli_std_options(t2, &so, DRT_CLI_PARALLEL);
  int32_t h = 0, nn = 0;
  const char *x = NULL;
  t2[n++] = (DrtOption){"h", DRT_OPT_INT, 1, "height", "10", false, &h, NULL};
  t2[n++] = (DrtOption){"n", DRT_OPT_INT, 1, "count", "5", false, &nn, NULL};
  /* no long form: cannot be given, its default holds */
  t2[n++] = (DrtOption){"print", DRT_OPT_FILE, 1, "shadowed", "p.txt", false, &x, NULL};
  Run r = run_opts(t2, n - 1, 7, (const char *const[]){"prog", "-h", "7", "-n", "250",
                                                       "--nworkers", "4"});
  CHECK_MSG(r.r == DRT_CLI_OK, "%s", r.err);
  CHECK(h == 7 && nn == 250 && so.nworkers == 4);
  run_free(&r);
  r = run_opts(t2, n - 1, 2, (const char *const[]){"prog", "--help"});
  CHECK(r.r == DRT_CLI_HELP);
  char *fo = flat(r.out);
  CHECK_MSG(r.out && strstr(r.out, "Usage: prog [--help] ") &&
                strstr(r.out, " --help = print usage") &&
                strstr(r.out, "[--nworkers <int>]") && strstr(r.out, "[-h <int>]") &&
                strstr(r.out, "[-n <int>]") && !strstr(r.out, "-n,--nworkers") &&
                strstr(fo, " --nworkers <int> = specify number of worker threads"),
            "usage with shadowed short names: %s", r.out ? r.out : "");
  free(fo);
  run_free(&r);
  /* -h is the input's: a bad value, not help */
  r = run_opts(t2, n - 1, 2, (const char *const[]){"prog", "-h"});
  CHECK(r.r == DRT_CLI_ERROR);
  run_free(&r);
  r = run_opts(t2, n, 3, (const char *const[]){"prog", "-print", "q.txt"});
  CHECK_MSG(r.r == DRT_CLI_OK, "%s", r.err);
  CHECK_STR(x, "q.txt");
  CHECK_STR(so.print_file, "-");
  run_free(&r);
  /* the same parse twice on one DrtCli */
  DrtCli cli = {"prog", NULL, t2, n - 1, NULL};
  FILE *null = fopen("/dev/null", "w");
  CHECK(drt_cli_parse(&cli, 3, (const char *const[]){"prog", "-h", "1"}, null, null) ==
        DRT_CLI_OK && h == 1);
  CHECK(drt_cli_parse(&cli, 3, (const char *const[]){"prog", "-h", "2"}, null, null) ==
        DRT_CLI_OK && h == 2);
  drt_cli_free(&cli);
  fclose(null);
}

/* -sched-chunk, -sched-steps, -sched-writer: last of the standard options,
 * checked, and put in the environment for the world (rt_schedule.c) */
static void test_schedule(void) {
  Vals v;
  unsigned n = make_table(&v, DRT_CLI_PARALLEL | DRT_CLI_SNAPSHOT);
  CHECK_STR(tab[7].name, "sched-chunk");
  CHECK_STR(tab[8].name, "sched-steps");
  CHECK_STR(tab[9].name, "sched-writer");
  unsetenv("DIDEROT_SCHED_CHUNK");
  unsetenv("DIDEROT_SCHED_STEPS");
  unsetenv("DIDEROT_SCHED_WRITER");
  /* not given: the environment is left alone */
  Run r = PARSE(n, "-img", "z");
  CHECK_MSG(r.r == DRT_CLI_OK, "%s", r.err);
  CHECK(!getenv("DIDEROT_SCHED_CHUNK") && !getenv("DIDEROT_SCHED_STEPS") &&
        !getenv("DIDEROT_SCHED_WRITER"));
  CHECK(v.so.sched_chunk == 0 && !strcmp(v.so.sched_steps_text, "0") &&
        !strcmp(v.so.sched_writer, "auto"));
  run_free(&r);
  r = PARSE(n, "-img", "z", "-sched-chunk", "64", "-sched-steps", "all", "-sched-writer", "off");
  CHECK_MSG(r.r == DRT_CLI_OK, "%s", r.err);
  CHECK(v.so.sched_chunk == 64);
  const char *e1 = getenv("DIDEROT_SCHED_CHUNK"), *e2 = getenv("DIDEROT_SCHED_STEPS"),
             *e3 = getenv("DIDEROT_SCHED_WRITER");
  CHECK(e1 && !strcmp(e1, "64") && e2 && !strcmp(e2, "all") && e3 && !strcmp(e3, "off"));
  run_free(&r);
  /* bad values: status 2, the option named, what it accepts */
  r = PARSE(n, "-img", "z", "-sched-steps", "many");
  CHECK(r.r == DRT_CLI_ERROR && drt_cli_exit_status(r.r) == 2);
  CHECK_MSG(r.err && strstr(r.err, "prog: option '-sched-steps': bad value 'many' (expected a "
                                   "number of updates, all, or 0 for the program's default)"),
            "%s", r.err);
  run_free(&r);
  r = PARSE(n, "-img", "z", "-sched-writer", "maybe");
  CHECK(r.r == DRT_CLI_ERROR && r.err &&
        strstr(r.err, "option '-sched-writer': bad value 'maybe' (expected auto, on or off)"));
  run_free(&r);
  r = PARSE(n, "-img", "z", "-sched-chunk", "2000000000");
  CHECK_MSG(r.r == DRT_CLI_ERROR && r.err &&
                strstr(r.err, "option '-sched-chunk': bad value '2000000000' (expected a number "
                              "of strands from 1 to 1073741824, or 0 for the program's default)"),
            "%s", r.err);
  run_free(&r);
  r = PARSE(n, "-img", "z", "-sched-chunk", "-4");
  CHECK(r.r == DRT_CLI_ERROR && r.err && strstr(r.err, "option '-sched-chunk': bad value '-4'"));
  run_free(&r);
  /* the writer is an option only with snapshots */
  n = make_table(&v, 0);
  CHECK(n == 10 + 8 - 2); /* no -s, -n, -sched-writer */
  r = PARSE(n, "-img", "z", "-sched-writer", "on");
  CHECK(r.r == DRT_CLI_ERROR);
  run_free(&r);
  CHECK(!strcmp(v.so.sched_writer, "auto"));
  unsetenv("DIDEROT_SCHED_CHUNK");
  unsetenv("DIDEROT_SCHED_STEPS");
  unsetenv("DIDEROT_SCHED_WRITER");
}

int main(void) {
  test_good();
  test_repeated();
  test_types();
  test_bad();
  test_usage();
  test_shadowing();
  test_schedule();
  return unit_finish("rt_cli");
}
