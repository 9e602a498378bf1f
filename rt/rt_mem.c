/* rt_mem.c -- knowing the memory before using it (issue 34).
 *
 * A world of 4e10 strands must not grow until the machine swaps or the
 * kernel kills something else: before the runtime allocates a large array
 * (the strands' state, status and ids when they are created or when `new`
 * grows the population; an output) it compares the bytes it needs with
 * the room this process has under every limit that applies to it, and
 * stops with a message in the user's terms when they do not fit:
 *
 *   4e10 strands of 24 bytes need 960 GB; this process may use 23 GB
 *   (cgroup memory.max)
 *
 * The room is the least of: the address-space and data limits (RLIMIT_AS,
 * RLIMIT_DATA) minus what the process has mapped (VmSize, VmData), the
 * cgroup's limit minus its usage (v2 memory.max - memory.current, v1
 * memory.limit_in_bytes - memory.usage_in_bytes, for the process's cgroup
 * and every ancestor), and the machine's MemAvailable. Each is read when a
 * large allocation is due (a few small files of /proc and /sys: the limits
 * change while a program runs); a limit that cannot be read is no limit.
 *
 * The arithmetic is 64-bit and saturating, in pure functions that the unit
 * tests check at 2^31 and 2^32 strands without allocating anything
 * (tests/unit/test_rt_mem.c); the readers take a root directory so that
 * the tests can give them a made-up /proc and /sys.
 */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "rt_internal.h"

/* ---- saturating arithmetic ---------------------------------------------- */

