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

CASES = [
    # misspelled options get the closest option name
    dict(name="option_typo", args=["--targt=omp", "{prog}"], status=2,
         has=["unknown option '--targt=omp'; did you mean '--target'?"]),
    dict(name="option_typo_exec", args=["--exce", "{prog}"], status=2,
         has=["did you mean '--exec'?"]),
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
]
