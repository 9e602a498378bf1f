/* save.c -- ways to replace three existing output files of the probe-vgh
 * sizes (v 5.6 MB, g 16.9 MB, h 50.6 MB: bench/probe/wall.py at 112^3), as
 * the runtime's drt_output_save could:
 *   trunc     open(O_TRUNC) and write in place (the original compiler's
 *             fopen "wb"; not atomic)
 *   rename    a temporary file beside the target, rename(2) over it
 *             (atomic; on ext4 the rename writes the new data out first,
 *             auto_da_alloc, and frees the old blocks)
 *   exchange  a temporary file, renameat2(RENAME_EXCHANGE) with the
 *             target, unlink of the old contents (atomic; the runtime's
 *             way since f2361be)
 * Rounds interleave the three; prints the median and best wall time of
 * each. Linux only.
 *
 * usage: cc -O2 -o save bench/probe/save.c && ./save DIR [ROUNDS]
 * (DIR on the file system of interest; three files of 73 MB are left in
 * it). Run it under /var/tmp/quiet.sh on a shared machine. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { NMODE = 3, MAXROUNDS = 101 };
static const char *mode_name[NMODE] = {"trunc", "rename", "exchange"};
static const size_t sizes[3] = {5615616, 16855040, 50573312};
static const char *names[3] = {"v.nrrd", "g.nrrd", "h.nrrd"};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void write_all(int fd, const char *b, size_t n) {
  while (n) {
    ssize_t k = write(fd, b, n);
    if (k <= 0) {
      perror("write");
      exit(1);
    }
    b += k;
    n -= (size_t)k;
  }
}

static void save(int mode, const char *target, const char *buf, size_t n) {
  if (mode == 0) {
    int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) perror(target), exit(1);
    write_all(fd, buf, n);
    close(fd);
    return;
  }
  const char *tmp = "save-bench.tmp";
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
  if (fd < 0) perror(tmp), exit(1);
  write_all(fd, buf, n);
  close(fd);
  if (mode == 2 && renameat2(AT_FDCWD, tmp, AT_FDCWD, target, RENAME_EXCHANGE) == 0) {
    unlink(tmp);
    return;
  }
  if (rename(tmp, target) != 0) perror("rename"), exit(1);
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 2 || chdir(argv[1]) != 0) {
    fprintf(stderr, "usage: %s DIR [ROUNDS]\n", argv[0]);
    return 2;
  }
  int rounds = argc > 2 ? atoi(argv[2]) : 9;
  if (rounds < 1 || rounds > MAXROUNDS) rounds = 9;
  char *buf = malloc(sizes[2]);
  if (!buf) return 1;
  memset(buf, 1, sizes[2]);
  for (int i = 0; i < 3; i++) save(0, names[i], buf, sizes[i]); /* the files exist */
  static double t[NMODE][MAXROUNDS];
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < NMODE; k++) {
      int m = (k + r) % NMODE;
      double t0 = now();
      for (int i = 0; i < 3; i++) save(m, names[i], buf, sizes[i]);
      t[m][r] = now() - t0;
    }
  printf("replacing 3 files (73 MB), %d rounds: median (best) wall ms\n", rounds);
  for (int m = 0; m < NMODE; m++) {
    qsort(t[m], (size_t)rounds, sizeof t[m][0], cmp);
    printf("  %-8s %7.1f (%.1f)\n", mode_name[m], 1e3 * t[m][rounds / 2], 1e3 * t[m][0]);
  }
  free(buf);
  return 0;
}
