/* diderot_rt.h -- libdiderot-rt: the runtime library of generated programs.
 *
 * Generated C code (executables and libraries, doc/language.md §12, §14)
 * calls this library for everything that touches the outside world:
 * loading images (§6.1 there) and dynamic sequences (§10.6) from NRRD
 * files or in-memory Nrrds, writing outputs in the layouts of §13,
 * formatting `print` (§7.2) and parsing the executable's command line
 * (§12). (The bare § numbers further down are those of the design notes,
 * see doc/ARCHITECTURE.md.) NRRD I/O goes through
 * Teem (libteem-dev).
 *
 * Conventions:
 *  - every exported name starts with drt_ (functions) or Drt (types);
 *  - the library has no global mutable state: errors accumulate in a
 *    caller-owned DrtErrors, one message per line, each naming the thing
 *    it is about ("input 'img' (file 'x.nrrd'): nrrd axis 1 has size 99,
 *    expected 100");
 *  - functions that can fail return bool, **true on error** (like the
 *    generated library API of §7.3 and like Teem), after adding a message;
 *  - Teem's biff messages are moved into the DrtErrors (biffGetDone), so
 *    nothing is left behind in biff;
 *  - sample and element types are Teem's nrrdType* values. Diderot's bool
 *    is C bool (one byte, 0 or 1) and is written to files as uchar.
 */
#ifndef DIDEROT_RT_H
#define DIDEROT_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <teem/nrrd.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define DRT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define DRT_PRINTF(f, a)
#endif

/* ======================================================================
 * Errors (rt_error.c)
 * ==================================================================== */

/* A growable text buffer; s is NULL until something is added. */
typedef struct DrtText {
  char *s;
  size_t len, cap;
} DrtText;

/* Caller-owned error context. Zero-initialise it (or drt_errors_init);
 * free it with drt_errors_free. Errors and warnings are kept apart:
 * warnings never make a call fail. */
typedef struct DrtErrors {
  DrtText errors;      /* one line per error, each ending in '\n' */
  DrtText warnings;    /* one line per warning */
  unsigned nerrors, nwarnings;
  bool oom;            /* a message was lost for lack of memory */
} DrtErrors;

void drt_errors_init(DrtErrors *e);
void drt_errors_free(DrtErrors *e);
/* Add one error line (a trailing newline is added if missing). */
void drt_error(DrtErrors *e, const char *fmt, ...) DRT_PRINTF(2, 3);
/* Add "WHAT (file 'FILE'): message", or "WHAT (nrrd): message" when
 * file is NULL (an in-memory Nrrd). WHAT names the variable, e.g.
 * "input 'img'" or "image 'v'"; NULL gives "image". */
void drt_error_at(DrtErrors *e, const char *what, const char *file,
                  const char *fmt, ...) DRT_PRINTF(4, 5);
void drt_warning(DrtErrors *e, const char *fmt, ...) DRT_PRINTF(2, 3);
void drt_warning_at(DrtErrors *e, const char *what, const char *file,
                    const char *fmt, ...) DRT_PRINTF(4, 5);
/* Move Teem's pending biff messages for KEY (e.g. NRRD) into an error
 * "WHAT (file 'FILE'): DOING: <biff text on one line>". */
void drt_error_biff(DrtErrors *e, const char *what, const char *file,
                    const char *doing, const char *key);
bool drt_any_errors(const DrtErrors *e);
/* The accumulated text ("" when none); valid until the next call on e. */
const char *drt_errors_text(const DrtErrors *e);
const char *drt_warnings_text(const DrtErrors *e);
/* Return the accumulated error text (malloc'd, caller frees; NULL when
 * there are none) and clear the errors: what NS_get_errors returns. */
char *drt_errors_take(DrtErrors *e);
/* The executable's error report (§7.2): "PROG: error: MESSAGE" on f, one
 * line per message (PROG: argv[0] or its base name). */
