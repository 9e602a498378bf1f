/* test_schedule.c -- the schedule record (src/schedule): the file parser's
 * every error path, the printer's round trip (a dump is a schedule file
 * that gives its values back), today's defaults and heuristics over
 * synthetic facts, the flags (and the EmitOptions bits the driver computes
 * from them today), every constraint, and the run-time part. */
#include <stdlib.h>
#include <string.h>

#include "schedule/schedule.h"
#include "unit.h"

/* The messages of d as printed. */
static char *diag_text(const SchedDiag *d) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  schedule_diag_print(d, f);
  fclose(f);
  return buf;
}

/* A program of the CPU whose update probes, runs again and can run in
 * groups: groups pay, strand-wise runs are possible. */
static SchedFacts probing(void) {
  SchedFacts f;
  memset(&f, 0, sizeof f);
  f.target = SCHED_TARGET_SEQ;
  f.exec = true;
  f.has_update = true;
  f.update_probes = true;
  f.update_again = true;
  f.update_groupable = true;
  return f;
}

/* Parse text; the messages (NULL when it parsed) into *msgs. */
static bool parse(Arena *a, const char *text, Schedule *s, char **msgs) {
  SchedDiag d;
  schedule_diag_init(&d, a);
  schedule_init(s);
  bool ok = schedule_parse_text(a, "t.sched", text, s, &d);
  *msgs = d.nerrors ? diag_text(&d) : NULL;
  return ok;
}

#define PARSE_ERR(text, want)                                                       \
  do {                                                                              \
    Schedule s_;                                                                    \
    char *m_ = NULL;                                                                \
    bool ok_ = parse(a, text, &s_, &m_);                                            \
    CHECK_MSG(!ok_ && m_ && strstr(m_, want), "%s: got %s", text, m_ ? m_ : "(none)"); \
    free(m_);                                                                       \
  } while (0)

