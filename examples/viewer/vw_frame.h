/* vw_frame.h -- the viewer's framebuffer: the rendered image, the text over
 * it, the slider below it, and the dump that the tests compare.
 *
 * Everything the window shows is drawn here into one buffer of 0xRRGGBB
 * pixels, which vw_main.c copies to the window as it is; so a dump of this
 * buffer is exactly what is on screen (tests/viewer checks that against a
 * screenshot too). */
#ifndef VW_FRAME_H_INCLUDED
#define VW_FRAME_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>

#include "vw_render.h"

#define VW_PANEL_H 24     /* the strip below the image with the slider */
#define VW_MARGIN 6

typedef struct {
    int view_w, view_h;   /* the image area, at the top left */
    int win_w, win_h;     /* the whole window: the image and the panel */
    int font_scale;       /* 2 on views wide enough for it, else 1 */
    int hud_w, hud_h;     /* the box of the text over the image (top left) */
    int slider_x0, slider_x1, slider_y; /* the slider's track */
    uint32_t *px;         /* win_w * win_h pixels */
} vw_frame;

bool vw_frame_init(vw_frame *f, int view_w, int view_h);
void vw_frame_free(vw_frame *f);

/* The rendered image (3*iw*ih floats, premultiplied over black) scaled to
 * the image area by pixel replication (a preview is 1/2 or 1/4 of its size).
 * A channel x in [0, 1] becomes the byte floor(255*x + 0.5); the tests map
 * the executable's output the same way. */
void vw_frame_image(vw_frame *f, const float *rgb, int iw, int ih);
/* Lines of text over the top left of the image, on a darkened box (its size
 * goes to hud_w, hud_h). */
void vw_frame_hud(vw_frame *f, const char *const *lines, int nlines);
/* The panel: a label and the slider with its knob at t in [0, 1]; dim when
 * the slider does nothing in the current mode. */
void vw_frame_panel(vw_frame *f, const char *label, double t, bool dim);
/* The slider position t in [0, 1] for a click at window column x. */
double vw_frame_slider_t(const vw_frame *f, int x);
/* Whether the window point (x, y) is in the image area / on the panel. */
bool vw_frame_in_view(const vw_frame *f, int x, int y);
bool vw_frame_in_panel(const vw_frame *f, int x, int y);

/* Write the framebuffer as a binary PPM (P6). */
bool vw_frame_save_ppm(const vw_frame *f, const char *path);

#endif
