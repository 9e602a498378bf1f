"""Command-line behaviour of diderotc itself (tests/run.py: driver/NAME).

Each case runs BUILD/diderotc with ARGS ("{prog}" stands for a small valid
program, "{bad}" for one with a misspelled name) and checks the exit status
and what stderr must and must not contain. "tty": stderr is a pseudo-terminal
(for --color=auto). Expected texts come from the message catalogue
(src/util/diagnostics.def) and the option table, not from running diderotc.
"""

PROG = """#version 2.0
strand S (int i) {
  output real out = 0.0;
  update { out = 1.0; stabilize; }
}
create_collection { S(i) | i in 0..1 };
"""

BAD = """#version 2.0
input real radius = 1.0;
strand S (int i) {
  output real out = 0.0;
  update { out = radiuss; stabilize; }
}
create_collection { S(i) | i in 0..1 };
"""

ESC = "\033["

HDR = """#version 2.0
input real scale ("a factor */ that closes a comment") = 1.0;
input int count ("how many");
strand S (int i) {
  output real out = 0.0;
  update { out = scale * real(i + count); stabilize; }
}
create_collection { S(i) | i in 0..1 };
"""

# A library with a fixed int sequence input and an image input, and a C
# client of its API: int[2] values go through as ints (they went through as
# floats), and a failed image set leaves the input unset, so creating the
# strands fails with a message instead of running without an image.
API = """#version 2.0
input int[2] q ("two ints") = {1, 2};
input image(2)[] img ("an image");
field#0(2)[] F = img ⊛ tent;
strand S (int i) {
  output int out = 0;
  output real v = 0.0;
  update { out = q[0] * 10 + q[1] + i; v = F([0.0, 0.0]); stabilize; }
}
create_collection { S(i) | i in 0..1 };
"""

API_CLIENT = r"""#include <stdio.h>
#include <stdlib.h>
#include "lib.h"
int main(void) {
  Diderot_world_t *w = Diderot_new_world();
  if (!w || Diderot_init_world(w)) return 10;
  int32_t q[2] = {0, 0};
  Diderot_input_get_q(w, q);
  printf("default q = %d %d\n", q[0], q[1]);
  int32_t nq[2] = {3, 4};
  if (Diderot_input_set_q(w, nq)) return 11;
  Diderot_input_get_q(w, q);
  printf("set q = %d %d\n", q[0], q[1]);
  if (!Diderot_input_set_by_name_img(w, "no-such-file.nrrd")) return 12;
  free(Diderot_get_errors(w));
  if (!Diderot_create_strands(w)) return 13;
  char *e = Diderot_get_errors(w);
  printf("create: %s\n", e ? e : "(no message)");
  free(e);
  Diderot_shutdown(w);
  return 0;
}
"""

# Two generated libraries in one program: each carries its own copy of the
# runtime, which must stay private (a relocatable object keeps only NS_*
# global; a shared object does not export the runtime).  A: v = s*i,
# B: v = s+i, both run with s = 2 in the same process.
TWO_A = """#version 2.0
input real s = 1.0;
strand S (int i) { output real v = s * real(i); update { stabilize; } }
create_collection { S(i) | i in 0..3 };
"""
TWO_B = TWO_A.replace("s * real(i)", "s + real(i)")
TWO_CLIENT = r"""#include <stdio.h>
#include <teem/nrrd.h>
#include "a.h"
#include "b.h"
#define RUN(NS, label)                                                     \
  do {                                                                     \
    NS##_world_t *w = NS##_new_world();                                    \
    Nrrd *n = nrrdNew();                                                   \
    if (!w || NS##_init_world(w) || NS##_input_set_s(w, 2.0f) ||           \
        NS##_create_strands(w)) return 1;                                  \
    NS##_run(w, 0);                                                        \
    if (NS##_output_get_v(w, n)) return 2;                                 \
    const float *v = (const float *)n->data;                               \
    printf("%s:", label);                                                  \
    for (size_t k = 0; k < n->axis[0].size; k++) printf(" %g", v[k]);     \
    printf("\n");                                                          \
    nrrdNuke(n);                                                           \
    NS##_shutdown(w);                                                      \
  } while (0)
int main(void) {
  RUN(A, "A");
  RUN(B, "B");
  return 0;
}
"""

