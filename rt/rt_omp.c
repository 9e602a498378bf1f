/* rt_omp.c -- a passive OpenMP wait policy by default for generated
 * executables.
 *
 * GNU OpenMP spins its idle threads at every barrier for a while before
 * sleeping. A super-step ends at a barrier, so on a machine whose cores are
 * busy with other work the spinning threads steal the time the working
 * ones need: measured here, an OpenMP program ran 5x slower than the
 * sequential build until OMP_WAIT_POLICY=passive was set. libgomp reads the
 * variable once, when it is loaded, before main() -- so an executable that
 * wants another default must run itself again with it set. This happens
 * only when the user has chosen no policy (OMP_WAIT_POLICY, GOMP_SPINCOUNT)
 * and only once (DIDEROT_OMP_DEFAULTS marks the second run); any failure
 * leaves the program running as it is. Libraries never do this: their host
 * process decides.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_internal.h"

/* /proc/self/cmdline: the arguments, NUL-separated. */
static char **omp_self_argv(void) {
  int fd = open("/proc/self/cmdline", O_RDONLY);
  if (fd < 0) return NULL;
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (!buf) {
      close(fd);
      return NULL;
    }
    ssize_t n = read(fd, buf + len, cap - len);
    if (n < 0) {
      free(buf);
      close(fd);
      return NULL;
    }
    if (n == 0) break;
    len += (size_t)n;
    if (len == cap) {
      char *more = realloc(buf, cap *= 2);
      if (!more) free(buf);
      buf = more;
    }
  }
  close(fd);
  size_t argc = 0;
  for (size_t i = 0; i < len; i++) argc += buf[i] == '\0';
  char **argv = calloc(argc + 1, sizeof *argv);
  if (!argv || len == 0) {
    free(argv);
    free(buf);
    return NULL;
  }
  size_t k = 0;
  for (size_t i = 0; i < len && k < argc; k++) {
    argv[k] = buf + i;
    i += strlen(buf + i) + 1;
  }
  return argv; /* buf lives on: exec replaces the process, failure leaks it once */
}

void drt_omp_default_wait_policy(void) {
  if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT") || getenv("DIDEROT_OMP_DEFAULTS"))
    return;
  char **argv = omp_self_argv();
  if (!argv) return;
  if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0 || setenv("DIDEROT_OMP_DEFAULTS", "1", 1) != 0)
    return;
  execv("/proc/self/exe", argv);
  /* could not run again: go on with libgomp's defaults, unchanged */
  unsetenv("OMP_WAIT_POLICY");
}
