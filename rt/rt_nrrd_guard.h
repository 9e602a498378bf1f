/* rt_nrrd_guard.h -- what must not reach Teem's NRRD reader
 * (rt_nrrd_guard.c). Compiled into the runtime (rt_image.c, before it
 * loads an input) and into the compiler (src/frontend/proxy.c, before it
 * reads a proxy header): it needs only the C library. */
#ifndef DIDEROT_RT_NRRD_GUARD_H
#define DIDEROT_RT_NRRD_GUARD_H

#include <stddef.h>
#include <stdio.h>

/* 1 (and why, in msg) when `file` holds what crashes Teem 1.12's reader
 * instead of failing it: a header line, an ascii sample or a file name
 * beyond its message buffers; 0 otherwise (Teem then reads it and says
 * what is wrong, if anything). */
int drt_nrrd_guard(const char *file, char *msg, size_t len);
/* The same for a file already open (standard input's copy: rt_image.c),
 * read from its start and left rewound; `file` names where a detached data
 * file is looked for beside ("-": the working directory). */
int drt_nrrd_guard_stream(FILE *f, const char *file, char *msg, size_t len);

#endif
