/* options.c -- parsing the diderotc command line (doc/diderotc.1). */
#include "driver/options.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/suggest.h"

/* ARG_OPTIONAL: only as --name=value (--tune, --tune=quick) */
typedef enum OptArg { ARG_NONE, ARG_REQUIRED, ARG_OPTIONAL } OptArg;

typedef enum OptId {
  O_HELP, O_HELP_ALL, O_VERSION, O_ABOUT, O_EXEC, O_STATIC, O_SHARED, O_JSON,
  O_OUTPUT, O_NAMESPACE, O_SNAPSHOT, O_DEBUG, O_DOUBLE, O_LONG_INT, O_SCALAR, O_STRICT,
  O_TARGET, O_LOG, O_STATS, O_VERBOSE, O_CHECK, O_DUMP, O_NO_WARN, O_WERROR, O_COLOR,
  O_OPT_LEVEL, O_STRAND_LAYOUT, O_IMAGE_LAYOUT, O_CUDA_EMULATE, O_SIMD, O_SCHEDULE, O_DETERMINISTIC, O_TUNE, O_TUNE_ARGS, O_TUNE_STEPS, O_INTERNAL,
} OptId;

typedef struct OptSpec {
  OptId id;
  char short_name;  /* 0 when none */
  const char *long_name;
  OptArg arg;
  bool internal;    /* listed by -H only */
  const char *help;
} OptSpec;