void drt_errors_report(const DrtErrors *e, FILE *f, const char *prog);

/* ======================================================================
 * Images (rt_image.c): load, normalize (§8.3), check, world-to-index
 * ==================================================================== */

/* What the generated code expects of an image.
 *
 * Sample type policy (§8.2, §8.3, §9.7):
 *  - with a proxy, file_type is the proxy's sample type; a file of another
 *    type is accepted when store_type holds all its values exactly
 *    (drt_type_exact_in: uchar into float, int into double, ...), and
 *    refused otherwise (double or int into float), with what to do;
 *  - sizes, spacing, origin and orientation are never fixed: one build
 *    serves images of any size;
 *  - without a proxy, file_type is nrrdTypeDefault (0): any numeric
 *    sample type is accepted and converted without scaling. (The reference
 *    demands float here; accepting any type is a deliberate, harmless
 *    extension since the generated code only ever sees store_type.)
 *
 * Storage policy: the data are kept in store_type. Generated code passes
 * the real type (nrrdTypeFloat, or nrrdTypeDouble with --double): the
 * conversion is done once at load time, probes then read reals directly
 * (no per-tap conversion, vectorisable loads), and one probe routine per
 * (d, C, real type) serves every file type. When the file already has
 * store_type, no conversion or extra copy is made. Conversion is by value
 * (§8.3 step 5: uchar 255 becomes 255.0); to an integer store type values
 * are truncated toward zero, clamped to the range, NaN becomes 0. */
typedef struct DrtImageSpec {
  const char *what;     /* names the image in messages: "input 'img'" */
  unsigned dim;         /* d: 1, 2 or 3 */
  unsigned ncomp;       /* ∏σ, 1 for a scalar image */
  int file_type;        /* required sample type, or nrrdTypeDefault = any */
  int store_type;       /* in-memory sample type (the real type) */
} DrtImageSpec;

/* A loaded image. Sample (i0,i1,i2), component c is data element
 * c + ncomp*(i0 + size[0]*(i1 + size[1]*i2)) (§8.3); c is the row-major
 * flattening of the tensor index.
 *
 * World to index: p = W·x + t (§8.3 step 4), W = M⁻¹ where column a of M
 * is the space direction of spatial axis a; t = −W·o. W and WT (= Wᵀ, for
 * world-space derivatives, §8.4) are packed d×d row-major arrays, i.e.
 * the flat layout of a Diderot tensor[d,d]: W[i*d + j]. They are computed
 * in double and also stored rounded to float (Wf, WTf, tf). */
typedef struct DrtImage {
  unsigned dim;         /* d */
  unsigned ncomp;       /* C */
  int size[3];          /* spatial axis sizes, fastest first; 1 beyond d */
  size_t nelems;        /* ncomp * size[0] * ... * size[d-1] */
  int type;             /* sample type of data (the spec's store_type) */
  int file_type;        /* sample type found in the file */
  const void *data;     /* nelems samples of type `type`, owned by nrrd */
  double W[9], WT[9], t[3];
  float Wf[9], WTf[9], tf[3];
  double origin[3];     /* o, the world position of index 0 */
  Nrrd *nrrd;           /* owns the data; normalized meta-data */
  void *layout_data;    /* NULL, or the re-laid-out samples that data
                           points to (drt_image_adopt_data) */
  size_t layout_nelems; /* how many: more than nelems where bricks overhang
                           the image or carry halos (what a device copies) */
} DrtImage;

/* Load FILE ("-" is stdin) into img. On error img is left empty (all
 * zero), every problem found is reported, and true is returned. */
bool drt_image_load_file(DrtErrors *e, const DrtImageSpec *spec,
                         const char *file, DrtImage *img);
/* The same from a caller's Nrrd, which is neither modified nor kept (the
 * data are copied). */
bool drt_image_load_nrrd(DrtErrors *e, const DrtImageSpec *spec,
                         const Nrrd *nin, DrtImage *img);
