/* rt_nrrd_guard.h -- what must not reach Teem's NRRD reader
 * (rt_nrrd_guard.c). Compiled into the runtime (rt_image.c, before it
 * loads an input) and into the compiler (src/frontend/proxy.c, before it
 * reads a proxy header): it needs only the C library. */
#ifndef DIDEROT_RT_NRRD_GUARD_H
#define DIDEROT_RT_NRRD_GUARD_H

#include <stddef.h>

/* 1 (and why, in msg) when `file` holds what crashes Teem 1.12's reader
 * instead of failing it: a header line, an ascii sample or a file name
 * beyond its message buffers; 0 otherwise (Teem then reads it and says
 * what is wrong, if anything). */
int drt_nrrd_guard(const char *file, char *msg, size_t len);

#endif
