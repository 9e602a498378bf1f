/* tune_run.c -- one run of a program for the tuner (tune.h): the user's
 * arguments, in a directory of its own under the tuner's work directory,
 * its stdout in a file beside it; timed by the program's own --timing
 * (the run without loading inputs or writing outputs' setup), and its
 * outputs compared byte for byte with the default schedule's run.
 *
 * The run directory is the current directory of the run, so that outputs
 * with default names land there; input paths were made absolute
 * (tune_prepare_args) and output options removed, so a run never writes
 * a file of the user's.
 */
#include "tune/tune.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAX_ARGS = 4096 };

/* ---- arguments ------------------------------------------------------------------------ */

bool tune_split_args(Arena *a, const char *text, char ***words, int *nwords, char *why,
                     size_t n) {
  size_t len = strlen(text);
  char **w = arena_alloc(a, (len / 2 + 2) * sizeof *w);
  int k = 0;
  const char *p = text;
  char *buf = arena_alloc(a, len + 1);
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\n') p++;
    if (!*p) break;
    char *o = buf;
    char q = 0;
    for (; *p; p++) {
      if (q) {
        if (*p == q) q = 0;
        else if (q == '"' && *p == '\\' && p[1]) *o++ = *++p;
        else *o++ = *p;
      } else if (*p == '\'' || *p == '"') {
        q = *p;
      } else if (*p == '\\' && p[1]) {
        *o++ = *++p;
      } else if (*p == ' ' || *p == '\t' || *p == '\n') {
        break;
      } else {
        *o++ = *p;
      }
    }
    if (q) {
      snprintf(why, n, "--tune-args: unterminated %c quote", q);
      return false;
    }
    w[k++] = arena_strndup(a, buf, (size_t)(o - buf));
  }
  w[k] = NULL;
  *words = w;
  *nwords = k;
  return true;
}

static bool starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

/* An option that names an output file (its value follows). */
static bool output_option(const char *w) {
  return !strcmp(w, "-o") || !strcmp(w, "--output") || starts(w, "-o-") ||
         starts(w, "--output-") || !strcmp(w, "-sp") || starts(w, "-sp-") ||
         starts(w, "--snapshot-prefix");
}

bool tune_prepare_args(Arena *a, char **in, int nin, char ***out, int *nout, char *why,
                       size_t n) {
  if (nin > MAX_ARGS) {
    snprintf(why, n, "--tune-args: more than %d words", MAX_ARGS);
    return false;
  }
  char **o = arena_alloc(a, ((size_t)nin + 1) * sizeof *o);
  int k = 0;
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) {
    snprintf(why, n, "cannot find the current directory: %s", strerror(errno));
    return false;
  }
  for (int i = 0; i < nin; i++) {
    const char *w = in[i];
    if (!strcmp(w, "-schedule") || !strcmp(w, "--schedule") || starts(w, "-sched-") ||
        starts(w, "--sched-")) {
      snprintf(why, n, "--tune-args: '%s' sets the schedule, which is what the tuner searches "
               "(leave it out)", w);
      return false;
    }
    if (output_option(w)) {
      i++; /* and its value: each run writes its outputs in its own directory */
      continue;
    }
    struct stat st;
    if (w[0] != '/' && w[0] != '-' && stat(w, &st) == 0)
      o[k++] = arena_printf(a, "%s/%s", cwd, w);
    else
      o[k++] = arena_strdup(a, w);
  }
  o[k] = NULL;
  *out = o;
  *nout = k;
  return true;
}

/* ---- files ---------------------------------------------------------------------------- */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The whole file into the arena (NULL when unreadable). */
static char *slurp(Arena *a, const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  if (fseek(f, 0, SEEK_END) != 0) {
    fclose(f);
    return NULL;
  }
  long sz = ftell(f);
  rewind(f);
  if (sz < 0) {
    fclose(f);
    return NULL;
  }
  char *b = arena_alloc(a, (size_t)sz + 1);
  size_t got = fread(b, 1, (size_t)sz, f);
  fclose(f);
  if (got != (size_t)sz) return NULL;
  b[got] = '\0';
  *len = got;
  return b;
}

/* Byte-compare two files without keeping them (outputs can be large). */
static bool same_file(const char *x, const char *y) {
  FILE *f = fopen(x, "rb"), *g = fopen(y, "rb");
  bool same = f && g;
  char b1[65536], b2[65536];
  while (same) {
    size_t n1 = fread(b1, 1, sizeof b1, f), n2 = fread(b2, 1, sizeof b2, g);
    if (n1 != n2 || memcmp(b1, b2, n1)) same = false;
    if (n1 < sizeof b1) break;
  }
  if (f) fclose(f);
  if (g) fclose(g);
  return same;
}

/* rm -r of a directory the tuner made (its runs' files only). */
static void remove_tree(const char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *de;
    while ((de = readdir(d))) {
      if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
      char p[4096];
      snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
      struct stat st;
      if (lstat(p, &st) != 0) continue;
      if (S_ISDIR(st.st_mode)) remove_tree(p);
      else unlink(p);
    }
    closedir(d);
  }
  rmdir(dir);
}

void tune_run_cleanup(TuneRunner *r) {
  if (r->work) remove_tree(r->work);
}

/* The run's --timing line "usr=S cpu=C" (the last one), removed from the
 * text in place; -1 when there is none. */
static double take_timing(char *text, size_t *len) {
  char *last = NULL;
  for (char *p = text; (p = strstr(p, "usr=")); p++)
    if (p == text || p[-1] == '\n') last = p;
  if (!last) return -1;
  char *end = strchr(last, '\n');
  double s = strtod(last + 4, NULL);
  size_t tail = end ? strlen(end + 1) : 0;
  if (end) memmove(last, end + 1, tail + 1);
  else *last = '\0';
  *len = (size_t)(last - text) + tail;
  return s;
}

