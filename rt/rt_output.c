/* rt_output.c -- output NRRDs in the layouts of doc/language.md §13.
 *
 * The generated code asks for a Nrrd with the right axes and either fills
 * its data strand by strand and saves it (drt_output_save), or leaves the
 * data out and hands over a function that copies the next strands'
 * values (drt_output_save_parts): then the values go from the strand
 * state to the file through one small buffer, with no output-sized array
 * to allocate, fault in and copy. Saving goes through a temporary file in
 * the target's directory and rename(2), so a failure (disk full, bad
 * directory, a Teem error) never leaves a truncated output behind and
 * never destroys a previous good file. The executable's snapshots are
 * written into memory here and saved by a writer thread (rt_writer.c).
 */
#define _GNU_SOURCE /* renameat2, RENAME_EXCHANGE (Linux) */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <teem/biff.h>

#include "rt_internal.h"

int drt_output_kind(unsigned seqlen, unsigned rank, const unsigned *shape,
                    unsigned *ncomp) {
  unsigned c = 1;
  for (unsigned r = 0; r < rank; r++) c *= shape[r];
  int kind = nrrdKindList;
  if (rank == 1 && shape[0] == 2) kind = nrrdKind2Vector;
  else if (rank == 1 && shape[0] == 3) kind = nrrdKind3Vector;
  else if (rank == 1 && shape[0] == 4) kind = nrrdKind4Vector;
  else if (rank == 2 && shape[0] == 2 && shape[1] == 2) kind = nrrdKind2DMatrix;
  else if (rank == 2 && shape[0] == 3 && shape[1] == 3) kind = nrrdKind3DMatrix;
  if (seqlen > 1) { /* T[n]: the elements one after the other, a list */
    c *= seqlen;
    kind = nrrdKindList;
  }
  if (ncomp) *ncomp = c;
  return c > 1 ? kind : nrrdKindUnknown;
}

size_t drt_domain_count(const DrtDomain *dom) {
  if (dom->naxes == 0) return dom->count;
  size_t n = 1;
  for (unsigned i = 0; i < dom->naxes; i++) n *= dom->sizes[i];
  return n;
}

/* Append the domain axes (reversed grid axes of kind space, or one list
 * axis) to sizes/kinds starting at axis `at`; returns the new dimension,
 * or 0 after an error. */
static unsigned domain_axes(DrtErrors *e, const char *what,
                            const DrtDomain *dom, unsigned at, size_t *sizes,
                            int *kinds) {
  if (dom->naxes == 0) {
    if (dom->count == 0) {
      drt_error(e, "%s: no strands, so nothing to write", what);
      return 0;
    }
    sizes[at] = dom->count;
    kinds[at] = nrrdKindList;
    return at + 1;
  }
  if (at + dom->naxes > NRRD_DIM_MAX || !dom->sizes) {
    drt_error(e, "%s: cannot write a grid of %u axes", what, dom->naxes);
    return 0;
  }
  for (unsigned i = 0; i < dom->naxes; i++) {
    size_t s = dom->sizes[dom->naxes - 1 - i]; /* last iterator fastest */
    if (s == 0) {
      drt_error(e, "%s: no strands, so nothing to write", what);
      return 0;
    }
    sizes[at + i] = s;
    kinds[at + i] = nrrdKindSpace;
  }
  return at + dom->naxes;
}

/* Allocate n as a fresh array of `type` with the given axes. Not zeroed:
 * the generated code writes every sample (each included strand's every
 * component; the dynamic sequences' elements end to end), and a second
 * pass over a large output costs as much as the copy. */
/* What an output's bytes come from: nrrd->data, or (fill set) the
 * header nrrd and fill, which copies the next items, at most cap of them,
 * into buf and returns how many it copied, or (bytes set) a whole file
 * already written in memory. */
typedef struct {
  const Nrrd *nrrd;
  DrtOutFill fill;
  void *ctx;
  size_t item_bytes;
  const char *bytes;
  size_t nbytes;
} OutSource;