uint64_t drt_mem_mul(uint64_t a, uint64_t b) {
  return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

uint64_t drt_mem_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

uint64_t drt_mem_grid_count(unsigned naxes, const size_t *sizes) {
  uint64_t n = 1;
  for (unsigned i = 0; i < naxes; i++) n = drt_mem_mul(n, sizes[i]);
  /* an empty axis empties the grid, even after a product that saturated */
  for (unsigned i = 0; i < naxes; i++)
    if (sizes[i] == 0) return 0;
  return n;
}

static uint64_t round_up(uint64_t n, uint64_t pad) {
  if (pad < 2) return n;
  uint64_t r = n % pad;
  return r ? drt_mem_add(n, pad - r) : n;
}

uint64_t drt_mem_grow_cap(uint64_t cap, uint64_t need, uint64_t pad, bool exact, uint64_t max) {
  if (pad == 0) pad = 1;
  uint64_t top = max / pad * pad; /* the most slots a multiple of pad can give */
  if (need > top) return 0;
  if (need <= cap) return cap;
  if (exact) return round_up(need, pad);
  uint64_t c = cap ? cap : (pad > 64 ? pad : 64);
  while (c < need) c = c > top / 2 ? top : 2 * c;
  return round_up(c, pad) > top ? top : round_up(c, pad);
}

uint64_t drt_mem_world_bytes(uint64_t cap, uint64_t state_bytes, bool shared) {
  /* status and fresh (a byte each) and the id (uint32_t) of every slot;
   * programs whose strands read each other keep a start-of-step copy of
   * the states */
  uint64_t per_slot = 1 + 1 + sizeof(uint32_t);
  uint64_t states = shared ? drt_mem_mul(state_bytes, 2) : state_bytes;
  return drt_mem_add(states, drt_mem_mul(cap, per_slot));
}

/* ---- numbers in the user's terms ------------------------------------------- */

/* v in [1, 1000) with three significant digits, trailing zeros dropped. */
static void sig3(char *buf, size_t n, double v) {
  int decimals = v >= 100 ? 0 : v >= 10 ? 1 : 2;
  snprintf(buf, n, "%.*f", decimals, v);
  if (strchr(buf, '.')) {
    size_t k = strlen(buf);
    while (k > 0 && buf[k - 1] == '0') buf[--k] = '\0';
    if (k > 0 && buf[k - 1] == '.') buf[--k] = '\0';
  }
}

void drt_mem_count_text(char *buf, size_t n, uint64_t count) {
  if (count < 100000) {
    snprintf(buf, n, "%" PRIu64, count);
    return;
  }
  /* 4e10, 4.29e9: the mantissa rounded to three digits, which may carry
   * into the next power of ten */
  int e = 0;
  double m = (double)count;
  while (m >= 10) m /= 10, e++;
  char t[16];
  sig3(t, sizeof t, m);
  if (strcmp(t, "10") == 0) strcpy(t, "1"), e++;
  snprintf(buf, n, "%se%d", t, e);
}

void drt_mem_bytes_text(char *buf, size_t n, uint64_t bytes) {
  static const char *const unit[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  if (bytes < 1000) {
    snprintf(buf, n, "%" PRIu64 " bytes", bytes);
    return;
  }
  double v = (double)bytes;
  unsigned u = 0;
  while (v >= 1000 && u < 6) v /= 1000, u++;
  char t[16];
  sig3(t, sizeof t, v);
  if (strcmp(t, "1000") == 0 && u < 6) { /* 999.7 kB is 1 MB */
    u++;
    strcpy(t, "1");
  }
  snprintf(buf, n, "%s %s", t, unit[u]);
}

int drt_mem_describe(char *buf, size_t n, uint64_t count, const char *things, uint64_t bytes,
                     const DrtMemRoom *room, bool failed) {
  char c[32], b[32], per[32], r[32];
  drt_mem_count_text(c, sizeof c, count);
  drt_mem_bytes_text(b, sizeof b, bytes);
  /* what one thing costs, rounded up: count x per is at least the need;
   * a need beyond 2^64 bytes (drt_mem_mul saturates) is "more than" that,
   * and what one costs is not known from it */
  uint64_t each = count ? bytes / count + (bytes % count != 0) : bytes;
  if (bytes == UINT64_MAX) {
    per[0] = '\0';
    snprintf(b, sizeof b, "more than 18.4 EB");
  } else {
    snprintf(per, sizeof per, " of %" PRIu64 " byte%s", each, each == 1 ? "" : "s");
  }
  bool known = room && room->bytes != UINT64_MAX;
  if (known) drt_mem_bytes_text(r, sizeof r, room->bytes);
  if (!failed)
    return snprintf(buf, n, "%s %s%s need %s; this process may use %s (%s)", c, things, per, b,
                    known ? r : "no more", known ? room->limit : "no limit known");
  if (known)
    return snprintf(buf, n, "out of memory: %s %s%s need %s; the allocation failed "
                    "(this process may use %s: %s)", c, things, per, b, r, room->limit);
  return snprintf(buf, n, "out of memory: %s %s%s need %s; the allocation failed", c, things,
                  per, b);
}

/* ---- the limits --------------------------------------------------------------- */

/* The first line of ROOT/PATH starting with KEY, its number (times
 * `scale`); false when there is none. */
static bool read_key(const char *root, const char *path, const char *key, uint64_t scale,
                     uint64_t *v) {
  char name[4096];
  snprintf(name, sizeof name, "%s%s", root, path);
  FILE *f = fopen(name, "r");
  if (!f) return false;
  char line[512];
  size_t klen = strlen(key);
  bool found = false;
  while (!found && fgets(line, sizeof line, f)) {
    if (strncmp(line, key, klen) != 0) continue;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(line + klen, &end, 10);
    if (end != line + klen && errno == 0) {
      *v = drt_mem_mul(x, scale);
      found = true;
    }
  }
  fclose(f);
  return found;
}

/* The number in the file ROOT/DIR/FILE ("max": none, *v = UINT64_MAX). */
static bool read_number(const char *root, const char *dir, const char *file, uint64_t *v) {
  char name[4096];
  if ((size_t)snprintf(name, sizeof name, "%s%s/%s", root, dir, file) >= sizeof name) return false;
  FILE *f = fopen(name, "r");
  if (!f) return false;
  char line[64] = "";
  bool ok = fgets(line, sizeof line, f) != NULL;
  fclose(f);
  if (!ok) return false;
  if (strncmp(line, "max", 3) == 0) {
    *v = UINT64_MAX;
    return true;
  }
  char *end;
  errno = 0;
  unsigned long long x = strtoull(line, &end, 10);
  if (end == line || errno) return false;
  *v = x;
  return true;
}

static void take(DrtMemRoom *room, uint64_t bytes, const char *limit) {
  if (bytes < room->bytes) {
    room->bytes = bytes;
    room->limit = limit;
  }
}

/* The cgroup at PATH (under mount point MNT) and its ancestors: the room
 * under each one's limit. v1 reports "no limit" as a huge number (2^63
 * rounded down to pages). */
static void cgroup_room(const char *root, const char *mnt, const char *path, bool v2,
                        DrtMemRoom *room) {
  char p[2048], dir[4096];
  if ((size_t)snprintf(p, sizeof p, "%s", path) >= sizeof p || p[0] != '/') return;
  for (size_t k = strlen(p); k > 1 && p[k - 1] == '/'; k--) p[k - 1] = '\0';
  for (;;) {
    snprintf(dir, sizeof dir, "%s%s", mnt, strcmp(p, "/") == 0 ? "" : p);
    uint64_t max, cur = 0;
    if (read_number(root, dir, v2 ? "memory.max" : "memory.limit_in_bytes", &max) &&
        max < ((uint64_t)1 << 62)) {
      (void)read_number(root, dir, v2 ? "memory.current" : "memory.usage_in_bytes", &cur);
      take(room, max > cur ? max - cur : 0,
           v2 ? "cgroup memory.max" : "cgroup memory.limit_in_bytes");
    }
    if (strcmp(p, "/") == 0) break;
    char *s = strrchr(p, '/');
    if (s == p) p[1] = '\0';
    else *s = '\0';
  }
}

/* /proc/self/cgroup: "0::/PATH" (v2) and "N:memory[,...]:/PATH" (v1). */
static void cgroups(const char *root, DrtMemRoom *room) {
  char name[4096];
  snprintf(name, sizeof name, "%s/proc/self/cgroup", root);
  FILE *f = fopen(name, "r");
  if (!f) return;
  char line[4096];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c2 || c2[1] != '/') continue;
    *c1 = *c2 = '\0';
    const char *ctrl = c1 + 1, *path = c2 + 1;
    if (strcmp(line, "0") == 0 && !*ctrl) {
      /* the unified hierarchy: /sys/fs/cgroup, or .../unified beside v1 */
      cgroup_room(root, "/sys/fs/cgroup", path, true, room);
      cgroup_room(root, "/sys/fs/cgroup/unified", path, true, room);
    } else {
      for (const char *s = ctrl; *s;) {
        size_t k = strcspn(s, ",");
        if (k == 6 && strncmp(s, "memory", 6) == 0)
          cgroup_room(root, "/sys/fs/cgroup/memory", path, false, room);
        s += k + (s[k] == ',');
      }
    }
  }
  fclose(f);
}

