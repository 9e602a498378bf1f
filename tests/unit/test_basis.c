/* test_basis.c -- the built-in table against the operators and functions of
 * doc/language.md §5 and §10.
 *
 * The expected overload counts and orders below were counted by hand from
 * the original compiler's tables (with the decisions of doc/differences.md),
 * not read from basis.def.
 */
#include "frontend/basis.h"

#include "unit.h"

typedef struct {
  const char *name;
  int count;
} NameCount;

/* §4.1-§4.10, in table order. */
static const NameCount expected_counts[] = {
    {"+", 5},          /* i+i t+t F+F F+t t+F */
    {"-", 5},          /* the same five */
    {"unary-", 3},     /* -i -t -F */
    {"*", 11},         /* i*i r*r r*t t*r r*F F*r S*S S*F F*S S*t t*S */
    {"/", 7},          /* i/i r/r t/r F/r S/S F/S t/S */
    {"%", 1},
    {"^", 3},          /* r^i r^r S^i */
    {"^int", 1},       /* i^i, an extension picked where an int is expected */
    {"@", 3},          /* append prepend concatenate */
    {"|·|", 3},        /* |i| |t| |F| */
    {"<", 2}, {"<=", 2}, {">", 2}, {">=", 2},
    {"==", 4}, {"!=", 4}, /* b i s r */
    {"!", 1}, {"&&", 1}, {"||", 1},
    {"•", 1}, {"⊗", 1}, {":", 1}, /* special shape rules */
    {"×", 8},          /* V2 V3, FF 2-D/3-D, FT and TF 2-D/3-D */
    {"⊛", 2},          /* image⊛kernel, kernel⊛image */
    {"∇", 1}, {"∇⊗", 1}, {"∇•", 1}, {"∇×", 2},
    {"identity", 1}, {"zeros", 1}, {"nan", 1},
    {"trace", 2}, {"transpose", 2},
    {"det", 4},        /* mat2 mat3, two field forms */
    {"inv", 6},        /* r mat2 mat3 and the three field forms */
    {"normalize", 2},
    {"modulate", 4},   /* V×V, F×F, t×F, F×t */
    {"lerp", 2}, {"clerp", 2},
    {"clamp", 3},      /* r r t, t t t, image */
    {"min", 4}, {"max", 4}, /* i×i r×r, int[] real[] reductions */
    {"evals", 4}, {"evecs", 4}, /* mat2 mat3, and the field forms (an extension) */
    {"sqrt", 2}, {"cos", 2}, {"acos", 2}, {"sin", 2},
    {"asin", 2}, {"tan", 2}, {"atan", 2}, {"exp", 2},
    {"atan2", 1}, {"ceil", 1}, {"floor", 1}, {"round", 1}, {"trunc", 1},
    {"erf", 1}, {"erfc", 1}, {"log", 1}, {"log10", 1}, {"log2", 1},
    {"pow", 1}, {"fmod", 1}, {"real", 1},
    {"inside", 1},
    {"load_image", 1}, {"mirror", 1}, {"wrap", 1}, {"border", 1}, {"size", 1},
    {"world_min", 1}, {"world_max", 1}, {"sample_min", 1}, {"sample_max", 1}, /* extensions */
    {"length", 1}, {"load_sequence", 1},
    {"all", 1}, {"exists", 1}, {"sum", 2}, {"product", 2}, {"mean", 1},
    {"sphere", 1}, {"numStrands", 1}, {"numActive", 1}, {"numStable", 1},
};
#define NEXPECTED ((int)(sizeof expected_counts / sizeof expected_counts[0]))

static void test_table_shape(void) {
  int total = 0;
  for (int i = 0; i < NEXPECTED; i++) total += expected_counts[i].count;
  /* Every entry belongs to a name of §4, and nothing else is defined. */
  CHECK_MSG(total == BI__COUNT, "table has %d entries, spec %d", (int)BI__COUNT, total);

  for (int i = 0; i < BI__COUNT; i++) {
    const Builtin *b = &basis_table[i];
    CHECK_MSG((int)b->id == i, "entry %d has id %d", i, (int)b->id);
    CHECK(b->name && b->name[0]);
    CHECK(b->sig && b->sig[0]);
    /* "special" exactly for BF_SPECIAL; otherwise a '(' ... ') -> ' form. */
    bool special = strcmp(b->sig, "special") == 0;
    CHECK_MSG(special == ((b->flags & BF_SPECIAL) != 0), "%s: special flag", b->name);
    if (!special)
      CHECK_MSG(b->sig[0] == '(' && strstr(b->sig, ") -> ") != NULL, "%s: sig %s",
                b->name, b->sig);
    /* Field forms are never constants. */
    if (b->flags & BF_LIFTED) CHECK_MSG(!(b->flags & BF_CONST), "%s lifted+const", b->name);
    /* Consecutive: a name seen before must be the name of the previous entry. */
    for (int j = 0; j + 1 < i; j++)
      if (strcmp(basis_table[j].name, b->name) == 0)
        CHECK_MSG(strcmp(basis_table[i - 1].name, b->name) == 0,
                  "overloads of %s not consecutive (entry %d)", b->name, i);
  }
}

