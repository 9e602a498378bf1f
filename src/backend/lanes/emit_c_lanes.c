/* emit_c_lanes.c -- LowIR instructions over groups of strands (the
 * --simd=strands update of emit_c_simd.c). A value of the group holds one
 * value per strand: a real is a GCC vector `dlane` of D_SIMD_W reals, an
 * int or a bool a `dlanei` (bools as -1/0 masks), a tensor or vec<w> a
 * struct of dlane components (structure of arrays in registers), a fixed
 * sequence a struct of lanes (of a sequence of tensors: all components), a
 * sphere() result a dlsph (a list per lane; emit_c_sphere.c); images and
 * strings are the same for every strand (globals and literals) and stay
 * one pointer. Each lane computes
 * what the scalar code (emit_c_expr.c) computes for its strand, operation
 * for operation in the same order (sums left to right, Horner's nesting),
 * so the results are bitwise those of the scalar code without FMA
 * contraction. Instructions an inactive lane could fault on (loads,
 * indexing, integer division) run under the block's mask; library calls
 * run lane by lane. emit_lanes_instr with out == NULL says whether an
 * instruction has a lane form. */
#include "backend/lanes/lanes.h"

#include <inttypes.h>
#include <string.h>

#define OUT(...) (out ? emit_buf_printf(out, __VA_ARGS__) : (void)0)

static bool is_real(const IrType *t) { return t && t->kind == IR_TY_TENSOR && t->order == 0; }

/* Components of a lane value of type t (0: no lane form). */
static int lane_ncomp(const IrType *t) {
  switch (t->kind) {
  case IR_TY_BOOL: case IR_TY_INT: return 1;
  case IR_TY_STRAND: return 1; /* a strand index, as an int */
  case IR_TY_TENSOR: return emit_tensor_size(t);
  case IR_TY_VEC: return t->width;
  case IR_TY_SEQ:
    if (t->len == IR_SEQ_DYNAMIC || !t->elem) return 0;
    if (t->elem->kind == IR_TY_INT || t->elem->kind == IR_TY_BOOL || is_real(t->elem)) return t->len;
    /* a sequence of tensors (evecs): their components one after another,
     * as the scalar type lays them out */
    if (t->elem->kind == IR_TY_TENSOR) return t->len * emit_tensor_size(t->elem);
    return 0;
  default: return 0;
  }
}

/* A sphere() result: one list per lane (emit_c_sphere.c), type dlsph. */
static bool is_strand_seq(const IrType *t) {
  return t && t->kind == IR_TY_SEQ && t->len == IR_SEQ_DYNAMIC && t->elem &&
         t->elem->kind == IR_TY_STRAND;
}

/* Whether t's components are reals (dlane) rather than ints (dlanei). */
static bool lane_is_real(const IrType *t) {
  if (t->kind == IR_TY_SEQ) return t->elem->kind == IR_TY_TENSOR;
  return t->kind == IR_TY_TENSOR || t->kind == IR_TY_VEC;
}

/* Whether t is one value for the whole group. */
static bool uniform(const IrType *t) { return t->kind == IR_TY_IMAGE || t->kind == IR_TY_STRING; }

/* Whether t is printed as a struct of components. */
static bool is_struct(const IrType *t) { return lane_ncomp(t) > 0 && !is_real(t) && t->kind != IR_TY_INT && t->kind != IR_TY_BOOL; }

static void lane_types_once(EmitCtx *e) {
  if (!emit_once(e, "D_SIMD_W")) return;
  int aw = emit_simd_aosoa_width(e);
  /* the width of the target the C compiler builds for; within an AoSoA
   * block, so that a group's state words are consecutive */
  const Schedule *sc = e->opt->schedule;
  if (sc && sc->simd_width) /* the schedule's simd-width */
    emit_buf_printf(&e->types,
                    "/* --simd=strands: D_SIMD_W strands per group (emit_c_lanes.c; the "
                    "schedule's simd-width) */\n#define D_SIMD_W %d\n", sc->simd_width);
  else
    emit_buf_printf(&e->types,
                    "/* --simd=strands: D_SIMD_W strands per group (emit_c_lanes.c) */\n"
                    "#if defined(__AVX512F__)\n#define D_SIMD_W %d\n"
                    "#elif defined(__AVX__)\n#define D_SIMD_W %d\n"
                    "#else\n#define D_SIMD_W %d\n#endif\n",
                    e->opt->double_real ? 8 : 16, e->opt->double_real ? 4 : 8,
                    e->opt->double_real ? 2 : 4);
  if (aw)
    emit_buf_printf(&e->types, "#if D_SIMD_W > %d\n#undef D_SIMD_W\n#define D_SIMD_W %d\n#endif\n",
                    aw, aw);
  emit_buf_printf(&e->types,
                  "%s"
                  "#define D_LANE_BYTES (D_SIMD_W * %d) /* a group value's size */\n"
                  /* gcc on AVX2: its builtins, without immintrin.h (0.3 s of parsing) */
                  "#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX2__) && \\\n"
                  "    !defined(__AVX512F__) && D_LANE_BYTES == 32\n"
                  "#define D_LANE_BUILTINS 1\n"
                  "typedef long long d_v4di __attribute__((vector_size(32)));\n"
                  "#endif\n"
                  "typedef dreal dlane __attribute__((vector_size(D_SIMD_W * sizeof(dreal))));\n"
                  "%s"
                  "typedef dlint dlanei __attribute__((vector_size(D_SIMD_W * sizeof(dlint))));\n",
                  e->opt->double_real ? "#define D_DOUBLE 1\n" : "", e->opt->double_real ? 8 : 4,
                  emit_lanes_wide_ints(e)
                      ? "/* 32-bit ints beside doubles: 64 bits a lane, one mask type with the\n"
                        " * reals; every int operation's result wrapped to 32 bits (d_w32) */\n"
                        "typedef int64_t dlint;\n"
                        "typedef int32_t d_lanei32 __attribute__((vector_size(D_SIMD_W * 4)));\n"
                      : "typedef dint dlint; /* a lane's int */\n");
}

EmitLanesState *emit_lanes_state(EmitCtx *e) {
  if (!e->lanes) {
    e->lanes = arena_alloc(e->a, sizeof *e->lanes);
    memset(e->lanes, 0, sizeof *e->lanes);
  }
  return e->lanes;
}

/* Whether lane ints are wider than the program's ints: --double without
 * --long-int (only loops in lanes take such programs; groups refuse them). */
bool emit_lanes_wide_ints(const EmitCtx *e) { return e->opt->double_real && !e->opt->long_int; }

const char *emit_lanes_type(EmitCtx *e, const IrType *t) {
  if (uniform(t)) return emit_type(e, t);
  if (is_strand_seq(t)) {
    lane_types_once(e);
    if (emit_once(e, "dlsph"))
      emit_buf_printf(&e->types, "typedef struct { const uint32_t *v[D_SIMD_W]; dlanei len; } dlsph;\n");
    return "dlsph";
  }
  int n = lane_ncomp(t);
  if (!n) return NULL;
  lane_types_once(e);
  if (!is_struct(t)) return is_real(t) ? "dlane" : "dlanei";
  const char *name = arena_printf(e->a, "dlt%s%d", lane_is_real(t) ? "" : "i", n);
  if (emit_once(e, name))
    emit_buf_printf(&e->types, "typedef struct { %s v[%d]; } %s;\n",
                    lane_is_real(t) ? "dlane" : "dlanei", n, name);
  return name;
}

