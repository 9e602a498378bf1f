/* rt_exec.c -- what only a generated executable does: stop well on SIGINT
 * and SIGTERM.
 *
 * drt_cli_parse (executables only: a library never parses a command line,
 * and never takes its host's signals) calls drt_exec_begin.
 *
 * Interrupts. The first SIGINT or SIGTERM is only recorded: the run stops
 * at the end of the super-step under way (a strand-by-strand run within
 * 64 updates of each strand: drt_world_failed), no output or snapshot is
 * started after it and one being written is dropped (rt_output.c), the
 * program reports "stopped by SIGINT ..." and then ends by that same
 * signal, so that its parent (a shell: status 130 or 143, a make, a batch
 * system) knows it was interrupted. Files saved before the signal stay as
 * they are: complete, each of them. A second signal ends the process at
 * once (the default action); files are replaced atomically (rt_tmpfile.c),
 * so even then none is left half-written. A signal that the parent made
 * the process ignore (nohup, a background job) stays ignored.
 *
 * Ranks. In a --target=mpi job (drt_exec_agree_interrupts) the signal
 * reaches the ranks at different moments, and a rank that stopped alone
 * would leave the others waiting in a collective. So there a caught
 * signal is acted on only once the ranks agreed on it, at the end of a
 * super-step (DrtDistrib.stop): every rank stops after the same step,
 * drt_interrupted answers the agreed signal, and strand creation runs to
 * its end.
 *
 * Creation. A refused grid or strand ends the generated create function
 * at once (emit_c_program.c's guards around it): an executable reports the
 * error and exits with status 1 before anything is written, a library
 * returns it from its create_strands.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

static const char *exec_prog;         /* NULL: a library */
static volatile sig_atomic_t caught;  /* the first SIGINT/SIGTERM, or 0 */
static bool agreeing;                 /* a rank: only agreed signals count */
static int agreed;                    /* the first signal the ranks agreed on, or 0 */

static void on_signal(int sig) {
  /* SA_RESETHAND: a second one of the same kind takes its default action */
  if (!caught) caught = sig;
}

/* At exit, after an interrupt: end by the signal (stdio flushed first,
 * as exit would). */
static void exit_by_signal(void) {
  int sig = caught ? caught : agreed;
  if (!sig) return;
  fflush(NULL);
  signal(sig, SIG_DFL);
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, sig);
  sigprocmask(SIG_UNBLOCK, &s, NULL);
  raise(sig);
}

static void take(int sig) {
  struct sigaction old;
  if (sigaction(sig, NULL, &old) != 0 || old.sa_handler == SIG_IGN) return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART | SA_RESETHAND; /* reads and writes go on */
  sigaction(sig, &sa, NULL);
}

void drt_exec_begin(const char *prog) {
  static bool begun;
  exec_prog = prog && *prog ? prog : "diderot";
  if (begun) return;
  begun = true;
  atexit(exit_by_signal);
  take(SIGINT);
  take(SIGTERM);
}

const char *drt_exec_prog(void) { return exec_prog; }

int drt_interrupted(void) { return agreeing ? agreed : caught; }

void drt_exec_agree_interrupts(void) { agreeing = true; }

int drt_interrupt_caught(void) { return caught; }

void drt_interrupt_agreed(int sig) {
  if (sig && !agreed) agreed = sig;
}

const char *drt_signal_name(int sig) {
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

bool drt_interrupt_stop(DrtErrors *e, bool *told, uint32_t step) {
  int sig = drt_interrupted();
  if (!sig) return false;
  if (!*told && step == UINT32_MAX)
    drt_error(e, "stopped by %s while creating strands", drt_signal_name(sig));
  else if (!*told)
    drt_error(e, "stopped by %s after step %u; no outputs are written", drt_signal_name(sig),
              (unsigned)step);
  *told = true;
  return true;
}