/* The table drives both parsing and --help. */
static const OptSpec option_table[] = {
    {O_HELP, 'h', "help", ARG_NONE, false, "print this usage and exit"},
    {O_HELP_ALL, 'H', NULL, ARG_NONE, false, "usage including the internal controls"},
    {O_VERSION, 0, "version", ARG_NONE, false, "print the compiler version"},
    {O_ABOUT, 0, "about", ARG_NONE, false, "print information about Diderot"},
    {O_CHECK, 0, "check", ARG_NONE, false, "stop after typechecking (exit 0 on a valid program)"},
    {O_EXEC, 0, "exec", ARG_NONE, false, "build a standalone executable (default: a library)"},
    {O_STATIC, 0, "static", ARG_NONE, false, "build the library as one relocatable object"},
    {O_SHARED, 0, "shared", ARG_NONE, false, "build the library as a shared object (.so)"},
    {O_JSON, 0, "json", ARG_NONE, false, "also write NAME.json describing the library API"},
    {O_OUTPUT, 'o', "output", ARG_REQUIRED, false, "output stem (the executable with --exec)"},
    {O_NAMESPACE, 0, "namespace", ARG_REQUIRED, false, "prefix of library symbols (default Diderot)"},
    {O_SNAPSHOT, 0, "snapshot", ARG_NONE, false, "generate snapshot support"},
    {O_OPT_LEVEL, 'O', NULL, ARG_REQUIRED, false,
     "the C compiler's optimisation level (default -O3; -O0 for quick builds)"},
    {O_DEBUG, 'g', "debug", ARG_NONE, false, "assertions and debug information in generated code"},
    {O_DOUBLE, 0, "double", ARG_NONE, false, "real is C double (default float)"},
    {O_LONG_INT, 0, "long-int", ARG_NONE, false, "int is 64-bit (default 32-bit)"},
    {O_STRICT, 0, "strict", ARG_NONE, false,
     "reject the extensions of the language (doc/differences.md) so the program stays portable"},
    {O_SCALAR, 0, "scalar", ARG_NONE, false, "do not use vector extensions"},
    {O_TARGET, 0, "target", ARG_REQUIRED, false, "seq (default), omp, cuda, or mpi (executables run with mpirun)"},
    {O_LOG, 0, "log", ARG_NONE, false, "write a compiler log NAME.log"},
    {O_STATS, 0, "stats", ARG_NONE, false, "report per-phase IR sizes and rewrite counts"},
    {O_VERBOSE, 0, "verbose", ARG_NONE, false, "report compiler phases on stderr"},
    {O_DUMP, 0, "dump", ARG_REQUIRED, false,
     "print an IR: ast, high, mid, low, tree, or the schedule (comma list)"},
    {O_NO_WARN, 'w', NULL, ARG_NONE, false, "suppress warnings"},
    {O_WERROR, 0, "Werror", ARG_NONE, false, "treat warnings as errors"},
    {O_COLOR, 0, "color", ARG_REQUIRED, false,
     "auto (default: on a terminal, unless NO_COLOR is set), always or never"},
    {O_STRAND_LAYOUT, 0, "strand-layout", ARG_REQUIRED, false, "aos, soa or aosoa:N"},
    {O_IMAGE_LAYOUT, 0, "image-layout", ARG_REQUIRED, false, "linear, brick:N or halo:N"},
    {O_SIMD, 0, "simd", ARG_REQUIRED, false,
     "auto (default: also across strands where the update probes images), within (vectors within a strand only), strands (also across strands) or off (= --scalar)"},
    {O_SCHEDULE, 0, "schedule", ARG_REQUIRED, false,
     "a schedule file (key = value lines) over the heuristics; flags override it"},
    {O_DETERMINISTIC, 0, "deterministic", ARG_NONE, false,
     "refuse schedule choices that can change results (a chunk size where new strands or real reductions over strands depend on it)"},
    {O_TUNE, 0, "tune", ARG_OPTIONAL, false,
     "--tune[=quick|full]: time the run-time schedule's candidates on the --tune-args run and "
     "build (and cache) the fastest whose outputs equal the default's"},
    {O_TUNE_ARGS, 0, "tune-args", ARG_REQUIRED, false,
     "the program's own command line for --tune (its inputs), one string"},
    {O_TUNE_STEPS, 0, "tune-steps", ARG_REQUIRED, false,
     "with --tune: time each candidate on the first N super-steps (the program's -l N) instead of whole runs"},
    {O_CUDA_EMULATE, 0, "cuda-emulate", ARG_NONE, false,
     "with --target=cuda: run the kernels on the CPU (emulation, for testing)"},
    {O_INTERNAL, 0, "disable-inlining", ARG_NONE, true, "internal control"},
    {O_INTERNAL, 0, "disable-high-vn", ARG_NONE, true, "internal control"},
    {O_INTERNAL, 0, "disable-mid-vn", ARG_NONE, true, "internal control"},
    {O_INTERNAL, 0, "disable-low-vn", ARG_NONE, true, "internal control"},
    {O_INTERNAL, 0, "disable-split", ARG_NONE, true, "internal control"},
    {O_INTERNAL, 0, "disable-slice", ARG_NONE, true, "internal control"},
    {O_INTERNAL, 0, "disable-sum-binding", ARG_NONE, true, "internal control"},
    {O_INTERNAL, 0, "force-bsp", ARG_NONE, true, "always use the super-step loop"},
    {O_INTERNAL, 0, "no-space-partition", ARG_NONE, true, "brute-force sphere queries"},
    {O_INTERNAL, 0, "no-loop-lanes", ARG_NONE, true, "loops over sequences one iteration at a time"},
    {O_INTERNAL, 0, "check-ir", ARG_NONE, true,
     "run the IR checker after every pass (also DIDEROT_CHECK_IR=1)"},
};
enum { OPTION_COUNT = sizeof option_table / sizeof option_table[0] };

static bool opt_error(const char *fmt, const char *arg) {
  fprintf(stderr, "diderotc: error: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(use 'diderotc --help' for usage)\n");
  return false;
}

const char *options_target_name(Target t) {
  switch (t) {
    case TARGET_SEQ: return "seq";
    case TARGET_OMP: return "omp";
    case TARGET_CUDA: return "cuda";
    case TARGET_MPI: return "mpi";
  }
  return "?";
}