static void test_counts(void) {
  for (int i = 0; i < NEXPECTED; i++) {
    int n = -1;
    const Builtin *b = basis_lookup(expected_counts[i].name, &n);
    CHECK_MSG(b != NULL, "%s not found", expected_counts[i].name);
    CHECK_MSG(n == expected_counts[i].count, "%s: %d overloads, want %d",
              expected_counts[i].name, n, expected_counts[i].count);
    if (!b) continue;
    /* Lookup returns the table itself, in table order. */
    for (int k = 0; k < n; k++) {
      CHECK(b + k == &basis_table[b[k].id]);
      CHECK_STR(b[k].name, expected_counts[i].name);
    }
    int first = (int)b->id;
    CHECK(first == 0 || strcmp(basis_table[first - 1].name, b->name) != 0);
  }
}

static void test_unknown(void) {
  int n = 7;
  /* Q9: variance and concat stay undefined; ∘ has no entry (Q1); the
   * norm is spelled |·| so that a user call norm(x) is not a built-in. */
  const char *missing[] = {"variance", "concat", "∘", "norm", "", "tent",
                           "unary", "sqrtx", "sq", "-="};
  for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++) {
    n = 7;
    CHECK_MSG(basis_lookup(missing[i], &n) == NULL, "%s found", missing[i]);
    CHECK(n == 0);
  }
  CHECK(basis_lookup(NULL, &n) == NULL);
  CHECK(basis_lookup("+", NULL) != NULL);
}

/* The `sig` of overload k of `name`. */
static const char *sig_of(const char *name, int k) {
  int n = 0;
  const Builtin *b = basis_lookup(name, &n);
  return (b && k < n) ? b[k].sig : "(missing)";
}

static unsigned flags_of(const char *name, int k) {
  int n = 0;
  const Builtin *b = basis_lookup(name, &n);
  return (b && k < n) ? b[k].flags : 0xffffu;
}