static bool alloc(DrtErrors *e, const char *what, Nrrd *n, int type,
                  unsigned dim, const size_t *sizes, const int *kinds, bool data_too) {
  size_t total = nrrdTypeSize[type];
  for (unsigned i = 0; i < dim; i++) {
    if (sizes[i] != 0 && total > SIZE_MAX / sizes[i]) {
      drt_error(e, "%s: output too large", what);
      return true;
    }
    total *= sizes[i];
  }
  nrrdEmpty(n);
  if (!data_too) {
    /* the axes only: the data pointer stays NULL until a save needs one */
    n->type = type;
    n->dim = dim;
    nrrdAxisInfoSet_nva(n, nrrdAxisInfoSize, sizes);
    for (unsigned i = 0; i < dim; i++) n->axis[i].kind = kinds[i];
    return false;
  }
  /* what the output needs, against what the process may use (rt_mem.c) */
  uint64_t count = total / nrrdTypeSize[type];
  if (drt_mem_refuse(e, what, count, "values", total)) return true;
  void *data = drt_big_alloc(64, total ? total : 1);
  if (!data) {
    drt_mem_failed(e, what, count, "values", total);
    return true;
  }
  if (nrrdWrap_nva(n, data, type, dim, sizes)) {
    free(data);
    drt_error_biff(e, what, NULL, "cannot allocate the output", NRRD);
    return true;
  }
  for (unsigned i = 0; i < dim; i++) n->axis[i].kind = kinds[i];
  return false;
}

static bool out_type_ok(DrtErrors *e, const char *what, const DrtOutSpec *spec) {
  if (!drt_type_ok(spec->type) || spec->ncomp < 1) {
    drt_error(e, "%s: invalid output description (internal error)", what);
    return false;
  }
  return true;
}

static bool output_shape(DrtErrors *e, const char *what, Nrrd *nout,
                         const DrtOutSpec *spec, const DrtDomain *dom, bool data_too) {
  if (!what) what = "output";
  if (!out_type_ok(e, what, spec)) return true;
  size_t sizes[NRRD_DIM_MAX];
  int kinds[NRRD_DIM_MAX];
  unsigned at = 0;
  if (spec->ncomp > 1) {
    sizes[0] = spec->ncomp;
    kinds[0] = spec->kind;
    at = 1;
  }
  unsigned dim = domain_axes(e, what, dom, at, sizes, kinds);
  if (dim == 0) return true;
  return alloc(e, what, nout, spec->type, dim, sizes, kinds, data_too);
}

bool drt_output_alloc(DrtErrors *e, const char *what, Nrrd *nout,
                      const DrtOutSpec *spec, const DrtDomain *dom) {
  return output_shape(e, what, nout, spec, dom, true);
}

bool drt_output_head(DrtErrors *e, const char *what, Nrrd *nout,
                     const DrtOutSpec *spec, const DrtDomain *dom) {
  return output_shape(e, what, nout, spec, dom, false);
}

bool drt_output_alloc_dynseq(DrtErrors *e, const char *what, Nrrd *nlen,
                             Nrrd *ndata, const DrtOutSpec *spec,
                             const DrtDomain *dom, const uint32_t *lengths) {
  if (!what) what = "output";
  if (!out_type_ok(e, what, spec)) return true;
  size_t sizes[NRRD_DIM_MAX];
  int kinds[NRRD_DIM_MAX];
  sizes[0] = 2;
  kinds[0] = nrrdKind2Vector;
  unsigned dim = domain_axes(e, what, dom, 1, sizes, kinds);
  if (dim == 0) return true;
  if (!lengths) {
    drt_error(e, "%s: no sequence lengths (internal error)", what);
    return true;
  }
  /* allocating first also rejects a strand count that overflows */
  if (alloc(e, what, nlen, nrrdTypeInt, dim, sizes, kinds, true)) return true;
  size_t nstrands = drt_domain_count(dom);
  /* (offset, length) pairs; offsets must fit the 32-bit int of the file */
  uint64_t total = 0;
  for (size_t i = 0; i < nstrands; i++) total += lengths[i];
  if (total > INT32_MAX) {
    drt_error(e, "%s: %llu sequence elements in all, more than the lengths "
              "file can index", what, (unsigned long long)total);
    nrrdEmpty(nlen);
    return true;
  }
  int32_t *pairs = nlen->data;
  int32_t off = 0;
  for (size_t i = 0; i < nstrands; i++) {
    pairs[2 * i] = off;
    pairs[2 * i + 1] = (int32_t)lengths[i];
    off += (int32_t)lengths[i];
  }
  if (total == 0) {
    nrrdEmpty(ndata);
    return false;
  }
  unsigned at = 0;
  if (spec->ncomp > 1) {
    sizes[0] = spec->ncomp;
    kinds[0] = spec->kind;
    at = 1;
  }
  sizes[at] = (size_t)total;
  kinds[at] = nrrdKindList;
  if (alloc(e, what, ndata, spec->type, at + 1, sizes, kinds, true)) {
    nrrdEmpty(nlen);
    return true;
  }
  return false;
}