static void test_parser(Arena *a) {
  Schedule s;
  char *m = NULL;
  /* comments, blank lines, spaces and tabs anywhere */
  bool ok = parse(a,
                  "# a schedule\n\n  strand-layout = aosoa:8   # blocks of 8\n"
                  "chunk=64\n\tsimd\t=\tstrands\nsteps-per-visit = all\n"
                  "image-layout = brick:4\nloop-lanes = off\nrun = strandwise\n"
                  "snapshot-writer = off\nsimd-width = 4\n",
                  &s, &m);
  CHECK_MSG(ok, "%s", m ? m : "");
  free(m);
  CHECK(s.strand_layout == SCHED_AOSOA && s.aosoa_width == 8);
  CHECK(s.chunk == 64 && s.simd_ask == SCHED_ASK_STRANDS && !s.scalar_asked);
  CHECK(s.steps == SCHED_STEPS_ALL && s.image_brick == 4 && !s.loop_lanes);
  CHECK(s.run == SCHED_RUN_STRANDWISE && s.writer == SCHED_WRITER_OFF && s.simd_width == 4);
  CHECK(s.why[SCHED_P_CHUNK].source == SCHED_FILE && s.why[SCHED_P_CHUNK].line == 4);
  CHECK(s.why[SCHED_P_CHUNK].col == 7);
  CHECK_STR(s.why[SCHED_P_CHUNK].reason, "t.sched:4");
  CHECK(s.why[SCHED_P_RUN].source == SCHED_FILE && s.why[SCHED_P_OMP_WAIT].source == SCHED_UNSET);
  /* haloed bricks: the key's third form; its value prints back as given */
  ok = parse(a, "image-layout = halo:8\n", &s, &m);
  CHECK_MSG(ok && s.image_brick == 8 && s.image_halo, "%s", m ? m : "");
  free(m);
  CHECK_STR(schedule_value_text(a, &s, SCHED_P_IMAGE_LAYOUT), "halo:8");
  ok = parse(a, "image-layout = brick:8\n", &s, &m);
  CHECK_MSG(ok && s.image_brick == 8 && !s.image_halo, "%s", m ? m : "");
  free(m);
  /* a last line without a newline, CRLF line ends */
  ok = parse(a, "chunk = 512\r\ncuda-block = 256", &s, &m);
  CHECK_MSG(ok && s.chunk == 512 && s.cuda_block == 256, "%s", m ? m : "");
  free(m);

  /* unknown key, with and without a suggestion; the position and caret */
  PARSE_ERR("chunck = 64\n", "t.sched:1:1: error: unknown schedule key 'chunck'; did you mean 'chunk'?\n"
                             "  chunck = 64\n  ^~~~~~\n");
  PARSE_ERR("# x\nzebra = 1\n", "t.sched:2:1: error: unknown schedule key 'zebra'\n");
  PARSE_ERR("strand-layuot = soa", "did you mean 'strand-layout'?");
  /* missing '=', missing value, trailing text, not a key */
  PARSE_ERR("chunk 64\n", "t.sched:1:7: error: expected '=' after 'chunk'\n");
  PARSE_ERR("chunk =\n", "t.sched:1:8: error: missing value for 'chunk'\n");
  PARSE_ERR("chunk = # none\n", "missing value for 'chunk'");
  PARSE_ERR("chunk = 64 128\n", "t.sched:1:12: error: unexpected '128' after the value of 'chunk'");
  PARSE_ERR("= 64\n", "t.sched:1:1: error: expected a key (key = value)");
  /* bad values name the accepted ones */
  PARSE_ERR("simd = fast\n", "t.sched:1:8: error: bad value 'fast' for 'simd' (expected off, within or strands)\n"
                             "  simd = fast\n         ^~~~\n");
  PARSE_ERR("strand-layout = aosoa:6\n", "bad value 'aosoa:6' for 'strand-layout' (expected aos, soa or "
                                         "aosoa:N with N a power of two from 2 to 1024)");
  PARSE_ERR("image-layout = brick:128\n", "bad value 'brick:128' for 'image-layout'");
  PARSE_ERR("image-layout = halo:3\n", "bad value 'halo:3' for 'image-layout' (expected linear, "
                                       "brick:N or halo:N with N a power of two from 2 to 64)");
  PARSE_ERR("loop-lanes = yes\n", "(expected on or off)");
  PARSE_ERR("run = async\n", "(expected bsp or strandwise)");
  PARSE_ERR("steps-per-visit = 0\n", "bad value '0' for 'steps-per-visit' (expected all or a whole number from 1)");
  PARSE_ERR("steps-per-visit = many\n", "bad value 'many'");
  PARSE_ERR("omp-schedule = auto\n", "(expected dynamic, static or guided)");
  PARSE_ERR("omp-wait = spin\n", "(expected passive or system)");
  PARSE_ERR("snapshot-writer = maybe\n", "(expected auto, on or off)");
  PARSE_ERR("compaction = never\n", "(expected always)");
  PARSE_ERR("simd-width = wide\n", "bad value 'wide' for 'simd-width' (expected auto or a whole number)");
  /* bad numbers */
  PARSE_ERR("chunk = 64k\n", "t.sched:1:9: error: bad number '64k' for 'chunk' (expected a whole number)");
  PARSE_ERR("chunk = -1\n", "bad number '-1' for 'chunk'");
  PARSE_ERR("chunk = 99999999999\n", "bad number '99999999999'");
  PARSE_ERR("cuda-block = 1e3\n", "bad number '1e3' for 'cuda-block'");
  PARSE_ERR("steps-per-visit = 8x\n", "bad number '8x' for 'steps-per-visit'");
  PARSE_ERR("simd-width = 4.0\n", "bad number '4.0' for 'simd-width'");
  /* duplicates name the first line */
  PARSE_ERR("chunk = 64\n# again\nchunk = 128\n",
            "t.sched:3:1: error: duplicate key 'chunk' (first set at line 1)");
  /* every error is reported, not only the first */
  ok = parse(a, "chunk = x\nsimd = y\nfoo = 1\n", &s, &m);
  CHECK(!ok && m && strstr(m, "t.sched:1:") && strstr(m, "t.sched:2:") && strstr(m, "t.sched:3:"));
  free(m);
  /* a file that cannot be read */
  SchedDiag d;
  schedule_diag_init(&d, a);
  schedule_init(&s);
  CHECK(!schedule_read_file(a, "/nonexistent/x.sched", &s, &d));
  m = diag_text(&d);
  CHECK_MSG(m && strstr(m, "diderotc: error: cannot read schedule file '/nonexistent/x.sched'"), "%s", m);
  free(m);
}

/* ---- defaults --------------------------------------------------------------------- */

static Schedule build(Arena *a, const SchedFacts *f, const SchedFlags *fl, const char *text,
                      bool *ok, char **msgs) {
  Schedule s;
  SchedDiag d;
  schedule_diag_init(&d, a);
  schedule_init(&s);
  bool good = true;
  if (text) good = schedule_parse_text(a, "f.sched", text, &s, &d);
  if (good && fl) good = schedule_apply_flags(a, fl, &s, &d);
  if (good) {
    schedule_defaults(a, f, &s);
    good = schedule_check(a, f, &s, fl && fl->deterministic, &d);
  }
  if (ok) *ok = good;
  if (msgs) *msgs = d.nerrors ? diag_text(&d) : NULL;
  return s;
}

