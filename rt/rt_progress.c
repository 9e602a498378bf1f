/* rt_progress.c -- the progress line of generated executables on a terminal
 * (diderot_world.h: drt_progress_tty_begin) and the runtime's clock.
 *
 * The line is redrawn in place with a carriage return and spaces (no
 * terminal escapes, so any terminal, TERM=dumb included, shows it right)
 * and never wider than the terminal, because a wrapped line could not be
 * redrawn. Nothing is drawn in the first half second: a short run's stderr
 * stays exactly what it was without the display.
 */
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "diderot_world.h"
#include "rt_internal.h"

enum { DRT_LINE_MAX = 256 };
static const double DRT_PROGRESS_DELAY = 0.5;   /* seconds before the first line */
static const double DRT_PROGRESS_PERIOD = 0.25; /* between redraws */

double drt_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "4.2 s", "3 min 07 s", "2 h 05 min". */
static void drt_fmt_secs(char *buf, size_t n, double s) {
  if (s < 60) {
    snprintf(buf, n, "%.1f s", s);
  } else if (s < 3600) {
    unsigned t = (unsigned)s;
    snprintf(buf, n, "%u min %02u s", t / 60, t % 60);
  } else {
    unsigned long t = (unsigned long)(s / 60);
    snprintf(buf, n, "%lu h %02lu min", t / 60, t % 60);
  }
}

/* Replace the line on the terminal by `text` (empty: erase it). */
static void drt_tty_draw(DrtTtyProgress *t, const char *text) {
  size_t len = strlen(text);
  if (len > t->width - 1) len = t->width - 1;
  fputc('\r', t->f);
  fwrite(text, 1, len, t->f);
  for (size_t i = len; i < t->shown; i++) fputc(' ', t->f); /* the old line's tail */
  if (len < t->shown) {
    fputc('\r', t->f);
    fwrite(text, 1, len, t->f);
  }
  t->shown = (unsigned)len;
  fflush(t->f);
}

/* The estimate of the time left, or a negative number when the counts
 * give none: with a step limit, the mean step time so far times the steps
 * left; when strands have stabilized and others are still active, the
 * time the active ones take at the rate seen so far. The smaller one
 * counts (either may be far too long: a limit that is never reached,
 * strands that stabilize late). */
static double drt_estimate(const DrtTtyProgress *t, uint32_t step, uint32_t nactive,
                           uint32_t nstable, double elapsed) {
  double est = -1;
  if (t->limit && step > 0 && step < t->limit)
    est = elapsed / step * (double)(t->limit - step);
  if (nstable > 0 && nactive > 0) {
    double by_rate = elapsed * (double)nactive / (double)nstable;
    if (est < 0 || by_rate < est) est = by_rate;
  }
  return est;
}

static bool drt_tty_report(void *data, uint32_t step, uint32_t nactive, uint32_t nstable,
                           double elapsed) {
  DrtTtyProgress *t = data;
  (void)elapsed; /* of one run call: the display counts from begin */
  double now = drt_seconds() - t->t0;
  /* nothing in the first half second; and a finished run's line is about
   * to be erased */
  if (now < DRT_PROGRESS_DELAY || nactive == 0) return false;
  char line[DRT_LINE_MAX], e[32], left[48] = "";
  drt_fmt_secs(e, sizeof e, now);
  double est = drt_estimate(t, step, nactive, nstable, now);
  if (est >= 0 && nactive > 0) {
    char s[32];
    drt_fmt_secs(s, sizeof s, est);
    snprintf(left, sizeof left, ", about %s left", s);
  }
  snprintf(line, sizeof line, "%s: step %u, %u active, %u stable, %s%s", t->prog,
           (unsigned)step, (unsigned)nactive, (unsigned)nstable, e, left);
  drt_tty_draw(t, line);
  return false;
}

bool drt_progress_tty_begin(DrtTtyProgress *t, DrtWorld *w, FILE *f, FILE *also,
                            const char *prog, uint32_t limit) {
  memset(t, 0, sizeof *t);
  if (!f || !isatty(fileno(f)) || (also && isatty(fileno(also)))) return false;
  t->f = f;
  t->prog = prog ? prog : "diderot";
  t->limit = limit;
  t->width = 80;
  struct winsize ws;
  if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) t->width = ws.ws_col;
  if (t->width > DRT_LINE_MAX) t->width = DRT_LINE_MAX;
  t->t0 = drt_seconds();
  drt_world_set_progress(w, drt_tty_report, t, DRT_PROGRESS_PERIOD);
  return true;
}

void drt_progress_tty_end(DrtTtyProgress *t) {
  if (t->f && t->shown) drt_tty_draw(t, "");
  t->shown = 0;
}