DrtMemRoom drt_mem_room_at(const char *root, uint64_t rlim_as, uint64_t rlim_data) {
  DrtMemRoom room = {UINT64_MAX, "no limit"};
  uint64_t used;
  if (rlim_as != UINT64_MAX) {
    if (!read_key(root, "/proc/self/status", "VmSize:", 1024, &used)) used = 0;
    take(&room, rlim_as > used ? rlim_as - used : 0, "RLIMIT_AS, ulimit -v");
  }
  if (rlim_data != UINT64_MAX) {
    if (!read_key(root, "/proc/self/status", "VmData:", 1024, &used)) used = 0;
    take(&room, rlim_data > used ? rlim_data - used : 0, "RLIMIT_DATA, ulimit -d");
  }
  cgroups(root, &room);
  uint64_t avail;
  if (read_key(root, "/proc/meminfo", "MemAvailable:", 1024, &avail))
    take(&room, avail, "MemAvailable in /proc/meminfo");
  return room;
}

static uint64_t soft_limit(int resource) {
  struct rlimit r;
  if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return UINT64_MAX;
  return (uint64_t)r.rlim_cur;
}

DrtMemRoom drt_mem_room(void) {
  return drt_mem_room_at("", soft_limit(RLIMIT_AS), soft_limit(RLIMIT_DATA));
}

