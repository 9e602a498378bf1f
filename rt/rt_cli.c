/* rt_cli.c -- the command line of generated executables (LANGUAGE.md §7.2).
 *
 * A small hest-like parser driven by a table the generated code provides.
 * Hest's conventions are kept where users see them: "a,bb" names give -a
 * and --bb, a single name "xyz" gives -xyz; an option takes a fixed
 * number of words, so negative numbers are plain values; booleans accept
 * hest's spellings. It is our own code so that messages and the exit
 * status (2 for a bad command line) are exactly what we document.
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rt_internal.h"

/* Option names come from program identifiers, so their length is not
 * bounded: they are matched in place and formatted into malloc'd text. */

/* Length of the single-dash name of "a,bb" or "xyz". */
static size_t short_len(const char *name) {
  const char *comma = strchr(name, ',');
  return comma ? (size_t)(comma - name) : strlen(name);
}

/* A program input named like the short form of a standard option (an
 * input `h`, or `n` beside -n/--nworkers) takes that short form: options
 * later in the table (the program's) shadow the short name of earlier ones
 * (the standard options), which keep their long form (--help, --nworkers).
 * k == nopts stands for the built-in help, "h,help", before every option. */
static bool short_shadowed(const DrtCli *cli, unsigned k) {
  const char *name = k < cli->nopts ? cli->opts[k].name : "h,help";
  size_t n = short_len(name);
  for (unsigned j = k < cli->nopts ? k + 1 : 0; j < cli->nopts; j++) {
    const char *o = cli->opts[j].name;
    if (short_len(o) == n && strncmp(o, name, n) == 0) return true;
  }
  return false;
}

/* Does word w name option `name` ("a,bb": -a or --bb; "xyz": -xyz)?
 * The -a form only when it is not shadowed. */
static bool matches(const char *name, const char *w, bool shadowed) {
  const char *comma = strchr(name, ',');
  size_t slen = short_len(name);
  if (w[0] != '-') return false;
  if (!shadowed && strncmp(w + 1, name, slen) == 0 && w[1 + slen] == '\0') return true;
  return comma && w[1] == '-' && strcmp(w + 2, comma + 1) == 0;
}

static bool is_help(const DrtCli *cli, const char *w) {
  return matches("h,help", w, short_shadowed(cli, cli->nopts));
}

static int find_option(const DrtCli *cli, const char *w) {
  for (unsigned i = 0; i < cli->nopts; i++)
    if (matches(cli->opts[i].name, w, short_shadowed(cli, i))) return (int)i;
  return -1;
}

static unsigned nvalues(const DrtOption *o) {
  switch (o->type) {
  case DRT_OPT_FLAG: return 0;
  case DRT_OPT_INT: case DRT_OPT_LONG: case DRT_OPT_UINT:
  case DRT_OPT_FLOAT: case DRT_OPT_DOUBLE:
    return o->count ? o->count : 1;
  default: return 1;
  }
}

static const char *placeholder(DrtOptType t) {
  switch (t) {
  case DRT_OPT_BOOL: return "bool";
  case DRT_OPT_INT: case DRT_OPT_LONG: return "int";
  case DRT_OPT_UINT: return "N";
  case DRT_OPT_FLOAT: case DRT_OPT_DOUBLE: return "real";
  case DRT_OPT_STRING: return "string";
  case DRT_OPT_FILE: return "file";
  default: return "";
  }
}

/* "-cent <real real>" (lng: the "--" form; NULL if there is none), with
 * brackets when `optional`; malloc'd, NULL when out of memory or when
 * there is no long form. */