void emit_lanes_helpers(EmitCtx *e, EmitBuf *out) {
  lane_types_once(e); /* an update may hold no value at all */
  if (!emit_once(e, "lane helpers")) return; /* groups and loops share them */
  /* the intrinsics only where group code is emitted: immintrin.h is 55,000
   * lines with AVX-512 (0.3 s of every build), and the checks that decide
   * whether an update has a lane form also declare the lane types */
  OUT("#if !defined(D_LANE_BUILTINS) && \\\n"
      "    (defined(__SSE4_1__) || defined(__AVX__) || defined(__AVX512F__))\n"
      "#include <immintrin.h>\n#endif\n");
  /* gcc turns a loop of lane stores into a chain of inserts (AVX2) or of
   * masked broadcasts with their masks loaded from memory (AVX-512: a third
   * of mip's group update); a vector plus a scalar is one broadcast. A
   * real's bits go through an int of its width (groups and loops in lanes
   * need int and real of one size), so -0.0 and NaNs keep their bits */
  /* wide lanes hold 32-bit ints sign-extended: wrapped after every int
   * operation (the build's -fwrapv), they are the scalar code's values */
  if (emit_lanes_wide_ints(e))
    OUT("static inline dlanei d_w32(dlanei x) {\n"
        "  return __builtin_convertvector(__builtin_convertvector(x, d_lanei32), dlanei);\n}\n");
  OUT("_Static_assert(sizeof(dlint) == sizeof(dreal), \"lanes need int and real of one size\");\n"
      "static inline dlanei d_splati(dlint x) { return (dlanei){0} + x; }\n"
      "static inline dlane d_splat(dreal x) {\n"
      "#if defined(D_LANE_BUILTINS) && !defined(D_DOUBLE)\n"
      "  return (dlane){x, x, x, x, x, x, x, x};\n"
      "#elif defined(D_LANE_BUILTINS)\n"
      "  return (dlane){x, x, x, x};\n"
      "#else\n"
      "  dlint b_;\n  __builtin_memcpy(&b_, &x, sizeof b_);\n  return (dlane)d_splati(b_);\n"
      "#endif\n}\n"
      "static inline bool d_any(dlanei m) {\n"
      "#if defined(D_LANE_BUILTINS)\n"
      "  return !__builtin_ia32_ptestz256((d_v4di)m, (d_v4di)m);\n"
      "#elif defined(__AVX512F__) && D_LANE_BYTES == 64\n"
      "  return _mm512_test_epi32_mask((__m512i)m, (__m512i)m) != 0;\n"
      "#elif defined(__AVX__) && D_LANE_BYTES == 32\n"
      "  return !_mm256_testz_si256((__m256i)m, (__m256i)m);\n"
      "#elif defined(__SSE4_1__) && D_LANE_BYTES == 16\n"
      "  return !_mm_testz_si128((__m128i)m, (__m128i)m);\n"
      "#else\n"
      "  dlint a = 0;\n"
      "  for (int l = 0; l < D_SIMD_W; l++) a |= m[l];\n  return a != 0;\n"
      "#endif\n}\n"
      "/* c ? a : b lane by lane, c a -1/0 mask (bitwise: exact) */\n"
      "static inline dlane d_sel(dlanei c, dlane a, dlane b) {\n"
      "  return (dlane)((c & (dlanei)a) | (~c & (dlanei)b));\n}\n"
      "static inline dlanei d_seli(dlanei c, dlanei a, dlanei b) { return (c & a) | (~c & b); }\n"
      "/* p[i[l]] for every lane: the target's gather where there is one */\n"
      "static inline dlane d_gather(const dreal *p, dlanei i) {\n"
      "#if defined(D_LANE_BUILTINS) && !defined(D_DOUBLE)\n"
      "  return __builtin_ia32_gathersiv8sf((dlane){0}, p, i, (dlane)d_splati(-1), 4);\n"
      "#elif defined(D_LANE_BUILTINS)\n"
      "  return __builtin_ia32_gatherdiv4df((dlane){0}, p, (d_v4di)i, (dlane)d_splati(-1), 8);\n"
      "#elif defined(__AVX512F__) && D_SIMD_W == 16 && !defined(D_DOUBLE)\n"
      "  return (dlane)_mm512_i32gather_ps((__m512i)i, p, 4);\n"
      "#elif defined(__AVX512F__) && D_SIMD_W == 8 && defined(D_DOUBLE)\n"
      "  return (dlane)_mm512_i64gather_pd((__m512i)i, p, 8);\n"
      "#elif defined(__AVX2__) && D_SIMD_W == 8 && !defined(D_DOUBLE)\n"
      "  return (dlane)_mm256_i32gather_ps(p, (__m256i)i, 4);\n"
      "#elif defined(__AVX2__) && D_SIMD_W == 4 && defined(D_DOUBLE)\n"
      "  return (dlane)_mm256_i64gather_pd(p, (__m256i)i, 8);\n"
      "#else\n"
      "  dlane r;\n  for (int l = 0; l < D_SIMD_W; l++) r[l] = p[i[l]];\n  return r;\n"
      "#endif\n}\n"
      /* AVX2's gathers load lane by lane (Zen 3: a quarter of dvr's time
       * went to them); a probe's row of taps is consecutive in memory */
      "/* q[l][k], k = 0..3, for every lane: a row of consecutive samples per\n"
      " * lane; with AVX2 one load per lane and a transpose in registers\n"
      " * instead of four gathers */\n"
      "static inline void d_rowq4(const dreal *const *q, dlane *r0, dlane *r1, dlane *r2,\n"
      "                           dlane *r3) {\n"
      "#if defined(D_LANE_BUILTINS) && !defined(D_DOUBLE)\n"
      "  typedef int d_v8si_ __attribute__((vector_size(32)));\n"
      "  typedef float d_v4sf_ __attribute__((vector_size(16), aligned(4)));\n"
      "  dlane t_[4];\n"
      "  for (int l = 0; l < 4; l++)\n"
      "    t_[l] = __builtin_ia32_vinsertf128_ps256(__builtin_ia32_ps256_ps(*(const d_v4sf_ *)q[l]),\n"
      "                                             *(const d_v4sf_ *)q[l + 4], 1);\n"
      "  const d_v8si_ lo_ = {0, 8, 1, 9, 4, 12, 5, 13}, hi_ = {2, 10, 3, 11, 6, 14, 7, 15};\n"
      "  const d_v8si_ l2_ = {0, 1, 8, 9, 4, 5, 12, 13}, h2_ = {2, 3, 10, 11, 6, 7, 14, 15};\n"
      "  dlane u0 = __builtin_shuffle(t_[0], t_[1], lo_), u1 = __builtin_shuffle(t_[0], t_[1], hi_);\n"
      "  dlane u2 = __builtin_shuffle(t_[2], t_[3], lo_), u3 = __builtin_shuffle(t_[2], t_[3], hi_);\n"
      "  *r0 = __builtin_shuffle(u0, u2, l2_);\n  *r1 = __builtin_shuffle(u0, u2, h2_);\n"
      "  *r2 = __builtin_shuffle(u1, u3, l2_);\n  *r3 = __builtin_shuffle(u1, u3, h2_);\n"
      "#elif defined(D_LANE_BUILTINS)\n"
      "  typedef double d_v4df_ __attribute__((vector_size(32), aligned(8)));\n"
      "  dlane t_[4];\n"
      "  for (int l = 0; l < 4; l++) t_[l] = *(const d_v4df_ *)q[l];\n"
      "  const d_v4di lo_ = {0, 4, 2, 6}, hi_ = {1, 5, 3, 7}, l2_ = {0, 1, 4, 5}, h2_ = {2, 3, 6, 7};\n"
      "  dlane u0 = __builtin_shuffle(t_[0], t_[1], lo_), u1 = __builtin_shuffle(t_[0], t_[1], hi_);\n"
      "  dlane u2 = __builtin_shuffle(t_[2], t_[3], lo_), u3 = __builtin_shuffle(t_[2], t_[3], hi_);\n"
      "  *r0 = __builtin_shuffle(u0, u2, l2_);\n  *r2 = __builtin_shuffle(u0, u2, h2_);\n"
      "  *r1 = __builtin_shuffle(u1, u3, l2_);\n  *r3 = __builtin_shuffle(u1, u3, h2_);\n"
      "#else\n"
      "  for (int l = 0; l < D_SIMD_W; l++)\n"
      "    (*r0)[l] = q[l][0], (*r1)[l] = q[l][1], (*r2)[l] = q[l][2], (*r3)[l] = q[l][3];\n"
      "#endif\n}\n"
      "/* the same for a row of two (tent) */\n"
      "static inline void d_rowq2(const dreal *const *q, dlane *r0, dlane *r1) {\n"
      "#if defined(D_LANE_BUILTINS) && !defined(D_DOUBLE)\n"
      "  typedef int d_v8si_ __attribute__((vector_size(32)));\n"
      "  typedef double d_v4df_ __attribute__((vector_size(32)));\n"
      "  double q_[8];\n"
      "  for (int l = 0; l < 8; l++) __builtin_memcpy(&q_[l], q[l], 8);\n"
      "  /* lanes 0 1 4 5 and 2 3 6 7 as pairs; even and odd elements of both */\n"
      "  dlane a_ = (dlane)(d_v4df_){q_[0], q_[1], q_[4], q_[5]};\n"
      "  dlane b_ = (dlane)(d_v4df_){q_[2], q_[3], q_[6], q_[7]};\n"
      "  *r0 = __builtin_shuffle(a_, b_, (d_v8si_){0, 2, 8, 10, 4, 6, 12, 14});\n"
      "  *r1 = __builtin_shuffle(a_, b_, (d_v8si_){1, 3, 9, 11, 5, 7, 13, 15});\n"
      "#elif defined(D_LANE_BUILTINS)\n"
      "  typedef double d_v2df_ __attribute__((vector_size(16), aligned(8)));\n"
      "  d_v2df_ q_[4];\n"
      "  for (int l = 0; l < 4; l++) q_[l] = *(const d_v2df_ *)q[l];\n"
      "  dlane a_ = __builtin_ia32_vinsertf128_pd256(__builtin_ia32_pd256_pd(q_[0]), q_[2], 1);\n"
      "  dlane b_ = __builtin_ia32_vinsertf128_pd256(__builtin_ia32_pd256_pd(q_[1]), q_[3], 1);\n"
      "  *r0 = __builtin_shuffle(a_, b_, (d_v4di){0, 4, 2, 6});\n"
      "  *r1 = __builtin_shuffle(a_, b_, (d_v4di){1, 5, 3, 7});\n"
      "#else\n"
      "  for (int l = 0; l < D_SIMD_W; l++) (*r0)[l] = q[l][0], (*r1)[l] = q[l][1];\n"
      "#endif\n}\n"
      "/* p[o[l] + k], k = 0..w-1, for the lanes in m (a lane outside m reads\n"
      " * zeros); p[a[l] + clamp(x[l] + k, n[l])] for the c forms (clamp border\n"
      " * control), the row itself where it lies inside [0, n) */\n"
      "#if defined(D_LANE_BUILTINS)\n"
      "#define D_ROW_FNS(W, ROWQ, ...)                                                      \\\n"
      "  static inline void d_row##W(const dreal *p, dlanei o, dlanei m, __VA_ARGS__) {   \\\n"
      "    static const dreal z_[W];                                                       \\\n"
      "    const dreal *q_[D_SIMD_W];                                                      \\\n"
      "    for (int l = 0; l < D_SIMD_W; l++) q_[l] = m[l] ? p + o[l] : z_;                \\\n"
      "    ROWQ;                                                                           \\\n"
      "  }                                                                                 \\\n"
      "  static inline void d_row##W##c(const dreal *p, dlanei a, dlanei x, dlanei n,       \\\n"
      "                                 dlanei m, __VA_ARGS__) {                          \\\n"
      "    static const dreal z_[W];                                                       \\\n"
      "    dreal t_[D_SIMD_W][W];                                                          \\\n"
      "    const dreal *q_[D_SIMD_W];                                                      \\\n"
      "    for (int l = 0; l < D_SIMD_W; l++) {                                            \\\n"
      "      if (!m[l]) q_[l] = z_;                                                        \\\n"
      "      else if (x[l] >= 0 && x[l] < n[l] - (W - 1)) q_[l] = p + a[l] + x[l];         \\\n"
      "      else {                                                                        \\\n"
      "        for (int k = 0; k < W; k++) {                                               \\\n"
      "          dlint i = x[l] + k;                                                        \\\n"
      "          t_[l][k] = p[a[l] + (i < 0 ? 0 : i >= n[l] ? n[l] - 1 : i)];               \\\n"
      "        }                                                                           \\\n"
      "        q_[l] = t_[l];                                                              \\\n"
      "      }                                                                             \\\n"
      "    }                                                                               \\\n"
      "    ROWQ;                                                                           \\\n"
      "  }\n"
      "#else /* gathers (D_ROWP_FN: AVX-512 floats below) */\n"
      "#define D_ROW_FNS(W, ROWQ, ...) D_ROWP_FN(W, __VA_ARGS__) D_ROWC_FN(W, __VA_ARGS__)\n"
      "#define D_ROWP_FN(W, ...)                                                            \\\n"
      "  static inline void d_row##W(const dreal *p, dlanei o, dlanei m, __VA_ARGS__) {   \\\n"
      "    dlane *r_[W] = {D_ROW_ARGS##W};                                                 \\\n"
      "    for (int k = 0; k < W; k++) *r_[k] = d_gather(p, (o + d_splati(k)) & m);        \\\n"
      "  }\n"
      "#define D_ROWC_FN(W, ...)                                                            \\\n"
      "  static inline void d_row##W##c(const dreal *p, dlanei a, dlanei x, dlanei n,       \\\n"
      "                                 dlanei m, __VA_ARGS__) {                          \\\n"
      "    dlane *r_[W] = {D_ROW_ARGS##W};                                                 \\\n"
      "    for (int k = 0; k < W; k++) {                                                   \\\n"
      "      dlanei i = x + d_splati(k);                                                   \\\n"
      "      i = d_seli(i < d_splati(0), d_splati(0), d_seli(i >= n, n - d_splati(1), i));  \\\n"
      "      *r_[k] = d_gather(p, (a + i) & m);                                            \\\n"
      "    }                                                                               \\\n"
      "  }\n"
      "#define D_ROW_ARGS4 r0, r1, r2, r3\n#define D_ROW_ARGS2 r0, r1\n"
      "#endif\n"
      /* AVX-512 floats: two taps of a row are one 8-byte element of a
       * gather of doubles (8 lanes a gather), split into floats by permutes:
       * half the elements of the float gathers (Zen 4 gathers about an
       * element a cycle); a lane outside m loads nothing and reads zeros.
       * The clamped rows (c) gather tap by tap. */
      "#if defined(__AVX512F__) && D_SIMD_W == 16 && !defined(D_DOUBLE)\n"
      "static inline void d_pairs(const dreal *p, dlanei o, dlanei m, dlane *e, dlane *d) {\n"
      "  const __mmask16 k_ = _mm512_test_epi32_mask((__m512i)m, (__m512i)m);\n"
      "  const __m512i i_ = (__m512i)o;\n"
      "  const __m512 a_ = _mm512_castpd_ps(_mm512_mask_i32gather_pd(_mm512_setzero_pd(), (__mmask8)k_,\n"
      "      _mm512_castsi512_si256(i_), (const void *)p, 4));\n"
      "  const __m512 b_ = _mm512_castpd_ps(_mm512_mask_i32gather_pd(_mm512_setzero_pd(), (__mmask8)(k_ >> 8),\n"
      "      _mm512_extracti64x4_epi64(i_, 1), (const void *)p, 4));\n"
      "  const __m512i ev_ = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);\n"
      "  *e = (dlane)_mm512_permutex2var_ps(a_, ev_, b_);\n"
      "  *d = (dlane)_mm512_permutex2var_ps(a_, ev_ + _mm512_set1_epi32(1), b_);\n}\n"
      "static inline void d_row2(const dreal *p, dlanei o, dlanei m, dlane *r0, dlane *r1) {\n"
      "  d_pairs(p, o, m, r0, r1);\n}\n"
      "static inline void d_row4(const dreal *p, dlanei o, dlanei m, dlane *r0, dlane *r1, dlane *r2,\n"
      "                          dlane *r3) {\n"
      "  d_pairs(p, o, m, r0, r1);\n  d_pairs(p + 2, o, m, r2, r3);\n}\n"
      "D_ROWC_FN(4, dlane *r0, dlane *r1, dlane *r2, dlane *r3)\n"
      "D_ROWC_FN(2, dlane *r0, dlane *r1)\n"
      "#else\n"
      "D_ROW_FNS(4, d_rowq4(q_, r0, r1, r2, r3), dlane *r0, dlane *r1, dlane *r2, dlane *r3)\n"
      "D_ROW_FNS(2, d_rowq2(q_, r0, r1), dlane *r0, dlane *r1)\n"
      "#endif\n"
      "/* component k < n of the lanes' records q[l] of n reals */\n"
      "static inline void d_pick(const dreal *const *q, int n, dlane *r) {\n"
      "#if defined(D_LANE_BUILTINS)\n"
      "  if (n == 2) {\n    d_rowq2(q, &r[0], &r[1]);\n    return;\n  }\n"
      "#endif\n"
      "  for (int k = 0; k < n; k++)\n"
      "    for (int l = 0; l < D_SIMD_W; l++) r[k][l] = q[l][k];\n}\n"
      /* a vector % is a division per lane (idiv: lic's wrap(...) took
       * most of its group's time) */
      "/* d_wrap_index and d_mirror_index (emit_c.c) on every lane: where each\n"
      " * i is within a period of [0, n), as a probe's taps are, an add or a\n"
      " * subtract; else the division */\n"
      "static __attribute__((noinline, unused)) dlanei d_wrap_far(dlanei i, dlanei n) {\n"
      "  dlanei r = i %% n;\n"
      "  return r + (n & (r < d_splati(0)));\n}\n"
      "static inline dlanei d_wrap_lanes(dlanei i, dlanei n) {\n"
      "  if (!d_any((i < -n) | (i >= n + n)))\n"
      "    return i + (n & (i < d_splati(0))) - (n & (i >= n));\n"
      "  return d_wrap_far(i, n);\n}\n"
      "static inline dlanei d_mirror_lanes(dlanei i, dlanei n) {\n"
      "  dlanei p = n + n, r = d_wrap_lanes(i, p);\n"
      "  return d_seli(r < n, r, p - d_splati(1) - r); /* n = 1: 0 either way */\n}\n"
      );
  /* exact operations with a vector instruction: the same results as the
   * scalar calls, lane by lane */
  static const struct { const char *name, *builtin, *avx512, *avx, *sse; } vf[] = {
      {"floor", "__builtin_ia32_round%s256(x, 0x09)", "_mm512_floor_%s(x)", "_mm256_floor_%s(x)",
       "_mm_floor_%s(x)"},
      {"ceil", "__builtin_ia32_round%s256(x, 0x0a)", "_mm512_ceil_%s(x)", "_mm256_ceil_%s(x)",
       "_mm_ceil_%s(x)"},
      {"trunc", "__builtin_ia32_round%s256(x, 0x0b)", "_mm512_roundscale_%s(x, _MM_FROUND_TO_ZERO)",
       "_mm256_round_%s(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)",
       "_mm_round_%s(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)"},
      {"sqrt", "__builtin_ia32_sqrt%s256(x)", "_mm512_sqrt_%s(x)", "_mm256_sqrt_%s(x)",
       "_mm_sqrt_%s(x)"},
  };
  for (size_t k = 0; k < sizeof vf / sizeof vf[0]; k++) {
    OUT("static inline dlane d_v%s(dlane x) {\n", vf[k].name);
    const char *isa[] = {"D_LANE_BUILTINS", "__AVX512F__", "__AVX__", "__SSE4_1__"};
    const char *call[] = {vf[k].builtin, vf[k].avx512, vf[k].avx, vf[k].sse};
    const int bytes[] = {32, 64, 32, 16};
    for (int j = 0; j < 4; j++) {
      OUT("#%s defined(%s) && D_LANE_BYTES == %d\n  return (dlane)", j ? "elif" : "if", isa[j], bytes[j]);
      OUT(call[j], e->opt->double_real ? "pd" : "ps");
      OUT(";\n");
    }
    OUT("#else\n  dlane r;\n  for (int l = 0; l < D_SIMD_W; l++) r[l] = %s%s(x[l]);\n  return r;\n"
        "#endif\n}\n", vf[k].name, emit_fsuf(e));
  }
  /* d_floor_to_int (emit_c.c) on every lane: the same saturation */
  OUT("static inline dlanei d_vfloor_to_int(dlane x) {\n"
      "  const dlane b_ = d_splat((dreal)((dint)1 << (sizeof(dint) * 8 - 2)));\n"
      "  x = d_vfloor(x);\n"
      "  x = d_sel(x > -b_, x, -b_);\n"
      "  x = d_sel(x < b_, x, b_);\n"
      "  return __builtin_convertvector(x, dlanei);\n}\n\n");
}