/* ------------------------------------------------------------- saving */

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* nrrdSave's choice of format: the first available one whose name
 * pattern matches, NRRD otherwise. */
static const NrrdFormat *format_for(const char *file) {
  for (int f = nrrdFormatTypeUnknown + 1; f < nrrdFormatTypeLast; f++) {
    const NrrdFormat *fmt = nrrdFormatArray[f];
    if (fmt && fmt->available() && fmt->nameLooksLike(file)) return fmt;
  }
  return nrrdFormatNRRD;
}

static NrrdIoState *io_state(const NrrdFormat *fmt) {
  NrrdIoState *nio = nrrdIoStateNew();
  if (nio) {
    nio->format = fmt;
    nio->encoding = nrrdEncodingRaw;
  }
  return nio;
}

/* After an interrupt (rt_exec.c) no output is started or completed. */
static bool interrupted(DrtErrors *e, const char *what, const char *file) {
  int sig = drt_interrupted();
  if (sig) drt_error_at(e, what, file, "not written: stopped by %s", drt_signal_name(sig));
  return sig != 0;
}

/* The data of src after its header (written with skipData): fill's items
 * through a small buffer (64 KiB: taken from the heap, not mapped fresh)
 * in large writes; every byte the header announces, or an error. */
static bool write_parts(DrtErrors *e, const char *what, const char *file,
                        FILE *f, const OutSource *src) {
  size_t want = nrrdElementNumber(src->nrrd) * nrrdElementSize(src->nrrd);
  size_t isz = src->item_bytes ? src->item_bytes : 1;
  size_t cap = (64 * 1024) / isz ? (64 * 1024) / isz : 1;
  char *buf = malloc(cap * isz);
  if (!buf) {
    drt_error_at(e, what, file, "cannot write the output: out of memory");
    return true;
  }
  size_t done = 0, n;
  bool over = false;
  /* (an interrupt stops a long write: the file is dropped, see save_replace) */
  while (done < want && !drt_interrupted() && (n = src->fill(src->ctx, buf, cap)) > 0) {
    size_t left = (want - done) / isz;
    if (n > left) { /* never more bytes than the header announced */
      over = true;
      n = left;
    }
    if (fwrite(buf, isz, n, f) != n) break;
    done += n * isz;
  }
  /* a producer with items left over past the end is wrong too */
  if (!over && done == want && src->fill(src->ctx, buf, 1) > 0) over = true;
  free(buf);
  if (ferror(f)) return false; /* write_stream reports it */
  if (done == want && !over) return false;
  if (interrupted(e, what, file)) return true;
  if (over) {
    drt_error_at(e, what, file, "cannot write the output: more values than its %zu bytes (internal error)",
                 want);
    return true;
  }
  drt_error_at(e, what, file, "cannot write the output: %zu of %zu bytes produced (internal error)",
               done, want);
  return true;
}

/* Write head's NRRD header alone (with data: the whole file) to f
 * through Teem; errors name FILE. */
static bool write_nrrd(DrtErrors *e, const char *what, const char *file, FILE *f,
                       Nrrd *head, bool header_only, NrrdIoState *nio) {
  /* with skipData Teem writes the header (its blank line included) and
   * nothing else, but it still wants a data pointer to accept the Nrrd */
  static char placeholder;
  if (header_only) {
    nio->skipData = AIR_TRUE;
    head->data = &placeholder;
  }
  int bad = nrrdWrite(f, head, nio);
  if (header_only) head->data = NULL;
  if (bad) drt_error_biff(e, what, file, "cannot write the output", NRRD);
  return bad != 0;
}