static char *option_text(const DrtOption *o, bool lng, bool optional) {
  const char *name = o->name, *comma = strchr(name, ',');
  if (lng && !comma) return NULL;
  const char *nm = lng ? comma + 1 : name;
  int nlen = lng ? (int)strlen(nm) : comma ? (int)(comma - name) : (int)strlen(name);
  unsigned nv = nvalues(o);
  size_t n = (size_t)nlen + 8 + nv * (strlen(placeholder(o->type)) + 1);
  char *buf = malloc(n);
  if (!buf) return NULL;
  size_t k = (size_t)snprintf(buf, n, "%s%s%.*s", optional ? "[" : "", lng ? "--" : "-",
                              nlen, nm);
  for (unsigned i = 0; i < nv; i++)
    k += (size_t)snprintf(buf + k, n - k, "%s%s%s", i ? " " : " <",
                          placeholder(o->type), i + 1 == nv ? ">" : "");
  if (optional) snprintf(buf + k, n - k, "]");
  return buf;
}

/* ----------------------------------------------------------- values */

static bool parse_bool(const char *w, bool *b) {
  static const char *const yes[] = {"true", "yes", "on", "t", "y", "1"};
  static const char *const no[] = {"false", "no", "off", "f", "n", "0"};
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
    if (strcasecmp(w, yes[i]) == 0) { *b = true; return true; }
    if (strcasecmp(w, no[i]) == 0) { *b = false; return true; }
  }
  return false;
}

/* Parse word w as value i of option o into o->dest; false if bad. */
static bool parse_value(const DrtOption *o, unsigned i, const char *w) {
  char *end;
  errno = 0;
  switch (o->type) {
  case DRT_OPT_BOOL: return parse_bool(w, (bool *)o->dest);
  case DRT_OPT_STRING:
  case DRT_OPT_FILE: *(const char **)o->dest = w; return true;
  case DRT_OPT_INT: {
    long long v = strtoll(w, &end, 10);
    if (end == w || *end || errno || v < INT32_MIN || v > INT32_MAX) return false;
    ((int32_t *)o->dest)[i] = (int32_t)v;
    return true;
  }
  case DRT_OPT_LONG: {
    long long v = strtoll(w, &end, 10);
    if (end == w || *end || errno) return false;
    ((int64_t *)o->dest)[i] = v;
    return true;
  }
  case DRT_OPT_UINT: {
    const char *p = w;
    while (isspace((unsigned char)*p)) p++;
    if (*p == '-') return false;
    unsigned long long v = strtoull(w, &end, 10);
    if (end == w || *end || errno || v > UINT32_MAX) return false;
    ((uint32_t *)o->dest)[i] = (uint32_t)v;
    return true;
  }
  case DRT_OPT_FLOAT: {
    float v = strtof(w, &end);
    if (end == w || *end || (errno == ERANGE && isinf(v))) return false;
    ((float *)o->dest)[i] = v;
    return true;
  }
  case DRT_OPT_DOUBLE: {
    double v = strtod(w, &end);
    if (end == w || *end || (errno == ERANGE && isinf(v))) return false;
    ((double *)o->dest)[i] = v;
    return true;
  }
  default: return false;
  }
}

static const char *expected(DrtOptType t) {
  switch (t) {
  case DRT_OPT_BOOL: return "true or false";
  case DRT_OPT_INT: return "a 32-bit integer";
  case DRT_OPT_LONG: return "a 64-bit integer";
  case DRT_OPT_UINT: return "a non-negative integer";
  case DRT_OPT_FLOAT: case DRT_OPT_DOUBLE: return "a number";
  default: return "a word";
  }
}

/* ----------------------------------------------------------- usage */

static void wrap_word(FILE *f, const char *w, size_t indent, size_t *col) {
  size_t n = strlen(w);
  if (*col > indent && *col + 1 + n > 79) {
    fprintf(f, "\n%*s", (int)indent, "");
    *col = indent;
  } else if (*col > indent) {
    fputc(' ', f);
    (*col)++;
  }
  fputs(w, f);
  *col += n;
}