static void test_defaults(Arena *a) {
  SchedFacts f = probing();
  bool ok;
  Schedule s = build(a, &f, NULL, NULL, &ok, NULL);
  CHECK(ok);
  CHECK(s.strand_layout == SCHED_AOS && s.aosoa_width == 1 && s.image_brick == 0);
  CHECK(s.simd == SCHED_SIMD_STRANDS && s.why[SCHED_P_SIMD].source == SCHED_HEURISTIC);
  CHECK(s.loop_lanes && s.run == SCHED_RUN_STRANDWISE && s.steps == SCHED_STEPS_ALL);
  CHECK(s.chunk == 256 && s.omp_schedule == SCHED_OMP_DYNAMIC && s.writer == SCHED_WRITER_AUTO);
  CHECK(s.cuda_block == 128 && s.compaction == SCHED_COMPACT_ALWAYS && s.simd_width == 0);
  CHECK(s.simd_width_auto == 8); /* 32 bytes of floats */
  /* plan_pays: no probe, no second run, a sphere query: no groups */
  SchedFacts g = probing();
  g.update_probes = false;
  s = build(a, &g, NULL, NULL, &ok, NULL);
  CHECK(s.simd == SCHED_SIMD_WITHIN && strstr(s.why[SCHED_P_SIMD].reason, "reads no image"));
  g = probing();
  g.update_again = false;
  s = build(a, &g, NULL, NULL, &ok, NULL);
  CHECK(s.simd == SCHED_SIMD_WITHIN && strstr(s.why[SCHED_P_SIMD].reason, "never runs twice"));
  g = probing();
  g.update_sphere = g.strand_sphere = true;
  s = build(a, &g, NULL, NULL, &ok, NULL);
  CHECK(s.simd == SCHED_SIMD_WITHIN && strstr(s.why[SCHED_P_SIMD].reason, "sphere()"));
  CHECK(s.run == SCHED_RUN_BSP && s.steps == 1 && strstr(s.why[SCHED_P_RUN].reason, "sphere()"));
  /* not if-convertible: the analysis's reason */
  g = probing();
  g.update_groupable = false;
  g.groups_why = "a loop that is not a natural loop";
  s = build(a, &g, NULL, NULL, &ok, NULL);
  CHECK(s.simd == SCHED_SIMD_WITHIN && strstr(s.why[SCHED_P_SIMD].reason, "not a natural loop"));
  /* emit_step_strandwise: each interaction keeps super-steps */
  static const struct { size_t off; const char *why; } inter[] = {
      {offsetof(SchedFacts, global_update), "global update"},
      {offsetof(SchedFacts, shared_state), "other strands' state"},
      {offsetof(SchedFacts, strand_new), "new"},
      {offsetof(SchedFacts, strand_counts), "strand counts"},
      {offsetof(SchedFacts, strand_print), "prints"},
      {offsetof(SchedFacts, strand_dseq), "dynamic sequences"},
      {offsetof(SchedFacts, reads_changing_globals), "globals that change"},
  };
  for (size_t i = 0; i < sizeof inter / sizeof inter[0]; i++) {
    g = probing();
    *(bool *)((char *)&g + inter[i].off) = true;
    s = build(a, &g, NULL, NULL, &ok, NULL);
    CHECK_MSG(ok && s.run == SCHED_RUN_BSP && strstr(s.why[SCHED_P_RUN].reason, inter[i].why),
              "%s: %s", inter[i].why, s.why[SCHED_P_RUN].reason);
  }
  g = probing();
  g.has_update = false;
  s = build(a, &g, NULL, NULL, &ok, NULL);
  CHECK(ok && s.run == SCHED_RUN_BSP && s.simd == SCHED_SIMD_WITHIN);
  /* the GPU: SoA, no groups, super-steps; the block and compaction apply */
  g = probing();
  g.target = SCHED_TARGET_CUDA;
  s = build(a, &g, NULL, NULL, &ok, NULL);
  CHECK(ok && s.strand_layout == SCHED_SOA && s.simd == SCHED_SIMD_WITHIN && s.run == SCHED_RUN_BSP);
  CHECK(s.steps == 1 && s.chunk == 256 && s.loop_lanes);
  /* double: half the lanes; AoSoA narrower than the vector: its width */
  g = probing();
  g.double_real = g.long_int = true;
  s = build(a, &g, NULL, NULL, &ok, NULL);
  CHECK(s.simd_width_auto == 4);
  g.vec_bytes = 64;
  s = build(a, &g, NULL, NULL, &ok, NULL);
  CHECK(s.simd_width_auto == 8);
  SchedFlags fl = {.strand_layout = "aosoa:2"};
  s = build(a, &g, &fl, NULL, &ok, NULL);
  CHECK(ok && s.simd_width_auto == 2 && s.chunk == 256);
  fl.strand_layout = "aosoa:512";
  s = build(a, &g, &fl, NULL, &ok, NULL);
  CHECK(ok && s.chunk == 512 && s.why[SCHED_P_CHUNK].source == SCHED_DEFAULT);
  /* loops: the count is only a reason */
  g = probing();
  g.loops_paying = 2;
  s = build(a, &g, NULL, NULL, &ok, NULL);
  CHECK(s.loop_lanes && strstr(s.why[SCHED_P_LOOP_LANES].reason, "2 loops"));
}

