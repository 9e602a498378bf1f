#!/usr/bin/env python3
"""doctest.py -- the documentation is checked against the compiler
(tests/run.py: docs/NAME; also runnable alone:
`python3 tests/docs/doctest.py --srcdir=. --builddir=build [-k SUBSTRING] [-v]`).

What is checked, one test each:

  docs/man/options       every option of `diderotc --help` and `-H` is in
                         doc/diderotc.1, every option the man page documents
                         is one diderotc knows, and the exit statuses 0, 1, 2,
                         69, 70 are described;
  docs/man/api           every function of a generated library header (a
                         program with every kind of input and output, built
                         for the sequential and the OpenMP targets, with
                         --snapshot) is described in doc/diderot-api.3;
  docs/FILE:LINE         each fenced example block of a document, by the line
                         where it starts (see BLOCKS below; FILE without doc/);
  docs/stale-claims      no user-facing document says that something working
                         is missing (DENY below) or cites the design notes
                         LANGUAGE.md as if they were shipped;
  docs/extensions        every extension of src/frontend/extensions.def is
                         listed, with the words of its --strict error, in
                         doc/differences.md, and has a reject test in
                         tests/programs/reject/strict/ expecting that error;
  docs/section-refs      every "language.md §N" and "layouts.md §N" reference
                         in the repository's documents and sources names a
                         section that exists in doc/language.md or
                         doc/layouts.md.

BLOCKS. In doc/language.md, doc/tutorial.md, README.md, doc/user-guide.md
and examples/README.md a fenced block is tested when its info string says so:

  ```diderot            a whole program: `diderotc --check` accepts it;
  ```diderot run        compiled with --exec and run without arguments; when
                        the next fenced block is ```output, the run's standard
                        output must equal it;
  ```diderot error      `diderotc --check` rejects it (exit status 1); the
                        lines of a following ```output block must all appear
                        in its diagnostics (the file is prog.diderot);
  ```diderot file=PATH  the block must equal the file PATH of the source tree
                        (a tutorial's program shown in full), and PATH passes
                        `diderotc --check`;
  ```diderot fragment   not compiled (a piece of a program);
  ```sh test            every line is run by `sh -e` (so every command must
                        succeed); `needs=TOOL` skips the block, visibly, when
                        TOOL is not on PATH (`needs=gpu`: when no GPU answers
                        nvidia-smi).

Programs and commands run in a scratch directory that looks like the
source tree: `examples/` is a copy, `doc/`, `tests/` and the other top-level
entries are links, and `build/` is a fresh directory holding only a link to
the diderotc under test (the real build tree is never written); `bin/` on
PATH holds `diderotc` too, for blocks written as if it were installed.
Example programs are saved as `prog.diderot` at its root, so they read data
as `examples/data/...`. Python 3 standard library only.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

TIMEOUT = 120          # seconds per block (a block may compile several programs)

# Documents whose fenced blocks are examined (relative to the source tree).
BLOCK_DOCS = ["doc/language.md", "doc/tutorial.md", "README.md", "doc/user-guide.md",
              "examples/README.md"]

# User-facing documents: the stale-claim and section-reference checks.
USER_DOCS = ["README.md", "doc/user-guide.md", "doc/language.md", "doc/tutorial.md",
             "doc/diderotc.1", "doc/diderot-api.3", "doc/differences.md",
             "doc/conformance.md", "doc/regress.md", "examples/README.md"]

# Phrases that described the compiler before code generation existed; each
# is wrong today wherever it appears in a user-facing document.
DENY = [
    "not yet available",
    "is being built",
    "implements the frontend",
    "code generation is refused",
    "requests for code generation",
    "asks for an unbuilt phase",
    "not yet implemented",
]

# Where "language.md §N" references are looked for (besides the top-level *.md).
SOURCE_DIRS = ["doc", "examples", "tests", "src", "rt", "bench", "tools", "scripts"]

FENCE_RE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")


class Block:
    def __init__(self, doc, line, info, text):
        self.doc = doc          # relative path of the document
        self.line = line        # 1-based line of the opening fence
        self.info = info.split()
        self.text = text

    @property
    def lang(self):
        return self.info[0] if self.info else ""

    def has(self, word):
        return word in self.info[1:]

    def option(self, key):
        for w in self.info[1:]:
            if w.startswith(key + "="):
                return w[len(key) + 1:]
        return None


def read_blocks(path, rel):
    """The fenced blocks of a Markdown file, in order."""
    blocks = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE_RE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, start = m.group("fence"), i
        body = []
        i += 1
        while i < len(lines) and not (lines[i].strip().startswith(fence)
                                      and lines[i].strip().strip(fence[0]) == ""):
            body.append(lines[i])
            i += 1
        blocks.append(Block(rel, start + 1, m.group("info").strip(),
                            "\n".join(body) + "\n"))
        i += 1
    return blocks


def run(argv, cwd, env=None, timeout=TIMEOUT, stdin=None):
    """(status, stdout, stderr); status None and a reason on a timeout."""
    try:
        p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
    except OSError as e:
        return None, "", "cannot run %s: %s" % (argv[0], e)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, 9)
        except OSError:
            pass
        p.communicate()
        return None, "", "timed out after %d s: %s" % (timeout, " ".join(argv))
    return p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def excerpt(text, n=15):
    lines = text.rstrip().splitlines()
    return ["  | " + l for l in lines[-n:]]


class Sandbox:
    """A scratch directory that looks like the source tree (see the module
    docstring); removed by close()."""

    def __init__(self, srcdir, diderotc):
        self.root = tempfile.mkdtemp(prefix="diderot-docs-")
        for name in sorted(os.listdir(srcdir)):
            if name in ("build", "examples") or name.startswith("."):
                continue
            os.symlink(os.path.join(srcdir, name), os.path.join(self.root, name))
        shutil.copytree(os.path.join(srcdir, "examples"), os.path.join(self.root, "examples"),
                        ignore=shutil.ignore_patterns("*.png"))
        for d in ("build", "bin"):
            os.mkdir(os.path.join(self.root, d))
            os.symlink(diderotc, os.path.join(self.root, d, "diderotc"))
        self.env = dict(os.environ)
        self.env["PATH"] = os.path.join(self.root, "bin") + os.pathsep + self.env.get("PATH", "")
        self.env.pop("NO_COLOR", None)
        self.env.setdefault("OMP_WAIT_POLICY", "passive")

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)


class Docs:
    def __init__(self, srcdir, builddir, diderotc):
        self.srcdir = os.path.abspath(srcdir)
        self.builddir = os.path.abspath(builddir)
        self.diderotc = os.path.abspath(diderotc)

    def path(self, rel):
        return os.path.join(self.srcdir, rel)

    # ---- the man pages ---------------------------------------------------

    @staticmethod
    def roff_text(text):
        """The words of a man page: escapes for '-' undone, fonts dropped."""
        text = re.sub(r"\\f[BIRP]|\\f\(..", "", text)
        return text.replace("\\-", "-").replace("\\(em", "--").replace("\\&", "")

    def help_options(self):
        """The options of `diderotc -H` (a superset of --help), or a reason."""
        st, out, err = run([self.diderotc, "-H"], self.srcdir, timeout=30)
        st2, out2, err2 = run([self.diderotc, "--help"], self.srcdir, timeout=30)
        if st != 0 or st2 != 0:
            return None, "diderotc -H / --help failed: %s%s" % (err, err2)
        opts = []
        for line in (out + out2).splitlines():
            m = re.match(r"^  (-\S.*?)(?:  +|$)", line)
            if not m:
                continue
            for part in m.group(1).split(", "):
                name = re.split(r"[=<\[ ]", part.strip(), maxsplit=1)[0]
                if name and name not in opts:
                    opts.append(name)
        return opts, None

    def man_options(self):
        st, msg = self.help_options()
        if st is None:
            return "fail", [msg]
        opts = st
        man = self.roff_text(open(self.path("doc/diderotc.1"), encoding="utf-8").read())
        problems = []
        if len(opts) < 20:
            problems.append("only %d options parsed from diderotc -H: %s" % (len(opts), opts))
        for o in opts:
            if not re.search(r"(?<![\w-])" + re.escape(o) + r"(?![\w-])", man):
                problems.append("option %s (diderotc --help/-H) is not in doc/diderotc.1" % o)
        # options the man page documents (.TP headings) must exist
        lines = man.splitlines()
        for i, l in enumerate(lines[:-1]):
            if l.strip() != ".TP":
                continue
            head = lines[i + 1]
            for name in re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", head):
                if name.startswith(("--C", "--D")) and name not in opts:
                    name = name[:3]
                if name not in opts:
                    problems.append("doc/diderotc.1 documents %s, which diderotc -H does not list"
                                    % name)
        sect = man.split(".SH EXIT STATUS", 1)
        if len(sect) < 2:
            problems.append("doc/diderotc.1 has no EXIT STATUS section")
        else:
            body = sect[1].split(".SH", 1)[0]
            for code in ("0", "1", "2", "69", "70"):
                if not re.search(r"(?<![\d.])%s(?![\d.])" % code, body):
                    problems.append("EXIT STATUS does not describe status %s" % code)
        return ("fail", problems) if problems else ("pass", [])

    API_PROG = """#version 2.0