/* Write src to the stream f and flush it; errors name FILE. */
static bool write_stream(DrtErrors *e, const char *what, const char *file,
                         FILE *f, const OutSource *src, NrrdIoState *nio) {
  bool err = false;
  if (src->bytes) /* a short write sets ferror, reported below */
    (void)fwrite(src->bytes, 1, src->nbytes, f);
  else
    err = write_nrrd(e, what, file, f, (Nrrd *)src->nrrd, src->fill != NULL, nio) ||
          (src->fill && write_parts(e, what, file, f, src));
  if ((fflush(f) != 0 || ferror(f)) && !err) {
    drt_error_at(e, what, file, "cannot write the output: %s", strerror(errno));
    err = true;
  }
  return err;
}

/* Write nrrd to the open descriptor fd and close it; errors name FILE. */
static bool write_fd(DrtErrors *e, const char *what, const char *file, int fd,
                     const OutSource *src, NrrdIoState *nio) {
  FILE *f = fdopen(fd, "wb");
  if (!f) {
    drt_error_at(e, what, file, "cannot write the output: %s", strerror(errno));
    close(fd);
    return true;
  }
  /* our buffer: stdio would fstat the file for its block size (a system
   * call per snapshot) and then write in pieces of 4 KB */
  enum { WRITE_BUFFER = 1 << 16 };
  char *buf = malloc(WRITE_BUFFER);
  if (buf) setvbuf(f, buf, _IOFBF, WRITE_BUFFER);
  bool err = write_stream(e, what, file, f, src, nio);
  if (fclose(f) != 0 && !err) {
    drt_error_at(e, what, file, "cannot write the output: %s", strerror(errno));
    err = true;
  }
  free(buf);
  return err;
}

/* The file a chain of symbolic links ends in (PATH itself when it is no
 * link), which may not exist (a dangling link): malloc'd, or NULL with
 * errno set (a loop, out of memory). Only the last component is followed;
 * the kernel resolves the directories, the same for a temporary file
 * made next to the result. *magic: a link of /proc (/dev/stdout,
 * /dev/fd/N) was followed, whose text names an open (maybe deleted) file
 * and not a place to rename to. */
char *drt_output_follow_links(const char *path, bool *magic) {
  struct stat proc;
  bool have_proc = false;
  int why = ELOOP; /* unless a call fails */
  *magic = false;
  char *cur = strdup(path);
  for (int hops = 0; cur && hops < 40; hops++) {
    struct stat st;
    if (lstat(cur, &st) != 0) {
      if (errno == ENOENT) return cur; /* to be created */
      why = errno;
      break;
    }
    if (!S_ISLNK(st.st_mode)) return cur;
    if (!have_proc) have_proc = lstat("/proc", &proc) == 0;
    if (have_proc && st.st_dev == proc.st_dev) {
      *magic = true;
      return cur;
    }
    size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 256;
    char *link = NULL;
    ssize_t n;
    for (;;) { /* st_size may be stale */
      char *l = realloc(link, cap);
      if (!l) {
        n = -1;
        break;
      }
      link = l;
      n = readlink(cur, link, cap);
      if (n < 0 || (size_t)n < cap) break;
      cap *= 2;
    }
    if (n < 0) {
      why = errno;
      free(link);
      break;
    }
    link[n] = '\0';
    /* a relative link is relative to the directory holding it */
    const char *slash = strrchr(cur, '/');
    char *next = link;
    if (link[0] != '/' && slash) {
      size_t dlen = (size_t)(slash - cur) + 1;
      next = malloc(dlen + (size_t)n + 1);
      if (next) {
        memcpy(next, cur, dlen);
        memcpy(next + dlen, link, (size_t)n + 1);
      }
      free(link);
    }
    free(cur);
    cur = next;
  }
  if (!cur) why = ENOMEM;
  free(cur);
  errno = why;
  return NULL;
}

static bool same_file(const struct stat *a, int fd) {
  struct stat b;
  return fstat(fd, &b) == 0 && a->st_dev == b.st_dev && a->st_ino == b.st_ino;
}