/* ---- flags and the driver's EmitOptions ------------------------------------------- */

/* driver_codegen's formulas over DriverOptions, for comparison */
static SchedEmitBits driver_bits(const SchedFlags *fl) {
  SchedEmitBits b;
  memset(&b, 0, sizeof b);
  b.scalar = fl->scalar;
  b.simd_strands = fl->simd_strands;
  b.simd_auto = !fl->simd_strands && !fl->simd_within && !fl->scalar;
  b.loop_lanes = !fl->scalar && !fl->no_loop_lanes;
  b.aosoa_width = 1;
  if (fl->strand_layout) schedule_parse_strand_layout(fl->strand_layout, (SchedStrandLayout *)&b.strand_layout, &b.aosoa_width);
  if (fl->image_layout) schedule_parse_image_layout(fl->image_layout, &b.image_brick, &b.image_halo);
  return b;
}

static void test_flags(Arena *a) {
  SchedFacts f = probing();
  /* every combination of the boolean flags gives the driver's bits */
  for (unsigned m = 0; m < 32; m++) {
    SchedFlags fl = {.scalar = m & 1, .simd_strands = (m >> 1) & 1, .simd_within = (m >> 2) & 1,
                     .no_loop_lanes = (m >> 3) & 1, .force_bsp = (m >> 4) & 1};
    if (fl.simd_strands && fl.simd_within) continue; /* the parser keeps the last --simd only */
    fl.strand_layout = m & 8 ? "aosoa:16" : m & 4 ? "soa" : NULL;
    fl.image_layout = m & 2 ? "brick:8" : NULL;
    bool ok;
    char *msgs;
    Schedule s = build(a, &f, &fl, NULL, &ok, &msgs);
    CHECK_MSG(ok, "flags %u: %s", m, msgs ? msgs : "");
    free(msgs);
    SchedEmitBits got, want = driver_bits(&fl);
    schedule_emit_bits(&s, &got);
    CHECK_MSG(got.scalar == want.scalar && got.simd_auto == want.simd_auto &&
                  got.simd_strands == want.simd_strands && got.loop_lanes == want.loop_lanes,
              "flags %u: scalar %d/%d auto %d/%d strands %d/%d lanes %d/%d", m, got.scalar,
              want.scalar, got.simd_auto, want.simd_auto, got.simd_strands, want.simd_strands,
              got.loop_lanes, want.loop_lanes);
    CHECK(got.strand_layout == want.strand_layout && got.aosoa_width == want.aosoa_width);
    CHECK(got.image_brick == want.image_brick);
    /* force_bsp: set by the flag; without it only where strand-wise runs
     * are impossible (which changes nothing) */
    CHECK(got.force_bsp == (fl.force_bsp || s.run == SCHED_RUN_BSP));
    CHECK(!fl.force_bsp || (s.run == SCHED_RUN_BSP && s.steps == 1));
  }
  /* the driver's messages for bad layouts, word for word */
  SchedFlags bad = {.strand_layout = "aosoa:3"};
  bool ok;
  char *m;
  build(a, &f, &bad, NULL, &ok, &m);
  CHECK_STR(m, "diderotc: error: bad --strand-layout 'aosoa:3' (expected aos, soa or aosoa:N with N "
               "a power of two from 2 to 1024)\n");
  free(m);
  SchedFlags bad2 = {.image_layout = "bricks"};
  build(a, &f, &bad2, NULL, &ok, &m);
  CHECK_STR(m, "diderotc: error: bad --image-layout 'bricks' (expected linear, brick:N or halo:N "
               "with N a power of two from 2 to 64)\n");
  free(m);
  /* --simd=strands where groups are impossible: today's silent fallback */
  SchedFacts g = probing();
  g.update_groupable = false;
  g.groups_why = "operator foo";
  SchedFlags st = {.simd_strands = true};
  Schedule s = build(a, &g, &st, NULL, &ok, NULL);
  CHECK(ok && s.simd == SCHED_SIMD_WITHIN && strstr(s.why[SCHED_P_SIMD].reason, "operator foo"));
  SchedEmitBits b;
  schedule_emit_bits(&s, &b);
  CHECK(b.simd_strands && !b.simd_auto); /* the report comment stays */
  /* flags override the file */
  SchedFlags sc = {.scalar = true, .force_bsp = true, .strand_layout = "soa"};
  s = build(a, &f, &sc,
            "simd = strands\nloop-lanes = on\nrun = strandwise\nsteps-per-visit = 8\n"
            "strand-layout = aosoa:8\n",
            &ok, &m);
  CHECK_MSG(ok, "%s", m ? m : "");
  free(m);
  CHECK(s.simd == SCHED_SIMD_OFF && !s.loop_lanes && s.run == SCHED_RUN_BSP && s.steps == 1);
  CHECK(s.strand_layout == SCHED_SOA && s.why[SCHED_P_STRAND_LAYOUT].source == SCHED_FLAG);
  /* a flag does not override what it does not name */
  SchedFlags nl = {.no_loop_lanes = true};
  s = build(a, &f, &nl, "chunk = 1024\n", &ok, NULL);
  CHECK(ok && s.chunk == 1024 && s.why[SCHED_P_CHUNK].source == SCHED_FILE && !s.loop_lanes);
}

