/* rt_cli.c -- the command line of generated executables (doc/language.md §12).
 *
 * Parsed by Teem's hest, as the original Diderot's programs are
 * (src/lib/common/options.cxx there): the generated code's DrtOption table
 * becomes a hest option table with the original's flags, value names and
 * types, and hest does the scanning, the defaults, the repeated options
 * (the last one counts), the required options, the usage and the glossary.
 * What we add:
 *  - strict values: numbers and booleans go through a hest callback
 *    (airTypeOther) that takes a whole word or nothing, where hest's own
 *    sscanf parsers take "1.5" as the int 1 and "3abc" as 3. The callback
 *    never fails in hest's eyes: it records the bad word, and the message
 *    ("option '-eps': bad value 'abc' (expected a number)") is ours, printed
 *    after hestParse. That also keeps long values out of hest's fixed-size
 *    error buffer;
 *  - -h / --help are found before parsing, as the original does, so that
 *    they work with required options missing; they print on `out`;
 *  - shadowing: a later option with the same short name takes it, the
 *    earlier keeps its long form, given to hest as the flag "-long" (hest
 *    prints and matches "-" + flag, so that is --long alone);
 *  - exit status 2 and a one-line hint after a bad command line.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <teem/hest.h>

#include "rt_internal.h"

/* ----------------------------------------------------------- state */

typedef struct CliOpt CliOpt;

/* One value as hest's callback sees it: the value and, set before parsing,
 * the option it belongs to (the callback has no other context). Strings
 * and flags use v.s and v.b directly as hest's value storage. */
typedef struct CliSlot {
  union {
    int32_t i32;
    int64_t i64;
    uint32_t u32;
    float f;
    double d;
    int b;
    char *s;
  } v;
  CliOpt *owner;
} CliSlot;

struct CliOpt {
  const DrtOption *o;
  unsigned nv;        /* values taken */
  CliSlot *slots;     /* nv of them (one for flags and strings) */
  int hidx;           /* index in hest's table; -1: cannot be given */
  char *shown;        /* how our messages name it: "-a" or "--bb" */
  char *bad;          /* the first word the callback rejected */
  bool bad_missing;   /* the callback got no word (a short default) */
  bool oom;
};

typedef struct CliState {
  hestOpt *hopt;
  hestParm *parm;
  unsigned n;
  CliOpt *opts;
  CliSlot *slots;
  int help;           /* hest's storage for -h/--help */
  bool help_short;    /* -h is help (no program option named h) */
  bool parsed;        /* hestParse succeeded: hestParseFree is due */
} CliState;

static unsigned nvalues(const DrtOption *o) {
  switch (o->type) {
  case DRT_OPT_INT: case DRT_OPT_LONG: case DRT_OPT_UINT:
  case DRT_OPT_FLOAT: case DRT_OPT_DOUBLE:
    return o->count ? o->count : 1;
  default: return 1;
  }
}

static bool is_string(DrtOptType t) { return t == DRT_OPT_STRING || t == DRT_OPT_FILE; }

/* Length of the short name of "a,bb" or "xyz". */
static size_t short_len(const char *name) {
  const char *comma = strchr(name, ',');
  return comma ? (size_t)(comma - name) : strlen(name);
}

/* Does an option after k (k == -1: the built-in "h,help", before all) have
 * k's short name? */
static bool shadowed(const DrtCli *cli, int k) {
  const char *name = k < 0 ? "h,help" : cli->opts[k].name;
  size_t n = short_len(name);
  for (unsigned j = (unsigned)(k + 1); j < cli->nopts; j++) {
    const char *o = cli->opts[j].name;
    if (short_len(o) == n && strncmp(o, name, n) == 0) return true;
  }
  return false;
}

static char *text_printf(const char *fmt, ...) DRT_PRINTF(1, 2);

static char *text_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = n < 0 ? NULL : malloc((size_t)n + 1);
  if (!s) return NULL;
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