void options_print_usage(bool all) {
  printf("usage: diderotc [options] file.diderot\n\noptions:\n");
  for (int i = 0; i < OPTION_COUNT; i++) {
    const OptSpec *s = &option_table[i];
    if (s->internal && !all) continue;
    char names[64];
    if (s->short_name && s->long_name)
      snprintf(names, sizeof names, "-%c, --%s%s", s->short_name, s->long_name,
               s->arg ? "=ARG" : "");
    else if (s->id == O_OPT_LEVEL)
      snprintf(names, sizeof names, "-O0, -O1, -O2, -O3");
    else if (s->short_name)
      snprintf(names, sizeof names, "-%c", s->short_name);
    else
      snprintf(names, sizeof names, "--%s%s", s->long_name,
               s->arg == ARG_OPTIONAL ? "[=MODE]" : s->arg ? "=ARG" : "");
    printf("  %-28s %s\n", names, s->help);
  }
  printf("  %-28s %s\n", "--C<name>=<value>", "define or override 'const name'");
  printf("  %-28s %s\n", "--D<name>[=<value>]", "C preprocessor definition for generated code");
  if (all) printf("\n(internal controls are accepted only where their phase exists)\n");
}

static bool opt_valid_namespace(const char *s) {
  if (!(isalpha((unsigned char)*s) || *s == '_')) return false;
  for (const char *p = s; *p; p++)
    if (!(isalnum((unsigned char)*p) || *p == '_')) return false;
  return strcmp(s, "diderot") != 0;
}

static bool opt_set_target(DriverOptions *o, const char *v) {
  if (!strcmp(v, "seq") || !strcmp(v, "sequential") || !strcmp(v, "c"))
    o->target = TARGET_SEQ;
  else if (!strcmp(v, "omp") || !strcmp(v, "parallel") || !strcmp(v, "pthread"))
    o->target = TARGET_OMP;
  else if (!strcmp(v, "cuda"))
    o->target = TARGET_CUDA;
  else if (!strcmp(v, "mpi"))
    o->target = TARGET_MPI;
  else
    return opt_error("unknown target '%s' (expected seq, omp, cuda or mpi)", v);
  return true;
}

/* A comma list; an empty item ("--dump=", "ast,,low") is refused like any
 * unknown one. (No strtok: it keeps hidden static state.) */
static bool opt_set_dump(DriverOptions *o, Arena *a, const char *v) {
  for (const char *p = v;; p += strcspn(p, ",") + 1) {
    const char *tok = arena_strndup(a, p, strcspn(p, ","));
    if (!strcmp(tok, "ast")) o->dump |= DUMP_AST;
    else if (!strcmp(tok, "high")) o->dump |= DUMP_HIGH;
    else if (!strcmp(tok, "mid")) o->dump |= DUMP_MID;
    else if (!strcmp(tok, "low")) o->dump |= DUMP_LOW;
    else if (!strcmp(tok, "tree")) o->dump |= DUMP_TREE;
    else if (!strcmp(tok, "schedule")) o->dump |= DUMP_SCHEDULE;
    else if (!strcmp(tok, "all")) o->dump |= DUMP_AST | DUMP_HIGH | DUMP_MID | DUMP_LOW | DUMP_TREE;
    else return opt_error("unknown --dump phase '%s' (expected ast, high, mid, low, tree, schedule, all)", tok);
    if (!p[strcspn(p, ",")]) return true;
  }
}

/* --Cname=value and --Dname[=value]. */
static bool opt_define(Arena *a, DriverOptions *o, const char *body, bool is_const) {
  const char *eq = strchr(body, '=');
  size_t n = eq ? (size_t)(eq - body) : strlen(body);
  if (n == 0) return opt_error("missing name in '%s'", body);
  if (is_const) {
    if (!eq) return opt_error("--C%s needs a value (--Cname=value)", body);
    ConstOverride *c = ARENA_NEW(a, ConstOverride);
    c->name = arena_strndup(a, body, n);
    c->value = arena_strdup(a, eq + 1);
    ConstOverride **tail = &o->consts;
    while (*tail) tail = &(*tail)->next;
    *tail = c;
  } else {
    const char **nd = ARENA_NEW_ARRAY(a, const char *, o->ndefines + 1);
    if (o->ndefines) memcpy(nd, o->defines, sizeof *nd * (size_t)o->ndefines);
    nd[o->ndefines++] = arena_strdup(a, body);
    o->defines = nd;
  }
  return true;
}