void drt_cli_usage(const DrtCli *cli, const char *prog, FILE *f, bool full) {
  if (cli->prog) prog = cli->prog;
  if (!prog) prog = "program";
  if (full && cli->info) fprintf(f, "%s: %s\n", prog, cli->info);
  fprintf(f, "Usage: %s ", prog);
  size_t indent = strlen("Usage: ") + strlen(prog) + 1, col = indent;
  bool help_shadowed = short_shadowed(cli, cli->nopts);
  wrap_word(f, help_shadowed ? "[--help]" : "[-h]", indent, &col);
  for (unsigned i = 0; i < cli->nopts; i++) {
    const DrtOption *o = &cli->opts[i];
    bool shadowed = short_shadowed(cli, i);
    char *item = option_text(o, shadowed, !o->required);
    if (!item && shadowed) continue; /* no long form: not reachable */
    wrap_word(f, item ? item : "?", indent, &col);
    free(item);
  }
  fputc('\n', f);
  if (!full) return;
  fprintf(f, "\n  %s--help\n      print this usage and exit\n", help_shadowed ? "" : "-h, ");
  for (unsigned i = 0; i < cli->nopts; i++) {
    const DrtOption *o = &cli->opts[i];
    bool shadowed = short_shadowed(cli, i);
    char *shrt = shadowed ? NULL : option_text(o, false, false);
    char *lng = option_text(o, true, false);
    if (shrt) fprintf(f, "  %s", shrt);
    if (lng) fprintf(f, "%s%s", shrt ? ", " : "  ", lng);
    if (!shrt && !lng) {
      if (shadowed) continue;
      fprintf(f, "  ?");
    }
    free(shrt);
    free(lng);
    bool has_dflt = !o->required && o->dflt && o->type != DRT_OPT_FLAG;
    if (o->desc || o->required || has_dflt) fprintf(f, "\n      %s", o->desc ? o->desc : "");
    if (o->required) {
      fprintf(f, "%s(required)", o->desc ? " " : "");
    } else if (has_dflt) {
      bool quote = o->type == DRT_OPT_STRING || o->type == DRT_OPT_FILE;
      fprintf(f, "%s(default: %s%s%s)", o->desc ? " " : "", quote ? "\"" : "",
              o->dflt, quote ? "\"" : "");
    }
    fputc('\n', f);
  }
}

/* ----------------------------------------------------------- parsing */

static int fail(const DrtCli *cli, const char *prog, FILE *err,
                const char *fmt, ...) DRT_PRINTF(4, 5);

static int fail(const DrtCli *cli, const char *prog, FILE *err,
                const char *fmt, ...) {
  const char *p = cli->prog ? cli->prog : prog ? prog : "program";
  va_list ap;
  va_start(ap, fmt);
  fprintf(err, "%s: ", p);
  vfprintf(err, fmt, ap);
  va_end(ap);
  fputc('\n', err);
  drt_cli_usage(cli, prog, err, false);
  fprintf(err, "Use '%s --help' for a description of every option.\n", p);
  return DRT_CLI_ERROR;
}

/* Split a default's text into exactly nv words and parse them. */
static bool parse_default(const DrtOption *o) {
  const char *s = o->dflt;
  unsigned nv = nvalues(o);
  if (o->type == DRT_OPT_STRING || o->type == DRT_OPT_FILE)
    return parse_value(o, 0, s); /* the whole text: may contain spaces */
  char word[128];
  for (unsigned i = 0; i < nv; i++) {
    while (isspace((unsigned char)*s)) s++;
    size_t n = 0;
    while (s[n] && !isspace((unsigned char)s[n])) n++;
    if (n == 0 || n >= sizeof word) return false;
    memcpy(word, s, n);
    word[n] = '\0';
    if (!parse_value(o, i, word)) return false;
    s += n;
  }
  while (isspace((unsigned char)*s)) s++;
  return *s == '\0';
}

