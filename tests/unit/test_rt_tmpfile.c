/* test_rt_tmpfile.c -- what a run killed while saving leaves behind
 * (rt_tmpfile.c, rt_output.c's save_replace, rt_exec.c's interrupts).
 *
 * A fill callback looks at the directory in the middle of a save: that is
 * what a SIGKILL at that moment would leave. With unnamed temporaries
 * (O_TMPFILE) there must be nothing but the old file; with named ones (the
 * fallback of file systems without O_TMPFILE) the temporary carries the
 * PID, and the next save into that directory removes the temporaries of
 * dead processes, and nothing else. An interrupt (a forked child that
 * takes SIGINT as an executable does) refuses the save and leaves the
 * old file, and the child ends by the signal. */
#define _GNU_SOURCE /* O_TMPFILE */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diderot_rt.h"
#include "rt_internal.h"
#include "unit.h"

static char dir[64];

static void path_of(char *buf, size_t n, const char *d, const char *name) {
  snprintf(buf, n, "%s/%s", d, name);
}

/* The names in d, sorted, joined by spaces. */
static void listing(const char *d, char *out, size_t n) {
  struct dirent **ents;
  int k = scandir(d, &ents, NULL, alphasort);
  size_t len = 0;
  out[0] = '\0';
  for (int i = 0; i < k; i++) {
    if (ents[i]->d_name[0] != '.' && len + strlen(ents[i]->d_name) + 2 < n)
      len += (size_t)snprintf(out + len, n - len, "%s%s", len ? " " : "", ents[i]->d_name);
    free(ents[i]);
  }
  if (k >= 0) free(ents);
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

static bool text_is(const char *path, const char *text) {
  char buf[256] = "";
  FILE *f = fopen(path, "r");
  if (!f) return false;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  return strcmp(buf, text) == 0;
}

/* Items of 4 bytes; at the call that passes `peek` items, the directory
 * listing is taken (mid-write). */
typedef struct {
  size_t next, total, peek;
  char seen[1024];
  const char *dir;
} Fill;

static size_t fill(void *ctx, void *buf, size_t cap) {
  Fill *f = ctx;
  if (f->next >= f->peek && !f->seen[0]) listing(f->dir, f->seen, sizeof f->seen);
  size_t n = 0;
  for (float *o = buf; n < cap && f->next < f->total; n++, f->next++) o[n] = (float)f->next;
  return n;
}

/* Save 100000 floats (four 64 KiB buffers) to NAME in d, looking at the
 * directory after the first buffer; returns the listing then. */
static bool save(const char *d, const char *name, char *seen, size_t n, DrtErrors *e) {
  DrtOutSpec spec = {nrrdTypeFloat, 1, nrrdKindUnknown};
  DrtDomain dom = {0, NULL, 100000};
  Nrrd *head = nrrdNew();
  CHECK(!drt_output_head(e, "output 'x'", head, &spec, &dom));
  Fill f = {0, 100000, 20000, "", d};
  char path[256];
  path_of(path, sizeof path, d, name);
  bool err = drt_output_save_parts(e, "output 'x'", path, head, sizeof(float), fill, &f);
  nrrdNuke(head);
  snprintf(seen, n, "%s", f.seen);
  return err;
}

/* PATH is the complete output of save(). */
static bool complete(const char *path) {
  Nrrd *n = nrrdNew();
  bool ok = nrrdLoad(n, path, NULL) == 0 && n->type == nrrdTypeFloat && n->dim == 1 &&
            n->axis[0].size == 100000 && ((const float *)n->data)[99999] == 99999.0f;
  nrrdNuke(n);
  return ok;
}

static void test_unnamed(void) {
  DrtErrors e;
  drt_errors_init(&e);
  char seen[1024], path[256], now[1024];
  /* (asked of the file system itself, not of the runtime under test) */
  int probe = open(dir, O_TMPFILE | O_WRONLY, 0600);
  if (probe < 0) {
    printf("note: no O_TMPFILE in %s: the unnamed case is not checked\n", dir);
    return;
  }
  close(probe);
  /* a new file: nothing at all in the directory while it is written */
  CHECK(!save(dir, "new.nrrd", seen, sizeof seen, &e));
  CHECK_STR(seen, "");
  path_of(path, sizeof path, dir, "new.nrrd");
  CHECK(complete(path));
  /* an existing one: the old file alone, its mode kept */
  path_of(path, sizeof path, dir, "old.nrrd");
  write_text(path, "old\n");
  chmod(path, 0640);
  CHECK(!save(dir, "old.nrrd", seen, sizeof seen, &e));
  CHECK_STR(seen, "new.nrrd old.nrrd");
  CHECK(complete(path));
  struct stat st;
  CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0640);
  listing(dir, now, sizeof now);
  CHECK_STR(now, "new.nrrd old.nrrd");
  CHECK_MSG(!drt_any_errors(&e), "%s", drt_errors_text(&e));
  drt_errors_free(&e);
}