/* ---- printing ----------------------------------------------------------------------------- */

static const char *V(EmitCtx *e, const IrVar *v) { return emit_var(e, v); }

/* Component i of lane value x of type t ("x" for a single lane value). */
static const char *C(EmitCtx *e, const IrType *t, const char *x, int i) {
  return is_struct(t) ? arena_printf(e->a, "%s.v[%d]", x, i) : x;
}

static const char *sel_fn(const IrType *t) { return lane_is_real(t) ? "d_sel" : "d_seli"; }

/* A lane loop around `body` (text with d_l) over the lanes of mask m. */
static void lane_loop(EmitBuf *out, const char *m, const char *body) {
  OUT("  for (int d_l = 0; d_l < D_SIMD_W; d_l++) {\n    if (!%s[d_l]) continue;\n%s  }\n", m, body);
}

/* d (a dlane or dlanei) = r_[d_l] computed by `body` lane by lane, through
 * an array: element stores into a vector would keep it in memory. Lanes
 * outside the mask (guard) get 0. */
static void lane_calc(EmitCtx *e, EmitBuf *out, const char *d, bool real, int blk, bool guard,
                      const char *body) {
  (void)e;
  OUT("  { %s r_[D_SIMD_W];\n    for (int d_l = 0; d_l < D_SIMD_W; d_l++) {\n", real ? "dreal" : "dlint");
  if (guard) OUT("      if (!d_m%d[d_l]) { r_[d_l] = 0; continue; }\n", blk);
  OUT("%s    }\n    memcpy(&%s, r_, sizeof r_); }\n", body, d);
}