/* Make img's samples `data` (malloc'd samples of img->type), a copy in
 * another layout made by the generated program (e.g. bricks,
 * --image-layout; sample addresses are then that layout's, not the one
 * described above). The image owns and frees it. */
void drt_image_adopt_data(DrtImage *img, void *data, size_t nelems);
/* Image queries (doc/language.md §6.1, an extension), in double: the lower
 * (upper = false) or upper corner's component r of the world-space
 * bounding box of the sample positions M·i + o, i_a = 0 .. size_a - 1;
 * and the least or greatest value of component c of the samples as
 * loaded (in the store type, from the NRRD order, so any --image-layout
 * gives the same), NaN samples ignored: NaN when every one is NaN.
 * sample_bound reads every sample: the frontend allows it in global code
 * only. rt_image_query.c. */
double drt_image_world_bound(const DrtImage *img, int r, bool upper);
double drt_image_sample_bound(const DrtImage *img, int c, bool upper);
/* Free img's data and zero it; safe on a zeroed or already freed image. */
void drt_image_free(DrtImage *img);

/* Normalize nrrd's meta-data in place per §8.3 step 2: the component
 * axis (if any) must be axis 0 with an accepted kind (3-color/RGB-color
 * become 3-vector, 4-color/RGBA-color 4-vector); spatial axes get kind
 * space and a space direction (cases (a)/(b)/(c) of §8.3), the origin is
 * set, per-axis extras, comments, key/value pairs and the measurement
 * frame are dropped. WHAT/FILE name the source in messages. Returns true
 * on error. Exposed for the compiler's proxy reader and for tests. */
bool drt_nrrd_normalize(DrtErrors *e, const char *what, const char *file,
                        Nrrd *nrrd);

/* ======================================================================
 * Dynamic sequences (rt_sequence.c, §8.7)
 * ==================================================================== */

typedef struct DrtSeqSpec {
  const char *what;     /* "input 'xs'" */
  int type;             /* element sample type: nrrdTypeInt/LLong (int),
                           nrrdTypeFloat/Double (real), nrrdTypeUChar with
                           is_bool (bool) */
  unsigned ncomp;       /* components per element: 1 for int/real/bool,
                           ∏σ for tensors, n·C for fixed sequences */
  bool is_bool;         /* elements are bool: non-zero samples become 1 */
} DrtSeqSpec;

typedef struct DrtSequence {
  size_t len;           /* number of elements */
  unsigned ncomp;
  int type;
  void *data;           /* len*ncomp values of `type` (malloc'd) */
} DrtSequence;

/* Load a sequence: the NRRD must have no space dimension; scalar elements
 * need a 1-D array (len = sizes[0]); elements of C > 1 components a 2-D
 * array with sizes[0] == C (len = sizes[1]). Samples are always converted
 * by value to the element type (doc/differences.md, Q16), as for images. Plain text files
 * of one value per line work too: Teem reads them as 1×N, and a leading
 * axis of size 1 is accepted for scalar elements. */
bool drt_sequence_load_file(DrtErrors *e, const DrtSeqSpec *spec,
                            const char *file, DrtSequence *seq);
bool drt_sequence_load_nrrd(DrtErrors *e, const DrtSeqSpec *spec,
                            const Nrrd *nin, DrtSequence *seq);
void drt_sequence_free(DrtSequence *seq);

/* Convert n samples between Teem types by value, with the rules given for
 * DrtImageSpec (to_bool: non-zero becomes 1 in a uchar destination).
 * Returns true if either type is not a numeric scalar type. */
bool drt_convert(void *dst, int dst_type, const void *src, int src_type,
                 size_t n, bool to_bool);
/* Whether every value of Teem type `from` converts to type `to` exactly
 * (float: the integers of up to 16 bits; double: all but the 64-bit
 * integers; any type to itself). */
bool drt_type_exact_in(int from, int to);