static int parse(const DrtCli *cli, int argc, const char *const *argv,
                 FILE *out, FILE *err, bool *seen) {
  const char *prog = argc > 0 && argv[0] ? argv[0] : NULL;
  for (int a = 1; a < argc; a++) {
    const char *w = argv[a];
    if (is_help(cli, w)) {
      drt_cli_usage(cli, prog, out, true);
      return DRT_CLI_HELP;
    }
    int k = find_option(cli, w);
    if (k < 0)
      return fail(cli, prog, err, w[0] == '-' && w[1] ? "unknown option '%s'"
                                                     : "unexpected argument '%s'", w);
    const DrtOption *o = &cli->opts[k];
    if (seen[k]) return fail(cli, prog, err, "option '%s' given more than once", w);
    seen[k] = true;
    if (o->type == DRT_OPT_FLAG) {
      *(bool *)o->dest = true;
      continue;
    }
    unsigned nv = nvalues(o);
    for (unsigned i = 0; i < nv; i++) {
      const char *v = a + 1 < argc ? argv[a + 1] : NULL;
      if (!v || is_help(cli, v) || find_option(cli, v) >= 0) {
        if (nv == 1)
          return fail(cli, prog, err, "option '%s' needs a value", w);
        return fail(cli, prog, err, "option '%s' needs %u values, got %u", w, nv, i);
      }
      a++;
      if (!parse_value(o, i, v))
        return fail(cli, prog, err, "option '%s': bad value '%s' (expected %s)",
                    w, v, expected(o->type));
    }
  }
  for (unsigned k = 0; k < cli->nopts; k++) {
    const DrtOption *o = &cli->opts[k];
    if (o->given) *o->given = seen[k];
    if (seen[k]) continue;
    const char *comma = strchr(o->name, ',');
    int slen = comma ? (int)(comma - o->name) : (int)strlen(o->name);
    if (o->type == DRT_OPT_FLAG) {
      *(bool *)o->dest = false;
    } else if (o->required) {
      return fail(cli, prog, err, "missing required option '-%.*s'", slen, o->name);
    } else if (o->dflt && !parse_default(o)) {
      return fail(cli, prog, err, "option '-%.*s': bad default '%s' (internal error)",
                  slen, o->name, o->dflt);
    }
  }
  return DRT_CLI_OK;
}

int drt_cli_parse(const DrtCli *cli, int argc, const char *const *argv,
                  FILE *out, FILE *err) {
  bool *seen = calloc(cli->nopts + 1, sizeof *seen);
  if (!seen) {
    fprintf(err, "%s: out of memory\n", cli->prog ? cli->prog : "program");
    return DRT_CLI_ERROR;
  }
  int r = parse(cli, argc, argv, out, err, seen);
  free(seen);
  return r;
}

int drt_cli_exit_status(int result) {
  return result == DRT_CLI_ERROR ? 2 : 0;
}

unsigned drt_cli_std_options(DrtOption *tab, DrtStdOptions *so,
                             unsigned features) {
  unsigned n = 0;
  tab[n++] = (DrtOption){"l,limit", DRT_OPT_UINT, 1,
                         "super-step limit (0 = unlimited)", "0", false,
                         &so->limit, NULL};
  tab[n++] = (DrtOption){"print", DRT_OPT_FILE, 1,
                         "where print output goes (- is stdout)", "-", false,
                         &so->print_file, NULL};
  tab[n++] = (DrtOption){"v,verbose", DRT_OPT_FLAG, 0,
                         "runtime messages on stderr", NULL, false,
                         &so->verbose, NULL};
  tab[n++] = (DrtOption){"t,timing", DRT_OPT_FLAG, 0,
                         "print the run's wall and CPU time (usr=<s> cpu=<s>)",
                         NULL, false, &so->timing, NULL};
  so->nworkers = 0;
  so->snapshot = 0;
  if (features & DRT_CLI_PARALLEL)
    tab[n++] = (DrtOption){"n,nworkers", DRT_OPT_UINT, 1,
                           "number of worker threads (0 = one per core)", "0",
                           false, &so->nworkers, NULL};
  if (features & DRT_CLI_SNAPSHOT)
    tab[n++] = (DrtOption){"s,snapshot", DRT_OPT_UINT, 1,
                           "write a snapshot every N super-steps (0 = never)",
                           "0", false, &so->snapshot, NULL};
  return n;
}
