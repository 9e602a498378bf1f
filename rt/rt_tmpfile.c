/* rt_tmpfile.c -- temporaries that a killed run cannot leave behind.
 *
 * An output is written to a file without a name (open(DIR, O_TMPFILE))
 * and given its name only when complete (linkat through /proc/self/fd): a
 * run killed while writing (SIGKILL, the machine's OOM killer) leaves the
 * old file, and the unnamed one disappears with the process. Replacing an
 * existing file still needs a name for a moment (the new file is linked as
 * TARGET.diderot-PID-K.tmp, then exchanged with the target or renamed over
 * it: Linux cannot link over a name), and file systems without O_TMPFILE
 * (some network and FUSE ones) need the named temporary for the whole
 * write. What a killed run leaves that way is removed by the next run that
 * saves into the same directory: drt_tmp_sweep removes the temporaries of
 * processes that no longer exist (our own names, and the older
 * TARGET.PID-K.tmp of earlier runtimes beside their target), once per
 * directory and process; and the private directories in which a
 * detached header and its data file are written (rt_nhdr.c).
 */
#define _GNU_SOURCE /* O_TMPFILE, linkat's AT_EMPTY_PATH */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_internal.h"

static bool unnamed_off; /* drt_tmp_set_unnamed(false): the tests' fallback */

void drt_tmp_set_unnamed(bool on) { unnamed_off = !on; }

/* The directory part of path ("." when none), malloc'd. */
static char *dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return strdup(".");
  if (slash == path) return strdup("/");
  size_t n = (size_t)(slash - path);
  char *d = malloc(n + 1);
  if (d) {
    memcpy(d, path, n);
    d[n] = '\0';
  }
  return d;
}

int drt_tmp_open_unnamed(const char *target) {
#ifdef O_TMPFILE
  /* the name is given through /proc/self/fd: without /proc the file could
   * be written but never named */
  static int have_proc = -1;
  if (have_proc < 0) have_proc = access("/proc/self/fd", X_OK) == 0;
  if (unnamed_off || !have_proc) {
    errno = EOPNOTSUPP;
    return -1;
  }
  char *dir = dir_of(target);
  if (!dir) return -1;
  int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  int saved = errno;
  free(dir);
  errno = saved;
  return fd;
#else
  (void)target;
  errno = EOPNOTSUPP;
  return -1;
#endif
}

int drt_tmp_link(int fd, const char *name) {
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  return linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
}

char *drt_tmp_name(const char *target, unsigned k) {
  size_t n = strlen(target) + 64;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s.diderot-%ld-%u.tmp", target, (long)getpid(), k);
  return s;
}

/* The PID in NAME when it is a temporary of ours (BASE.diderot-PID-K.tmp)
 * or of an earlier runtime (BASE.PID-K.tmp, *legacy: BASE must exist to
 * count), with *base_len the length of BASE; 0 otherwise. */
static long tmp_pid(const char *name, size_t *base_len, bool *legacy) {
  size_t n = strlen(name);
  if (n < 8 || strcmp(name + n - 4, ".tmp") != 0) return 0;
  /* back over "-K" and "PID" */
  size_t i = n - 4;
  size_t k_end = i;
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') i--;
  if (i == k_end || i == 0 || name[i - 1] != '-') return 0;
  size_t pid_end = --i;
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') i--;
  if (i == pid_end || pid_end - i > 9 || i == 0) return 0;
  long pid = strtol(name + i, NULL, 10);
  static const char ours[] = ".diderot-";
  size_t lo = sizeof ours - 1;
  if (i > lo && strncmp(name + i - lo, ours, lo) == 0) {
    *legacy = false;
    *base_len = i - lo;
  } else if (name[i - 1] == '.') {
    *legacy = true;
    *base_len = i - 1;
  } else {
    return 0;
  }
  return *base_len > 0 && pid > 0 ? pid : 0;
}

/* Whether process pid is gone (kill(pid, 0): ESRCH; EPERM is someone
 * else's live process). */
static bool dead(long pid) { return pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH; }

static void sweep_pair_dir(int dfd, const char *name, uid_t me) {
  int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR *d = fd < 0 ? NULL : fdopendir(fd);
  if (!d) {
    if (fd >= 0) close(fd);
    return;
  }
  struct stat st;
  for (struct dirent *ent; (ent = readdir(d));)
    if (fstatat(fd, ent->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
        st.st_uid == me)
      (void)unlinkat(fd, ent->d_name, 0);
  closedir(d);
  (void)unlinkat(dfd, name, AT_REMOVEDIR);
}

void drt_tmp_sweep_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  int dfd = dirfd(d);
  uid_t me = geteuid();
  for (struct dirent *ent; (ent = readdir(d));) {
    size_t base_len;
    bool legacy;
    long pid = tmp_pid(ent->d_name, &base_len, &legacy);
    if (!pid || !dead(pid)) continue;
    struct stat st;
    /* only our own regular files: never a link, a FIFO, someone else's;
     * and our own directories of a detached header's pair (rt_nhdr.c:
     * OUT.nhdr.diderot-PID-K.tmp/), with the regular files in them */
    if (fstatat(dfd, ent->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != me) continue;
    if (S_ISDIR(st.st_mode) && !legacy && base_len > 5 &&
        strncmp(ent->d_name + base_len - 5, ".nhdr", 5) == 0) {
      sweep_pair_dir(dfd, ent->d_name, me);
      continue;
    }
    if (!S_ISREG(st.st_mode)) continue;
    if (legacy) {
      /* the older names are less distinctive: only beside their target */
      char base[1024];
      if (base_len >= sizeof base) continue;
      memcpy(base, ent->d_name, base_len);
      base[base_len] = '\0';
      if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    }
    (void)unlinkat(dfd, ent->d_name, 0);
  }
  closedir(d);
}

/* The directories swept by this process, by name (the same directory
 * under two names is swept twice, which is harmless), so that a run's 300
 * snapshots read their directory once and cost no system call more. */
enum { SWEPT_MAX = 16 };
static char *swept[SWEPT_MAX];
static unsigned nswept;
static pthread_mutex_t swept_mu = PTHREAD_MUTEX_INITIALIZER;

void drt_tmp_sweep(const char *target) {
  char *dir = dir_of(target);
  if (!dir) return;
  pthread_mutex_lock(&swept_mu); /* the snapshot writer saves too */
  bool seen = false;
  for (unsigned i = 0; i < SWEPT_MAX && swept[i] && !seen; i++) seen = strcmp(swept[i], dir) == 0;
  if (!seen) {
    free(swept[nswept % SWEPT_MAX]);
    swept[nswept++ % SWEPT_MAX] = strdup(dir); /* (NULL: swept again later) */
  }
  pthread_mutex_unlock(&swept_mu);
  if (!seen) drt_tmp_sweep_dir(dir);
  free(dir);
}