static const char *mathname(EmitCtx *e, const char *f) { return arena_printf(e->a, "%s%s", f, emit_fsuf(e)); }

/* d = op(a[, b]) lane by lane through a scalar function */
static void call_lanes(EmitCtx *e, EmitBuf *out, const char *d, bool real, const char *fn,
                       const char *a, const char *b) {
  lane_calc(e, out, d, real, 0, false,
            b ? arena_printf(e->a, "      r_[d_l] = %s(%s[d_l], %s[d_l]);\n", fn, a, b)
              : arena_printf(e->a, "      r_[d_l] = %s(%s[d_l]);\n", fn, a));
}

/* d = fn(a) for tensors a (na components) and d (nd), lane by lane on the
 * lanes of block blk: the scalar code's runtime call (fn(const dreal *a,
 * dreal *d): a matrix inverse, eigenvalues and vectors) */
static void tensor_call(EmitCtx *e, EmitBuf *out, int blk, const char *fn, const char *a, int na,
                        const char *d, int nd) {
  lane_loop(out, arena_printf(e->a, "d_m%d", blk),
            arena_printf(e->a,
                         "    dreal a_[%d], r_[%d];\n"
                         "    for (int c_ = 0; c_ < %d; c_++) a_[c_] = %s.v[c_][d_l];\n"
                         "    %s(a_, r_);\n"
                         "    for (int c_ = 0; c_ < %d; c_++) %s.v[c_][d_l] = r_[c_];\n",
                         na, nd, na, a, fn, nd, d));
}