/* ----------------------------------------------------------- values */

/* Parse one whole word as a value of type t; false if bad (or NULL: hest
 * passes NULL when a default has too few words). */
static bool parse_word(DrtOptType t, const char *w, CliSlot *s) {
  char *end;
  if (!w) return false;
  errno = 0;
  switch (t) {
  case DRT_OPT_BOOL: {
    int b = airEnumVal(airBool, w);
    if (b == airEnumUnknown(airBool)) return false;
    s->v.b = b;
    return true;
  }
  case DRT_OPT_INT: {
    long long v = strtoll(w, &end, 10);
    if (end == w || *end || errno || v < INT32_MIN || v > INT32_MAX) return false;
    s->v.i32 = (int32_t)v;
    return true;
  }
  case DRT_OPT_LONG: {
    long long v = strtoll(w, &end, 10);
    if (end == w || *end || errno) return false;
    s->v.i64 = v;
    return true;
  }
  case DRT_OPT_UINT: {
    const char *p = w;
    while (isspace((unsigned char)*p)) p++;
    if (*p == '-') return false; /* strtoull would wrap it */
    unsigned long long v = strtoull(w, &end, 10);
    if (end == w || *end || errno || v > UINT32_MAX) return false;
    s->v.u32 = (uint32_t)v;
    return true;
  }
  case DRT_OPT_FLOAT: {
    float v = strtof(w, &end);
    if (end == w || *end || (errno == ERANGE && isinf(v))) return false;
    s->v.f = v;
    return true;
  }
  case DRT_OPT_DOUBLE: {
    double v = strtod(w, &end);
    if (end == w || *end || (errno == ERANGE && isinf(v))) return false;
    s->v.d = v;
    return true;
  }
  default: return false;
  }
}

/* hest's callback for numbers and booleans: records a bad word in its
 * option and reports success, so that hest goes on and we word the error. */
static int cli_cb_parse(void *ptr, char *str, char err[AIR_STRLEN_HUGE]) {
  CliSlot *s = ptr;
  CliOpt *c = s->owner;
  (void)err;
  if (!parse_word(c->o->type, str, s) && !c->bad && !c->bad_missing) {
    if (!str) c->bad_missing = true;
    else if (!(c->bad = airStrdup(str))) c->oom = true;
  }
  return 0;
}

/* The type names are hest's own (airTypeStr), so the glossary reads as the
 * original's: "(float)", "(2 floats)", "(unsigned int)". */
static hestCB cb_bool = {sizeof(CliSlot), "bool", cli_cb_parse, NULL};
static hestCB cb_int = {sizeof(CliSlot), "int", cli_cb_parse, NULL};
static hestCB cb_long = {sizeof(CliSlot), "long int", cli_cb_parse, NULL};
static hestCB cb_uint = {sizeof(CliSlot), "unsigned int", cli_cb_parse, NULL};
static hestCB cb_float = {sizeof(CliSlot), "float", cli_cb_parse, NULL};
static hestCB cb_double = {sizeof(CliSlot), "double", cli_cb_parse, NULL};

static hestCB *type_cb(DrtOptType t) {
  switch (t) {
  case DRT_OPT_BOOL: return &cb_bool;
  case DRT_OPT_INT: return &cb_int;
  case DRT_OPT_LONG: return &cb_long;
  case DRT_OPT_UINT: return &cb_uint;
  case DRT_OPT_FLOAT: return &cb_float;
  case DRT_OPT_DOUBLE: return &cb_double;
  default: return NULL;
  }
}

static const char *expected(DrtOptType t) {
  switch (t) {
  case DRT_OPT_BOOL: return "true or false";
  case DRT_OPT_INT: return "a 32-bit integer";
  case DRT_OPT_LONG: return "a 64-bit integer";
  case DRT_OPT_UINT: return "a non-negative integer";
  default: return "a number";
  }
}