CASES = [
    # -O0 .. -O3 reach the C compiler (its command line: --verbose); -O3 by default
    dict(name="opt_level_O0", args=["--exec", "-O0", "--verbose", "-o", "{work}/p", "{prog}"],
         status=0, has=[" -O0 -march=native"], hasnt=[" -O3"]),
    dict(name="opt_level_default", args=["--exec", "--verbose", "-o", "{work}/p", "{prog}"],
         status=0, has=[" -O3 -march=native"]),
    dict(name="opt_level_bad", args=["-O5", "{prog}"], status=2,
         has=["unknown optimisation level '-O5' (expected -O0, -O1, -O2 or -O3)"]),
    dict(name="opt_level_bare", args=["-O", "{prog}"], status=2,
         has=["option '-O' needs a level (-O0, -O1, -O2 or -O3)"]),
    # --stats: the seconds of every phase, the C printer and compiler included
    dict(name="stats_phases", args=["--exec", "--stats", "-o", "{work}/p", "{prog}"], status=0,
         has=["stats: phase frontend wall ", "stats: phase high wall ", "stats: phase low wall ",
              "stats: phase emit wall ", "stats: phase cc wall ", "stats: time cc wall ",
              "stats: pass high.fusion cpu ", "stats: pass mid.dce cpu ", "stats: pass low.dce cpu "]),
    # misspelled options get the closest option name
    dict(name="option_typo", args=["--targt=omp", "{prog}"], status=2,
         has=["unknown option '--targt=omp'; did you mean '--target'?"]),
    dict(name="option_typo_exec", args=["--exce", "{prog}"], status=2,
         has=["did you mean '--exec'?"]),
    # --strict rejects only the extensions (reject/strict/ has each one)
    dict(name="strict_portable", args=["--strict", "--check", "{prog}"], status=0, hasnt=["error"]),
    dict(name="option_unknown", args=["--zzzzzz", "{prog}"], status=2,
         has=["unknown option '--zzzzzz'"], hasnt=["did you mean"]),
    # colour: escapes only when asked or on a terminal, never with NO_COLOR
    dict(name="color_always", args=["--check", "--color=always", "{bad}"], status=1,
         has=[ESC + "1;31merror: ", ESC + "1;32m^"]),
    dict(name="color_never_tty", args=["--check", "--color=never", "{bad}"], status=1, tty=True,
         has=["error: undeclared variable 'radiuss'; did you mean 'radius'?"], hasnt=[ESC]),
    dict(name="color_auto_pipe", args=["--check", "{bad}"], status=1,
         has=["error: undeclared variable"], hasnt=[ESC]),
    dict(name="color_auto_tty", args=["--check", "{bad}"], status=1, tty=True,
         env={"TERM": "xterm"}, has=[ESC + "1;31merror: "]),
    dict(name="color_auto_no_color", args=["--check", "{bad}"], status=1, tty=True,
         env={"NO_COLOR": "1", "TERM": "xterm"}, has=["error: undeclared"], hasnt=[ESC]),
    dict(name="color_bad_mode", args=["--color=sometimes", "{prog}"], status=2,
         has=["unknown --color mode 'sometimes' (expected auto, always or never)"]),
    # the schedule record (doc/user-guide.md "Schedules"): the values below
    # follow from PROG by the rules written there (one update that
    # stabilizes: no strand can tell strand-wise runs from super-steps)
    dict(name="dump_schedule", args=["--dump=schedule", "{prog}"], status=0,
         out_has=["strand-layout = aos", "image-layout = linear", "run = strandwise",
                  "chunk = 256", "# default:", "# heuristic:"]),
    dict(name="dump_schedule_cuda", args=["--target=cuda", "--dump=schedule", "{prog}"], status=0,
         out_has=["strand-layout = soa", "cuda-block = 128", "run = bsp"]),
    dict(name="schedule_file", files={"s.sched": "# a chunk of 64\nchunk = 64\nrun = bsp\n"},
         args=["--schedule={work}/s.sched", "--dump=schedule", "{prog}"], status=0,
         out_has=["chunk = 64", "s.sched:2", "run = bsp"]),
    dict(name="schedule_flag_over_file", files={"s.sched": "strand-layout = soa\n"},
         args=["--schedule={work}/s.sched", "--strand-layout=aosoa:8", "--dump=schedule", "{prog}"],
         status=0, out_has=["strand-layout = aosoa:8", "--strand-layout=aosoa:8"]),
    dict(name="schedule_missing_file", args=["--schedule={work}/none.sched", "{prog}"], status=1,
         has=["error: cannot read schedule file", "none.sched"]),
    dict(name="schedule_unknown_key", files={"s.sched": "chunck = 64\n"},
         args=["--schedule={work}/s.sched", "{prog}"], status=1,
         has=["s.sched:1:1: error: unknown schedule key 'chunck'; did you mean 'chunk'?", "^~~~~~"]),
    dict(name="schedule_bad_value", files={"s.sched": "simd = sideways\n"},
         args=["--schedule={work}/s.sched", "{prog}"], status=1,
         has=["s.sched:1:8: error: bad value 'sideways' for 'simd' (expected off, within or strands)"]),
    dict(name="schedule_duplicate", files={"s.sched": "chunk = 64\nchunk = 32\n"},
         args=["--schedule={work}/s.sched", "{prog}"], status=1,
         has=["s.sched:2:1: error: duplicate key 'chunk' (first set at line 1)"]),
    dict(name="schedule_constraint_pad", files={"s.sched": "strand-layout = aosoa:8\nchunk = 12\n"},
         args=["--schedule={work}/s.sched", "--exec", "{prog}"], status=1,
         has=["s.sched:2:9: error: chunk = 12: must be a multiple of the AoSoA width 8"]),
    dict(name="schedule_constraint_lanes", files={"s.sched": "simd = off\nloop-lanes = on\n"},
         args=["--schedule={work}/s.sched", "{prog}"], status=1,
         has=["error: loop-lanes = on: needs vector code (simd = off)"]),
    dict(name="schedule_constraint_cuda_block", files={"s.sched": "cuda-block = 100\n"},
         args=["--schedule={work}/s.sched", "--target=cuda", "{prog}"], status=1,
         has=["error: cuda-block = 100: must be a multiple of 32 (a warp) from 32 to 1024"]),
    dict(name="schedule_constraint_target", files={"s.sched": "omp-schedule = static\n"},
         args=["--schedule={work}/s.sched", "{prog}"], status=1,
         has=["error: omp-schedule: applies only to --target=omp (this is --target=seq, a library)"]),
    dict(name="schedule_constraint_steps", files={"s.sched": "run = bsp\nsteps-per-visit = 4\n"},
         args=["--schedule={work}/s.sched", "{prog}"], status=1,
         has=["error: steps-per-visit = 4: needs run = strandwise"]),
    dict(name="schedule_deterministic_reduction",
         files={"s.sched": "chunk = 64\n",
                "r.diderot": "#version 2.0\nreal total = 0.0;\nstrand S (int i) {\n"
                             "  output real x = real(i);\n  update { x += 1.0; if (x > 4.0) { stabilize; } }\n}\n"
                             "update { total = sum{ P.x | P in S.all }; }\n"
                             "create_collection { S(i) | i in 0 .. 9 };\n"},
         args=["--schedule={work}/s.sched", "--deterministic", "{work}/r.diderot"], status=1,
         has=["s.sched:1:9: error: chunk = 64: changes this program's results (a real sum, product or "
              "mean over strands is added in chunk order)"]),
    dict(name="schedule_deterministic", files={"s.sched": "chunk = 64\n"},
         args=["--schedule={work}/s.sched", "--deterministic", "{prog}"], status=0,
         hasnt=["error"]),
    dict(name="schedule_no_file", args=["{prog}", "--schedule"], status=2,
         has=["option '--schedule' needs an argument"]),
    dict(name="schedule_empty", args=["--schedule=", "{prog}"], status=2,
         has=["option '--schedule' needs a file name"]),
    dict(name="dump_bad_phase", args=["--dump=schedul", "{prog}"], status=2,
         has=["unknown --dump phase 'schedul' (expected ast, high, mid, low, tree, schedule, all)"]),
    # a missing tool or runtime is the user's to fix, named with the way to
    # get it: exit 69 (EX_UNAVAILABLE), not an internal error (70)
    dict(name="missing_nvcc", args=["--target=cuda", "--exec", "{prog}", "-o", "{work}/p"],
         env={"DIDEROT_NVCC": "/nonexistent/nvcc"}, status=69,
         has=["error: cannot find the CUDA compiler '/nonexistent/nvcc'", "DIDEROT_NVCC"],
         hasnt=["internal error"]),
    dict(name="missing_cc", args=["--exec", "{prog}", "-o", "{work}/p"],
         env={"CC": "no-such-cc"}, status=69,
         has=["error: cannot find the C compiler 'no-such-cc' (Debian package: gcc; or set CC)"],
         hasnt=["internal error"]),
    # a diderotc copied away from its runtime (and no DIDEROT_RT_DIR)
    dict(name="missing_runtime", args=["--exec", "{prog}", "-o", "{work}/p"], copy=True,
         env={"DIDEROT_RT_DIR": ""}, status=69,
         has=["error: cannot find the Diderot runtime", "DIDEROT_RT_DIR"],
         hasnt=["internal error"]),
    # an output that cannot be written says why
    dict(name="output_no_dir", args=["--exec", "{prog}", "-o", "{work}/nodir/p"], status=1,
         has=["cannot write '", "nodir/p.c': No such file or directory"]),
    # the examples' dprobe requires "vis15" in the first line of --version
    dict(name="version_vis15", args=["--version"], status=0, out_has=["vis15"]),
    # OpenMP executables sleep, not spin, at barriers unless the user chose a
    # policy. libgomp prints its settings with OMP_DISPLAY_ENV=verbose: an
    # unset policy shows GOMP_SPINCOUNT = '300000' (spin, then sleep), the
    # passive one '0'; the program runs itself again with the passive
    # policy, so both displays appear and the second must say '0'.
    dict(name="omp_passive_default", args=["--target=omp", "--exec", "{prog}", "-o", "{work}/p"],
         status=0, run=["{work}/p", "-o", "{work}/out.nrrd"],
         run_unset=["OMP_WAIT_POLICY", "GOMP_SPINCOUNT"], run_env={"OMP_DISPLAY_ENV": "verbose"},
         run_has=["GOMP_SPINCOUNT = '0'"]),
    dict(name="omp_user_policy_kept", args=["--target=omp", "--exec", "{prog}", "-o", "{work}/p"],
         status=0, run=["{work}/p", "-o", "{work}/out.nrrd"],
         run_env={"OMP_DISPLAY_ENV": "verbose", "OMP_WAIT_POLICY": "active"},
         run_has=["OMP_WAIT_POLICY = 'ACTIVE'"], run_hasnt=["'PASSIVE'", "GOMP_SPINCOUNT = '0'"]),
    # the generated library header explains each call, and an input
    # description holding "*/" cannot break it
    dict(name="library_header_comments", args=["{hdr}", "-o", "{work}/lib"], status=0,
         run=["cc", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-x", "c", "{work}/lib.h"],
         run_file_has=[("{work}/lib.h", "Every function returning bool returns true on ERROR"),
                       ("{work}/lib.h", "input int count (\"how many\"): must be set before"),
                       ("{work}/lib.h", "a factor * / that closes a comment")]),
    dict(name="library_api_inputs", args=["{api}", "-o", "{work}/lib"], status=0,
         files={"client.c": API_CLIENT},
         # $CFLAGS_DIDEROT_EXTRA: the sanitizers of an ASan build's runtime
         run=["sh", "-c", "cc -std=c11 $CFLAGS_DIDEROT_EXTRA -I{work} {work}/client.c "
              "{work}/lib.o -lteem -lm -o {work}/client && {work}/client > {work}/client.out"],
         run_file_has=[("{work}/client.out", "default q = 1 2"),
                       ("{work}/client.out", "set q = 3 4"),
                       ("{work}/client.out", "create: undefined input 'img'")]),
    dict(name="library_two_in_one_program", args=["--namespace=A", "{work}/a.diderot", "-o", "{work}/a"],
         status=0, files={"a.diderot": TWO_A, "b.diderot": TWO_B, "two.c": TWO_CLIENT},
         run=["sh", "-c", "set -e; cd {work}; D={diderotc}; "
              "$D --namespace=B b.diderot -o b; "
              "cc -std=c11 $CFLAGS_DIDEROT_EXTRA -I. two.c a.o b.o -lteem -lm -o two_o; "
              "./two_o > two_o.out; "
              "$D --shared --namespace=A a.diderot -o a; $D --shared --namespace=B b.diderot -o b; "
              "cc -std=c11 $CFLAGS_DIDEROT_EXTRA -I. two.c ./a.so ./b.so -Wl,-rpath,{work} -lteem -lm "
              "-o two_so; ./two_so > two_so.out"],
         run_file_has=[("{work}/two_o.out", "A: 0 2 4 6\nB: 2 3 4 5\n"),
                       ("{work}/two_so.out", "A: 0 2 4 6\nB: 2 3 4 5\n")]),
]