/* ======================================================================
 * Outputs (rt_output.c, §8.8)
 * ==================================================================== */

/* How one strand's value of an output is stored. */
typedef struct DrtOutSpec {
  int type;         /* nrrdTypeUChar (bool), nrrdTypeInt or nrrdTypeLLong
                       (int, --long-int), nrrdTypeFloat/Double (real) */
  unsigned ncomp;   /* C: values per strand; 1 = no data axis */
  int kind;         /* kind of the data axis when ncomp > 1 */
} DrtOutSpec;

/* The data-axis kind for a value of tensor shape SHAPE[0..rank) inside a
 * fixed sequence of SEQLEN elements (seqlen = 0: not a sequence; nested
 * fixed sequences pass the product of their lengths). Sets *ncomp to C.
 * Returns nrrdKindUnknown when C == 1 (no data axis). Per §8.8: vec2/3/4
 * give N-vector, tensor[2,2] 2D-matrix, tensor[3,3] 3D-matrix, other
 * tensors and T[n] (n > 1) list, T[1] is laid out as T. */
int drt_output_kind(unsigned seqlen, unsigned rank, const unsigned *shape,
                    unsigned *ncomp);

/* The strands an output covers: a grid (create_array / initially [...])
 * with naxes iterators of the given sizes, i1 (the slowest) first; or,
 * when naxes is 0, a collection of `count` strands. */
typedef struct DrtDomain {
  unsigned naxes;         /* 0 = collection; at most 15 */
  const size_t *sizes;    /* grid: iterator sizes, slowest first */
  size_t count;           /* collection: number of strands */
} DrtDomain;

/* Strands covered by dom (the product of the sizes, or count). */
size_t drt_domain_count(const DrtDomain *dom);

/* Allocate nout (from nrrdNew) with the layout of §8.8: axes [C if C > 1
 * (kind spec->kind)], then the grid axes in reverse iterator order (kind
 * space), or one list axis of the strand count. The data is not zeroed:
 * the caller fills all of nout->data, strand after strand in storage
 * order, C values each. No space directions or origin. Errors: a domain with no
 * strands, too many axes, bad type, out of memory. */
bool drt_output_alloc(DrtErrors *e, const char *what, Nrrd *nout,
                      const DrtOutSpec *spec, const DrtDomain *dom);

/* drt_output_alloc's axes, kinds and type without the data (NULL), for
 * drt_output_save_parts. */
bool drt_output_head(DrtErrors *e, const char *what, Nrrd *nout,
                     const DrtOutSpec *spec, const DrtDomain *dom);

/* Dynamic-sequence output T[] (§8.8): nlen gets sample type int (32-bit),
 * axis 0 of size 2 and kind 2-vector holding (offset, length) for each
 * strand, then the domain axes as for drt_output_alloc; lengths[i] is
 * strand i's element count (storage order). ndata gets
 * [C if C > 1 (spec->kind)], total (list), allocated (not zeroed) for the
 * caller to fill: strand i's elements start at element offset[i]. When
 * the total is 0, ndata is left empty (nrrdEmpty). */
bool drt_output_alloc_dynseq(DrtErrors *e, const char *what, Nrrd *nlen,
                             Nrrd *ndata, const DrtOutSpec *spec,
                             const DrtDomain *dom, const uint32_t *lengths);

/* Save nrrd to FILE with nrrdSave's choice of format by extension (".nrrd"
 * and unknown extensions: NRRD, raw encoding, native endianness). A
 * regular (or new) file is written under a temporary name in its directory
 * and renamed, so an error never leaves a partial FILE (for a detached
 * header ".nhdr" the two files are written in place and removed on error).
 * A target that exists and is not a regular file (device, FIFO, socket,
 * the program's own stdout) is written through in place; symbolic links
 * are followed and stay links. "-" writes to stdout. */
bool drt_output_save(DrtErrors *e, const char *what, const char *file,
                     const Nrrd *nrrd);