/* hest's value name: the original's "int", "bool", "str", and "x", "x y",
 * "x y z", "x y z w" for reals (it stopped at 4 components). Beyond:
 * "x1 x2 ... x9", and "x1 x2 ... xN" for long ones (hest's glossary buffer
 * holds about 2000 characters; it says "(N floats)" anyway). */
static char *value_name(const DrtOption *o, unsigned nv) {
  static const char *const xyzw[] = {"x", "x y", "x y z", "x y z w"};
  bool real = o->type == DRT_OPT_FLOAT || o->type == DRT_OPT_DOUBLE;
  switch (o->type) {
  case DRT_OPT_FLAG: return NULL;
  case DRT_OPT_BOOL: return airStrdup("bool");
  case DRT_OPT_STRING: case DRT_OPT_FILE: return airStrdup("str");
  default: break;
  }
  if (real && nv <= 4) return airStrdup(xyzw[nv - 1]);
  if (!real && nv <= 4) return text_printf("int%s%s%s", nv > 1 ? " int" : "", nv > 2 ? " int" : "",
                                           nv > 3 ? " int" : "");
  const char *x = real ? "x" : "i";
  if (nv > 9) return text_printf("%s1 %s2 ... %s%u", x, x, x, nv);
  char *s = malloc(9 * 4);
  if (!s) return NULL;
  size_t k = 0;
  for (unsigned i = 0; i < nv; i++) k += (size_t)snprintf(s + k, 4, "%s%s%u", i ? " " : "", x, i + 1);
  return s;
}

/* The shortest "%g" text that reads back as x (in float when `single`). */
static void real_text(char *buf, size_t n, double x, bool single) {
  for (int p = single ? 6 : 15;; p++) {
    snprintf(buf, n, "%.*g", p, x);
    if (p >= (single ? 9 : 17)) return;
    if (single ? strtof(buf, NULL) == (float)x : strtod(buf, NULL) == x) return;
  }
}

/* An option with no default text keeps the value in *dest: that value,
 * as text, is hest's default (the original did the same with every input:
 * it printed the current value). NULL when out of memory. */
static char *current_text(const DrtOption *o, unsigned nv) {
  if (is_string(o->type)) {
    const char *s = *(const char *const *)o->dest;
    return airStrdup(s ? s : "");
  }
  char *buf = malloc((size_t)nv * 32 + 1);
  if (!buf) return NULL;
  size_t k = 0;
  for (unsigned i = 0; i < nv; i++) {
    char w[32];
    switch (o->type) {
    case DRT_OPT_BOOL: snprintf(w, sizeof w, "%s", *(bool *)o->dest ? "true" : "false"); break;
    case DRT_OPT_INT: snprintf(w, sizeof w, "%d", (int)((int32_t *)o->dest)[i]); break;
    case DRT_OPT_LONG: snprintf(w, sizeof w, "%lld", (long long)((int64_t *)o->dest)[i]); break;
    case DRT_OPT_UINT: snprintf(w, sizeof w, "%u", (unsigned)((uint32_t *)o->dest)[i]); break;
    case DRT_OPT_FLOAT: real_text(w, sizeof w, ((float *)o->dest)[i], true); break;
    default: real_text(w, sizeof w, ((double *)o->dest)[i], false); break;
    }
    k += (size_t)snprintf(buf + k, 33, "%s%s", i ? " " : "", w);
  }
  buf[k] = '\0';
  return buf;
}

/* Words of a default text; hest would silently drop extra ones. */
static unsigned count_words(const char *s) {
  unsigned n = 0;
  for (;;) {
    while (isspace((unsigned char)*s)) s++;
    if (!*s) return n;
    n++;
    while (*s && !isspace((unsigned char)*s)) s++;
  }
}

/* The default text that is a value: DFLT, or NULL for none or for a
 * default the program computes (DRT_CLI_COMPUTED). */
