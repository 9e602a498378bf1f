/* vw_font.h -- a 5x7 bitmap font for the viewer's on-screen text (frame
 * time, mode, isovalue), so that the viewer needs no font library. */
#ifndef VW_FONT_H_INCLUDED
#define VW_FONT_H_INCLUDED

#include <stdint.h>

#define VW_FONT_W 5      /* glyph cell, without spacing */
#define VW_FONT_H 7
#define VW_FONT_ADVANCE 6 /* one column of space between glyphs */

/* Draw text into a w x h framebuffer of 0xRRGGBB pixels at (x, y) (top
 * left), each font pixel a scale x scale square; clipped to the buffer.
 * Lowercase letters are drawn as uppercase; characters without a glyph as
 * a filled box, so that a missing glyph shows. */
void vw_font_draw(uint32_t *fb, int w, int h, int x, int y, int scale,
                  const char *text, uint32_t rgb);
/* The width in pixels that vw_font_draw takes for text. */
int vw_font_width(const char *text, int scale);

#endif