/* Copies the next items of an output, at most cap, into buf; returns how
 * many (0: none left). ctx is the caller's cursor. */
typedef size_t (*DrtOutFill)(void *ctx, void *buf, size_t cap);

/* drt_output_save for an output whose data come in parts: head (from
 * drt_output_head) describes it, fill produces its items of item_bytes
 * each in order. A NRRD file gets them through a small buffer, straight
 * from the strands; other formats through one array. The same files,
 * byte for byte, under the same rules. */
bool drt_output_save_parts(DrtErrors *e, const char *what, const char *file,
                           Nrrd *head, size_t item_bytes, DrtOutFill fill, void *ctx);

/* Snapshots saved by a writer thread while the program computes on
 * (rt_writer.c). drt_writer_new starts one (NULL when it cannot: then
 * the calls below save in place). drt_output_save_parts_behind is
 * drt_output_save_parts with the file's bytes copied now and saved by the
 * writer, in the order given; a link, a special file or our stdout is
 * saved in place, after what is queued. It returns true (errors in e) when
 * this save or an earlier one failed. drt_writer_finish waits for the
 * writer, moves its errors and warnings into e and frees it; true when a
 * save failed. */
typedef struct DrtWriter DrtWriter;
DrtWriter *drt_writer_new(void);
bool drt_output_save_parts_behind(DrtWriter *w, DrtErrors *e, const char *what,
                                  const char *file, Nrrd *head, size_t item_bytes,
                                  DrtOutFill fill, void *ctx);
bool drt_writer_finish(DrtWriter *w, DrtErrors *e);

/* Save a dynamic-sequence output as PREFIX-len.nrrd and PREFIX-data.nrrd
 * (or PREFIX-len-NNNN.nrrd / PREFIX-data-NNNN.nrrd for a snapshot when
 * step >= 0). When ndata is empty (no elements at all) the data file is
 * not written and a warning is added. */
bool drt_output_save_dynseq(DrtErrors *e, const char *what,
                            const char *prefix, long long step,
                            const Nrrd *nlen, const Nrrd *ndata);

/* The file name PREFIX[-PART][-NNNN].nrrd: PART is omitted when NULL, the
 * step when negative; steps are zero-padded to at least 4 digits
 * (§7.2, §9.25). malloc'd; NULL when out of memory. */
char *drt_output_filename(const char *prefix, const char *part,
                          long long step);

/* ======================================================================
 * print (rt_print.c, §6.6)
 * ==================================================================== */

/* Reals print like C++ ostream with precision 9 (float) or 17 (double),
 * i.e. %.9g / %.17g; tensors as nested brackets [[a,b],[c,d]] (row-major,
 * first index outermost); sequences as {a,b,c}; bools true/false; no
 * separators or newlines are added. shape[0..rank) is the tensor shape;
 * rank 0 prints a single real. */
void drt_print_bool(FILE *f, bool b);
void drt_print_int(FILE *f, int64_t i);
void drt_print_float(FILE *f, float x);
void drt_print_double(FILE *f, double x);
void drt_print_string(FILE *f, const char *s);
void drt_print_tensor_float(FILE *f, const float *v, unsigned rank,
                            const unsigned *shape);
void drt_print_tensor_double(FILE *f, const double *v, unsigned rank,
                             const unsigned *shape);
/* Sequences of n elements; for reals each element is a tensor of the
 * given shape (rank 0 for real[]), stored one after the other. */
void drt_print_seq_float(FILE *f, const float *v, size_t n, unsigned rank,
                         const unsigned *shape);
void drt_print_seq_double(FILE *f, const double *v, size_t n, unsigned rank,
                          const unsigned *shape);
void drt_print_seq_int32(FILE *f, const int32_t *v, size_t n);
void drt_print_seq_int64(FILE *f, const int64_t *v, size_t n);
void drt_print_seq_bool(FILE *f, const bool *v, size_t n);

