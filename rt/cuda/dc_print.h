/* dc_print.h -- `print` in strand code on the device (doc/language.md §7.2),
 * included by the generated device half before its strand methods when
 * they print (D_HAS_PRINT).
 *
 * A print statement appends a record to the step's print buffer: a header
 * (phase, worklist position of the strand, the strand's k-th record,
 * print site, size) and the bytes of its non-literal arguments. After the
 * kernel the host copies the buffer back, orders the records by (phase,
 * position, k) and formats them with the same functions as the C targets
 * (d_print_record, generated: one case per print site). The output is
 * therefore that of the sequential C target: start methods of the step's
 * fresh strands in strand order, then the updates (with the stabilize
 * methods they lead to) in strand order.
 *
 * A full buffer refuses the record, the byte counter still records the
 * demand, and the host runs the step again with a buffer that fits (as for
 * sphere results, dc_run.h), so no output is lost.
 */
#ifndef DIDEROT_CUDA_PRINT_H
#define DIDEROT_CUDA_PRINT_H

/* The header of a record; the arguments follow, each at a multiple of 8. */
typedef struct DcPrintHead {
  uint32_t phase, w, k, site, bytes, pad_;
} DcPrintHead;

static DC_HD inline uint32_t dc_print_round(uint32_t n) { return (n + 7u) & ~7u; }

/* Room for a record of `bytes` (a multiple of 8, header included) for the
 * strand at worklist position w; NULL when the buffer is full. */
static DC_DEV inline unsigned char *dc_print_alloc(const DcStep *a, uint32_t phase, uint32_t w,
                                                   uint32_t k, uint32_t site, uint32_t bytes) {
  uint32_t at = atomicAdd(&a->cnt->pbytes, bytes);
  if (at > a->pcap || bytes > a->pcap - at) return NULL;
  unsigned char *r = a->pbuf + at;
  DcPrintHead h = {phase, w, k, site, bytes, 0u};
  memcpy(r, &h, sizeof h);
  return r;
}

/* defined by the generated code: the text of one record */
static void d_print_record(FILE *f, uint32_t site, const unsigned char *args);
/* defined by the host half: where print output goes */
extern "C" FILE *d_cuda_print_file(void *hostw);

typedef struct DcPrintKey {
  uint32_t phase, w, k, at;
} DcPrintKey;

static int dc_print_cmp(const void *a_, const void *b_) {
  const DcPrintKey *a = (const DcPrintKey *)a_, *b = (const DcPrintKey *)b_;
  if (a->phase != b->phase) return a->phase < b->phase ? -1 : 1;
  if (a->w != b->w) return a->w < b->w ? -1 : 1;
  return a->k < b->k ? -1 : a->k > b->k;
}

/* Print the `bytes` bytes of records in buf (device) to f, in order. */
static bool dc_print_flush(DrtErrors *err, FILE *f, const unsigned char *buf, uint32_t bytes) {
  if (!bytes) return true;
  unsigned char *h = (unsigned char *)malloc(bytes);
  size_t cap = bytes / sizeof(DcPrintHead);
  DcPrintKey *keys = (DcPrintKey *)malloc((cap ? cap : 1) * sizeof *keys);
  bool ok = h && keys;
  if (!ok) drt_error(err, "out of memory for print output");
  ok = ok && dc_ok(err, cudaMemcpy(h, buf, bytes, cudaMemcpyDeviceToHost), "copy");
  size_t n = 0;
  for (uint32_t at = 0; ok && at < bytes;) {
    DcPrintHead r;
    memcpy(&r, h + at, sizeof r);
    if (r.bytes < sizeof r || r.bytes > bytes - at || n == cap) {
      drt_error(err, "internal: a malformed print record");
      ok = false;
      break;
    }
    keys[n].phase = r.phase;
    keys[n].w = r.w;
    keys[n].k = r.k;
    keys[n].at = at;
    n++;
    at += r.bytes;
  }
  if (ok) {
    qsort(keys, n, sizeof *keys, dc_print_cmp);
    for (size_t i = 0; i < n; i++) {
      DcPrintHead r;
      memcpy(&r, h + keys[i].at, sizeof r);
      d_print_record(f, r.site, h + keys[i].at + sizeof r);
    }
  }
  free(h);
  free(keys);
  return ok;
}

#endif