/* ---- constraints ------------------------------------------------------------------ */

#define REFUSED(facts, flags, text, want)                                            \
  do {                                                                               \
    bool ok_;                                                                        \
    char *m_ = NULL;                                                                 \
    build(a, facts, flags, text, &ok_, &m_);                                         \
    CHECK_MSG(!ok_ && m_ && strstr(m_, want), "%s: got %s", text, m_ ? m_ : "(accepted)"); \
    free(m_);                                                                        \
  } while (0)

#define ACCEPTED(facts, flags, text)                                                 \
  do {                                                                               \
    bool ok_;                                                                        \
    char *m_ = NULL;                                                                 \
    build(a, facts, flags, text, &ok_, &m_);                                         \
    CHECK_MSG(ok_, "%s: %s", text, m_ ? m_ : "");                                    \
    free(m_);                                                                        \
  } while (0)

static void test_constraints(Arena *a) {
  SchedFacts f = probing();
  ACCEPTED(&f, NULL, "simd = strands\nstrand-layout = aosoa:16\nchunk = 64\nsteps-per-visit = 8\n");
  /* simd = strands: if-conversion, a C target */
  SchedFacts g = probing();
  g.update_groupable = false;
  g.groups_why = "a state write before an exit";
  REFUSED(&g, NULL, "simd = strands\n",
          "f.sched:1:8: error: simd = strands: the update cannot run in across-strand groups: a "
          "state write before an exit\n  simd = strands\n         ^~~~~~~\n");
  SchedFacts cu = probing();
  cu.target = SCHED_TARGET_CUDA;
  REFUSED(&cu, NULL, "simd = strands\n", "the CUDA target runs the update in its kernel");
  /* simd-width */
  REFUSED(&f, NULL, "simd-width = 3\n", "simd-width = 3: must be a power of two from 2 to 16");
  REFUSED(&f, NULL, "simd-width = 32\n", "from 2 to 16 (float lanes of 64 bytes)");
  SchedFacts dbl = probing();
  dbl.double_real = dbl.long_int = true;
  REFUSED(&dbl, NULL, "simd-width = 16\n", "from 2 to 8 (double lanes");
  REFUSED(&f, NULL, "simd-width = 8\nstrand-layout = aosoa:4\n", "exceeds the AoSoA width 4");
  REFUSED(&f, NULL, "simd-width = 8\nsimd = off\n", "simd-width = 8: needs vector code");
  ACCEPTED(&f, NULL, "simd-width = 4\nstrand-layout = aosoa:4\n");
  /* loop lanes need vector code */
  REFUSED(&f, NULL, "simd = off\nloop-lanes = on\n", "f.sched:2:14: error: loop-lanes = on: needs vector code");
  ACCEPTED(&f, NULL, "simd = off\n");
  /* strand-wise runs and steps per visit: no interaction */
  g = probing();
  g.strand_sphere = true;
  REFUSED(&g, NULL, "run = strandwise\n", "run = strandwise: strands must not interact: strand code queries sphere()");
  REFUSED(&g, NULL, "steps-per-visit = 4\n", "steps-per-visit = 4: needs run = strandwise (strand code queries sphere())");
  REFUSED(&g, NULL, "steps-per-visit = all\n", "steps-per-visit = all: needs run");
  g = probing();
  g.global_update = true;
  REFUSED(&g, NULL, "run = strandwise\n", "a global update block");
  g = probing();
  g.strand_new = true;
  REFUSED(&g, NULL, "steps-per-visit = 2\n", "creates strands (new)");
  g = probing();
  g.shared_state = true;
  REFUSED(&g, NULL, "run = strandwise\n", "other strands' state");
  REFUSED(&f, NULL, "run = bsp\nsteps-per-visit = 2\n", "needs run = strandwise (super-steps run one update per strand)");
  ACCEPTED(&f, NULL, "run = bsp\nsteps-per-visit = 1\n");
  ACCEPTED(&f, NULL, "run = strandwise\nsteps-per-visit = 1\n");
  REFUSED(&cu, NULL, "steps-per-visit = 8\n", "the CUDA target launches one super-step at a time");
  SchedFlags fb = {.force_bsp = true};
  ACCEPTED(&f, &fb, "steps-per-visit = 8\n"); /* the flag wins: 1 */
  /* chunk: positive, whole AoSoA blocks */
  REFUSED(&f, NULL, "chunk = 0\n", "chunk = 0: must be from 1 to 1073741824 strands");
  REFUSED(&f, NULL, "chunk = 2000000000\n", "chunk = 2000000000: must be from 1");
  REFUSED(&f, NULL, "chunk = 100\nstrand-layout = aosoa:8\n",
          "f.sched:1:9: error: chunk = 100: must be a multiple of the AoSoA width 8");
  ACCEPTED(&f, NULL, "chunk = 100\n");
  ACCEPTED(&f, NULL, "chunk = 1\n");
  /* deterministic: the chunk only where it changes nothing */
  SchedFlags det = {.deterministic = true};
  ACCEPTED(&f, &det, "chunk = 64\n");
  g = probing();
  g.real_reductions = true;
  REFUSED(&g, &det, "chunk = 64\n", "chunk = 64: changes this program's results (a real sum, product or mean");
  ACCEPTED(&g, &det, "chunk = 256\n");
  ACCEPTED(&g, NULL, "chunk = 64\n");
  g = probing();
  g.new_in_start = g.new_in_update = true;
  REFUSED(&g, &det, "chunk = 32\n", "ordered by chunk");
  g.new_in_start = false;
  ACCEPTED(&g, &det, "chunk = 32\n");
  /* the CUDA block */
  REFUSED(&cu, NULL, "cuda-block = 100\n", "cuda-block = 100: must be a multiple of 32 (a warp) from 32 to 1024");
  REFUSED(&cu, NULL, "cuda-block = 2048\n", "cuda-block = 2048");
  REFUSED(&cu, NULL, "cuda-block = 0\n", "cuda-block = 0");
  ACCEPTED(&cu, NULL, "cuda-block = 256\ncompaction = always\n");
  ACCEPTED(&cu, NULL, "cuda-block = 1024\n");
  /* keys of another target, of executables with snapshots */
  REFUSED(&f, NULL, "cuda-block = 256\n", "f.sched:1:14: error: cuda-block: applies only to --target=cuda (this is --target=seq, an executable)");
  REFUSED(&f, NULL, "compaction = always\n", "compaction: applies only to --target=cuda");
  REFUSED(&f, NULL, "omp-schedule = static\n", "omp-schedule: applies only to --target=omp");
  REFUSED(&cu, NULL, "omp-wait = system\n", "omp-wait: applies only to an executable (--exec) of --target=omp");
  SchedFacts omp = probing();
  omp.target = SCHED_TARGET_OMP;
  ACCEPTED(&omp, NULL, "omp-schedule = guided\nomp-wait = system\n");
  omp.exec = false;
  REFUSED(&omp, NULL, "omp-wait = system\n", "(this is --target=omp, a library)");
  /* the MPI target: its placement key, and the omp- keys of its ranks */
  REFUSED(&f, NULL, "mpi-placement = block\n", "mpi-placement: applies only to --target=mpi");
  SchedFacts mp = probing();
  mp.target = SCHED_TARGET_MPI;
  ACCEPTED(&mp, NULL, "mpi-placement = block\nomp-schedule = static\n");
  ACCEPTED(&mp, NULL, "mpi-placement = cyclic\n");
  REFUSED(&mp, NULL, "mpi-placement = diagonal\n", "bad value 'diagonal' for 'mpi-placement' (expected block or cyclic)");
  /* mpi-rebalance: off or a ratio in hundredths, 1 to 100 */
  {
    bool ok;
    Schedule s = build(a, &mp, NULL, NULL, &ok, NULL);
    CHECK(ok && s.mpi_rebalance == SCHED_MPI_REBALANCE_DEFAULT &&
          s.why[SCHED_P_MPI_REBALANCE].source == SCHED_DEFAULT);
    static const struct { const char *text; int want; } good[] = {
        {"mpi-rebalance = off\n", 0},     {"mpi-rebalance = 1\n", 100},
        {"mpi-rebalance = 1.5\n", 150},   {"mpi-rebalance = 1.25\n", 125},
        {"mpi-rebalance = 100\n", 10000}, {"mpi-rebalance = 2.05\n", 205}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
      s = build(a, &mp, NULL, good[i].text, &ok, NULL);
      CHECK_MSG(ok && s.mpi_rebalance == good[i].want && s.why[SCHED_P_MPI_REBALANCE].source == SCHED_FILE,
                "%s: %d", good[i].text, s.mpi_rebalance);
    }
    s = build(a, &mp, NULL, "mpi-rebalance = 1.05\n", &ok, NULL);
    CHECK(strcmp(schedule_value_text(a, &s, SCHED_P_MPI_REBALANCE), "1.05") == 0);
    s = build(a, &mp, NULL, "mpi-rebalance = off\n", &ok, NULL);
    CHECK(strcmp(schedule_value_text(a, &s, SCHED_P_MPI_REBALANCE), "off") == 0);
  }
  REFUSED(&mp, NULL, "mpi-rebalance = 0.5\n", "bad number '0.5' for 'mpi-rebalance' (expected off or a ratio");
  REFUSED(&mp, NULL, "mpi-rebalance = 1.255\n", "bad number '1.255' for 'mpi-rebalance'");
  REFUSED(&mp, NULL, "mpi-rebalance = 101\n", "bad number '101'");
  REFUSED(&mp, NULL, "mpi-rebalance = 1.\n", "bad number '1.'");
  REFUSED(&mp, NULL, "mpi-rebalance = often\n", "bad value 'often' for 'mpi-rebalance'");
  REFUSED(&f, NULL, "mpi-rebalance = 2\n", "mpi-rebalance: applies only to --target=mpi");
  REFUSED(&f, NULL, "snapshot-writer = off\n", "snapshot-writer: applies only to an executable (--exec) with --snapshot");
  SchedFacts sn = probing();
  sn.snapshot = true;
  ACCEPTED(&sn, NULL, "snapshot-writer = on\n");
  /* several broken rules: one message each */
  bool ok;
  char *m;
  build(a, &f, NULL, "chunk = 0\nsimd = off\nloop-lanes = on\n", &ok, &m);
  CHECK(!ok && m && strstr(m, "chunk = 0") && strstr(m, "loop-lanes = on"));
  free(m);
  /* a record filled by hand */
  Schedule s;
  schedule_init(&s);
  schedule_defaults(a, &f, &s);
  s.aosoa_width = 12;
  s.strand_layout = SCHED_AOSOA;
  s.image_brick = 3;
  SchedDiag d;
  schedule_diag_init(&d, a);
  CHECK(!schedule_check(a, &f, &s, false, &d));
  m = diag_text(&d);
  CHECK(m && strstr(m, "diderotc: error: strand-layout: the AoSoA width 12 must be a power of two"));
  CHECK(m && strstr(m, "image-layout: the brick edge 3"));
  free(m);
}