/* ======================================================================
 * The executable's command line (rt_cli.c, §7.2)
 *
 * Parsed by Teem's hest, as the original Diderot's programs are: the
 * generated code describes its options in a DrtOption table and the
 * runtime turns it into hest options.
 * ==================================================================== */

typedef enum DrtOptType {
  DRT_OPT_FLAG,    /* no value: *(bool *)dest = given (false if absent) */
  DRT_OPT_BOOL,    /* bool: hest's spellings (true/false, yes/no, on/off, t/f, y/n, 1/0) */
  DRT_OPT_INT,     /* int32_t[count] */
  DRT_OPT_LONG,    /* int64_t[count] (int with --long-int) */
  DRT_OPT_UINT,    /* uint32_t[count], non-negative (step counts) */
  DRT_OPT_FLOAT,   /* float[count] (real, tensors, real[n]) */
  DRT_OPT_DOUBLE,  /* double[count] (the same with --double) */
  DRT_OPT_STRING,  /* const char *: one word */
  DRT_OPT_FILE     /* const char *: a file name (images, T[], outputs) */
} DrtOptType;

/* One command-line option. NAME is hest's flag without dashes: "a,bb" for
 * -a / --bb, or "xyz" for -xyz only. An option that is not given gets DFLT
 * (command-line text, parsed like a value, e.g. "290 414") when DFLT is
 * non-NULL, keeps the value already in *dest when DFLT is NULL (that value
 * is hest's default, shown in the usage), and is an error when REQUIRED.
 * A string or file value given on the command line lives until
 * drt_cli_free; a default one points at DFLT. Names shadow: when a later
 * option has the same short name (a program input `h`, or `n` beside
 * -n/--nworkers), the earlier one keeps only its long form (--help,
 * --nworkers); without a long form it cannot be given (its default holds).
 * Names longer than DRT_CLI_MAX_NAME are refused (hest's fixed buffers). */
/* A DFLT that starts with DRT_CLI_COMPUTED is not a value: the program
 * computes the default when the option is not given (an input default
 * that is not a constant, doc/language.md §3); the rest of DFLT (its
 * source) is shown in the usage, and nothing is parsed or stored. */
#define DRT_CLI_COMPUTED "\001"

typedef struct DrtOption {
  const char *name;
  DrtOptType type;
  unsigned count;       /* values taken (tensor components); 0 means 1 */
  const char *desc;     /* help text, may be NULL */
  const char *dflt;     /* default as text, or NULL */
  bool required;
  void *dest;
  bool *given;          /* optional: set to whether it appeared */
} DrtOption;

#define DRT_CLI_MAX_NAME 200

typedef struct DrtCli {
  const char *prog;     /* program name in messages (argv[0] if NULL) */
  const char *info;     /* one-line description, or NULL */
  const DrtOption *opts;
  unsigned nopts;
  void *state;          /* hest's parse, owned by drt_cli_parse: NULL at first */
} DrtCli;

/* Results of drt_cli_parse. */
enum {
  DRT_CLI_OK = 0,       /* go on */
  DRT_CLI_HELP = 1,     /* -h/--help printed the usage: exit status 0 */
  DRT_CLI_ERROR = 2     /* a message and the usage went to err: exit 2 */
};

/* Parse argv[1..argc) (argv[0] is the program) with hest. -h prints the
 * usage and --help the usage and hest's glossary (every option with its
 * description, type and default) on out, wherever they appear. A repeated
 * option takes its last value (hest's rule). An unknown option, a stray
 * argument, a missing or bad value, or a missing required option prints one
 * message and the usage on err. Strings given on the command line stay
 * valid until drt_cli_free(cli), which every parse must be followed by. */
int drt_cli_parse(DrtCli *cli, int argc, const char *const *argv,
                  FILE *out, FILE *err);
/* Free what the last drt_cli_parse kept (string values); cli can be parsed
 * again. Harmless when nothing was parsed. */
