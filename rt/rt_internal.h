/* rt_internal.h -- helpers shared by the runtime's source files (not
 * installed). */
#ifndef DIDEROT_RT_INTERNAL_H
#define DIDEROT_RT_INTERNAL_H

#include "diderot_rt.h"

/* A numeric scalar Teem type (not block, not unknown). */
bool drt_type_ok(int type);
/* Teem's name for a type, or "unknown". */
const char *drt_type_name(int type);
/* Load FILE into a new Nrrd (NULL and an error on failure). */
Nrrd *drt_load_nrrd(DrtErrors *e, const char *what, const char *file);

#endif
