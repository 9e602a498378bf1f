/* test_rt_mem.c -- memory planning of the runtime (rt_mem.c): 64-bit sizes
 * at 2^31 and 2^32 strands, growth plans, messages and the readers of the
 * limits, without allocating anything large. The expected values are
 * worked out by hand (next to each check: products of powers of two, the
 * issue's own message), never by the code under test; the limits come
 * from a made-up /proc and /sys written here. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diderot_world.h"
#include "rt_internal.h"
#include "unit.h"

#define P31 ((uint64_t)1 << 31)
#define P32 ((uint64_t)1 << 32)
#define MAXS (P32 - 2) /* the most strands of a world */

static void test_arithmetic(void) {
  CHECK(drt_mem_mul(65536, 65536) == P32);
  CHECK(drt_mem_mul(P32, P32) == UINT64_MAX);           /* 2^64: saturates */
  CHECK(drt_mem_mul(P32 - 1, P32 + 1) == UINT64_MAX);   /* 2^64 - 1 exactly */
  CHECK(drt_mem_mul(P31, P32) == (uint64_t)1 << 63);
  CHECK(drt_mem_mul(0, UINT64_MAX) == 0);
  CHECK(drt_mem_add(UINT64_MAX - 1, 2) == UINT64_MAX);
  CHECK(drt_mem_add(P32, P32) == (uint64_t)1 << 33);

  size_t g1[] = {65536, 65536};
  CHECK(drt_mem_grid_count(2, g1) == P32);
  size_t g2[] = {46341, 46341}; /* 46341^2 = 2147488281, just above 2^31 */
  CHECK(drt_mem_grid_count(2, g2) == 2147488281u);
  size_t g3[] = {65535, 65537}; /* (2^16-1)(2^16+1) = 2^32 - 1 */
  CHECK(drt_mem_grid_count(2, g3) == P32 - 1);
  size_t g4[] = {200000, 200000};
  CHECK(drt_mem_grid_count(2, g4) == 40000000000u);
  size_t g5[] = {(size_t)1 << 30, (size_t)1 << 30, (size_t)1 << 30}; /* 2^90 */
  CHECK(drt_mem_grid_count(3, g5) == UINT64_MAX);
  size_t g6[] = {(size_t)1 << 40, (size_t)1 << 40, 0}; /* empty, after saturating */
  CHECK(drt_mem_grid_count(3, g6) == 0);

  /* capacities: doubling from 64, exact rounded to the pad, the top */
  CHECK(drt_mem_grow_cap(0, 1, 1, false, MAXS) == 64);
  CHECK(drt_mem_grow_cap(64, 65, 1, false, MAXS) == 128);
  CHECK(drt_mem_grow_cap(128, 100, 1, false, MAXS) == 128);
  CHECK(drt_mem_grow_cap(0, 1, 256, false, MAXS) == 256);
  CHECK(drt_mem_grow_cap(P31, P31 + 1, 1, false, MAXS) == MAXS); /* not 2^32, not 0 */
  CHECK(drt_mem_grow_cap(3 * (P31 / 2), 3 * (P31 / 2) + 1, 1, false, MAXS) == MAXS);
  CHECK(drt_mem_grow_cap(0, P31 + 1, 8, true, MAXS) == P31 + 8);
  CHECK(drt_mem_grow_cap(0, P32 - 8, 8, true, MAXS) == P32 - 8);
  CHECK(drt_mem_grow_cap(0, MAXS, 8, true, MAXS) == 0); /* 2^32-2 is no multiple of 8 */
  CHECK(drt_mem_grow_cap(0, MAXS, 1, true, MAXS) == MAXS);
  CHECK(drt_mem_grow_cap(0, P32, 1, true, MAXS) == 0);

  /* a slot: its state, status and fresh bytes, a 4-byte id */
  CHECK(drt_mem_world_bytes(MAXS, MAXS * 16, false) == MAXS * 22); /* 94489280468 */
  CHECK(drt_mem_world_bytes(MAXS, MAXS * 16, true) == MAXS * 38);
  CHECK(drt_mem_world_bytes(P32, UINT64_MAX, false) == UINT64_MAX);
}