/* Write through an existing file that is not a regular one (device, FIFO,
 * socket, our own stdout): in place, never replaced or truncated. */
static bool save_special(DrtErrors *e, const char *what, const char *file,
                         const struct stat *st, const OutSource *src, NrrdIoState *nio) {
  /* /dev/stdout and the like: our stream, so the bytes stay in order
   * with what the program prints */
  if (same_file(st, STDOUT_FILENO)) return write_stream(e, what, file, stdout, src, nio);
  if (same_file(st, STDERR_FILENO)) return write_stream(e, what, file, stderr, src, nio);
  if (S_ISDIR(st->st_mode)) {
    drt_error_at(e, what, file, "cannot write the output: it is a directory");
    return true;
  }
  int fd;
  if (S_ISSOCK(st->st_mode)) { /* a listening Unix socket: connect */
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(file) >= sizeof sa.sun_path) {
      drt_error_at(e, what, file, "cannot write the output: socket path too long");
      return true;
    }
    strcpy(sa.sun_path, file);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (const struct sockaddr *)&sa, sizeof sa) != 0) {
      int saved = errno;
      close(fd);
      fd = -1;
      errno = saved;
    }
  } else {
    /* no O_CREAT, no O_TRUNC: a FIFO waits here for its reader */
    fd = open(file, O_WRONLY | O_NOCTTY);
  }
  if (fd < 0) {
    drt_error_at(e, what, file, "cannot open the output: %s", strerror(errno));
    return true;
  }
  return write_fd(e, what, file, fd, src, nio);
}

/* The complete new contents, named TMP, become TARGET's (old: TARGET
 * exists); TMP is gone afterwards either way. */
static bool put_in_place(DrtErrors *e, const char *what, const char *file, const char *via,
                         const char *target, const char *tmp, bool old) {
  bool swapped = false;
#ifdef RENAME_EXCHANGE
  /* Over an existing file, swap the two names (as atomic as rename) and
   * then remove the old contents: rename(2) onto an existing file makes
   * ext4 write the new data out inside the call (auto_da_alloc) besides
   * freeing the old blocks, 1.3x an in-place write of the probe
   * benchmark's outputs (bench/results.md); the exchange is as fast as
   * one. Where it is unsupported (EINVAL, ENOSYS) rename as before. */
  if (old && renameat2(AT_FDCWD, tmp, AT_FDCWD, target, RENAME_EXCHANGE) == 0) {
    swapped = true;
    if (unlink(tmp) != 0)
      drt_warning(e, "%s: the previous contents of '%s' are left in '%s': %s", what,
                  target, tmp, strerror(errno));
  }
#else
  (void)old;
#endif
  if (!swapped && rename(tmp, target) != 0) {
    if (via) drt_error_at(e, what, file, "cannot write the output '%s': %s", via, strerror(errno));
    else drt_error_at(e, what, file, "cannot write the output: %s", strerror(errno));
    unlink(tmp);
    return true;
  }
  return false;
}

/* A temporary name beside TARGET, created (fd >= 0: an unnamed file to
 * link there; else a new empty file, its descriptor in *out); NULL with
 * the error reported. */
static char *make_temp(DrtErrors *e, const char *what, const char *file, const char *via,
                       const char *target, int fd, int *out) {
  char *tmp = NULL;
  int err = 0;
  for (unsigned k = 0; k < 100; k++) {
    free(tmp);
    tmp = drt_tmp_name(target, k);
    if (!tmp) {
      err = ENOMEM;
      break;
    }
    int r = fd >= 0 ? drt_tmp_link(fd, tmp) : (*out = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666));
    if (r >= 0) return tmp;
    err = errno;
    if (err != EEXIST) break;
  }
  free(tmp);
  if (via) drt_error_at(e, what, file, "cannot create the output '%s': %s", via, strerror(err));
  else drt_error_at(e, what, file, "cannot create the output: %s", strerror(err));
  return NULL;
}

/* Write a regular file as TARGET: into a file without a name in its
 * directory (O_TMPFILE), named only when complete, so that neither a
 * failed write nor a killed run leaves a partial file or a temporary;
 * where the file system has no unnamed files, under a temporary name and
 * then rename(2) (a killed run's temporary is removed by the next run:
 * drt_tmp_sweep). An existing file's permission bits are kept (old: its
 * stat, or NULL). Errors name FILE, and TARGET when it is the end of a
 * link. */
