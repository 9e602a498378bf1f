/* vw_render.h -- the viewer's side of the library that diderotc makes from
 * viewer.diderot (namespace vwprog): the volume, the view, one render. */
#ifndef VW_RENDER_H_INCLUDED
#define VW_RENDER_H_INCLUDED

#include <stdbool.h>
#include <teem/nrrd.h>

typedef struct {
    Nrrd *nrrd;        /* the volume as loaded; handed to every render */
    double center[3];  /* centre of its world-space bounding box */
    double radius;     /* half the box's diagonal */
    double vmin, vmax; /* range of its samples: the isovalue slider's ends */
} vw_volume;

/* What one render takes. The numbers are floats because the program's reals
 * are: the dump (vw_frame.h) writes them exactly, so the executable made
 * from the same program can render the same view bit for bit. */
typedef struct {
    float eye[3], at[3], up[3];
    float fov;     /* degrees, vertical */
    float radius;  /* rays sample within this distance of the look-at plane */
    int w, h;      /* image size in pixels */
    float step;    /* ray step, world units */
    int mode;      /* VW_MIP or VW_DVR */
    float iso;     /* DVR: isovalue */
    float thick;   /* DVR: thickness of the soft isosurface, world units */
} vw_view;

enum { VW_MIP = 0, VW_DVR = 1 };

/* Load a 3-D scalar volume; false with a message in err (size n) if it
 * cannot be loaded or is not one. */
bool vw_volume_load(vw_volume *v, const char *path, char *err, size_t n);
void vw_volume_free(vw_volume *v);

/* Called between super-steps of a render (through the library's progress
 * callback); returning true abandons the render, so that new input from
 * the user is not kept waiting by a frame that is already out of date. */
typedef bool (*vw_cancel_fn)(void *data);

typedef enum { VW_RENDER_DONE, VW_RENDER_CANCELLED, VW_RENDER_FAILED } vw_render_status;

/* Render view into rgb (3*w*h floats, row by row from the top left,
 * premultiplied colour over black). threads: OpenMP workers when the library
 * was built with --target=omp (0: one per processor), ignored otherwise.
 * On VW_RENDER_FAILED err holds the runtime's message. */
vw_render_status vw_render(const vw_volume *vol, const vw_view *view, float *rgb,
                           unsigned threads, vw_cancel_fn cancel, void *data,
                           char *err, size_t n);

#endif