static const char *value_dflt(const DrtOption *o) {
  return o->dflt && o->dflt[0] != DRT_CLI_COMPUTED[0] ? o->dflt : NULL;
}

/* The default of an option that cannot be given (see shadowed). */
static void parse_default(CliOpt *c) {
  const char *s = value_dflt(c->o);
  char word[128];
  for (unsigned i = 0; i < c->nv; i++) {
    while (isspace((unsigned char)*s)) s++;
    size_t n = 0;
    while (s[n] && !isspace((unsigned char)s[n])) n++;
    if (n >= sizeof word) n = sizeof word - 1;
    memcpy(word, s, n);
    word[n] = '\0';
    cli_cb_parse(&c->slots[i], n ? word : NULL, NULL);
    s += n;
  }
}

/* ----------------------------------------------------------- the table */

static void state_free(CliState *st) {
  if (!st) return;
  if (st->parsed) hestParseFree(st->hopt);
  hestOptFree(st->hopt);
  hestParmFree(st->parm);
  for (unsigned i = 0; st->opts && i < st->n; i++) {
    free(st->opts[i].shown);
    free(st->opts[i].bad);
  }
  free(st->opts);
  free(st->slots);
  free(st);
}

/* hest copies what hestOptAdd gets; we free ours after. Text longer than
 * `cap` is cut for the usage: hest formats it into fixed buffers. */
static char *capped(const char *s, size_t cap) {
  if (!s || strlen(s) <= cap) return airStrdup(s);
  char *t = malloc(cap + 4);
  if (t) {
    memcpy(t, s, cap);
    memcpy(t + cap, "...", 4);
  }
  return t;
}

/* Build hest's table from cli's. `display`: for the usage (long defaults
 * cut). NULL with *why set (malloc'd) when the table is bad or memory is
 * short. */