static bool save_replace(DrtErrors *e, const char *what, const char *file,
                         const char *target, const struct stat *old,
                         const OutSource *src, NrrdIoState *nio) {
  const char *via = strcmp(file, target) != 0 ? target : NULL;
  drt_tmp_sweep(target);
  int fd = drt_tmp_open_unnamed(target);
  if (fd >= 0) {
    if (old) (void)fchmod(fd, old->st_mode & 0777); /* best effort */
    int keep = dup(fd); /* write_fd closes fd; the name is given after */
    if (keep < 0) {
      drt_error_at(e, what, file, "cannot create the output: %s", strerror(errno));
      close(fd);
      return true;
    }
    bool err = write_fd(e, what, file, fd, src, nio) || interrupted(e, what, file);
    if (!err && !old) {
      /* A new file (a snapshot, a first run) takes its name at once; if
       * the name appeared meanwhile, it is replaced as an existing file is */
      if (drt_tmp_link(keep, target) == 0) {
        close(keep);
        return false;
      }
      if (errno != EEXIST) {
        if (via) drt_error_at(e, what, file, "cannot create the output '%s': %s", via, strerror(errno));
        else drt_error_at(e, what, file, "cannot create the output: %s", strerror(errno));
        err = true;
      }
    }
    char *tmp = err ? NULL : make_temp(e, what, file, via, target, keep, NULL);
    close(keep); /* an unnamed file not linked disappears here */
    err = err || !tmp || put_in_place(e, what, file, via, target, tmp, true);
    free(tmp);
    return err;
  }
  int tfd = -1;
  char *tmp = make_temp(e, what, file, via, target, -1, &tfd);
  if (!tmp) return true;
  if (old) (void)fchmod(tfd, old->st_mode & 0777); /* best effort */
  bool err = write_fd(e, what, file, tfd, src, nio) || interrupted(e, what, file);
  if (err) unlink(tmp);
  else err = put_in_place(e, what, file, via, target, tmp, old != NULL);
  free(tmp);
  return err;
}

/* Save src to file (what drt_output_save says); fmt: format_for's, or
 * NRRD for "-". A source in parts is written in parts only where the
 * result is one NRRD stream (not a detached header). */
static bool save_source(DrtErrors *e, const char *what, const char *file,
                        const NrrdFormat *fmt, const OutSource *src) {
  if (interrupted(e, what, file)) return true;
  bool dash = strcmp(file, "-") == 0;
  NrrdIoState *nio = io_state(fmt);
  if (!nio) {
    drt_error(e, "%s: out of memory writing '%s'", what, file);
    return true;
  }
  /* lstat first: a name that is no link (a snapshot, most outputs) needs
   * neither stat nor the walk of follow_links */
  struct stat st;
  errno = 0;
  bool link = false, exists = false;
  if (!dash && lstat(file, &st) == 0) {
    link = S_ISLNK(st.st_mode);
    exists = !link || stat(file, &st) == 0;
  }
  bool err = false;
  if (dash) {
    err = write_stream(e, what, file, stdout, src, nio);
  } else if (!exists && errno != ENOENT) {
    drt_error_at(e, what, file, "cannot write the output: %s", strerror(errno));
    err = true;
  } else if (exists && (!S_ISREG(st.st_mode) || same_file(&st, STDOUT_FILENO) ||
                        same_file(&st, STDERR_FILENO))) {
    /* a device, a FIFO, or `-o /dev/stdout > out.nrrd`, where renaming
     * would cut our own stdout off */
    err = save_special(e, what, file, &st, src, nio);
  } else if (fmt == nrrdFormatNRRD && ends_with(file, ".nhdr")) {
    err = drt_nhdr_save(e, what, file, src->nrrd, nio); /* rt_nhdr.c */
  } else {
    /* a regular file, a new one, or a dangling link: replace the file at
     * the end of the links, so that a link stays a link */
    bool magic = false;
    char *target = link ? drt_output_follow_links(file, &magic) : strdup(file);
    if (!target) {
      drt_error_at(e, what, file, "cannot write the output: %s", strerror(errno));
      err = true;
    } else if (magic && exists) {
      /* an open file reached through /proc: append through it, as the
       * shell's `>>` would; its name is no place to rename to */
      int fd = open(file, O_WRONLY | O_APPEND | O_NOCTTY);
      if (fd < 0) {
        drt_error_at(e, what, file, "cannot open the output: %s", strerror(errno));
        err = true;
      } else {
        err = write_fd(e, what, file, fd, src, nio);
      }
    } else if (magic) {
      drt_error_at(e, what, file, "cannot write the output: %s", strerror(ENOENT));
      err = true;
    } else {
      err = save_replace(e, what, file, target, exists ? &st : NULL, src, nio);
    }
    free(target);
  }
  nrrdIoStateNix(nio);
  return err;
}