/* An int result x as the lanes hold it: wrapped to 32 bits when lane
 * ints are wider than the program's (emit_lanes_wide_ints). */
static const char *wrap32(EmitCtx *e, const char *x) {
  return emit_lanes_wide_ints(e) ? arena_printf(e->a, "d_w32(%s)", x) : x;
}

static bool lanes_op(EmitCtx *e, EmitBuf *out, IrInstr *in, int blk) {
  const char *d = in->dst ? V(e, in->dst) : NULL;
  const IrType *dt = in->dst ? in->dst->ty : NULL;
  const IrType *t0 = in->nargs > 0 ? in->args[0]->ty : NULL;
  const char *a = in->nargs > 0 ? V(e, in->args[0]) : NULL;
  const char *b = in->nargs > 1 ? V(e, in->args[1]) : NULL;
  const char *binop = NULL, *fn1 = emit_math_fn1(in->op), *fn2 = NULL;
  if (in->op == IR_OP_PRINT || in->op == IR_OP_NEW || in->op == IR_LOP_PROBE_FAIL ||
      in->op == IR_OP_INDEX_FAIL) {
    OUT("  goto d_effect; /* the scalar update runs the rest of this update */\n");
    return true;
  }
  /* sphere() results (emit_c_sphere.c): a list per lane */
  if (in->op == IR_OP_SPHERE || in->op == IR_OP_SPHERE_AT) {
    if (!d || !is_strand_seq(dt)) return false;
    const char *center[3] = {NULL, NULL, NULL};
    if (in->op == IR_OP_SPHERE_AT) {
      int n = lane_ncomp(t0);
      if (n < 1 || n > 3 || !lane_is_real(t0)) return false;
      for (int k = 0; k < n; k++) center[k] = arena_printf(e->a, "%s[d_l]", C(e, t0, a, k));
    }
    const IrVar *r = in->args[in->nargs - 1];
    if (!is_real(r->ty)) return false;
    return emit_sphere_query_lanes(e, out, in, d, arena_printf(e->a, "d_m%d", blk), center,
                                   arena_printf(e->a, "%s[d_l]", V(e, r)));
  }
  if (t0 && is_strand_seq(t0)) {
    if (in->op == IR_OP_SEQ_LENGTH) {
      OUT("  %s = %s.len;\n", d, a);
      return true;
    }
    if (in->op != IR_OP_SEQ_INDEX || !dt || dt->kind != IR_TY_STRAND) return false;
    lane_calc(e, out, d, false, blk, true,
              arena_printf(e->a, "      const dlint k_ = %s[d_l];\n"
                                 "      r_[d_l] = k_ >= 0 && k_ < %s.len[d_l] ? (dlint)%s.v[d_l][k_] : 0;\n",
                           b, a, a));
    return true;
  }
  /* every argument and the result must have lanes (or be uniform images) */
  if (dt && !uniform(dt) && !lane_ncomp(dt)) return false;
  for (int k = 0; k < in->nargs; k++)
    if (!lane_ncomp(in->args[k]->ty) && in->args[k]->ty->kind != IR_TY_IMAGE) return false;
  switch (in->op) {
  case IR_OP_IADD: binop = "+"; break;
  case IR_OP_ISUB: binop = "-"; break;
  case IR_OP_IMUL: binop = "*"; break;
  case IR_OP_IDIV:
  case IR_OP_IMOD: {
    /* by a positive constant (a brick's edge): no lane can trap, so the
     * vectors divide at once (shifts and masks for a power of two) */
    const IrInstr *k = in->args[1]->def;
    if (k && k->kind == IR_I_LIT && k->lit.kind == IR_LIT_INT && k->lit.i > 0) {
      OUT("  %s = %s;\n", d, wrap32(e, arena_printf(e->a, "%s %s %s", a, in->op == IR_OP_IDIV ? "/" : "%", b)));
      return true;
    }
    lane_calc(e, out, d, false, blk, true,
              arena_printf(e->a, "      r_[d_l] = %s[d_l] %s %s[d_l];\n", a,
                           in->op == IR_OP_IDIV ? "/" : "%", b));
    if (emit_lanes_wide_ints(e)) OUT("  %s = %s;\n", d, wrap32(e, d));
    return true;
  }
  case IR_OP_INEG: OUT("  %s = %s;\n", d, wrap32(e, arena_printf(e->a, "-%s", a))); return true;
  case IR_OP_IABS:
    OUT("  %s = %s;\n", d, wrap32(e, arena_printf(e->a, "d_seli(%s < d_splati(0), -%s, %s)", a, a, a)));
    return true;
  case IR_OP_LT: binop = "<"; break;
  case IR_OP_LE: binop = "<="; break;
  case IR_OP_GT: binop = ">"; break;
  case IR_OP_GE: binop = ">="; break;
  case IR_OP_EQ: binop = "=="; break;
  case IR_OP_NE: binop = "!="; break;
  case IR_OP_NOT: OUT("  %s = ~%s;\n", d, a); return true;
  case IR_OP_AND: binop = "&"; break;
  case IR_OP_OR: binop = "|"; break;
  case IR_OP_SELECT: {
    if (!lane_ncomp(dt)) return false;
    for (int i = 0; i < lane_ncomp(dt); i++)
      OUT("  %s = %s(%s, %s, %s);\n", C(e, dt, d, i), sel_fn(dt), a, C(e, dt, b, i),
          C(e, dt, V(e, in->args[2]), i));
    return true;
  }
  case IR_OP_MIN: /* b < a ? b : a */
  case IR_OP_MAX:
    if (dt->kind != IR_TY_INT && !is_real(dt)) return false;
    OUT("  %s = %s(%s %s %s, %s, %s);\n", d, sel_fn(dt), b, in->op == IR_OP_MIN ? "<" : ">", a, b, a);
    return true;
  case IR_OP_INT_TO_REAL: OUT("  %s = __builtin_convertvector(%s, dlane);\n", d, a); return true;
  case IR_OP_ATAN2: fn2 = "atan2"; break;
  case IR_OP_POW: fn2 = "pow"; break;
  case IR_OP_FMOD: fn2 = "fmod"; break;
  case IR_OP_POWI:
    if (!is_real(dt)) return false;
    call_lanes(e, out, d, true, "d_powi", a, b);
    return true;
  case IR_OP_TENSOR_CONS: {
    int sz = lane_ncomp(t0);
    for (int k = 0; k < in->nargs; k++) {
      int base = emit_tensor_offset(e, dt, &k, 1);
      for (int j = 0; j < sz; j++)
        OUT("  %s.v[%d] = %s;\n", d, base + j, C(e, in->args[k]->ty, V(e, in->args[k]), j));
    }
    return true;
  }
  case IR_OP_TENSOR_INDEX: {
    int off = emit_tensor_offset(e, t0, in->imm, in->nimm);
    for (int j = 0; j < lane_ncomp(dt); j++) OUT("  %s = %s.v[%d];\n", C(e, dt, d, j), a, off + j);
    return true;
  }
  case IR_OP_CLAMP: { /* x < lo ? lo : (x > hi ? hi : x) */
    const char *x = V(e, in->args[2]);
    for (int i = 0; i < lane_ncomp(dt); i++) {
      const char *lo = C(e, t0, a, i), *hi = C(e, in->args[1]->ty, b, i), *xi = C(e, dt, x, i);
      OUT("  %s = %s(%s < %s, %s, %s(%s > %s, %s, %s));\n", C(e, dt, d, i), sel_fn(dt), xi, lo, lo,
          sel_fn(dt), xi, hi, hi, xi);
    }
    return true;
  }
  case IR_OP_EVALS:
  case IR_OP_EVECS:
    if (t0->kind != IR_TY_TENSOR || t0->order != 2 || !is_struct(dt)) return false;
    tensor_call(e, out, blk,
                arena_printf(e->a, "drt_%s%d_%s", in->op == IR_OP_EVALS ? "evals" : "evecs", t0->dims[0],
                             e->opt->double_real ? "d" : "f"),
                a, lane_ncomp(t0), d, lane_ncomp(dt));
    return true;
  case IR_OP_INV: {
    if (is_real(dt)) {
      OUT("  %s = 1 / %s;\n", d, a);
      return true;
    }
    if (dt->kind != IR_TY_TENSOR || dt->order != 2 || (dt->dims[0] != 2 && dt->dims[0] != 3)) return false;
    /* a matrix: the scalar code's runtime call, lane by lane */
    tensor_call(e, out, blk, arena_printf(e->a, "drt_inv%d_%s", dt->dims[0], e->opt->double_real ? "d" : "f"),
                a, lane_ncomp(t0), d, lane_ncomp(dt));
    return true;
  }
  case IR_OP_SEQ_INDEX: {
    int n = t0->len, sz = lane_ncomp(dt);
    const IrInstr *k = in->args[1]->def;
    if (k && k->kind == IR_I_LIT && k->lit.kind == IR_LIT_INT && k->lit.i >= 0 && k->lit.i < n) {
      /* a constant index: that element's components */
      for (int j = 0; j < sz; j++) OUT("  %s = %s.v[%d];\n", C(e, dt, d, j), a, (int)k->lit.i * sz + j);
      return true;
    }
    if (sz != 1) return false;
    lane_calc(e, out, d, lane_is_real(dt), blk, true,
              arena_printf(e->a, "      const dlint k_ = %s[d_l];\n"
                                 "      r_[d_l] = k_ >= 0 && k_ < %d ? %s.v[k_][d_l] : 0;\n",
                           b, n, a));
    return true;
  }
  case IR_OP_SEQ_CONS: { /* the elements' components one after another */
    if (!in->nargs) return false;
    int sz = lane_ncomp(dt) / in->nargs;
    for (int k = 0; k < in->nargs; k++)
      for (int j = 0; j < sz; j++)
        OUT("  %s.v[%d] = %s;\n", d, k * sz + j, C(e, in->args[k]->ty, V(e, in->args[k]), j));
    return true;
  }
  case IR_OP_IMAGE_SIZE:
    for (int i = 0; i < t0->dim; i++) OUT("  %s.v[%d] = d_splati(%s->size[%d]);\n", d, i, a, i);
    return true;
  default: break;
  }
  if (binop) {
    const char *x = arena_printf(e->a, "%s %s %s", a, binop, b);
    bool iarith = in->op == IR_OP_IADD || in->op == IR_OP_ISUB || in->op == IR_OP_IMUL;
    OUT("  %s = %s;\n", d, iarith ? wrap32(e, x) : x);
    return true;
  }
  if (fn1) {
    if (!is_real(dt)) return false;
    if (in->op == IR_OP_FLOOR || in->op == IR_OP_CEIL || in->op == IR_OP_TRUNC || in->op == IR_OP_SQRT)
      OUT("  %s = d_v%s(%s);\n", d, fn1, a);
    else call_lanes(e, out, d, true, mathname(e, fn1), a, NULL);
    return true;
  }
  if (fn2) {
    if (!is_real(dt)) return false;
    call_lanes(e, out, d, true, mathname(e, fn2), a, b);
    return true;
  }
  if (e->m->level != IR_LOW) return false;
  int w = dt && dt->kind == IR_TY_VEC ? dt->width : 0;
  switch ((IrLowOp)in->op) {
  case IR_LOP_RADD: binop = "+"; break;
  case IR_LOP_RSUB: binop = "-"; break;
  case IR_LOP_RMUL: binop = "*"; break;
  case IR_LOP_RDIV: binop = "/"; break;
  case IR_LOP_RNEG: OUT("  %s = -%s;\n", d, a); return true;
  case IR_LOP_FLOOR_TO_INT: OUT("  %s = d_vfloor_to_int(%s);\n", d, a); return true;
  case IR_LOP_VADD:
  case IR_LOP_VSUB:
  case IR_LOP_VMUL:
  case IR_LOP_VDIV: {
    static const char *ops[] = {"+", "-", "*", "/"};
    for (int i = 0; i < lane_ncomp(dt); i++)
      OUT("  %s.v[%d] = %s.v[%d] %s %s.v[%d];\n", d, i, a, i, ops[in->op - IR_LOP_VADD], b, i);
    return true;
  }
  case IR_LOP_VNEG:
    for (int i = 0; i < lane_ncomp(dt); i++) OUT("  %s.v[%d] = -%s.v[%d];\n", d, i, a, i);
    return true;
  case IR_LOP_VSCALE: /* the scalar code: splat(s) * v */
    for (int i = 0; i < w; i++) OUT("  %s.v[%d] = %s * %s.v[%d];\n", d, i, a, b, i);
    return true;
  case IR_LOP_VSUM:
  case IR_LOP_VDOT: { /* left to right, as the scalar code adds its lanes */
    int n = t0->width;
    OUT("  %s = ", d);
    for (int i = 0; i < n; i++) {
      if (in->op == IR_LOP_VDOT) OUT("%s(%s.v[%d] * %s.v[%d])", i ? " + " : "", a, i, b, i);
      else OUT("%s%s.v[%d]", i ? " + " : "", a, i);
    }
    OUT(";\n");
    return true;
  }
  case IR_LOP_VINDEX: OUT("  %s = %s.v[%d];\n", d, a, in->imm[0]); return true;
  case IR_LOP_VSPLAT:
  case IR_LOP_VCONS:
  case IR_LOP_VSLICE:
  case IR_LOP_TENSOR_TO_VEC:
    for (int i = 0; i < w; i++) {
      const char *src;
      if (in->op == IR_LOP_VSPLAT) src = a;
      else if (in->op == IR_LOP_VCONS) src = V(e, in->args[i]);
      else if (in->op == IR_LOP_VSLICE) src = arena_printf(e->a, "%s.v[%d]", a, in->imm[0] + i);
      else src = C(e, t0, a, i);
      OUT("  %s.v[%d] = %s;\n", d, i, src);
    }
    return true;
  case IR_LOP_VEC_TO_TENSOR:
    for (int i = 0; i < t0->width; i++) OUT("  %s = %s.v[%d];\n", C(e, dt, d, i), a, i);
    return true;
  case IR_LOP_HORNER: { /* c0 + x*(c1 + x*(... + x*cn)), per component */
    int n = in->nargs - 1;
    for (int l = 0; l < lane_ncomp(dt); l++) {
      OUT("  %s = ", C(e, dt, d, l));
      for (int k = 0; k < n - 1; k++)
        OUT("%s + %s * (", C(e, dt, V(e, in->args[k + 1]), l), C(e, t0, a, l));
      OUT("%s", C(e, dt, V(e, in->args[n]), l));
      for (int k = 0; k < n - 1; k++) OUT(")");
      OUT(";\n");
    }
    return true;
  }
  case IR_LOP_LOAD: /* a gather; an inactive lane (any offset) reads sample 0 */
    OUT("  %s = d_gather((const dreal *)%s->data, %s & d_m%d);\n", d, a, b, blk);
    return true;
  case IR_LOP_VLOAD:
    if (w == 2 || w == 4) { /* a row: loads and a transpose (d_row4) */
      const char *dst[4];
      for (int i = 0; i < w; i++) dst[i] = arena_printf(e->a, "%s.v[%d]", d, i);
      if (out) emit_lanes_row(e, out, w, a, b, NULL, NULL, blk, dst);
      return true;
    }
    for (int i = 0; i < w; i++)
      OUT("  %s.v[%d] = d_gather((const dreal *)%s->data + %d, %s & d_m%d);\n", d, i, a, i, b, blk);
    return true;
  case IR_LOP_IMG_TRANSFORM:
  case IR_LOP_IMG_TRANSLATE: {
    const char *src = in->op == IR_LOP_IMG_TRANSFORM ? (e->opt->double_real ? "W" : "Wf")
                                                      : (e->opt->double_real ? "t" : "tf");
    for (int i = 0; i < lane_ncomp(dt); i++)
      OUT("  %s = d_splat(%s->%s[%d]);\n", C(e, dt, d, i), a, src, i);
    return true;
  }
  case IR_LOP_CLAMP_INDEX: /* d_clamp_index (emit_c.c) on every lane */
    OUT("  %s = d_seli(%s < d_splati(0), d_splati(0), d_seli(%s >= %s, %s - d_splati(1), %s));\n", d, a, a,
        b, b, a);
    return true;
  case IR_LOP_WRAP_INDEX: OUT("  %s = d_wrap_lanes(%s, %s);\n", d, a, b); return true;
  case IR_LOP_MIRROR_INDEX: OUT("  %s = d_mirror_lanes(%s, %s);\n", d, a, b); return true;
  default: return false;
  }
  OUT("  %s = %s %s %s;\n", d, a, binop, b);
  return true;
}