static CliState *state_new(const DrtCli *cli, bool display, char **why) {
  *why = NULL;
  CliState *st = calloc(1, sizeof *st);
  unsigned nslots = 0;
  for (unsigned i = 0; i < cli->nopts; i++) nslots += nvalues(&cli->opts[i]);
  if (st) {
    st->n = cli->nopts;
    st->opts = calloc(cli->nopts + 1, sizeof *st->opts);
    st->slots = calloc(nslots + 1, sizeof *st->slots);
    st->parm = hestParmNew();
  }
  if (!st || !st->opts || !st->slots || !st->parm) goto oom;
  st->parm->noArgsIsNoProblem = AIR_TRUE; /* the original's: all defaults is fine */
  st->parm->respFileEnable = AIR_FALSE;
  /* No variable-parameter options here; and with the stop flag, hest
   * reads opt[-2] for "-name --". */
  st->parm->varParamStopFlag = '\0';
  st->help_short = !shadowed(cli, -1);
  hestOptAdd(&st->hopt, st->help_short ? "h,help" : "-help", NULL, airTypeInt, 0, 0,
             &st->help, NULL, "print usage information (--help: with this glossary) and exit",
             NULL, NULL, NULL);
  CliSlot *slot = st->slots;
  for (unsigned i = 0; i < cli->nopts; i++) {
    const DrtOption *o = &cli->opts[i];
    CliOpt *c = &st->opts[i];
    c->o = o;
    c->nv = nvalues(o);
    c->slots = slot;
    for (unsigned k = 0; k < c->nv; k++) slot[k].owner = c;
    slot += c->nv;
    c->hidx = -1;
    const char *comma = strchr(o->name, ',');
    if (strlen(o->name) > DRT_CLI_MAX_NAME) {
      *why = text_printf("option '-%.40s...': name longer than %d characters (internal error)",
                         o->name, DRT_CLI_MAX_NAME);
      goto fail;
    }
    if (!is_string(o->type) && o->type != DRT_OPT_FLAG && value_dflt(o) &&
        count_words(o->dflt) != c->nv) {
      *why = text_printf("option '-%.*s': bad default '%s' (internal error)",
                         (int)short_len(o->name), o->name, o->dflt);
      goto fail;
    }
    bool hidden = shadowed(cli, (int)i);
    c->shown = hidden && comma ? text_printf("--%s", comma + 1)
                               : text_printf("-%.*s", (int)short_len(o->name), o->name);
    if (!c->shown) goto oom;
    if (hidden && !comma) {
      /* cannot be given: the default holds */
      if (o->required) {
        *why = text_printf("option '%s' cannot be given: a later option has its name "
                           "(internal error)", c->shown);
        goto fail;
      }
      continue;
    }
    char *flag = hidden ? text_printf("-%s", comma + 1) : airStrdup(o->name);
    char *name = value_name(o, c->nv);
    char *dflt = NULL;
    if (!o->required && o->type != DRT_OPT_FLAG) {
      /* a computed default: its source in the usage; parsing needs a
       * value, and the current one is never stored (see store) */
      dflt = value_dflt(o)             ? airStrdup(o->dflt)
             : o->dflt && display      ? airStrdup(o->dflt + 1)
                                       : current_text(o, c->nv);
      if (dflt && display) {
        char *cut = capped(dflt, 600);
        free(dflt);
        dflt = cut;
      }
    }
    char *info = capped(o->desc, 1000);
    bool bad = !flag || (o->type != DRT_OPT_FLAG && !name) ||
               (!o->required && o->type != DRT_OPT_FLAG && !dflt) || (o->desc && !info);
    if (!bad) {
      unsigned nv = o->type == DRT_OPT_FLAG ? 0 : c->nv;
      hestCB *cb = type_cb(o->type);
      int type = cb ? airTypeOther : is_string(o->type) ? airTypeString : airTypeInt;
      c->hidx = (int)hestOptAdd(&st->hopt, flag, name, type, (int)nv, (int)nv, c->slots,
                                dflt, info, NULL, NULL, cb);
    }
    free(flag);
    free(name);
    free(dflt);
    free(info);
    if (bad) goto oom;
  }
  return st;
oom:
  if (!*why) *why = text_printf("out of memory");
fail:
  state_free(st);
  return NULL;
}

/* ----------------------------------------------------------- usage */

static const char *prog_name(const DrtCli *cli, const char *argv0) {
  return cli->prog ? cli->prog : argv0 ? argv0 : "program";
}

/* hestUsage builds the synopsis in a buffer of 2*AIR_STRLEN_HUGE bytes:
 * a table too long for it (a hundred inputs or so) gets a short synopsis
 * (the glossary still lists every option). */
static void usage_line(FILE *f, const CliState *st, const char *prog) {
  size_t need = strlen("Usage: ") + strlen(prog) + 1;
  for (unsigned i = 0; st->hopt[i].flag; i++)
    need += 2 * strlen(st->hopt[i].flag) + (st->hopt[i].name ? strlen(st->hopt[i].name) : 0) + 12;
  if (need < 2 * AIR_STRLEN_HUGE - 16)
    hestUsage(f, st->hopt, prog, st->parm);
  else
    fprintf(f, "\nUsage: %s [options]\n", prog);
}

static void usage(FILE *f, const CliState *st, const DrtCli *cli, const char *prog, bool full) {
  if (full && cli->info) hestInfo(f, prog, cli->info, st->parm);
  usage_line(f, st, prog);
  if (full) hestGlossary(f, st->hopt, st->parm);
}

void drt_cli_usage(const DrtCli *cli, const char *prog, FILE *f, bool full) {
  char *why;
  CliState *st = state_new(cli, true, &why);
  prog = prog_name(cli, prog);
  if (!st) {
    fprintf(f, "%s: %s\n", prog, why ? why : "out of memory");
    free(why);
    return;
  }
  usage(f, st, cli, prog, full);
  state_free(st);
}

/* ----------------------------------------------------------- parsing */