/* The checks both entry points make; NULL when they fail. */
static const NrrdFormat *save_format(DrtErrors *e, const char **what, const char *file,
                                     const Nrrd *nrrd, bool need_data) {
  if (!*what) *what = "output";
  if (!file || !*file) {
    drt_error(e, "%s: no output file name", *what);
    return NULL;
  }
  if (!nrrd || (need_data && !nrrd->data)) {
    drt_error(e, "%s: nothing to write to '%s'", *what, file);
    return NULL;
  }
  return strcmp(file, "-") == 0 ? nrrdFormatNRRD : format_for(file);
}

bool drt_output_save(DrtErrors *e, const char *what, const char *file,
                     const Nrrd *nrrd) {
  const NrrdFormat *fmt = save_format(e, &what, file, nrrd, true);
  if (!fmt) return true;
  OutSource src = {.nrrd = nrrd};
  return save_source(e, what, file, fmt, &src);
}

/* Fill's items, exactly `bytes` bytes of them, into data. */
static bool fill_all(DrtErrors *e, const char *what, size_t item_bytes, DrtOutFill fill,
                     void *ctx, void *data, size_t bytes) {
  size_t isz = item_bytes ? item_bytes : 1, got = 0, n;
  while (got < bytes / isz && (n = fill(ctx, (char *)data + got * isz, bytes / isz - got)) > 0)
    got += n;
  if (got * isz != bytes) {
    drt_error(e, "%s: %zu of %zu bytes produced (internal error)", what, got * isz, bytes);
    return true;
  }
  /* a producer with items left over past the end is wrong too */
  char *probe = malloc(isz);
  bool over = probe && fill(ctx, probe, 1) > 0;
  free(probe);
  if (over) {
    drt_error(e, "%s: more values than its %zu bytes (internal error)", what, bytes);
    return true;
  }
  return false;
}

bool drt_output_save_parts(DrtErrors *e, const char *what, const char *file,
                           Nrrd *head, size_t item_bytes, DrtOutFill fill, void *ctx) {
  const NrrdFormat *fmt = save_format(e, &what, file, head, false);
  if (!fmt) return true;
  if (fmt == nrrdFormatNRRD && !ends_with(file, ".nhdr")) {
    OutSource src = {.nrrd = head, .fill = fill, .ctx = ctx, .item_bytes = item_bytes};
    return save_source(e, what, file, fmt, &src);
  }
  /* other formats (and a detached header) go through Teem whole: the
   * data in one array first */
  size_t bytes = nrrdElementNumber(head) * nrrdElementSize(head);
  uint64_t count = nrrdElementNumber(head);
  if (drt_mem_refuse(e, what, count, "values", bytes)) return true;
  void *data = drt_big_alloc(64, bytes ? bytes : 1);
  if (!data) {
    drt_mem_failed(e, what, count, "values", bytes);
    return true;
  }
  if (fill_all(e, what, item_bytes, fill, ctx, data, bytes)) {
    free(data);
    return true;
  }
  head->data = data;
  OutSource whole = {.nrrd = head};
  bool err = save_source(e, what, file, fmt, &whole);
  head->data = NULL;
  free(data);
  return err;
}

/* ------------------------------------------- whole files in memory */