static void test_text(void) {
  char b[64];
  drt_mem_count_text(b, sizeof b, 40000000000u);
  CHECK_STR(b, "4e10");
  drt_mem_count_text(b, sizeof b, 400000000);
  CHECK_STR(b, "4e8");
  drt_mem_count_text(b, sizeof b, P32);
  CHECK_STR(b, "4.29e9");
  drt_mem_count_text(b, sizeof b, P31);
  CHECK_STR(b, "2.15e9");
  drt_mem_count_text(b, sizeof b, 99999);
  CHECK_STR(b, "99999");
  drt_mem_count_text(b, sizeof b, 100000);
  CHECK_STR(b, "1e5");
  drt_mem_count_text(b, sizeof b, 9996000000u); /* 9.996e9 rounds to 1e10 */
  CHECK_STR(b, "1e10");
  drt_mem_bytes_text(b, sizeof b, 999);
  CHECK_STR(b, "999 bytes");
  drt_mem_bytes_text(b, sizeof b, 1000);
  CHECK_STR(b, "1 kB");
  drt_mem_bytes_text(b, sizeof b, 960000000000u);
  CHECK_STR(b, "960 GB");
  drt_mem_bytes_text(b, sizeof b, 7200000000u);
  CHECK_STR(b, "7.2 GB");
  drt_mem_bytes_text(b, sizeof b, 999700); /* 999.7 kB rounds to 1 MB */
  CHECK_STR(b, "1 MB");
  drt_mem_bytes_text(b, sizeof b, 1234567);
  CHECK_STR(b, "1.23 MB");
  drt_mem_bytes_text(b, sizeof b, UINT64_MAX); /* 1.8447e19 */
  CHECK_STR(b, "18.4 EB");

  /* the message of issue 34, word for word */
  DrtMemRoom room = {23000000000u, "cgroup memory.max"};
  char m[256];
  drt_mem_describe(m, sizeof m, 40000000000u, "strands", 960000000000u, &room, false);
  CHECK_STR(m, "4e10 strands of 24 bytes need 960 GB; this process may use 23 GB "
               "(cgroup memory.max)");
  drt_mem_describe(m, sizeof m, 3, "values", 10, &room, true); /* 10/3 rounds up */
  CHECK_STR(m, "out of memory: 3 values of 4 bytes need 10 bytes; the allocation failed "
               "(this process may use 23 GB: cgroup memory.max)");
  /* a need beyond 2^64 (saturated): "more than", and no size per thing,
   * which the saturated product no longer tells (fuzz_nrrd: 2.67e18
   * doubles read as "of 7 bytes") */
  drt_mem_describe(m, sizeof m, 2666666666666666664u, "samples", UINT64_MAX, &room, false);
  CHECK_STR(m, "2.67e18 samples need more than 18.4 EB; this process may use 23 GB "
               "(cgroup memory.max)");
}

/* A world's slot in the plans: 16 bytes of state and 6 of bookkeeping. */
static uint64_t slot22(const void *ctx, uint64_t n) {
  (void)ctx;
  return drt_mem_mul(n, 22);
}

static bool has(const DrtErrors *e, const char *s) { return strstr(drt_errors_text(e), s) != NULL; }