/* ---- printing ---------------------------------------------------------------------- */

/* print s, parse it back and compare every printed value */
static void round_trip(Arena *a, const SchedFacts *f, const Schedule *s, const char *label) {
  const char *text = schedule_print(a, s);
  Schedule t;
  SchedDiag d;
  schedule_diag_init(&d, a);
  schedule_init(&t);
  bool ok = schedule_parse_text(a, "dump", text, &t, &d);
  if (ok) {
    schedule_defaults(a, f, &t);
    ok = schedule_check(a, f, &t, false, &d);
  }
  char *m = d.nerrors ? diag_text(&d) : NULL;
  CHECK_MSG(ok, "%s: the dump does not read back: %s\n%s", label, m ? m : "", text);
  free(m);
  int lines = 0;
  for (int p = 0; p < SCHED_NPARAMS; p++) {
    if (!schedule_applies(f->target, f->exec, f->snapshot, p)) {
      CHECK_MSG(!strstr(text, arena_printf(a, "\n%s = ", schedule_key(p))), "%s: %s printed", label,
                schedule_key(p));
      continue;
    }
    lines++;
    CHECK_STR(schedule_value_text(a, &t, p), schedule_value_text(a, s, p));
    CHECK(t.why[p].source == SCHED_FILE);
  }
  /* printed again: the same values, now all from the file */
  const char *again = schedule_print(a, &t);
  int n = 0;
  for (const char *p = again; *p; p++) n += *p == '\n';
  CHECK(n == lines + 2);
  SchedEmitBits b1, b2;
  schedule_emit_bits(s, &b1);
  schedule_emit_bits(&t, &b2);
  CHECK(b1.loop_lanes == b2.loop_lanes && b1.scalar == b2.scalar && b1.force_bsp == b2.force_bsp);
}