bool drt_output_plain(const char *file) {
  if (!file || !*file || strcmp(file, "-") == 0 || ends_with(file, ".nhdr") ||
      format_for(file) != nrrdFormatNRRD)
    return false;
  struct stat st;
  if (lstat(file, &st) != 0) return errno == ENOENT;
  return S_ISREG(st.st_mode) && !same_file(&st, STDOUT_FILENO) &&
         !same_file(&st, STDERR_FILENO);
}

bool drt_output_to_memory(DrtErrors *e, const char *what, const char *file, Nrrd *head,
                          size_t item_bytes, DrtOutFill fill, void *ctx, char **bytes,
                          size_t *skip, size_t *nbytes) {
  if (!what) what = "output";
  /* the header through Teem into a memory stream, then the data straight
   * from fill into one buffer of the file's exact size */
  char *hdr = NULL;
  size_t hlen = 0;
  NrrdIoState *nio = io_state(nrrdFormatNRRD);
  FILE *f = nio ? open_memstream(&hdr, &hlen) : NULL;
  if (!f) {
    if (nio) nrrdIoStateNix(nio);
    drt_error_at(e, what, file, "cannot write the output: out of memory");
    return true;
  }
  bool bad = write_nrrd(e, what, file, f, head, true, nio);
  nrrdIoStateNix(nio);
  if (fclose(f) != 0 && !bad) {
    drt_error_at(e, what, file, "cannot write the output: out of memory");
    bad = true;
  }
  if (bad) {
    free(hdr);
    return true;
  }
  size_t want = nrrdElementNumber(head) * nrrdElementSize(head);
  /* fill stores typed values: the data start as aligned as malloc's
   * memory, the header just before them */
  enum { DATA_ALIGN = 16 };
  size_t at = (hlen + DATA_ALIGN - 1) / DATA_ALIGN * DATA_ALIGN;
  /* a snapshot waits in memory for the writer thread: its whole file */
  uint64_t count = nrrdElementNumber(head), need = drt_mem_add(at + 1, want);
  bool refused = drt_mem_refuse(e, what, count, "values", need);
  char *buf = refused ? NULL : malloc(at + want + 1);
  if (!buf) {
    free(hdr);
    if (!refused) drt_mem_failed(e, what, count, "values", need);
    return true;
  }
  memcpy(buf + at - hlen, hdr, hlen);
  free(hdr);
  if (fill_all(e, what, item_bytes, fill, ctx, buf + at, want)) {
    free(buf);
    return true;
  }
  *bytes = buf;
  *skip = at - hlen;
  *nbytes = hlen + want;
  return false;
}

bool drt_output_save_bytes(DrtErrors *e, const char *what, const char *file,
                           const char *bytes, size_t nbytes) {
  if (!what) what = "output";
  OutSource src = {.bytes = bytes, .nbytes = nbytes};
  return save_source(e, what, file, nrrdFormatNRRD, &src);
}

char *drt_output_filename(const char *prefix, const char *part,
                          long long step) {
  size_t n = strlen(prefix) + (part ? strlen(part) : 0) + 32;
  char *s = malloc(n);
  if (!s) return NULL;
  int k = snprintf(s, n, "%s", prefix);
  if (part) k += snprintf(s + k, n - (size_t)k, "-%s", part);
  if (step >= 0) k += snprintf(s + k, n - (size_t)k, "-%04lld", step);
  snprintf(s + k, n - (size_t)k, ".nrrd");
  return s;
}

bool drt_output_save_dynseq(DrtErrors *e, const char *what,
                            const char *prefix, long long step,
                            const Nrrd *nlen, const Nrrd *ndata) {
  if (!what) what = "output";
  char *lname = drt_output_filename(prefix, "len", step);
  char *dname = drt_output_filename(prefix, "data", step);
  bool err = false;
  if (!lname || !dname) {
    drt_error(e, "%s: out of memory", what);
    err = true;
  } else if (drt_output_save(e, what, lname, nlen)) {
    err = true;
  } else if (!ndata || !ndata->data) {
    drt_warning(e, "%s: every sequence is empty, so '%s' is not written",
                what, dname);
  } else {
    err = drt_output_save(e, what, dname, ndata);
  }
  free(lname);
  free(dname);
  return err;
}