/* ---- the checks ------------------------------------------------------------------ */

static void report(DrtErrors *e, const char *what, uint64_t count, const char *things,
                   uint64_t bytes, const DrtMemRoom *room, bool failed) {
  char msg[512];
  drt_mem_describe(msg, sizeof msg, count, things, bytes, room, failed);
  if (what) drt_error(e, "%s: %s", what, msg);
  else drt_error(e, "%s", msg);
}

bool drt_mem_refuse(DrtErrors *e, const char *what, uint64_t count, const char *things,
                    uint64_t bytes) {
  /* below this the limits are not read: small arrays are cheap to try,
   * and their failure is reported by drt_mem_failed all the same */
  if (bytes < DRT_MEM_CHECK_BYTES && bytes <= SIZE_MAX) return false;
  DrtMemRoom room = drt_mem_room();
  if (bytes <= SIZE_MAX && bytes <= room.bytes) return false;
  if (e) report(e, what, count, things, bytes, &room, false);
  return true;
}

void drt_mem_failed(DrtErrors *e, const char *what, uint64_t count, const char *things,
                    uint64_t bytes) {
  DrtMemRoom room = drt_mem_room();
  report(e, what, count, things, bytes, &room, true);
}

/* The room, read the first time it is needed (room->limit NULL: not yet;
 * the tests give one). */
static uint64_t room_bytes(DrtMemRoom *room) {
  if (!room->limit) *room = drt_mem_room();
  return room->bytes;
}

/* Whether `bytes` must be refused: from DRT_MEM_CHECK_BYTES on, against
 * the room; always beyond size_t. */
static bool over(uint64_t bytes, DrtMemRoom *room) {
  if (bytes > SIZE_MAX) return true;
  return bytes >= DRT_MEM_CHECK_BYTES && bytes > room_bytes(room);
}

uint64_t drt_mem_plan(DrtErrors *e, const DrtMemPlan *p, DrtMemRoom *room) {
  uint64_t pad = p->pad ? p->pad : 1;
  if (p->need > p->max) {
    /* what it would need first, in the user's terms; then the count */
    uint64_t b = p->bytes(p->ctx, p->need);
    if (over(b, room)) {
      report(e, NULL, p->need, p->things, b, room, false);
    } else {
      char c[32];
      drt_mem_count_text(c, sizeof c, p->need);
      drt_error(e, "%s %s: more than the %" PRIu64 " %s a world can hold", c, p->things, p->max,
                p->things);
    }
    return 0;
  }
  if (p->need <= p->cap) return p->cap;
  /* growth by less than an eighth would copy everything for a few more */
  uint64_t want = p->need, eighth = p->cap + p->cap / 8;
  if (!p->exact && eighth > want) want = eighth < p->max ? eighth : p->max;
  uint64_t least = drt_mem_grow_cap(p->cap, want, pad, true, p->max);
  uint64_t b = p->bytes(p->ctx, least);
  if (over(b, room)) {
    report(e, NULL, want, p->things, b, room, false);
    return 0;
  }
  if (p->exact) return least;
  /* doubling, or as much as fits when that does not */
  uint64_t c = drt_mem_grow_cap(p->cap, want, pad, false, p->max);
  uint64_t bc = p->bytes(p->ctx, c);
  if (c > least && over(bc, room)) {
    uint64_t fit = bc > SIZE_MAX ? 0 : room_bytes(room) / (bc / c + 1) / pad * pad;
    c = fit > least ? (fit < c ? fit : c) : least;
  }
  return c;
}

/* ---- big arrays ---------------------------------------------------------------------- */

void *drt_alloc_aligned(size_t align, size_t size) {
  void *p = NULL;
  if (size == 0) size = align;
  if (posix_memalign(&p, align, size)) return NULL;
  return p;
}