static void test_named(void) {
  DrtErrors e;
  drt_errors_init(&e);
  char seen[1024], path[256], now[1024], want[256];
  drt_tmp_set_unnamed(false);
  /* a new file is written under a temporary name too (never a partial
   * file under its own) */
  CHECK(!save(dir, "n2.nrrd", seen, sizeof seen, &e));
  snprintf(want, sizeof want, "n2.nrrd.diderot-%ld-0.tmp new.nrrd old.nrrd", (long)getpid());
  CHECK_STR(seen, want);
  path_of(path, sizeof path, dir, "n2.nrrd");
  CHECK(complete(path));
  path_of(path, sizeof path, dir, "old.nrrd");
  write_text(path, "old again\n");
  CHECK(!save(dir, "old.nrrd", seen, sizeof seen, &e));
  snprintf(want, sizeof want, "n2.nrrd new.nrrd old.nrrd old.nrrd.diderot-%ld-0.tmp",
           (long)getpid());
  CHECK_STR(seen, want);
  CHECK(complete(path));
  listing(dir, now, sizeof now);
  CHECK_STR(now, "n2.nrrd new.nrrd old.nrrd");
  drt_tmp_set_unnamed(true);
  CHECK_MSG(!drt_any_errors(&e), "%s", drt_errors_text(&e));
  drt_errors_free(&e);
}

/* A file "x" in d named by fmt with a PID (a temporary of that process). */
static void stale(const char *d, const char *fmt, long pid) {
  char name[128], path[256];
  snprintf(name, sizeof name, fmt, pid);
  path_of(path, sizeof path, d, name);
  write_text(path, "x");
}

/* A PID no process has (a child that has exited and been reaped). */
static long dead_pid(void) {
  pid_t p = fork();
  if (p == 0) _exit(0);
  waitpid(p, NULL, 0);
  return (long)p;
}