void emit_lanes_select(EmitCtx *e, EmitBuf *out, const IrType *t, const char *d, const char *m,
                       const char *a, const char *b) {
  for (int i = 0; i < lane_ncomp(t); i++)
    OUT("  %s = %s(%s, %s, %s);\n", C(e, t, d, i), sel_fn(t), m, C(e, t, a, i), C(e, t, b, i));
}

/* The C path of component i of a scalar struct value s of type t: a
 * tensor's or sequence's .v[i], a sequence of tensors' .v[k].v[j]. */
static const char *scalar_path(EmitCtx *e, const IrType *t, const char *s, int i) {
  if (t->kind == IR_TY_VEC) return emit_lane(e, s, i);
  if (t->kind == IR_TY_SEQ && t->elem->kind == IR_TY_TENSOR && t->elem->order > 0) {
    int sz = emit_tensor_size(t->elem);
    return arena_printf(e->a, "%s.v[%d].v[%d]", s, i / sz, i % sz);
  }
  return arena_printf(e->a, "%s.v[%d]", s, i);
}

void emit_lanes_row(EmitCtx *e, EmitBuf *out, int w, const char *img, const char *a,
                    const char *x, const char *n, int blk, const char *const *dst) {
  (void)e;
  if (x) OUT("  d_row%dc((const dreal *)%s->data, %s, %s, %s, d_m%d", w, img, a, x, n, blk);
  else OUT("  d_row%d((const dreal *)%s->data, %s, d_m%d", w, img, a, blk);
  for (int i = 0; i < w; i++) OUT(", &%s", dst[i]);
  OUT(");\n");
}