input image(2)[] img ("an image") = load_image("examples/data/ddro-100.nrrd");
input real[] xs ("numbers") = load_sequence("xs.txt");
input int n ("no default");
input vec2 p = [0.0, 0.0];
input string s = "a";
input bool b = true;
field#1(2)[] F = img ⊛ ctmr;
strand S (int i) {
  output real v = 0.0;
  output real[] w = {};
  update { v = F(p) + xs[0] + real(i); w = {v}; stabilize; }
}
create_collection { S(i) | i in 0..n-1 };
"""

    def man_api(self):
        """Each function of generated headers appears in doc/diderot-api.3,
        with NS for the namespace and the input/output names generalised."""
        sb = Sandbox(self.srcdir, self.diderotc)
        try:
            with open(os.path.join(sb.root, "prog.diderot"), "w") as f:
                f.write(self.API_PROG)
            with open(os.path.join(sb.root, "xs.txt"), "w") as f:
                f.write("1\n2\n")
            decls = []
            for flags in (["--snapshot"], ["--target=omp"]):
                st, out, err = run([self.diderotc] + flags + ["prog.diderot", "-o", "build/lib"],
                                   sb.root, sb.env)
                if st != 0:
                    return "fail", ["diderotc %s prog.diderot failed (status %s)" % (
                        " ".join(flags), st)] + excerpt(err)
                decls += open(os.path.join(sb.root, "build", "lib.h")).read().splitlines()
        finally:
            sb.close()
        man = self.roff_text(open(self.path("doc/diderot-api.3"), encoding="utf-8").read())
        names = {"img", "xs", "n", "p", "s", "b", "v", "w"}
        problems, seen = [], set()
        for d in decls:
            m = re.search(r"\bDiderot_(\w+)\s*\(|\bDiderot_(input_desc_\w+);", d)
            if not m:
                continue
            fn = m.group(1) or m.group(2)
            parts = fn.split("_")
            if parts[-1] in names and len(parts) > 1:
                fn = "_".join(parts[:-1]) + "_NAME"
            if fn in seen:
                continue
            seen.add(fn)
            if "NS_" + fn not in man:
                problems.append("NS_%s (from: %s) is not in doc/diderot-api.3" % (fn, d.strip()))
        if len(seen) < 20:
            problems.append("only %d functions found in the generated headers" % len(seen))
        return ("fail", problems) if problems else ("pass", [])

    # ---- example blocks ----------------------------------------------------

    def block_tests(self):
        tests = []
        for rel in BLOCK_DOCS:
            p = self.path(rel)
            if not os.path.exists(p):
                continue
            blocks = read_blocks(p, rel)
            short = rel[len("doc/"):] if rel.startswith("doc/") else rel
            for k, b in enumerate(blocks):
                if b.lang == "diderot" and not b.has("fragment"):
                    nxt = blocks[k + 1] if k + 1 < len(blocks) and blocks[k + 1].lang == "output" \
                        else None
                    tests.append(("docs/%s:%d" % (short, b.line),
                                  (lambda b=b, nxt=nxt: self.diderot_block(b, nxt))))
                elif b.lang == "sh" and b.has("test"):
                    tests.append(("docs/%s:%d" % (short, b.line),
                                  (lambda b=b: self.sh_block(b))))
        return tests

    def diderot_block(self, b, expected):
        where = "%s:%d" % (b.doc, b.line)
        sb = Sandbox(self.srcdir, self.diderotc)
        try:
            fname = b.option("file")
            if fname:
                try:
                    want = open(self.path(fname), encoding="utf-8").read()
                except OSError as e:
                    return "fail", ["%s: file=%s: %s" % (where, fname, e)]
                if want != b.text:
                    return "fail", ["%s: the block differs from %s (update one of them)"
                                    % (where, fname)]
                src = fname
            else:
                src = "prog.diderot"
                with open(os.path.join(sb.root, src), "w", encoding="utf-8") as f:
                    f.write(b.text)
            if b.has("run"):
                st, out, err = run([self.diderotc, "--exec", src, "-o", "build/prog"],
                                   sb.root, sb.env)
                if st != 0:
                    return "fail", ["%s: diderotc --exec exited %s" % (where, st)] + excerpt(err)
                st, out, err = run([os.path.join(sb.root, "build", "prog")], sb.root, sb.env)
                if st != 0:
                    return "fail", ["%s: the program exited %s" % (where, st)] + excerpt(err)
                if expected is not None and out != expected.text:
                    return "fail", ["%s: the program printed something else than the output "
                                    "block at line %d:" % (where, expected.line)] + excerpt(out)
                return "pass", []
            st, out, err = run([self.diderotc, "--check", src], sb.root, sb.env)
            if b.has("error"):
                if st != 1:
                    return "fail", ["%s: expected diderotc --check to reject it (status 1), "
                                    "got %s" % (where, st)] + excerpt(err)
                if expected is not None:
                    missing = [l for l in expected.text.splitlines() if l.strip() and l not in err]
                    if missing:
                        return "fail", ["%s: the diagnostics lack %r" % (where, missing[0])] \
                            + excerpt(err)
                return "pass", []
            if st != 0:
                return "fail", ["%s: diderotc --check exited %s" % (where, st)] + excerpt(err)
            if "warning:" in err and not b.has("warns"):
                return "fail", ["%s: warnings (mark the block `warns` if they are meant)"
                                % where] + excerpt(err)
            return "pass", []
        finally:
            sb.close()

    def sh_block(self, b):
        where = "%s:%d" % (b.doc, b.line)
        need = b.option("needs")
        if need == "gpu":
            st, _, _ = run(["nvidia-smi", "-L"], self.srcdir, timeout=30) \
                if shutil.which("nvidia-smi") else (1, "", "")
            if st != 0:
                return "skip", ["needs a GPU (nvidia-smi -L)"]
        elif need and not shutil.which(need):
            return "skip", ["needs %s on PATH" % need]
        sb = Sandbox(self.srcdir, self.diderotc)
        try:
            st, out, err = run(["sh", "-e", "-c", b.text], sb.root, sb.env)
            if st != 0:
                return "fail", ["%s: the commands exited %s" % (where, st)] + excerpt(out + err)
            return "pass", []
        finally:
            sb.close()

    # ---- claims and references ---------------------------------------------

    def stale_claims(self):
        problems = []
        for rel in USER_DOCS:
            p = self.path(rel)
            if not os.path.exists(p):
                problems.append("%s is missing" % rel)
                continue
            text = open(p, encoding="utf-8").read()
            flat = self.roff_text(text) if rel.endswith((".1", ".3")) else text
            for n, line in enumerate(flat.splitlines(), 1):
                low = " ".join(line.lower().split())
                for phrase in DENY:
                    if phrase in low:
                        problems.append("%s:%d: stale claim %r" % (rel, n, phrase))
                if re.search(r"(?<![/\w.])LANGUAGE\.md", line):
                    problems.append("%s:%d: cites LANGUAGE.md, which is not shipped "
                                    "(cite doc/language.md)" % (rel, n))
        return ("fail", problems) if problems else ("pass", [])

    def extensions(self):
        defs = open(self.path("src/frontend/extensions.def"), encoding="utf-8").read()
        texts = re.findall(r'^EXT\(\w+, "(.*)"\)\s*$', defs, re.M)
        if not texts:
            return "fail", ["no EXT(...) entries in src/frontend/extensions.def"]
        diffs = open(self.path("doc/differences.md"), encoding="utf-8").read()
        flat = " ".join(diffs.split())
        sdir = self.path("tests/programs/reject/strict")
        expects = ""
        for f in sorted(os.listdir(sdir)) if os.path.isdir(sdir) else []:
            expects += open(os.path.join(sdir, f), encoding="utf-8").read()
        problems = []
        for t in texts:
            if t not in flat:
                problems.append("doc/differences.md does not list the extension %r" % t)
            if "error: %s is an extension of diderotc, rejected by --strict" % t not in expects:
                problems.append("no tests/programs/reject/strict/ test expects the --strict error for %r" % t)
        return ("fail", problems) if problems else ("pass", [])

    def section_refs(self):
        heads = {}
        for doc in ("language.md", "layouts.md"):
            path = self.path("doc/" + doc)
            if not os.path.exists(path):
                return "fail", ["doc/%s is missing" % doc]
            heads[doc] = set()
            for line in open(path, encoding="utf-8"):
                m = re.match(r"^#{2,4} (\d+(?:\.\d+)*)[. ]", line)
                if m:
                    heads[doc].add(m.group(1))
        problems = []
        roots = [os.path.join(self.srcdir, d) for d in SOURCE_DIRS]
        walk = [(self.srcdir, [], [f for f in os.listdir(self.srcdir) if f.endswith(".md")])]
        for r in roots:
            walk += list(os.walk(r)) if os.path.isdir(r) else []
        for dirpath, dirnames, files in walk:
            for f in files:
                if not f.endswith((".md", ".1", ".3", ".c", ".h", ".py")):
                    continue
                p = os.path.join(dirpath, f)
                try:
                    text = open(p, encoding="utf-8").read()
                except (OSError, UnicodeDecodeError):
                    continue
                for m in re.finditer(r"(language|layouts)\.md(?:\)|`)?,?\s+(?:§|section )"
                                     r"(\d+(?:\.\d+)*)", text):
                    doc = m.group(1) + ".md"
                    if m.group(2).rstrip(".") not in heads[doc]:
                        problems.append("%s: %s §%s does not exist"
                                        % (os.path.relpath(p, self.srcdir), doc, m.group(2)))
        return ("fail", problems) if problems else ("pass", [])

    # ---- the list --------------------------------------------------------------

    def collect(self):
        tests = [("docs/man/options", self.man_options),
                 ("docs/man/api", self.man_api),
                 ("docs/stale-claims", self.stale_claims),
                 ("docs/extensions", self.extensions),
                 ("docs/section-refs", self.section_refs)]
        return tests + self.block_tests()


def collect(srcdir, builddir, diderotc):
    """(name, fn) pairs; fn() returns (status, details) with status 'pass',
    'fail' or 'skip' (tests/run.py wraps them as docs/... tests)."""
    return Docs(srcdir, builddir, diderotc).collect()


def main(argv):
    import argparse
    import concurrent.futures
    ap = argparse.ArgumentParser(description="Check the documentation against diderotc.")
    ap.add_argument("--srcdir", default=".")
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--diderotc")
    ap.add_argument("-k", dest="filter", default="")
    ap.add_argument("-j", dest="jobs", type=int, default=2)
    ap.add_argument("-v", dest="verbose", action="store_true")
    a = ap.parse_args(argv)
    dc = a.diderotc or os.path.join(a.builddir, "diderotc")
    tests = [t for t in collect(a.srcdir, a.builddir, dc) if a.filter in t[0]]
    counts = {"pass": 0, "fail": 0, "skip": 0}

    def one(t):
        try:
            return t[0], t[1]()
        except Exception as e:  # a harness bug must not hide the other results
            return t[0], ("fail", ["harness error: %r" % e])

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        for name, (st, details) in pool.map(one, tests):
            counts[st] += 1
            if st == "fail" or a.verbose:
                print("%s %s%s" % (st.upper(), name, (": " + details[0]) if details else ""))
                for d in details[1:] if st == "fail" else []:
                    print("    " + d)
    print("%d passed, %d failed, %d skipped" % (counts["pass"], counts["fail"], counts["skip"]))
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