static void test_print(Arena *a) {
  SchedFacts f = probing();
  bool ok;
  Schedule s = build(a, &f, NULL, NULL, &ok, NULL);
  const char *text = schedule_print(a, &s);
  CHECK_MSG(strstr(text, "\nsimd = strands               # heuristic: the update probes images"), "%s", text);
  CHECK(strstr(text, "\nchunk = 256                  # default: "));
  CHECK(strstr(text, "\nrun = strandwise             # heuristic: "));
  CHECK(!strstr(text, "cuda-block") && !strstr(text, "omp-schedule") && !strstr(text, "snapshot-writer"));
  CHECK(!strncmp(text, "# the schedule (diderotc --dump=schedule)", 40));
  round_trip(a, &f, &s, "seq default");
  /* from a file and flags: their sources */
  SchedFlags fl = {.simd_within = true, .no_loop_lanes = true};
  s = build(a, &f, &fl, "chunk = 64\nstrand-layout = aosoa:8\n", &ok, NULL);
  text = schedule_print(a, &s);
  CHECK_MSG(strstr(text, "\nchunk = 64                   # file: f.sched:1\n"), "%s", text);
  CHECK(strstr(text, "\nsimd = within                # flag: --simd=within\n"));
  CHECK(strstr(text, "\nloop-lanes = off             # flag: --no-loop-lanes\n"));
  round_trip(a, &f, &s, "file and flags");
  /* every target and context */
  SchedFacts g = probing();
  g.target = SCHED_TARGET_CUDA;
  s = build(a, &g, NULL, NULL, &ok, NULL);
  text = schedule_print(a, &s);
  CHECK(strstr(text, "\ncuda-block = 128 ") && strstr(text, "\ncompaction = always "));
  round_trip(a, &g, &s, "cuda");
  g = probing();
  g.target = SCHED_TARGET_OMP;
  g.snapshot = true;
  g.strand_sphere = g.update_sphere = true;
  s = build(a, &g, NULL, NULL, &ok, NULL);
  text = schedule_print(a, &s);
  CHECK(strstr(text, "\nomp-schedule = dynamic ") && strstr(text, "\nomp-wait = passive "));
  CHECK(strstr(text, "\nsnapshot-writer = auto ") && strstr(text, "\nrun = bsp "));
  round_trip(a, &g, &s, "omp snapshot");
  SchedFlags sc = {.scalar = true, .force_bsp = true, .image_layout = "brick:8"};
  s = build(a, &f, &sc, NULL, &ok, NULL);
  round_trip(a, &f, &s, "scalar bsp brick");
  s = build(a, &f, NULL, "steps-per-visit = 16\nsimd-width = 4\nchunk = 32\n", &ok, NULL);
  round_trip(a, &f, &s, "steps and width");
  /* the flag's fallback reads back as what happened */
  SchedFacts h = probing();
  h.update_groupable = false;
  SchedFlags st = {.simd_strands = true};
  s = build(a, &h, &st, NULL, &ok, NULL);
  round_trip(a, &h, &s, "simd=strands fallback");
}