void drt_cli_free(DrtCli *cli);
/* The exit status for a parse result (0 for help, 2 for errors). */
int drt_cli_exit_status(int result);
/* An input chosen among names (a kernel#k input, doc/language.md §6.9):
 * the index of `text` in names[0 .. n), or -1 after "PROG: error: input
 * 'NAME': 'TEXT' is not one of its KIND choices: a, b, c" on err. */
int drt_cli_choice(const char *prog, const char *name, const char *kind, const char *text,
                   const char *const *names, unsigned n, FILE *err);
/* Print hest's usage, and with `full` the description and the glossary. */
void drt_cli_usage(const DrtCli *cli, const char *prog, FILE *f, bool full);

/* The standard options of a generated executable, in the original's order
 * (-l, -s, -print, -v, -t, -n), then ours (-q, -sched-chunk, -sched-steps,
 * and -sched-writer with snapshots). Outputs (-o / -o-NAME, -sp / -sp-NAME)
 * depend on the program and are table entries the generated code writes
 * itself, e.g.
 *   { "o,output", DRT_OPT_FILE, 1, "output file", "rgb.nrrd", false, &o }
 *   { "o-rgb,output-rgb", DRT_OPT_FILE, 1, "...", "rgb.nrrd", false, &o1 }
 *   { "sp,snapshot-prefix", DRT_OPT_FILE, 1, "...", "rgb", false, &sp } */
typedef struct DrtStdOptions {
  uint32_t limit;          /* -l/--limit: super-step limit, 0 = none */
  const char *print_file;  /* -print: "-" = stdout */
  bool verbose;            /* -v/--verbose */
  bool timing;             /* -t/--timing */
  uint32_t nworkers;       /* -n/--nworkers (parallel target), 0 = all */
  uint32_t snapshot;       /* -s/--snapshot period, 0 = none (doc/differences.md, Q13) */
  bool quiet;              /* -q/--quiet: no progress line (ours) */
  /* -sched-chunk, -sched-steps, -sched-writer (ours, last): the run-time
   * schedule (diderot_world.h); given ones are put in the environment
   * (DIDEROT_SCHED_CHUNK, ...), where the world reads them as its run
   * begins */
  uint32_t sched_chunk;
  const char *sched_steps_text, *sched_writer;
  /* -schedule "KEY=VALUE ...": the same with the schedule file's keys,
   * omp-schedule too (rt_schedule.c drt_sched_text) */
  const char *schedule_text;
  const char *trace_file;  /* -trace FILE (ours, DRT_CLI_TRACE): NULL = none */
} DrtStdOptions;

/* -trace FILE in a generated main (rt_trace.c): written to a temporary
 * beside FILE, renamed over it by close ("-": standard output); both print their error (naming
 * prog) to stderr and return true after one. */
typedef struct DrtTraceFile {
  FILE *f;
  const char *path;
  char *tmp;
} DrtTraceFile;
bool drt_trace_file_open(DrtTraceFile *t, const char *path, const char *prog);
bool drt_trace_file_close(DrtTraceFile *t, const char *prog);

/* DRT_CLI_TRACE: -trace, where the run is the C runtime's (not the CUDA
 * or MPI targets', which do not write the record) */
enum { DRT_CLI_PARALLEL = 1, DRT_CLI_SNAPSHOT = 2, DRT_CLI_TRACE = 4 };
#define DRT_CLI_MAX_STD 12

/* Write the standard option entries (at most DRT_CLI_MAX_STD) into tab,
 * bound to *so, for the features given (DRT_CLI_* bits); returns the
 * number written. *so need not be initialised: every entry has a default. */
unsigned drt_cli_std_options(DrtOption *tab, DrtStdOptions *so,
                             unsigned features);

#ifdef __cplusplus
}
#endif

/* The spatial index of sphere() queries (rt_spatial.c). */
#include "diderot_spatial.h"

#endif