/* A bad command line: the message, and with st the synopsis and a hint. */
static int fail(const CliState *st, const char *prog, FILE *err, const char *fmt, ...)
    DRT_PRINTF(4, 5);

static int fail(const CliState *st, const char *prog, FILE *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(err, "%s: ", prog);
  vfprintf(err, fmt, ap);
  va_end(ap);
  fputc('\n', err);
  if (st) {
    usage_line(err, st, prog);
    fprintf(err, "Use '%s --help' for a description of every option.\n", prog);
  }
  return DRT_CLI_ERROR;
}

/* Copy a parsed option into the program's variable. */
static void store(const CliOpt *c, bool from_user) {
  const DrtOption *o = c->o;
  if (o->type == DRT_OPT_FLAG) {
    *(bool *)o->dest = c->slots[0].v.b != 0;
    return;
  }
  if (is_string(o->type)) {
    if (from_user) *(const char **)o->dest = c->slots[0].v.s;
    else if (value_dflt(o)) *(const char **)o->dest = o->dflt; /* hest's copy squeezes spaces */
    return;
  }
  if (!from_user && !value_dflt(o)) return; /* hest's default was *dest itself (or computed) */
  for (unsigned i = 0; i < c->nv; i++) {
    const CliSlot *s = &c->slots[i];
    switch (o->type) {
    case DRT_OPT_BOOL: *(bool *)o->dest = s->v.b != 0; break;
    case DRT_OPT_INT: ((int32_t *)o->dest)[i] = s->v.i32; break;
    case DRT_OPT_LONG: ((int64_t *)o->dest)[i] = s->v.i64; break;
    case DRT_OPT_UINT: ((uint32_t *)o->dest)[i] = s->v.u32; break;
    case DRT_OPT_FLOAT: ((float *)o->dest)[i] = s->v.f; break;
    default: ((double *)o->dest)[i] = s->v.d; break;
    }
  }
}

/* -sched-NAME given on the command line: checked, and put in the
 * environment (DIDEROT_SCHED_NAME), where the world reads it as its run
 * begins (rt_schedule.c says why). No program option can be named so:
 * inputs are identifiers, and outputs are o-NAME and sp-NAME. */
static int sched_options(const CliState *st, const char *prog, FILE *err) {
  /* what the executable is, from its standard options: -n (parallel
   * targets) and -sched-writer (--snapshot) */
  bool parallel = false, snapshot = false;
  for (unsigned i = 0; i < st->n; i++) {
    parallel |= !strcmp(st->opts[i].o->name, "n,nworkers");
    snapshot |= !strcmp(st->opts[i].o->name, "sched-writer");
  }
  for (unsigned i = 0; i < st->n; i++) {
    const CliOpt *c = &st->opts[i];
    if (!strcmp(c->o->name, "schedule") && c->hidx >= 0 &&
        st->hopt[c->hidx].source == hestSourceUser) {
      char why[300];
      if (drt_sched_text(*(const char *const *)c->o->dest, parallel, snapshot, why, sizeof why))
        return fail(st, prog, err, "option '%s': %s", c->shown, why);
      continue;
    }
    if (strncmp(c->o->name, "sched-", 6) != 0 || c->hidx < 0 ||
        st->hopt[c->hidx].source != hestSourceUser)
      continue;
    char num[16], why[200];
    const char *text;
    if (c->o->type == DRT_OPT_UINT) {
      snprintf(num, sizeof num, "%u", (unsigned)*(const uint32_t *)c->o->dest);
      text = num;
    } else if (is_string(c->o->type)) {
      text = *(const char *const *)c->o->dest;
    } else {
      continue;
    }
    if (drt_sched_cli(c->o->name + 6, text, why, sizeof why))
      return fail(st, prog, err, "option '%s': %s", c->shown, why);
  }
  return DRT_CLI_OK;
}