/* Big arrays (strand state, status, ids, outputs): from 1 MiB on, whole
 * transparent huge pages, the size rounded up to them so that the last
 * one is one too. First touches of fresh memory are where large worlds
 * spend their set-up time: on the 2-core VM of bench/results.md, memset
 * of 8 MiB fresh 4 KiB pages takes 26-40 ms and of huge pages 1 ms
 * (section "Fresh memory"). Smaller arrays from 256 KiB on are mapped in
 * one call (MADV_POPULATE_WRITE, Linux 5.14+) instead of a fault per
 * page. Both are hints: without THP or the call, pages come as before.
 * One attempt: a failure is the caller's error to report, never retried. */
void *drt_big_alloc(size_t align, size_t size) {
  if (size < (size_t)DRT_HUGE / 2) {
    void *p = drt_alloc_aligned(align, size);
#ifdef MADV_POPULATE_WRITE
    if (p && size >= 256 * 1024) {
      uintptr_t lo = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
      uintptr_t hi = ((uintptr_t)p + size) & ~(uintptr_t)4095;
      if (hi > lo) (void)madvise((void *)lo, (size_t)(hi - lo), MADV_POPULATE_WRITE);
    }
#endif
    return p;
  }
  if (size > SIZE_MAX - (DRT_HUGE - 1)) return NULL;
  size_t whole = (size + (DRT_HUGE - 1)) & ~(size_t)(DRT_HUGE - 1);
  void *p = drt_alloc_aligned(align > DRT_HUGE ? align : DRT_HUGE, whole);
#ifdef MADV_HUGEPAGE
  if (p) (void)madvise(p, whole, MADV_HUGEPAGE);
#endif
  return p;
}

/* Fault in new memory with the world's threads: the kernel's page zeroing
 * then runs on every core instead of on the thread that touches it first. */
typedef struct {
  unsigned char *p;
  size_t bytes, piece;
} DrtTouch;

static void touch_chunk(void *data, uint32_t c) {
  const DrtTouch *t = data;
  size_t lo = (size_t)c * t->piece, hi = lo + t->piece < t->bytes ? lo + t->piece : t->bytes;
  for (size_t o = lo; o < hi; o += 4096) t->p[o] = 0;
}

void drt_mem_first_touch(DrtParallelFor pfor, uint32_t nworkers, unsigned char *p, size_t bytes) {
  if (!pfor || nworkers < 2 || bytes < 4 * (size_t)DRT_HUGE) return;
  DrtTouch t = {p, bytes, DRT_HUGE};
  pfor((uint32_t)((bytes + DRT_HUGE - 1) / DRT_HUGE), touch_chunk, &t, nworkers);
}

bool drt_grow_aligned(unsigned char **p, size_t align, size_t old_bytes, size_t new_bytes) {
  unsigned char *q = drt_big_alloc(align, new_bytes);
  if (!q) return false;
  if (*p && old_bytes) memcpy(q, *p, old_bytes);
  free(*p);
  *p = q;
  return true;
}

/* ---- for code compiled with the program (diderot_world.h) ---- */

void drt_mem_error(DrtErrors *e, const char *what, uint64_t count, const char *things,
                   uint64_t bytes) {
  drt_mem_failed(e, what, count, things, bytes);
}

void drt_mem_device_error(DrtErrors *e, const char *what, uint64_t count, const char *things,
                          uint64_t bytes, uint64_t free_bytes, uint64_t total_bytes) {
  char c[32], b[32], f[32], t[32];
  drt_mem_count_text(c, sizeof c, count);
  drt_mem_bytes_text(b, sizeof b, bytes);
  drt_mem_bytes_text(f, sizeof f, free_bytes);
  drt_mem_bytes_text(t, sizeof t, total_bytes);
  uint64_t each = count ? bytes / count + (bytes % count != 0) : bytes;
  drt_error(e, "%s%s%s %s of %" PRIu64 " byte%s need %s of the GPU's memory; it has %s free of %s",
            what ? what : "", what ? ": " : "", c, things, each, each == 1 ? "" : "s", b, f, t);
}