/* Lane component text of a scalar-typed C value s of type t, i.e. what the
 * scalar code holds: a real, an int, a bool (-1/0 in lanes), a tensor. */
static const char *scalar_comp(EmitCtx *e, const IrType *t, const char *s, int i) {
  if (t->kind == IR_TY_BOOL) return arena_printf(e->a, "(%s ? -1 : 0)", s);
  if (t->kind == IR_TY_VEC) return emit_lane(e, s, i);
  if (t->kind == IR_TY_SEQ && t->elem->kind == IR_TY_BOOL)
    return arena_printf(e->a, "(%s.v[%d] ? -1 : 0)", s, i);
  if (is_real(t) || t->kind == IR_TY_INT || t->kind == IR_TY_STRAND) return s;
  return scalar_path(e, t, s, i);
}

void emit_lanes_extract(EmitCtx *e, EmitBuf *out, const IrType *t, const char *s, const char *x,
                        const char *l) {
  for (int i = 0; i < lane_ncomp(t); i++) {
    const char *lane = arena_printf(e->a, "%s[%s]", C(e, t, x, i), l);
    if (t->kind == IR_TY_BOOL) OUT("    %s = %s != 0;\n", s, lane);
    else if (t->kind == IR_TY_SEQ && t->elem->kind == IR_TY_BOOL) OUT("    %s.v[%d] = %s != 0;\n", s, i, lane);
    else if (is_real(t) || t->kind == IR_TY_INT || t->kind == IR_TY_STRAND) OUT("    %s = %s;\n", s, lane);
    else OUT("    %s = %s;\n", scalar_path(e, t, s, i), lane);
  }
}