/* ---- one run -------------------------------------------------------------------------- */

/* Compare run directory dir (outputs in dir/out, stdout in dir/stdout)
 * with the reference; NULL when the same, else what differs. */
static const char *differs(TuneRunner *r, const char *dir, const char *stdout_text,
                           size_t stdout_len) {
  Arena *a = r->arena;
  size_t rl = 0;
  char *ref = slurp(a, arena_printf(a, "%s/stdout.txt", r->ref_dir), &rl);
  if (!ref || rl != stdout_len || memcmp(ref, stdout_text, rl)) return "its printed output differs";
  /* every file of either output directory, in both, with the same bytes */
  for (int side = 0; side < 2; side++) {
    const char *here = arena_printf(a, "%s/out", side ? r->ref_dir : dir);
    const char *there = arena_printf(a, "%s/out", side ? dir : r->ref_dir);
    DIR *d = opendir(here);
    if (!d) return "no output directory";
    struct dirent *de;
    const char *bad = NULL;
    while (!bad && (de = readdir(d))) {
      if (de->d_name[0] == '.' && (!de->d_name[1] || !strcmp(de->d_name, ".."))) continue;
      const char *x = arena_printf(a, "%s/%s", here, de->d_name);
      const char *y = arena_printf(a, "%s/%s", there, de->d_name);
      if (access(y, F_OK) != 0)
        bad = arena_printf(a, "output '%s' is missing from one run", de->d_name);
      else if (!side && !same_file(x, y))
        bad = arena_printf(a, "output '%s' differs from the default schedule's", de->d_name);
    }
    closedir(d);
    if (bad) return bad;
  }
  return NULL;
}

TuneRunStatus tune_run_once(TuneRunner *r, const char *exe, const char *sched, double *seconds,
                            char *why, size_t n) {
  Arena *a = r->arena;
  if (!exe) exe = r->exe;
  bool reference = !sched && !r->ref_dir;
  const char *dir = arena_printf(a, "%s/run%d", r->work, r->nruns++);
  const char *outdir = arena_printf(a, "%s/out", dir);
  if (mkdir(dir, 0700) != 0 || mkdir(outdir, 0700) != 0) {
    snprintf(why, n, "cannot create '%s': %s", outdir, strerror(errno));
    return TUNE_RUN_FAILED;
  }
  const char *so = arena_printf(a, "%s/stdout.txt", dir), *se = arena_printf(a, "%s/stderr.txt", dir);
  char **argv = arena_alloc(a, ((size_t)r->nargs + 8) * sizeof *argv);
  int k = 0;
  argv[k++] = (char *)exe;
  for (int i = 0; i < r->nargs; i++) argv[k++] = r->args[i];
  argv[k++] = "--timing";
  argv[k++] = "--quiet";
  if (r->steps) {
    argv[k++] = "--limit";
    argv[k++] = arena_printf(a, "%u", r->steps);
  }
  if (sched) {
    argv[k++] = "-schedule";
    argv[k++] = (char *)sched;
  }
  argv[k] = NULL;
  /* a run far slower than the default's is stopped: it cannot win */
  double limit = r->ref_seconds > 0 ? 10 * r->ref_seconds + 5 : 600;
  double t0 = now();
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(why, n, "cannot start the program: %s", strerror(errno));
    return TUNE_RUN_FAILED;
  }
  if (pid == 0) {
    int fo = open(so, O_WRONLY | O_CREAT | O_TRUNC, 0600), fe = open(se, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int fi = open("/dev/null", O_RDONLY);
    if (fo < 0 || fe < 0 || fi < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0 || dup2(fi, 0) < 0 ||
        chdir(outdir) != 0)
      _exit(126);
    execve(exe, argv, r->env->child_env);
    _exit(127);
  }
  int st = 0;
  for (;;) {
    pid_t w = waitpid(pid, &st, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (now() - t0 > limit) {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      snprintf(why, n, "stopped after %.1f s (10 times the default schedule's run)", limit);
      return TUNE_RUN_FAILED;
    }
    struct timespec nap = {0, 500000};
    nanosleep(&nap, NULL);
  }
  double wall = now() - t0;
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    size_t el = 0;
    char *err = slurp(a, se, &el);
    if (err && el > 300) err += el - 300;
    snprintf(why, n, "the program %s %d%s%s", WIFEXITED(st) ? "exited with status" : "died of signal",
             WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), err && *err ? ": " : "",
             err ? err : "");
    for (char *c = why; *c; c++)
      if (*c == '\n') *c = ' ';
    return TUNE_RUN_FAILED;
  }
  size_t ol = 0;
  char *text = slurp(a, so, &ol);
  if (!text) {
    snprintf(why, n, "cannot read the program's output '%s'", so);
    return TUNE_RUN_FAILED;
  }
  double t = take_timing(text, &ol);
  *seconds = t >= 0 ? t : wall;
  /* the stdout without the timing line, compared (and kept for the reference) */
  FILE *f = fopen(so, "wb");
  if (!f || fwrite(text, 1, ol, f) != ol) {
    if (f) fclose(f);
    snprintf(why, n, "cannot rewrite '%s'", so);
    return TUNE_RUN_FAILED;
  }
  fclose(f);
  if (reference) {
    r->ref_dir = dir;
    r->ref_seconds = *seconds;
    return TUNE_RUN_OK;
  }
  const char *d = differs(r, dir, text, ol);
  remove_tree(dir); /* the reference's stays; the others are compared and done */
  if (d) {
    snprintf(why, n, "%s", d);
    return TUNE_RUN_DIFFERS;
  }
  return TUNE_RUN_OK;
}
