"""trace: the record -trace FILE writes (doc/user-guide.md, "Tracing
strands"): '# step id event where', then 'STEP ID EVENT WHERE' per strand
that dies, stabilizes (its update, or the global update's stabilize) or
is born, in step order and, within a step, the strands' events in
creation order, then the births, then the global block's.

Oracle: the program's rules simulated super-step by super-step (ids in
creation order, a birth gets the next id after the step's updates). Also:
'-trace -' writes the same to standard output; -l 2 stops the record at
step 2; an old record is replaced whole (no temporary is left); a file
that cannot be made is an error (exit 1, no run); the CUDA target has no
-trace (exit 2, the option is unknown)."""

import os

import e2elib


def simulate(n, limit=0):
    strands = [{"id": k, "i": k, "age": 0, "st": "active"} for k in range(n)]
    next_id, lines, step = n, [], 0
    while any(s["st"] == "active" for s in strands) and (not limit or step < limit):
        step += 1
        born = []
        for s in strands:
            if s["st"] != "active":
                continue
            s["age"] += 1
            i, a = s["i"], s["age"]
            if i % 4 == 0 and a == 2:
                s["st"] = "dead"
                lines.append((step, s["id"], "die", "update"))
            elif i % 4 == 1 and a == i % 3 + 1:
                s["st"] = "stable"
                lines.append((step, s["id"], "stabilize", "update"))
            elif i % 4 == 2 and a == 1 and i < 100:
                born.append(100 + i)
        for i in born:
            strands.append({"id": next_id, "i": i, "age": 0, "st": "active"})
            lines.append((step, next_id, "new", "update"))
            next_id += 1
        if step == 4:   # the global update's fourth run
            for s in strands:
                if s["st"] == "active":
                    s["st"] = "stable"
                    lines.append((step, s["id"], "stabilize", "global"))
    return "# step id event where\n" + "".join("%d %d %s %s\n" % ln for ln in lines)


# a program the C target may run strand by strand (no global block, no
# communication): -trace makes it go super-step by super-step, so that
# every line has its step; stabilize at age i % 5 + 1, die first at age 2
# when i % 7 == 3
STRANDWISE = """#version 2.0
strand S (int i) {
  output int x = i;
  int age = 0;
  update {
    age += 1;
    if (age == i % 5 + 1) stabilize;
    if (i % 7 == 3 && age == 2) die;
  }
}
create_collection { S(i) | i in 0..40 };
"""


def strandwise_record():
    ev = []
    for i in range(41):
        st = i % 5 + 1
        ev.append((2, i, "die") if i % 7 == 3 and st > 2 else (st, i, "stabilize"))
    return "# step id event where\n" + "".join("%d %d %s update\n" % e for e in sorted(ev))


def read(t, f):
    with open(t.path(f), encoding="utf-8") as fh:
        return fh.read()


def run(t):
    rec = "prog-trace.txt"   # prog*: not among the outputs other modes compare
    if "--target=cuda" not in t.layout_flags:
        t.write_text("prog_sw.diderot", STRANDWISE)
        t.compile(source=t.path("prog_sw.diderot"), stem="prog_sw")
        t.exec(["-trace", rec])
        t.equal("strand-by-strand program's record", [read(t, rec)], [strandwise_record()],
                convert=str)
    t.compile()
    if "--target=cuda" in t.layout_flags:
        p = t.exec(["-trace", rec], expect_rc=2)
        if "trace" not in p.err:
            t.fail("cuda: -trace refused without naming it: %r" % p.err)
        t.exec([])
        return
    for n in (7, 12):
        t.exec(["-n", n, "-trace", rec])
        t.equal("record, n=%d" % n, [read(t, rec)], [simulate(n)], convert=str)
    p = t.exec(["-trace", "-"])
    t.equal("record on stdout", [p.out], [simulate(7)], convert=str)
    t.write_text(rec, "an older record\n" * 1000)
    t.exec(["-trace", rec, "-l", "2"])
    t.equal("record with -l 2", [read(t, rec)], [simulate(7, 2)], convert=str)
    left = [f for f in t.files() if f.endswith(".tmp")]
    if left:
        t.fail("temporaries left: %s" % left)
    p = t.exec(["-trace", os.path.join("no-such-dir", "t.txt")], expect_rc=1)
    if "cannot open the trace file" not in p.err:
        t.fail("bad path: %r" % p.err)
    t.exec([])   # the outputs the cuda mode compares: a whole run's
