/* test_rt_spatial.c -- the spatial index of sphere() (doc/language.md §9.2).
 *
 * Oracles: a brute-force scan written here from the spec's definition
 * (alive strands in ascending index order, except the caller, with
 * r > 0 and Σ(q−c)² < r² in the real type), and hand-derived cases
 * (Pythagorean triples at exactly distance r are excluded). Every query
 * must return exactly the oracle's list: same indices, ascending order.
 */
#include <stdint.h>
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "diderot_rt.h"
#include "unit.h"

/* ---- deterministic random numbers (splitmix64) ---------------------- */

typedef struct Rng {
  uint64_t s;
} Rng;

static uint64_t rng_next(Rng *r) {
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static double rng_unit(Rng *r) {   /* [0, 1) */
  return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static double rng_gauss(Rng *r) {  /* Box-Muller */
  double u = rng_unit(r), v = rng_unit(r);
  return sqrt(-2 * log(1 - u)) * cos(6.283185307179586 * v);
}

/* ---- point sets: packed n×dim arrays ------------------------------- */

typedef struct Set {
  unsigned dim;
  int type;                /* nrrdTypeFloat or nrrdTypeDouble */
  size_t n;
  float *pf;               /* n·dim coordinates (float sets) */
  double *pd;              /* n·dim coordinates (double sets) */
  unsigned char *alive;    /* NULL: all alive */
} Set;

static void set_alloc(Set *s, unsigned dim, int type, size_t n) {
  memset(s, 0, sizeof *s);
  s->dim = dim;
  s->type = type;
  s->n = n;
  if (type == nrrdTypeFloat)
    s->pf = calloc(n * dim + 1, sizeof(float));
  else
    s->pd = calloc(n * dim + 1, sizeof(double));
}

static void set_free(Set *s) {
  free(s->pf);
  free(s->pd);
  free(s->alive);
}

static void set_coord(Set *s, size_t i, unsigned k, double v) {
  if (s->pf)
    s->pf[i * s->dim + k] = (float)v;
  else
    s->pd[i * s->dim + k] = v;
}

enum { DIST_UNIFORM, DIST_CLUSTER, DIST_LATTICE };

/* 'uniform': [0,1)^d; 'cluster': 20 Gaussian blobs (σ = 0.01); 'lattice':
 * multiples of 1/16 in [0,4)^d, full of duplicates and exact ties. */
static void set_fill(Set *s, int dist, uint64_t seed) {
  Rng r = {seed};
  double centre[20][3];
  for (int c = 0; c < 20; c++)
    for (int k = 0; k < 3; k++) centre[c][k] = rng_unit(&r);
  for (size_t i = 0; i < s->n; i++) {
    int c = (int)(rng_next(&r) % 20);
    for (unsigned k = 0; k < s->dim; k++) {
      double v;
      if (dist == DIST_UNIFORM)
        v = rng_unit(&r);
      else if (dist == DIST_CLUSTER)
        v = centre[c][k] + 0.01 * rng_gauss(&r);
      else
        v = (double)(rng_next(&r) % 64) / 16;
      set_coord(s, i, k, v);
    }
  }
}

static DrtSpatialPoints set_points(const Set *s) {
  size_t esize = s->pf ? sizeof(float) : sizeof(double);
  DrtSpatialPoints p = {
      .dim = s->dim, .type = s->type, .count = s->n,
      .base = s->pf ? (const void *)s->pf : (const void *)s->pd,
      .block_stride = s->dim * esize, .comp_stride = esize,
      .alive = s->alive};
  return p;
}

/* ---- the oracle ------------------------------------------------------ */

static void oracle_f(const Set *s, const float *c, float r, uint32_t ex,
                     DrtStrandList *o) {
  o->len = 0;
  if (!(r > 0)) return;
  for (size_t i = 0; i < s->n; i++) {
    if (i == ex || (s->alive && !s->alive[i])) continue;
    float d2 = 0;
    for (unsigned k = 0; k < s->dim; k++) {
      float t = s->pf[i * s->dim + k] - c[k];
      d2 = k == 0 ? t * t : d2 + t * t;
    }
    if (d2 < r * r) {
      if (o->len == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 64;
        o->ids = realloc(o->ids, o->cap * sizeof *o->ids);
      }
      o->ids[o->len++] = (uint32_t)i;
    }
  }
}

static void oracle_d(const Set *s, const double *c, double r, uint32_t ex,
                     DrtStrandList *o) {
  o->len = 0;
  if (!(r > 0)) return;
  for (size_t i = 0; i < s->n; i++) {
    if (i == ex || (s->alive && !s->alive[i])) continue;
    double d2 = 0;
    for (unsigned k = 0; k < s->dim; k++) {
      double t = s->pd[i * s->dim + k] - c[k];
      d2 = k == 0 ? t * t : d2 + t * t;
    }
    if (d2 < r * r) {
      if (o->len == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 64;
        o->ids = realloc(o->ids, o->cap * sizeof *o->ids);
      }
      o->ids[o->len++] = (uint32_t)i;
    }
  }
}

static bool same_list(const DrtStrandList *a, const DrtStrandList *b) {
  if (a->len != b->len) return false;
  return a->len == 0 || memcmp(a->ids, b->ids, a->len * sizeof *a->ids) == 0;
}

/* One query on sp and on the oracle; the centre is given as doubles and
 * rounded to the set's type. Returns whether they agree. */
static bool agree(const DrtSpatial *sp, const Set *s, const double *c,
                  double r, uint32_t ex, DrtStrandList *got,
                  DrtStrandList *want, const char *what) {
  bool err;
  got->len = 0;
  if (s->type == nrrdTypeFloat) {
    float cf[3] = {0, 0, 0};
    for (unsigned k = 0; k < s->dim; k++) cf[k] = (float)c[k];
    err = drt_spatial_sphere_f(sp, cf, (float)r, ex, got);
    oracle_f(s, cf, (float)r, ex, want);
  } else {
    err = drt_spatial_sphere_d(sp, c, r, ex, got);
    oracle_d(s, c, r, ex, want);
  }
  bool ok = !err && same_list(got, want);
  /* the positions the index gives back for its results are the strands' */
  if (ok && got->len) {
    size_t n = got->len, bad = 0;
    if (s->type == nrrdTypeFloat) {
      float *p = malloc(n * s->dim * sizeof *p);
      drt_spatial_positions_f(sp, got->ids, n, p);
      for (size_t i = 0; i < n * s->dim; i++)
        bad += memcmp(&p[i], &s->pf[got->ids[i / s->dim] * s->dim + i % s->dim], sizeof *p) != 0;
      free(p);
    } else {
      double *p = malloc(n * s->dim * sizeof *p);
      drt_spatial_positions_d(sp, got->ids, n, p);
      for (size_t i = 0; i < n * s->dim; i++)
        bad += memcmp(&p[i], &s->pd[got->ids[i / s->dim] * s->dim + i % s->dim], sizeof *p) != 0;
      free(p);
    }
    CHECK_MSG(bad == 0, "%s: %zu coordinates of the results differ from the strands'", what, bad);
  }
  CHECK_MSG(ok, "%s: dim %u %s, centre (%g,%g,%g), r %g, exclude %lu: got "
            "%zu ids, want %zu", what, s->dim,
            s->type == nrrdTypeFloat ? "float" : "double", c[0],
            s->dim > 1 ? c[1] : 0.0, s->dim > 2 ? c[2] : 0.0, r,
            (unsigned long)ex, got->len, want->len);
  return ok;
}

static double coord(const Set *s, size_t i, unsigned k) {
  return s->pf ? s->pf[i * s->dim + k] : s->pd[i * s->dim + k];
}

/* Queries centred on strands (excluding them) and on random points, for
 * every radius in radii. */
static void run_queries(const DrtSpatial *sp, const Set *s,
                        const double *radii, size_t nradii, uint64_t seed,
                        const char *what) {
  DrtStrandList got = {0}, want = {0};
  Rng rng = {seed};
  for (int q = 0; q < 25; q++) {
    double c[3] = {0, 0, 0};
    uint32_t ex = DRT_SPATIAL_NO_EXCLUDE;
    if (q < 18) {
      ex = (uint32_t)(rng_next(&rng) % s->n);
      for (unsigned k = 0; k < s->dim; k++) c[k] = coord(s, ex, k);
    } else {
      for (unsigned k = 0; k < s->dim; k++)
        c[k] = -0.5 + 2 * rng_unit(&rng);   /* some outside the points */
    }
    for (size_t ri = 0; ri < nradii; ri++)
      agree(sp, s, c, radii[ri], ex, &got, &want, what);
  }
  drt_strand_list_free(&got);
  drt_strand_list_free(&want);
}

/* ---- the randomised comparison -------------------------------------- */

/* The radius with about 6 neighbours among 10,000 points in [0,1)^d. */
static const double r_typ[4] = {0, 3e-4, 0.0138, 0.0523};

static void test_random(void) {
  static const char *dname[] = {"uniform", "cluster", "lattice"};
  for (unsigned dim = 1; dim <= 3; dim++)
    for (int ti = 0; ti < 2; ti++)
      for (int dist = 0; dist < 3; dist++) {
        int type = ti ? nrrdTypeDouble : nrrdTypeFloat;
        Set s;
        set_alloc(&s, dim, type, 10000);
        set_fill(&s, dist, 1000 * dim + 10 * (unsigned)ti + (unsigned)dist);
        double rt = r_typ[dim];
        double radii[] = {0, -1, NAN, 1e-7, rt / 2, rt, 3 * rt, 0.25,
                          1.0 / 16, 5.0 / 16, 1e3, INFINITY};
        DrtSpatialOptions opts[4] = {{0, false}, {rt, false},
                                     {rt / 100, false}, {0, true}};
        DrtSpatial sp = {0};
        DrtErrors e = {0};
        for (int oi = 0; oi < 4; oi++) {
          DrtSpatialPoints p = set_points(&s);
          char what[96];
          snprintf(what, sizeof what, "%s, option set %d", dname[dist], oi);
          CHECK(!drt_spatial_build(&e, &sp, &p, &opts[oi]));
          CHECK(sp.npoints == 10000);
          if (oi == 3) CHECK(sp.mode == DRT_SPATIAL_BRUTE);
          if (oi == 1 && dist == DIST_UNIFORM)
            CHECK(sp.mode == DRT_SPATIAL_DENSE);
          if (oi == 2 && dist == DIST_UNIFORM)
            CHECK(sp.mode == DRT_SPATIAL_HASH);
          run_queries(&sp, &s, radii, sizeof radii / sizeof radii[0],
                      77 + (uint64_t)oi, what);
        }
        CHECK(!drt_any_errors(&e));
        drt_spatial_free(&sp);
        drt_errors_free(&e);
        set_free(&s);
      }
}

/* ---- hand-derived cases -------------------------------------------- */

static void list_is(const DrtStrandList *l, const uint32_t *want, size_t n,
                    int line) {
  bool ok = l->len == n;
  for (size_t i = 0; ok && i < n; i++) ok = l->ids[i] == want[i];
  CHECK_MSG(ok, "line %d: got %zu ids (first %ld), want %zu", line, l->len,
            l->len ? (long)l->ids[0] : -1L, n);
}
#define LIST_IS(l, ...)                                                     \
  do {                                                                      \
    static const uint32_t w_[] = {__VA_ARGS__};                             \
    list_is(l, w_ + 1, sizeof w_ / sizeof w_[0] - 1, __LINE__);             \
  } while (0)

/* Pythagorean triples: distance exactly 5 (or 3 in 3-D) is outside. */
static void test_boundary(void) {
  /* 0:(0,0) 1:(3,4) 2:(5,0) 3:(-4,-3) 4:(1,1) 5:(0,-5) 6:(4.5,0)
   * plus 40 far points so that a grid is built */
  enum { N = 46 };
  for (int ti = 0; ti < 2; ti++) {
    Set s;
    set_alloc(&s, 2, ti ? nrrdTypeDouble : nrrdTypeFloat, N);
    static const double xy[7][2] = {{0, 0}, {3, 4},  {5, 0},  {-4, -3},
                                    {1, 1}, {0, -5}, {4.5, 0}};
    for (size_t i = 0; i < N; i++)
      for (unsigned k = 0; k < 2; k++)
        set_coord(&s, i, k, i < 7 ? xy[i][k] : 100 + (double)i + k);
    for (int oi = 0; oi < 3; oi++) {
      DrtSpatialOptions opt = {oi == 0 ? 5.0 : oi == 1 ? 0.01 : 0, oi == 2};
      DrtSpatialPoints p = set_points(&s);
      DrtSpatial sp = {0};
      DrtErrors e = {0};
      DrtStrandList l = {0};
      CHECK(!drt_spatial_build(&e, &sp, &p, &opt));
      double c0[2] = {0, 0};
      float c0f[2] = {0, 0};
#define Q(r, ex)                                                            \
  (l.len = 0, ti ? drt_spatial_sphere_d(&sp, c0, r, ex, &l)                 \
                 : drt_spatial_sphere_f(&sp, c0f, (float)(r), ex, &l))
      CHECK(!Q(5.0, 0));
      LIST_IS(&l, 0, 4, 6);               /* |(1,1)|, 4.5 < 5; the rest = 5 */
      CHECK(!Q(5.0, DRT_SPATIAL_NO_EXCLUDE));
      LIST_IS(&l, 0, 0, 4, 6);
      CHECK(!Q(5.25, 0));
      LIST_IS(&l, 0, 1, 2, 3, 4, 5, 6);
      CHECK(!Q(4.5, 0));
      LIST_IS(&l, 0, 4);                  /* 4.5 exactly: out */
      CHECK(!Q(0.0, 0));
      LIST_IS(&l, 0);
      CHECK(!Q(-10.0, 0));
      LIST_IS(&l, 0);
      CHECK(!Q(1e-10, DRT_SPATIAL_NO_EXCLUDE));
      LIST_IS(&l, 0, 0);                  /* the point at the centre */
#undef Q
      drt_strand_list_free(&l);
      drt_spatial_free(&sp);
      drt_errors_free(&e);
    }
    set_free(&s);
  }

  /* 3-D: (1,2,2) and (2,1,2) at distance 3 from the origin */
  Set s;
  set_alloc(&s, 3, nrrdTypeDouble, 40);
  for (size_t i = 0; i < 40; i++)
    for (unsigned k = 0; k < 3; k++) set_coord(&s, i, k, 10 + (double)(i % 7));
  set_coord(&s, 0, 0, 1), set_coord(&s, 0, 1, 2), set_coord(&s, 0, 2, 2);
  set_coord(&s, 1, 0, 2), set_coord(&s, 1, 1, 1), set_coord(&s, 1, 2, 2);
  set_coord(&s, 2, 0, 2), set_coord(&s, 2, 1, 2), set_coord(&s, 2, 2, 0);
  DrtSpatialPoints p = set_points(&s);
  DrtSpatialOptions opt = {1, false};
  DrtSpatial sp = {0};
  DrtErrors e = {0};
  DrtStrandList l = {0};
  CHECK(!drt_spatial_build(&e, &sp, &p, &opt));
  CHECK(sp.mode != DRT_SPATIAL_BRUTE);
  double c[3] = {0, 0, 0};
  CHECK(!drt_spatial_sphere_d(&sp, c, 3, DRT_SPATIAL_NO_EXCLUDE, &l));
  LIST_IS(&l, 0, 2);                      /* |(2,2,0)|² = 8 < 9 */
  l.len = 0;
  CHECK(!drt_spatial_sphere_d(&sp, c, 3.0000001, DRT_SPATIAL_NO_EXCLUDE, &l));
  LIST_IS(&l, 0, 0, 1, 2);
  drt_strand_list_free(&l);
  drt_spatial_free(&sp);
  drt_errors_free(&e);
  set_free(&s);
}

/* Points on cell edges. With 41 points at −20..20 the sample median is
 * 0, so with a radius hint of 1 the cells are [k, k+1): a point 1 just
 * inside the sphere around 0.25 of radius 0.75 + ε lies in the next cell,
 * which the query must still visit (no shrinking of the box). */
static void test_cell_edges(void) {
  for (unsigned dim = 1; dim <= 2; dim++) {
    Set s;
    set_alloc(&s, dim, nrrdTypeDouble, 41);
    for (size_t i = 0; i < 41; i++)
      for (unsigned k = 0; k < dim; k++)
        set_coord(&s, i, k, k == 0 ? (double)i - 20 : 0);
    DrtSpatialPoints p = set_points(&s);
    DrtSpatialOptions opt = {1, false};
    DrtSpatial sp = {0};
    DrtErrors e = {0};
    DrtStrandList l = {0};
    CHECK(!drt_spatial_build(&e, &sp, &p, &opt));
    CHECK(sp.mode == DRT_SPATIAL_DENSE && sp.cell == 1);
    double c[2] = {0.25, 0};
    double eps[2] = {0x1p-50, 0x1p-53};  /* c + r rounds to 1 + 2^-50, 1 */
    for (int i = 0; i < 2; i++) {
      l.len = 0;
      CHECK(!drt_spatial_sphere_d(&sp, c, 0.75 + eps[i],
                                  DRT_SPATIAL_NO_EXCLUDE, &l));
      LIST_IS(&l, 0, 20, 21);           /* x = 0 and x = 1 */
      l.len = 0;
      double cm[2] = {-0.25, 0};
      CHECK(!drt_spatial_sphere_d(&sp, cm, 0.75 + eps[i],
                                  DRT_SPATIAL_NO_EXCLUDE, &l));
      LIST_IS(&l, 0, 19, 20);           /* x = −1 and x = 0 */
    }
    l.len = 0;
    CHECK(!drt_spatial_sphere_d(&sp, c, 0.75, DRT_SPATIAL_NO_EXCLUDE, &l));
    LIST_IS(&l, 0, 20);                 /* x = 1 exactly at r: out */
    drt_strand_list_free(&l);
    drt_spatial_free(&sp);
    drt_errors_free(&e);
    set_free(&s);
  }
}

/* All points equal; duplicates; NaN and infinite positions. */
static void test_degenerate(void) {
  for (int ti = 0; ti < 2; ti++) {
    Set s;
    set_alloc(&s, 3, ti ? nrrdTypeDouble : nrrdTypeFloat, 1000);
    for (size_t i = 0; i < 1000; i++)
      for (unsigned k = 0; k < 3; k++) set_coord(&s, i, k, 0.5);
    DrtSpatialPoints p = set_points(&s);
    DrtSpatial sp = {0};
    DrtErrors e = {0};
    DrtStrandList l = {0};
    CHECK(!drt_spatial_build(&e, &sp, &p, NULL));
    CHECK(sp.npoints == 1000);
    double c[3] = {0.5, 0.5, 0.5};
    float cf[3] = {0.5f, 0.5f, 0.5f};
    bool err = ti ? drt_spatial_sphere_d(&sp, c, 1e-9, 17, &l)
                  : drt_spatial_sphere_f(&sp, cf, 1e-9f, 17, &l);
    CHECK(!err && l.len == 999);
    bool ok = true;
    for (size_t i = 0; i < l.len; i++) ok = ok && l.ids[i] == i + (i >= 17);
    CHECK(ok);
    l.len = 0;
    c[0] = cf[0] = 0.6f;
    err = ti ? drt_spatial_sphere_d(&sp, c, 0.05, 17, &l)
             : drt_spatial_sphere_f(&sp, cf, 0.05f, 17, &l);
    CHECK(!err && l.len == 0);
    drt_strand_list_free(&l);

    /* now every 3rd point NaN in some coordinate, every 5th infinite, the
     * rest duplicated in pairs */
    for (size_t i = 0; i < 1000; i++)
      for (unsigned k = 0; k < 3; k++)
        set_coord(&s, i, k, (double)(i / 2 % 17) / 8 + k);
    size_t nbad = 0;
    for (size_t i = 0; i < 1000; i++) {
      if (i % 3 == 0) set_coord(&s, i, (unsigned)(i % 2), NAN);
      else if (i % 5 == 0) set_coord(&s, i, 2, i % 2 ? INFINITY : -INFINITY);
      nbad += i % 3 == 0 || i % 5 == 0;
    }
    p = set_points(&s);
    CHECK(!drt_spatial_build(&e, &sp, &p, NULL));
    CHECK(sp.npoints == 1000 - nbad && sp.nonfinite == nbad);
    double radii[] = {0.1, 0.125, 0.3, 1, 1e300, INFINITY};
    run_queries(&sp, &s, radii, 6, 5, "NaN/inf");
    /* a NaN or infinite centre finds nothing */
    DrtStrandList want = {0};
    double bad[2][3] = {{NAN, 0, 0}, {0, INFINITY, 1}};
    for (int b = 0; b < 2; b++) {
      agree(&sp, &s, bad[b], INFINITY, DRT_SPATIAL_NO_EXCLUDE, &l, &want,
            "bad centre");
      CHECK(l.len == 0);
    }
    drt_strand_list_free(&l);
    drt_strand_list_free(&want);
    drt_spatial_free(&sp);
    drt_errors_free(&e);
    set_free(&s);
  }
}

/* A cluster plus far outliers: the grid must stay small (hash mode or
 * clamped cells) and the answers exact. */
static void test_huge_range(void) {
  for (int ti = 0; ti < 2; ti++) {
    Set s;
    set_alloc(&s, 3, ti ? nrrdTypeDouble : nrrdTypeFloat, 5000);
    set_fill(&s, DIST_UNIFORM, 99 + (unsigned)ti);
    double big = ti ? 1e300 : 3e38;
    for (size_t i = 0; i < 5000; i += 250) {
      set_coord(&s, i, i % 3, (i / 250) % 2 ? big : -big);
      set_coord(&s, i + 1, 0, (double)i * 1e6);
    }
    for (int oi = 0; oi < 2; oi++) {
      DrtSpatialOptions opt = {oi ? r_typ[3] : 0, false};
      DrtSpatialPoints p = set_points(&s);
      DrtSpatial sp = {0};
      DrtErrors e = {0};
      CHECK(!drt_spatial_build(&e, &sp, &p, &opt));
      CHECK(sp.npoints == 5000);
      /* memory stays proportional to n */
      CHECK(drt_spatial_bytes(&sp) < 5000 * 100);
      double radii[] = {r_typ[3], 0.2, 2e6, 1e30, big, INFINITY};
      run_queries(&sp, &s, radii, 6, 11, "huge range");
      drt_spatial_free(&sp);
      drt_errors_free(&e);
    }
    set_free(&s);
  }
}

/* Results whose strand indices are spread over ranges of every size,
 * so that each way of putting them in ascending order runs (insertion
 * sort, the bitmap of the index range, the radix sort): N strands on a
 * line, strand i at position π(i)/N for a permutation π (i·7919 mod N),
 * so a window of positions holds indices
 * from all over 0..N-1; and a block of strands 0..999 (a narrow index
 * range) packed around 2 with the permutation inside the block. */
static void test_sort_paths(void) {
  enum { N = 300000 };
  Set s;
  set_alloc(&s, 1, nrrdTypeDouble, N);
  for (size_t i = 0; i < N; i++)
    set_coord(&s, i, 0, i < 1000 ? 2 + (double)(i * 7 % 1000) / 1e4
                                 : (double)(i * 7919 % N) / N);
  DrtSpatialOptions opt = {0, false};
  DrtSpatialPoints p = set_points(&s);
  DrtSpatial sp = {0};
  DrtErrors e = {0};
  CHECK(!drt_spatial_build(&e, &sp, &p, &opt));
  DrtStrandList got = {0}, want = {0};
  const double radii[] = {3e-5, 1e-4, 3e-4, 1e-3, 1e-2, 0.1, 0.6};
  for (size_t ri = 0; ri < sizeof radii / sizeof *radii; ri++) {
    double c[3] = {0.5, 0, 0};
    agree(&sp, &s, c, radii[ri], DRT_SPATIAL_NO_EXCLUDE, &got, &want, "spread indices");
    c[0] = 2.05;
    agree(&sp, &s, c, radii[ri], 17, &got, &want, "packed indices");
  }
  drt_strand_list_free(&got);
  drt_strand_list_free(&want);
  drt_spatial_free(&sp);
  drt_errors_free(&e);
  set_free(&s);
}

/* Small hash tables (256 buckets), so that rows of cells often wrap
 * around the end of the bucket array. The occupied box must have more
 * than 8n + 4096 cells of 0.5 (else the grid is dense). */
static void test_hash_small(void) {
  static const double extent[4] = {0, 4000, 50, 15};
  for (unsigned dim = 1; dim <= 3; dim++) {
    Set s;
    set_alloc(&s, dim, nrrdTypeDouble, 200);
    Rng rng = {500 + dim};
    for (size_t i = 0; i < s.n; i++)
      for (unsigned k = 0; k < dim; k++)
        set_coord(&s, i, k, extent[dim] * rng_unit(&rng));
    DrtSpatialPoints p = set_points(&s);
    DrtSpatialOptions opt = {0.5, false};
    DrtSpatial sp = {0};
    DrtErrors e = {0};
    DrtStrandList got = {0}, want = {0};
    CHECK(!drt_spatial_build(&e, &sp, &p, &opt));
    CHECK(sp.mode == DRT_SPATIAL_HASH && sp.ncells == 256);
    static const double radii[] = {0.3, 1, 3, 20};
    for (int q = 0; q < 400; q++) {
      double c[3] = {0, 0, 0};
      for (unsigned k = 0; k < dim; k++) c[k] = extent[dim] * rng_unit(&rng);
      for (int ri = 0; ri < 4; ri++)
        agree(&sp, &s, c, radii[ri], DRT_SPATIAL_NO_EXCLUDE, &got, &want,
              "small hash");
    }
    drt_strand_list_free(&got);
    drt_strand_list_free(&want);
    drt_spatial_free(&sp);
    drt_errors_free(&e);
    set_free(&s);
  }
}

/* The same points in AoS, SoA and AoSoA layouts, with an alive mask or a
 * list of alive strands, give the same answers. */
typedef struct Strand {
  int tag;
  float pos[3];
  double other;
  unsigned char status;
} Strand;

static void test_layouts(void) {
  enum { N = 1000, W = 8, F = 5 };
  Set s;
  set_alloc(&s, 3, nrrdTypeFloat, N);
  set_fill(&s, DIST_CLUSTER, 4242);
  s.alive = malloc(N);
  Strand *aos = calloc(N, sizeof *aos);
  float *soa = calloc(3 * N, sizeof *soa);
  float *aosoa = calloc((N / W) * W * F, sizeof *aosoa);
  uint32_t *ids = malloc(N * sizeof *ids);
  size_t nids = 0;
  for (size_t i = 0; i < N; i++) {
    s.alive[i] = i % 4 != 1;
    aos[i].status = s.alive[i] ? 7 : 0;
    if (s.alive[i]) ids[nids++] = (uint32_t)i;
    for (unsigned k = 0; k < 3; k++) {
      float v = s.pf[i * 3 + k];
      aos[i].pos[k] = v;
      soa[k * N + i] = v;
      /* words: tag, pos0..2, other; lane-major within a block */
      aosoa[(i / W) * W * F + (1 + k) * W + i % W] = v;
    }
  }
  DrtSpatialPoints lay[5];
  lay[0] = set_points(&s);
  lay[1] = (DrtSpatialPoints){.dim = 3, .type = nrrdTypeFloat, .count = N,
                              .base = (char *)aos + offsetof(Strand, pos),
                              .block_stride = sizeof(Strand),
                              .comp_stride = sizeof(float),
                              .alive = &aos[0].status,
                              .alive_stride = sizeof(Strand)};
  lay[2] = (DrtSpatialPoints){.dim = 3, .type = nrrdTypeFloat, .count = N,
                              .base = soa, .block_stride = sizeof(float),
                              .comp_stride = N * sizeof(float),
                              .ids = ids, .nids = nids};
  lay[3] = (DrtSpatialPoints){.dim = 3, .type = nrrdTypeFloat, .count = N,
                              .base = aosoa + W, .block = W,
                              .block_stride = W * F * sizeof(float),
                              .lane_stride = sizeof(float),
                              .comp_stride = W * sizeof(float),
                              .alive = s.alive};
  lay[4] = lay[3];   /* both filters at once */
  lay[4].ids = ids;
  lay[4].nids = nids;
  double radii[] = {0.005, 0.02, 0.1, 2};
  for (int li = 0; li < 5; li++) {
    DrtSpatial sp = {0};
    DrtErrors e = {0};
    DrtSpatialOptions opt = {0.02, false};
    CHECK(!drt_spatial_build(&e, &sp, &lay[li], &opt));
    CHECK(sp.npoints == nids);
    char what[32];
    snprintf(what, sizeof what, "layout %d", li);
    run_queries(&sp, &s, radii, 4, 3, what);
    drt_spatial_free(&sp);
    drt_errors_free(&e);
  }
  free(aos);
  free(soa);
  free(aosoa);
  free(ids);
  set_free(&s);
}

/* Bad arguments are reported and leave an empty, usable index. */
static void test_errors(void) {
  float pts[6] = {0, 0, 1, 1, 2, 2};
  uint32_t bad_ids[3] = {0, 2, 1};
  uint32_t far_ids[1] = {5};
  DrtSpatialPoints good = {.dim = 2, .type = nrrdTypeFloat, .count = 3,
                           .base = pts, .block_stride = 8, .comp_stride = 4};
  DrtSpatialPoints bad[6];
  for (int i = 0; i < 6; i++) bad[i] = good;
  bad[0].dim = 0;
  bad[1].dim = 4;
  bad[2].type = nrrdTypeInt;
  bad[3].ids = bad_ids, bad[3].nids = 3;
  bad[4].ids = far_ids, bad[4].nids = 1;
  bad[5].base = NULL;
  DrtSpatial sp = {0};
  DrtStrandList l = {0};
  for (int i = 0; i < 6; i++) {
    DrtErrors e = {0};
    CHECK(!drt_spatial_build(&e, &sp, &good, NULL));
    CHECK(sp.npoints == 3);
    CHECK(drt_spatial_build(&e, &sp, &bad[i], NULL));
    CHECK(e.nerrors == 1);
    CHECK(strncmp(drt_errors_text(&e), "spatial index: ", 15) == 0);
    CHECK(sp.npoints == 0);
    float c[3] = {0, 0, 0};
    l.len = 0;
    CHECK(!drt_spatial_sphere_f(&sp, c, 100, DRT_SPATIAL_NO_EXCLUDE, &l));
    CHECK(l.len == 0);
    drt_errors_free(&e);
  }
  DrtErrors e = {0};
  CHECK(drt_spatial_build(&e, &sp, NULL, NULL));
  drt_errors_free(&e);

  /* a float index queried as double is a mismatch */
  CHECK(!drt_spatial_build(&e, &sp, &good, NULL));
  double cd[2] = {0, 0};
  CHECK(drt_spatial_sphere_d(&sp, cd, 100, DRT_SPATIAL_NO_EXCLUDE, &l));
  CHECK(l.len == 0);

  /* no strands at all */
  good.count = 0;
  CHECK(!drt_spatial_build(&e, &sp, &good, NULL));
  float c[2] = {0, 0};
  CHECK(!drt_spatial_sphere_f(&sp, c, 100, DRT_SPATIAL_NO_EXCLUDE, &l));
  CHECK(l.len == 0);
  CHECK(!drt_any_errors(&e));
  drt_errors_free(&e);
  drt_strand_list_free(&l);
  drt_spatial_free(&sp);
}

/* Results are appended; once the list is large enough nothing is
 * reallocated; rebuilding with other points forgets the old ones. */
static void test_reuse(void) {
  Set a, b;
  set_alloc(&a, 2, nrrdTypeDouble, 10000);
  set_alloc(&b, 2, nrrdTypeDouble, 500);
  set_fill(&a, DIST_UNIFORM, 1);
  set_fill(&b, DIST_CLUSTER, 2);
  DrtSpatial sp = {0};
  DrtErrors e = {0};
  DrtSpatialOptions opt = {r_typ[2], false};
  DrtSpatialPoints p = set_points(&a);
  CHECK(!drt_spatial_build(&e, &sp, &p, &opt));
  DrtStrandList l = {0};
  uint32_t sentinel = 123456;
  l.ids = malloc(64 * sizeof *l.ids);
  l.cap = 64;
  l.ids[0] = sentinel;
  l.len = 1;
  double c[2] = {0.5, 0.5};
  CHECK(!drt_spatial_sphere_d(&sp, c, 0.05, DRT_SPATIAL_NO_EXCLUDE, &l));
  CHECK(l.ids[0] == sentinel && l.len > 20);
  bool asc = true;
  for (size_t i = 2; i < l.len; i++) asc = asc && l.ids[i - 1] < l.ids[i];
  CHECK(asc);
  uint32_t *buf = NULL;
  size_t cap = 0;
  for (int pass = 0; pass < 2; pass++) {   /* the second is steady */
    for (size_t i = 0; i < a.n; i += 7) {
      l.len = 0;
      CHECK(!drt_spatial_sphere_d(&sp, a.pd + 2 * i, 0.05, (uint32_t)i, &l));
    }
    if (pass == 1) CHECK(l.ids == buf && l.cap == cap);
    buf = l.ids;
    cap = l.cap;
  }

  /* a list that cannot grow (its doubled size would overflow): the query
   * fails and leaves the list as it was */
  uint32_t dummy[1] = {7};
  DrtStrandList full = {dummy, SIZE_MAX / 4 + 1, SIZE_MAX / 4 + 1};
  CHECK(drt_spatial_sphere_d(&sp, c, 0.05, DRT_SPATIAL_NO_EXCLUDE, &full));
  CHECK(full.ids == dummy && full.len == SIZE_MAX / 4 + 1 && dummy[0] == 7);
  CHECK(!drt_spatial_sphere_d(&sp, c, 1e-9, DRT_SPATIAL_NO_EXCLUDE, &full));

  double radii[] = {0.01, 0.05, 0.3};
  for (int round = 0; round < 2; round++) {
    p = set_points(&b);
    CHECK(!drt_spatial_build(&e, &sp, &p, &opt));
    run_queries(&sp, &b, radii, 3, 8, "rebuilt small");
    p = set_points(&a);
    CHECK(!drt_spatial_build(&e, &sp, &p, NULL));
    run_queries(&sp, &a, radii, 3, 9, "rebuilt large");
  }
  CHECK(!drt_any_errors(&e));
  drt_strand_list_free(&l);
  drt_spatial_free(&sp);
  drt_errors_free(&e);
  set_free(&a);
  set_free(&b);
}

/* Concurrent queries from several threads agree with sequential ones. */
static void test_openmp(void) {
  enum { N = 10000 };
  Set s;
  set_alloc(&s, 3, nrrdTypeFloat, N);
  set_fill(&s, DIST_CLUSTER, 31337);
  DrtSpatial sp = {0};
  DrtErrors e = {0};
  DrtSpatialOptions opt = {r_typ[3], false};
  DrtSpatialPoints p = set_points(&s);
  CHECK(!drt_spatial_build(&e, &sp, &p, &opt));
  const float r = 0.02f;

  /* sequential: counts and a checksum per strand */
  uint64_t *seq = calloc(N, sizeof *seq), *par = calloc(N, sizeof *par);
  DrtStrandList l = {0};
  for (size_t i = 0; i < N; i++) {
    l.len = 0;
    drt_spatial_sphere_f(&sp, s.pf + 3 * i, r, (uint32_t)i, &l);
    uint64_t h = l.len;
    for (size_t j = 0; j < l.len; j++) h = h * 1000003u + l.ids[j];
    seq[i] = h;
  }
  drt_strand_list_free(&l);

  int nthreads = 1;
  long errors = 0;
#pragma omp parallel num_threads(4) reduction(+ : errors)
  {
    DrtStrandList tl = {0};
#ifdef _OPENMP
#pragma omp single
    nthreads = omp_get_num_threads();
#endif
#pragma omp for schedule(dynamic, 64)
    for (long i = 0; i < N; i++) {
      tl.len = 0;
      errors += drt_spatial_sphere_f(&sp, s.pf + 3 * i, r, (uint32_t)i, &tl);
      uint64_t h = tl.len;
      for (size_t j = 0; j < tl.len; j++) h = h * 1000003u + tl.ids[j];
      par[i] = h;
    }
    drt_strand_list_free(&tl);
  }
  CHECK(errors == 0);
  CHECK(memcmp(seq, par, N * sizeof *seq) == 0);
#ifdef _OPENMP
  CHECK(nthreads > 1);
#endif
  free(seq);
  free(par);
  drt_spatial_free(&sp);
  drt_errors_free(&e);
  set_free(&s);
}

int main(void) {
  test_boundary();
  test_cell_edges();
  test_degenerate();
  test_errors();
  test_layouts();
  test_reuse();
  test_huge_range();
  test_hash_small();
  test_sort_paths();
  test_openmp();
  test_random();
  return unit_finish("rt_spatial");
}