static void test_plan(void) {
  DrtErrors e;
  drt_errors_init(&e);
  DrtMemRoom room = {8000000000u, "test limit"};
  DrtMemPlan p = {0, P32, 1, MAXS, true, slot22, NULL, "strands"};
  /* 2^32 strands: what they need first (2^32 x 22 = 94489280512) */
  CHECK(drt_mem_plan(&e, &p, &room) == 0);
  CHECK_MSG(has(&e, "4.29e9 strands of 22 bytes need 94.5 GB; this process may use 8 GB "
                    "(test limit)"), "%s", drt_errors_text(&e));
  drt_errors_free(&e);
  /* ... and with room for them, the count */
  DrtMemRoom plenty = {UINT64_MAX, "no limit"};
  CHECK(drt_mem_plan(&e, &p, &plenty) == 0);
  CHECK_MSG(has(&e, "4.29e9 strands: more than the 4294967294 strands a world can hold"), "%s",
            drt_errors_text(&e));
  drt_errors_free(&e);
  /* just above 2^31, exactly (a grid), pad 8 */
  DrtMemRoom big = {1000000000000u, "test limit"};
  DrtMemPlan g = {0, P31 + 1, 8, MAXS, true, slot22, NULL, "strands"};
  CHECK(drt_mem_plan(&e, &g, &big) == P31 + 8);
  /* growth past 2^31: doubling stops at the top, never wraps */
  DrtMemPlan d = {P31, P31 + 1, 1, MAXS, false, slot22, NULL, "strands"};
  CHECK(drt_mem_plan(&e, &d, &big) == MAXS);
  /* 60 GB: the doubling (94.5 GB) does not fit, 60e9 / 23 slots do */
  DrtMemRoom r60 = {60000000000u, "test limit"};
  CHECK(drt_mem_plan(&e, &d, &r60) == 2608695652u);
  CHECK(!drt_any_errors(&e));
  /* 50 GB: not even an eighth more (2^31 + 2^28 = 2415919104 slots, 53.2 GB) */
  DrtMemRoom r50 = {50000000000u, "test limit"};
  CHECK(drt_mem_plan(&e, &d, &r50) == 0);
  CHECK_MSG(has(&e, "2.42e9 strands of 22 bytes need 53.2 GB; this process may use 50 GB"),
            "%s", drt_errors_text(&e));
  drt_errors_free(&e);
  /* small arrays are not held against the limits */
  DrtMemRoom none = {0, "test limit"};
  DrtMemPlan s = {0, 100, 1, MAXS, false, slot22, NULL, "strands"};
  CHECK(drt_mem_plan(&e, &s, &none) == 128);
  CHECK(!drt_any_errors(&e));
  drt_errors_free(&e);
}

/* ---- the limits, from a made-up /proc and /sys ------------------------------- */

static char root[256];

static void put(const char *rel, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  /* the directories on the way */
  for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
    *s = '\0';
    mkdir(path, 0755);
    *s = '/';
  }
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