/* ---- the run-time part ---------------------------------------------------------------- */

static void test_runtime(Arena *a) {
  SchedFacts f = probing();
  bool ok;
  Schedule s = build(a, &f, NULL, NULL, &ok, NULL);
  CHECK(schedule_runtime_c(a, &s) == NULL);
  SchedFlags aw = {.strand_layout = "aosoa:512"};
  s = build(a, &f, &aw, NULL, &ok, NULL);
  CHECK(schedule_runtime_c(a, &s) == NULL); /* 512: the layout's own chunk */
  s = build(a, &f, NULL, "chunk = 64\n", &ok, NULL);
  CHECK_STR(schedule_runtime_c(a, &s), "{.chunk = 64, .steps = 0, .writer = DRT_WRITER_AUTO}");
  s = build(a, &f, NULL, "steps-per-visit = 8\n", &ok, NULL);
  CHECK_STR(schedule_runtime_c(a, &s), "{.chunk = 0, .steps = 8, .writer = DRT_WRITER_AUTO}");
  f.snapshot = true;
  s = build(a, &f, NULL, "snapshot-writer = off\nrun = bsp\n", &ok, NULL);
  CHECK_STR(schedule_runtime_c(a, &s), "{.chunk = 0, .steps = 0, .writer = DRT_WRITER_OFF}");
  CHECK(schedule_default_chunk(1) == 256 && schedule_default_chunk(256) == 256 &&
        schedule_default_chunk(1024) == 1024);
}

int main(void) {
  Arena *a = arena_new();
  test_parser(a);
  test_defaults(a);
  test_flags(a);
  test_constraints(a);
  test_print(a);
  test_runtime(a);
  arena_free(a);
  return unit_finish("schedule");
}
