/* proxy.h -- reading the header of a "proxy" NRRD at compile time (§8.2).
 *
 * `load_image("f.nrrd")` in a declaration makes f.nrrd the proxy: its
 * header fixes the sample type and the number of components (sizes are
 * run-time values; they are read here only to report them). Only the
 * header is read (Teem,
 * nrrdLoad with skipData), then normalized as the runtime will (§8.3).
 */
#ifndef DIDEROT_FRONTEND_PROXY_H
#define DIDEROT_FRONTEND_PROXY_H

#include <stdbool.h>
#include <stddef.h>

typedef struct ProxyInfo {
  int dim;            /* number of spatial axes (= space dimension) */
  int ncomp;          /* components per sample (1 for scalar images) */
  int order;          /* the voxel shape the component axis's kind implies: */
  int shape[2];       /* 3-vector -> [3], 3D-matrix -> [3,3], none -> [] */
  int sizes[3];       /* spatial axis sizes, fastest first */
  int nrrd_type;      /* Teem's nrrdType* value */
  const char *type_name; /* "float", "uchar", ... (static string) */
  bool bad_type;      /* failure: a readable header with an unsupported
                         sample type, named by type_name */
} ProxyInfo;

/* Read and check the header of `path`. On failure returns false and writes
 * a one-line reason (no file name) into err[0..errlen), and sets bad_type
 * when the reason is the sample type. */
bool proxy_read(const char *path, ProxyInfo *out, char *err, size_t errlen);

#endif