static int parse(DrtCli *cli, CliState *st, int argc, const char *const *argv,
                 const char *prog, FILE *out, FILE *err) {
  /* -h / --help anywhere, before hest (as the original): the usage is
   * there even when a required option is missing */
  for (int a = 1; a < argc; a++) {
    bool lng = strcmp(argv[a], "--help") == 0;
    if (lng || (st->help_short && strcmp(argv[a], "-h") == 0)) {
      char *why;
      CliState *d = state_new(cli, true, &why);
      usage(out, d ? d : st, cli, prog, lng);
      state_free(d);
      free(why);
      return DRT_CLI_HELP;
    }
  }
  for (unsigned i = 0; i < st->n; i++) {
    const DrtOption *o = st->opts[i].o;
    if (st->opts[i].hidx < 0 && value_dflt(o) && !is_string(o->type) && o->type != DRT_OPT_FLAG)
      parse_default(&st->opts[i]);
  }
  /* hest wants a NULL-terminated argv */
  const char **words = calloc((size_t)(argc > 0 ? argc : 1), sizeof *words);
  if (!words) return fail(NULL, prog, err, "out of memory");
  for (int a = 1; a < argc; a++) words[a - 1] = argv[a];
  char *herr = NULL;
  int bad = hestParse(st->hopt, argc > 0 ? argc - 1 : 0, words, &herr, st->parm);
  free(words);
  if (bad) {
    int r = fail(st, prog, err, "%s", herr ? herr : "bad command line");
    free(herr);
    return r;
  }
  st->parsed = true;
  for (unsigned i = 0; i < st->n; i++) {
    const CliOpt *c = &st->opts[i];
    bool user = c->hidx >= 0 && st->hopt[c->hidx].source == hestSourceUser;
    if (c->oom) return fail(NULL, prog, err, "out of memory");
    if (user && (c->bad || c->bad_missing))
      return fail(st, prog, err, "option '%s': bad value '%s' (expected %s)", c->shown,
                  c->bad ? c->bad : "", expected(c->o->type));
    if (c->bad || c->bad_missing)
      return fail(NULL, prog, err, "option '%s': bad default '%s' (internal error)",
                  c->shown, c->o->dflt ? c->o->dflt : "");
  }
  for (unsigned i = 0; i < st->n; i++) {
    const CliOpt *c = &st->opts[i];
    bool user = c->hidx >= 0 && st->hopt[c->hidx].source == hestSourceUser;
    if (c->o->given) *c->o->given = user;
    store(c, user);
  }
  return sched_options(st, prog, err);
}

int drt_cli_parse(DrtCli *cli, int argc, const char *const *argv,
                  FILE *out, FILE *err) {
  drt_cli_free(cli);
  const char *prog = prog_name(cli, argc > 0 ? argv[0] : NULL);
  drt_exec_begin(prog); /* an executable: signals, creation failures (rt_exec.c) */
  char *why;
  CliState *st = state_new(cli, false, &why);
  if (!st) {
    int r = fail(NULL, prog, err, "%s", why ? why : "out of memory");
    free(why);
    return r;
  }
  int r = parse(cli, st, argc, argv, prog, out, err);
  if (r == DRT_CLI_OK) cli->state = st; /* string values live in it */
  else state_free(st);
  return r;
}

void drt_cli_free(DrtCli *cli) {
  state_free(cli->state);
  cli->state = NULL;
}

int drt_cli_exit_status(int result) {
  return result == DRT_CLI_ERROR ? 2 : 0;
}