static void test_sweep(void) {
  char d[128], path[256], name[128], now[2048], want[2048];
  snprintf(d, sizeof d, "%s/sweep", dir);
  CHECK(mkdir(d, 0755) == 0);
  long dead = dead_pid(), me = (long)getpid(), parent = (long)getppid();
  /* removed: ours of a dead process; an older runtime's beside its target */
  stale(d, "a.nrrd.diderot-%ld-0.tmp", dead);
  stale(d, "a.nrrd.%ld-3.tmp", dead);
  path_of(path, sizeof path, d, "a.nrrd");
  write_text(path, "target");
  /* kept: an older runtime's without its target, a live process's, ours
   * (this process is alive), a link and a directory of that name, names
   * that only look alike */
  stale(d, "b.nrrd.%ld-0.tmp", dead);
  stale(d, "c.nrrd.diderot-%ld-0.tmp", parent);
  stale(d, "d.nrrd.diderot-%ld-0.tmp", me);
  snprintf(name, sizeof name, "e.nrrd.diderot-%ld-0.tmp", dead);
  path_of(path, sizeof path, d, name);
  CHECK(symlink("a.nrrd", path) == 0);
  snprintf(name, sizeof name, "f.nrrd.diderot-%ld-0.tmp", dead);
  path_of(path, sizeof path, d, name);
  CHECK(mkdir(path, 0755) == 0);
  /* removed: the directory of a dead process's detached header and data
   * file (rt_nhdr.c), with its files */
  snprintf(name, sizeof name, "k.nhdr.diderot-%ld-0.tmp", dead);
  path_of(path, sizeof path, d, name);
  CHECK(mkdir(path, 0700) == 0);
  snprintf(name, sizeof name, "k.nhdr.diderot-%ld-0.tmp/k.nhdr", dead);
  path_of(path, sizeof path, d, name);
  write_text(path, "x");
  snprintf(name, sizeof name, "k.nhdr.diderot-%ld-0.tmp/k.raw", dead);
  path_of(path, sizeof path, d, name);
  write_text(path, "x");
  path_of(path, sizeof path, d, "g.nrrd.diderot--0.tmp");
  write_text(path, "x");
  path_of(path, sizeof path, d, "h.tmp");
  write_text(path, "x");
  /* the first save into the directory sweeps it */
  DrtErrors e;
  drt_errors_init(&e);
  char seen[1024];
  CHECK(!save(d, "out.nrrd", seen, sizeof seen, &e));
  CHECK(!drt_any_errors(&e));
  drt_errors_free(&e);
  listing(d, now, sizeof now);
  snprintf(want, sizeof want,
           "a.nrrd b.nrrd.%ld-0.tmp c.nrrd.diderot-%ld-0.tmp d.nrrd.diderot-%ld-0.tmp "
           "e.nrrd.diderot-%ld-0.tmp f.nrrd.diderot-%ld-0.tmp g.nrrd.diderot--0.tmp h.tmp out.nrrd",
           dead, parent, me, dead, dead);
  CHECK_STR(now, want);
  path_of(path, sizeof path, d, "a.nrrd");
  CHECK(text_is(path, "target"));
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
  CHECK(system(cmd) == 0);
}

/* An executable (drt_exec_begin) takes SIGINT: the save is refused with a
 * message naming the file and the signal, the old file stays, and the
 * process ends by SIGINT. In a child, which reports on a pipe. */
static void test_interrupt(void) {
  char path[256];
  path_of(path, sizeof path, dir, "int.nrrd");
  write_text(path, "before\n");
  int fds[2];
  CHECK(pipe(fds) == 0);
  pid_t p = fork();
  if (p == 0) {
    close(fds[0]);
    /* a run started in the background inherits SIGINT ignored, which
       drt_exec_begin leaves ignored (as shells do): take it back first */
    signal(SIGINT, SIG_DFL);
    drt_exec_begin("test");
    raise(SIGINT);
    DrtErrors e;
    drt_errors_init(&e);
    char seen[1024];
    bool err = save(dir, "int.nrrd", seen, sizeof seen, &e);
    char msg[512];
    snprintf(msg, sizeof msg, "%d %d %s", err, drt_interrupted(), drt_errors_text(&e));
    if (write(fds[1], msg, strlen(msg)) < 0) _exit(3);
    close(fds[1]);
    exit(1); /* as main returns after an error: the exit ends it by SIGINT */
  }
  close(fds[1]);
  char got[512] = "";
  ssize_t n = read(fds[0], got, sizeof got - 1);
  got[n > 0 ? n : 0] = '\0';
  close(fds[0]);
  int st = 0;
  waitpid(p, &st, 0);
  char want[512];
  snprintf(want, sizeof want, "1 %d output 'x' (file '%s'): not written: stopped by SIGINT\n",
           SIGINT, path);
  CHECK_STR(got, want);
  CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT, "status %#x", st);
  CHECK(text_is(path, "before\n"));
  unlink(path);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/test_rt_tmpfile-XXXXXX");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  test_unnamed();
  test_named();
  test_sweep();
  test_interrupt();
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
  return unit_finish("rt_tmpfile");
}