static bool opt_apply(Arena *a, DriverOptions *o, const OptSpec *s, const char *val) {
  switch (s->id) {
    case O_HELP: o->help = true; break;
    case O_HELP_ALL: o->help = o->help_all = true; break;
    case O_VERSION: o->version = true; break;
    case O_ABOUT: o->about = true; break;
    case O_EXEC: o->exec = true; break;
    case O_STATIC: o->static_lib = true; break;
    case O_SHARED: o->shared_lib = true; break;
    case O_JSON: o->json = true; break;
    case O_OUTPUT: o->output = val; break;
    case O_NAMESPACE:
      if (!opt_valid_namespace(val))
        return opt_error("invalid namespace '%s' (must match [A-Za-z_][A-Za-z0-9_]* and not be 'diderot')", val);
      o->ns = val;
      break;
    case O_SNAPSHOT: o->snapshot = true; break;
    case O_OPT_LEVEL:
      if (strlen(val) != 1 || val[0] < '0' || val[0] > '3')
        return opt_error("unknown optimisation level '-O%s' (expected -O0, -O1, -O2 or -O3)", val);
      o->opt_level = val[0] - '0';
      break;
    case O_DEBUG: o->debug = true; break;
    case O_DOUBLE: o->double_real = true; break;
    case O_LONG_INT: o->long_int = true; break;
    case O_STRICT: o->strict = true; break;
    case O_SCALAR: o->scalar = true; break;
    case O_TARGET: return opt_set_target(o, val);
    case O_LOG: o->log = true; break;
    case O_STATS: o->stats = true; break;
    case O_VERBOSE: o->verbose = true; break;
    case O_CHECK: o->check = true; break;
    case O_DUMP: return opt_set_dump(o, a, val);
    case O_NO_WARN: o->no_warnings = true; break;
    case O_WERROR: o->warnings_as_errors = true; break;
    case O_COLOR:
      if (!strcmp(val, "auto")) o->color = COLOR_AUTO;
      else if (!strcmp(val, "always")) o->color = COLOR_ALWAYS;
      else if (!strcmp(val, "never")) o->color = COLOR_NEVER;
      else return opt_error("unknown --color mode '%s' (expected auto, always or never)", val);
      break;
    case O_STRAND_LAYOUT: o->strand_layout = val; break;
    case O_IMAGE_LAYOUT: o->image_layout = val; break;
    case O_CUDA_EMULATE: o->cuda_emulate = true; break;
    case O_DETERMINISTIC: o->deterministic = true; break;
    case O_SCHEDULE:
      if (!*val) return opt_error("option '--schedule' needs a file name%s", "");
      o->schedule = val;
      break;
    case O_TUNE:
      if (!val || !strcmp(val, "quick")) o->tune = 1;
      else if (!strcmp(val, "full")) o->tune = 2;
      else return opt_error("unknown --tune mode '%s' (expected quick or full)", val);
      break;
    case O_TUNE_ARGS: o->tune_args = val; break;
    case O_TUNE_STEPS: {
      char *end;
      errno = 0;
      unsigned long n = strtoul(val, &end, 10);
      if (!*val || *end || errno || n == 0 || n > 1000000000ul || val[0] == '-' || val[0] == '+')
        return opt_error("--tune-steps needs a number of super-steps from 1 to 1000000000, not '%s'", val);
      o->tune_steps = (unsigned)n;
      break;
    }
    case O_SIMD:
      o->simd_strands = o->simd_within = false;
      if (!strcmp(val, "auto")) {
        /* the default: decided per program (emit_c_simd.c) */
      } else if (!strcmp(val, "within")) o->simd_within = true;
      else if (!strcmp(val, "strands")) o->simd_strands = true;
      else if (!strcmp(val, "off")) o->scalar = true;
      else return opt_error("unknown --simd mode '%s' (expected auto, within, strands or off)", val);
      break;
    case O_INTERNAL:
      if (o->ninternal < (int)(sizeof o->internal / sizeof o->internal[0]))
        o->internal[o->ninternal++] = s->long_name;
      break;
  }
  return true;
}