static void test_entries(void) {
  /* §3.4: `*` tries int*int, real*real, real*tensor, tensor*real first. */
  CHECK_STR(sig_of("*", 0), "(int, int) -> int");
  CHECK_STR(sig_of("*", 1), "(real, real) -> real");
  CHECK_STR(sig_of("*", 2), "(real, tensor[σ]) -> tensor[σ]");
  CHECK_STR(sig_of("*", 3), "(tensor[σ], real) -> tensor[σ]");
  CHECK_STR(sig_of("*", 6), "(field#k(d)[], field#k(d)[]) -> field#k(d)[]");
  CHECK_STR(sig_of("*", 10), "(tensor[σ], field#k(d)[]) -> field#k(d)[σ]");
  CHECK(basis_lookup("*", NULL)->id == BI_MUL_II);

  CHECK_STR(sig_of("+", 0), "(int, int) -> int");
  CHECK_STR(sig_of("+", 3), "(field#k(d)[σ], tensor[σ]) -> field#k(d)[σ]");
  CHECK_STR(sig_of("/", 6), "(tensor[σ], field#k(d)[]) -> field#k(d)[σ]");
  CHECK_STR(sig_of("%", 0), "(int, int) -> int");
  CHECK_STR(sig_of("^", 0), "(real, int) -> real");
  CHECK_STR(sig_of("^", 2), "(field#k(d)[], int) -> field#k(d)[]");
  CHECK_STR(sig_of("@", 0), "(T[], T) -> T[]");
  CHECK_STR(sig_of("@", 1), "(T, T[]) -> T[]");
  CHECK_STR(sig_of("@", 2), "(T[], T[]) -> T[]");
  CHECK_STR(sig_of("|·|", 1), "(tensor[σ]) -> real");

  /* §4.2: == in the order bool, int, string, real. */
  CHECK_STR(sig_of("==", 0), "(bool, bool) -> bool");
  CHECK_STR(sig_of("==", 2), "(string, string) -> bool");
  CHECK_STR(sig_of("==", 3), "(real, real) -> bool");
  CHECK_STR(sig_of("<", 1), "(real, real) -> bool");

  /* §4.3 and §3.7: derivatives lower k; ∇• too (Q2) and needs n = d (Q10). */
  CHECK_STR(sig_of("∇", 0), "(field#k(d)[]) -> field#k-1(d)[d]");
  CHECK_STR(sig_of("∇⊗", 0), "(field#k(d)[σ]) -> field#k-1(d)[σ,d]");
  CHECK_STR(sig_of("∇•", 0), "(field#k(d)[σ,d]) -> field#k-1(d)[σ]");
  CHECK_STR(sig_of("∇×", 0), "(field#k(2)[2]) -> field#k-1(2)[]");
  CHECK_STR(sig_of("∇×", 1), "(field#k(3)[3]) -> field#k-1(3)[3]");
  CHECK_STR(sig_of("×", 0), "(tensor[2], tensor[2]) -> real");
  CHECK_STR(sig_of("×", 1), "(tensor[3], tensor[3]) -> tensor[3]");
  CHECK_STR(sig_of("⊛", 0), "(image(d)[σ], kernel#k) -> field#k(d)[σ]");
  CHECK_STR(sig_of("⊛", 1), "(kernel#k, image(d)[σ]) -> field#k(d)[σ]");
  CHECK_STR(sig_of("•", 0), "special");

  /* §4.4 */
  CHECK_STR(sig_of("trace", 1), "(field#k(d)[σ,n,n]) -> field#k(d)[σ]");
  CHECK_STR(sig_of("inv", 0), "(real) -> real");
  CHECK_STR(sig_of("clamp", 0), "(real, real, tensor[σ]) -> tensor[σ]");
  CHECK_STR(sig_of("clamp", 2), "(image(d)[σ]) -> image(d)[σ]");
  CHECK_STR(sig_of("lerp", 1), "(tensor[σ], tensor[σ], real, real, real) -> tensor[σ]");
  CHECK_STR(sig_of("min", 0), "(int, int) -> int");
  CHECK_STR(sig_of("max", 3), "(real[]) -> real");
  CHECK_STR(sig_of("evals", 1), "(tensor[3,3]) -> real[3]");
  CHECK_STR(sig_of("evecs", 0), "(tensor[2,2]) -> tensor[2][2]");
  CHECK_STR(sig_of("size", 0), "(image(d)[σ]) -> int[d]");
  CHECK_STR(sig_of("inside", 0), "(tensor[d], field#k(d)[σ]) -> bool");
  CHECK_STR(sig_of("sqrt", 1), "(field#k(d)[]) -> field#k(d)[]");
  CHECK_STR(sig_of("numStrands", 0), "() -> int");

  /* Flags. */
  CHECK(flags_of("*", 0) & BF_CONST);
  CHECK(flags_of("*", 4) & BF_LIFTED);
  CHECK(!(flags_of("∇", 0) & BF_CONST));
  CHECK(flags_of("border", 0) & BF_UNSUPPORTED);
  CHECK(flags_of("sum", 1) & BF_REDUCE);
  CHECK(flags_of("mean", 0) & BF_REDUCE);
  CHECK(!(flags_of("min", 0) & BF_REDUCE));
  CHECK(flags_of("min", 2) & BF_REDUCE);
  CHECK(flags_of("sphere", 0) & BF_SPECIAL);
  CHECK(flags_of("load_image", 0) & BF_SPECIAL);
  CHECK(flags_of("identity", 0) & BF_CONST);
  CHECK(flags_of("normalize", 0) & BF_CONST);  /* §3.8 */
  CHECK(flags_of("modulate", 0) & BF_CONST);
  CHECK(flags_of("⊗", 0) & BF_CONST);
  CHECK(flags_of("×", 1) & BF_CONST);
  CHECK(!(flags_of("•", 0) & BF_CONST));
  CHECK(flags_of("fmod", 0) & BF_CONST);
  CHECK(!(flags_of("@", 0) & BF_CONST));       /* sequences */
  CHECK(!(flags_of("clamp", 2) & BF_CONST));   /* images */
  CHECK(flags_of("exp", 1) & BF_LIFTED);
  CHECK(!(flags_of("atan2", 0) & BF_LIFTED));
}

int main(void) {
  test_table_shape();
  test_counts();
  test_unknown();
  test_entries();
  return unit_finish("basis");
}