void emit_lanes_splat(EmitCtx *e, EmitBuf *out, const IrType *t, const char *x, const char *s) {
  for (int i = 0; i < lane_ncomp(t); i++)
    OUT("  %s = %s(%s);\n", C(e, t, x, i), lane_is_real(t) ? "d_splat" : "d_splati", scalar_comp(e, t, s, i));
}

static const char *carrier(EmitCtx *e, const IrStateVar *sv) {
  return arena_printf(e->a, "d_sv%d", sv->index);
}

const char *emit_lanes_state_decl(EmitCtx *e, const IrStateVar *sv) {
  const char *t = emit_lanes_type(e, sv->ty);
  return t ? arena_printf(e->a, "%s %s = {0};", t, carrier(e, sv)) : NULL;
}

void emit_lanes_state_xfer(EmitCtx *e, EmitBuf *out, const IrStateVar *sv, bool load,
                           const char *m) {
  const IrType *t = sv->ty;
  const char *c = carrier(e, sv);
  int n = lane_ncomp(t);
  /* reals: gathers at the lanes' state offsets (every lane's offset is in
   * the store, so the inactive ones need no mask) */
  if (load && emit_simd_state_gather(e, out, sv, c, is_real(t))) return;
  /* else through the scalar type: the layout's own transfer (emit_c_layout.c) */
  EmitBuf body;
  emit_buf_init(&body, e->a);
  emit_buf_printf(&body, "    const int64_t d_i = (int64_t)i0 + d_l;\n"
                         "    dreal *self = (dreal *)self_ + %s;\n    %s s_;\n",
                  emit_simd_state_dep(e), emit_type(e, t));
  if (load) {
    emit_simd_state_xfer(e, &body, sv, true, "s_");
    for (int i = 0; i < n; i++)
      emit_buf_printf(&body, "    %s[d_l] = %s;\n", C(e, t, c, i), scalar_comp(e, t, "s_", i));
  } else {
    emit_lanes_extract(e, &body, t, "s_", c, "d_l");
    emit_simd_state_xfer(e, &body, sv, false, "s_");
  }
  lane_loop(out, m, emit_buf_str(&body));
}

bool emit_lanes_instr(EmitCtx *e, EmitBuf *out, IrInstr *in, int blk) {
  const IrType *dt = in->dst ? in->dst->ty : NULL;
  const char *d = in->dst ? V(e, in->dst) : NULL;
  switch (in->kind) {
  case IR_I_OP: return lanes_op(e, out, in, blk);
  case IR_I_LIT:
    switch (in->lit.kind) {
    case IR_LIT_BOOL: OUT("  %s = d_splati(%d);\n", d, in->lit.b ? -1 : 0); return true;
    case IR_LIT_INT:
      if (in->lit.i == INT64_MIN) OUT("  %s = d_splati((dlint)INT64_MIN);\n", d);
      else OUT("  %s = d_splati((dlint)%" PRId64 "%s);\n", d, in->lit.i, e->opt->long_int ? "LL" : "");
      return true;
    case IR_LIT_REAL: OUT("  %s = d_splat(%s);\n", d, emit_real_lit(e, in->lit.r)); return true;
    case IR_LIT_STRING: OUT("  %s = %s;\n", d, emit_string_lit(e, in->lit.s)); return true;
    default: return false;
    }
  case IR_I_COPY:
    if (!uniform(dt) && !lane_ncomp(dt)) return false;
    OUT("  %s = %s;\n", d, V(e, in->args[0]));
    return true;
  case IR_I_GLOBAL_GET: {
    const char *g = arena_printf(e->a, "wrld->%s", emit_global_field(e, in->global));
    if (uniform(dt)) {
      OUT("  %s = %s;\n", d, g);
      return true;
    }
    if (!lane_ncomp(dt)) return false;
    emit_lanes_splat(e, out, dt, d, g);
    return true;
  }
  case IR_I_STATE_GET:
  case IR_I_STATE_SET: {
    /* the group's carrier of the variable (emit_lanes_state_load) */
    bool get = in->kind == IR_I_STATE_GET;
    if (get && in->nargs == 1 && dt && lane_is_real(dt) && lane_ncomp(dt) <= 3) {
      /* pos of a sphere() neighbour: from the positions its query returned */
      return emit_sphere_pos_get_lanes(e, out, in, arena_printf(e->a, "d_m%d", blk), false,
                                       arena_printf(e->a, is_struct(dt) ? "%s.v" : "&%s", d));
    }
    if (get && in->nargs != 0) return false; /* another strand's state */
    const IrType *t = in->state->ty;
    if (!lane_ncomp(t)) return false;
    if (!out) return true;
    const char *c = carrier(e, in->state);
    if (get) OUT("  %s = %s;\n", d, c);
    else emit_lanes_select(e, out, t, c, arena_printf(e->a, "d_m%d", blk), V(e, in->args[0]), c);
    return true;
  }
  default: return false;
  }
}