static const OptSpec *opt_find_long(const char *name, size_t n) {
  for (int i = 0; i < OPTION_COUNT; i++) {
    const char *ln = option_table[i].long_name;
    if (ln && strlen(ln) == n && !strncmp(ln, name, n)) return &option_table[i];
  }
  return NULL;
}

/* "unknown option '--targt=omp'; did you mean '--target'?" */
static bool opt_unknown_long(Arena *a, const char *arg, const char *name, size_t n) {
  char *word = arena_printf(a, "%.*s", (int)n, name);
  Suggest sg;
  suggest_init(&sg, word);
  for (int i = 0; i < OPTION_COUNT; i++)
    if (option_table[i].long_name && !option_table[i].internal)
      suggest_offer(&sg, option_table[i].long_name);
  if (!suggest_best(&sg)) return opt_error("unknown option '%s'", arg);
  return opt_error(arena_printf(a, "unknown option '%%s'; did you mean '--%s'?", suggest_best(&sg)),
                   arg);
}

static const OptSpec *opt_find_short(char c) {
  for (int i = 0; i < OPTION_COUNT; i++)
    if (option_table[i].short_name == c) return &option_table[i];
  return NULL;
}


bool options_parse(Arena *a, int argc, char **argv, DriverOptions *o) {
  memset(o, 0, sizeof *o);
  o->ns = "Diderot";
  o->opt_level = -1;
  bool only_files = false;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (only_files || arg[0] != '-' || arg[1] == '\0') {
      if (o->file) return opt_error("too many files (already have '%s')", o->file);
      o->file = arg;
      continue;
    }
    if (!strcmp(arg, "--")) {
      only_files = true;
      continue;
    }
    if (arg[1] == '-') { /* long option */
      const char *name = arg + 2;
      /* --Cname=value and --Dname[=value] (not --check, --debug, ...) */
      if ((name[0] == 'C' || name[0] == 'D') && isalpha((unsigned char)name[1]) &&
          !opt_find_long(name, strcspn(name, "="))) {
        if (!opt_define(a, o, name + 1, name[0] == 'C')) return false;
        continue;
      }
      size_t n = strcspn(name, "=");
      const OptSpec *s = opt_find_long(name, n);
      if (!s && !strncmp(name, "dump-", 5)) { /* the reference spells it --dump-ast */
        if (!opt_set_dump(o, a, name + 5)) return false;
        continue;
      }
      if (!s) return opt_unknown_long(a, arg, name, n);
      const char *val = NULL;
      if (s->arg == ARG_REQUIRED) {
        if (name[n] == '=') val = name + n + 1;
        else if (i + 1 < argc) val = argv[++i];
        else return opt_error("option '%s' needs an argument", arg);
      } else if (s->arg == ARG_OPTIONAL) {
        if (name[n] == '=') val = name + n + 1;
      } else if (name[n] == '=') {
        return opt_error("option '%s' takes no argument", arg);
      }
      if (!opt_apply(a, o, s, val)) return false;
      continue;
    }
    /* short options, possibly -oFILE */
    const OptSpec *s = opt_find_short(arg[1]);
    if (!s) return opt_error("unknown option '%s'", arg);
    const char *val = NULL;
    if (s->id == O_OPT_LEVEL && !arg[2]) /* -O alone: not -O with the next word */
      return opt_error("option '%s' needs a level (-O0, -O1, -O2 or -O3)", arg);
    if (s->arg == ARG_REQUIRED) {
      if (arg[2]) val = arg + 2;
      else if (i + 1 < argc) val = argv[++i];
      else return opt_error("option '%s' needs an argument", arg);
    } else if (arg[2]) {
      return opt_error("unknown option '%s'", arg);
    }
    if (!opt_apply(a, o, s, val)) return false;
  }
  return true;
}