unsigned drt_cli_std_options(DrtOption *tab, DrtStdOptions *so,
                             unsigned features) {
  unsigned n = 0;
  so->nworkers = 0;
  so->snapshot = 0;
  so->sched_chunk = 0;
  so->sched_steps_text = "0";
  so->sched_writer = "auto"; /* also without snapshots, where it is no option */
  so->schedule_text = "";
  so->trace_file = NULL;
  tab[n++] = (DrtOption){"l,limit", DRT_OPT_UINT, 1,
                         "specify limit on number of super-steps (0 means unlimited)", "0",
                         false, &so->limit, NULL};
  if (features & DRT_CLI_SNAPSHOT)
    tab[n++] = (DrtOption){"s,snapshot", DRT_OPT_UINT, 1,
                           "specify number of super-steps per snapshot (0 means no snapshots)",
                           "0", false, &so->snapshot, NULL};
  tab[n++] = (DrtOption){"print", DRT_OPT_FILE, 1,
                         "specify where to direct printed output (- means stdout)", "-", false,
                         &so->print_file, NULL};
  tab[n++] = (DrtOption){"v,verbose", DRT_OPT_FLAG, 0, "enable runtime-system messages", NULL,
                         false, &so->verbose, NULL};
  tab[n++] = (DrtOption){"t,timing", DRT_OPT_FLAG, 0,
                         "enable execution timing: print usr=<wall seconds> cpu=<CPU seconds>",
                         NULL, false, &so->timing, NULL};
  if (features & DRT_CLI_PARALLEL)
    tab[n++] = (DrtOption){"n,nworkers", DRT_OPT_UINT, 1,
                           "specify number of worker threads (0 means one per core)", "0",
                           false, &so->nworkers, NULL};
  /* ours, after the original's: a program input named q takes -q (hest
   * shadowing above), and this stays --quiet */
  tab[n++] = (DrtOption){"q,quiet", DRT_OPT_FLAG, 0,
                         "no progress display on a terminal (step, strands, time)", NULL, false,
                         &so->quiet, NULL};
  /* ours: the record of strands' stabilize, die and new (rt_trace.c) */
  if (features & DRT_CLI_TRACE)
    tab[n++] = (DrtOption){"trace,trace", DRT_OPT_FILE, 1,
                           "write a line 'STEP ID EVENT WHERE' for each strand that stabilizes, "
                           "dies or is born to this file",
                           NULL, false, &so->trace_file, NULL};
  /* the run-time schedule (diderot_world.h), last: no input can take
   * these names (they are not identifiers) */
  tab[n++] = (DrtOption){"sched-chunk", DRT_OPT_UINT, 1,
                         "strands per work chunk: a multiple of the strand layout's block (0 means "
                         "the program's default)",
                         "0", false, &so->sched_chunk, NULL};
  tab[n++] = (DrtOption){"sched-steps", DRT_OPT_STRING, 1,
                         "updates of a strand per visit where the program runs strand by strand: "
                         "N, all, or 0 for the program's default (1 means super-steps)",
                         "0", false, &so->sched_steps_text, NULL};
  if (features & DRT_CLI_SNAPSHOT)
    tab[n++] = (DrtOption){"sched-writer", DRT_OPT_STRING, 1,
                           "save snapshots on a writer thread: auto (with two CPUs or more), on "
                           "or off",
                           "auto", false, &so->sched_writer, NULL};
  tab[n++] = (DrtOption){"schedule", DRT_OPT_STRING, 1,
                         "the run-time schedule as KEY=VALUE words: chunk=N, steps-per-visit=N|all"
                         ", omp-schedule=dynamic|static|guided (OpenMP), snapshot-writer=auto|on|off "
                         "(with snapshots); the program's own for the others",
                         "", false, &so->schedule_text, NULL};
  return n;
}

int drt_cli_choice(const char *prog, const char *name, const char *kind, const char *text,
                   const char *const *names, unsigned n, FILE *err) {
  for (unsigned i = 0; text && i < n; i++)
    if (strcmp(text, names[i]) == 0) return (int)i;
  fprintf(err, "%s: error: input '%s': '%s' is not one of its %s choices:", prog, name,
          text ? text : "", kind);
  for (unsigned i = 0; i < n; i++) fprintf(err, "%s %s", i ? "," : "", names[i]);
  fputc('\n', err);
  return -1;
}