static void test_room(void) {
  snprintf(root, sizeof root, "/tmp/test_rt_mem-%ld", (long)getpid());
  mkdir(root, 0755);
  /* nothing readable: no limit */
  DrtMemRoom r = drt_mem_room_at(root, UINT64_MAX, UINT64_MAX);
  CHECK(r.bytes == UINT64_MAX);
  put("proc/self/status", "Name:\tx\nVmSize:\t    1000 kB\nVmData:\t     500 kB\n");
  put("proc/meminfo", "MemTotal:  16000000 kB\nMemFree: 1 kB\nMemAvailable:    8000000 kB\n");
  r = drt_mem_room_at(root, UINT64_MAX, UINT64_MAX);
  CHECK(r.bytes == 8192000000u); /* 8000000 x 1024 */
  CHECK_STR(r.limit, "MemAvailable in /proc/meminfo");
  /* an address-space limit, less what is mapped: 4e9 - 1024000 */
  r = drt_mem_room_at(root, 4000000000u, UINT64_MAX);
  CHECK(r.bytes == 3998976000u);
  CHECK_STR(r.limit, "RLIMIT_AS, ulimit -v");
  r = drt_mem_room_at(root, 4000000000u, 1000000000u); /* 1e9 - 512000 */
  CHECK(r.bytes == 999488000u);
  CHECK_STR(r.limit, "RLIMIT_DATA, ulimit -d");
  /* cgroup v2: the parent's limit is the tighter one (4e9 - 1e9) */
  put("proc/self/cgroup", "0::/a/b\n");
  put("sys/fs/cgroup/a/b/memory.max", "max\n");
  put("sys/fs/cgroup/a/b/memory.current", "900000000\n");
  put("sys/fs/cgroup/a/memory.max", "4000000000\n");
  put("sys/fs/cgroup/a/memory.current", "1000000000\n");
  r = drt_mem_room_at(root, UINT64_MAX, UINT64_MAX);
  CHECK(r.bytes == 3000000000u);
  CHECK_STR(r.limit, "cgroup memory.max");
  put("sys/fs/cgroup/a/b/memory.max", "2500000000\n"); /* now b's: 2.5e9 - 9e8 */
  r = drt_mem_room_at(root, UINT64_MAX, UINT64_MAX);
  CHECK(r.bytes == 1600000000u);
  /* over its limit: no room at all */
  put("sys/fs/cgroup/a/b/memory.current", "2600000000\n");
  r = drt_mem_room_at(root, UINT64_MAX, UINT64_MAX);
  CHECK(r.bytes == 0);
  /* the unified hierarchy beside v1 (hybrid), and v1's memory controller */
  put("proc/self/cgroup", "4:memory,foo:/x\n0::/u\n");
  put("sys/fs/cgroup/unified/u/memory.max", "7000000000\n");
  put("sys/fs/cgroup/unified/u/memory.current", "0\n");
  put("sys/fs/cgroup/memory/x/memory.limit_in_bytes", "9223372036854771712\n"); /* none */
  put("sys/fs/cgroup/memory/x/memory.usage_in_bytes", "100\n");
  r = drt_mem_room_at(root, UINT64_MAX, UINT64_MAX);
  CHECK(r.bytes == 7000000000u);
  CHECK_STR(r.limit, "cgroup memory.max");
  put("sys/fs/cgroup/memory/memory.limit_in_bytes", "3000000000\n"); /* v1's top */
  put("sys/fs/cgroup/memory/memory.usage_in_bytes", "1000000000\n");
  r = drt_mem_room_at(root, UINT64_MAX, UINT64_MAX);
  CHECK(r.bytes == 2000000000u);
  CHECK_STR(r.limit, "cgroup memory.limit_in_bytes");
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  CHECK(system(cmd) == 0);
  /* the real limits: a refusal names one, a small array is never refused */
  DrtErrors e;
  drt_errors_init(&e);
  CHECK(drt_mem_refuse(&e, "test", 1, "things", (uint64_t)1 << 62));
  CHECK_MSG(has(&e, "test: 1 things of 4611686018427387904 bytes need 4.61 EB; this process "
                    "may use"), "%s", drt_errors_text(&e));
  drt_errors_free(&e);
  CHECK(!drt_mem_refuse(&e, "test", 1, "things", 1 << 20));
  CHECK(!drt_any_errors(&e));
}

/* ---- a world of 2^32 strands, refused before anything is allocated -------------- */

static DrtExit upd(DrtCtx *ctx, uint32_t id, void *self) {
  (void)ctx, (void)id, (void)self;
  return DRT_EXIT_STABILIZE;
}

static void test_world(void) {
  DrtProgram prog = {.state_size = 4, .state_align = 4, .update = upd};
  DrtWorld *w = drt_world_new(&prog, NULL);
  CHECK(w && !drt_world_init(w) && !drt_world_create_begin(w));
  if (!w) return;
  size_t sizes[] = {65536, 65536};
  /* a library's world: the error comes back (an executable exits) */
  CHECK(drt_world_set_grid(w, 2, sizes));
  const char *t = drt_errors_text(drt_world_errors(w));
  CHECK_MSG(strstr(t, "4.29e9 strands of 14 bytes need 60.1 GB; this process may use") ||
                strstr(t, "4.29e9 strands: more than the 4294967294 strands"), "%s", t);
  CHECK(drt_world_capacity(w) == 0); /* nothing allocated */
  /* the cells still to come are refused at once, with no more messages */
  unsigned n = drt_world_errors(w)->nerrors;
  for (int i = 0; i < 1000; i++) CHECK(drt_world_create_strand(w) == NULL);
  CHECK(drt_world_errors(w)->nerrors == n);
  CHECK(drt_world_create_end(w));
  drt_world_free(w);
}

int main(void) {
  test_arithmetic();
  test_text();
  test_plan();
  test_room();
  test_world();
  return unit_finish("rt_mem");
}
