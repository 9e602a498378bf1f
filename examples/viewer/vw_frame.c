/* vw_frame.c -- the framebuffer (see vw_frame.h). */
#include "vw_frame.h"

#include <stdio.h>
#include <stdlib.h>

#include "vw_font.h"

#define LABEL_CHARS 10 /* the panel's label, "ISO 0.3000": the track starts after it */

bool vw_frame_init(vw_frame *f, int view_w, int view_h)
{
    f->view_w = view_w;
    f->view_h = view_h;
    f->win_w = view_w;
    f->win_h = view_h + VW_PANEL_H;
    /* scale-2 text needs about 250 pixels for "DVR 1234.5 MS 320X320" */
    f->font_scale = view_w >= 256 ? 2 : 1;
    f->hud_w = f->hud_h = 0;
    f->slider_x0 = VW_MARGIN + LABEL_CHARS * VW_FONT_ADVANCE + VW_MARGIN;
    f->slider_x1 = f->win_w - 1 - VW_MARGIN;
    f->slider_y = view_h + VW_PANEL_H / 2;
    f->px = calloc((size_t)f->win_w * f->win_h, sizeof *f->px);
    return f->px != NULL;
}

void vw_frame_free(vw_frame *f)
{
    free(f->px);
    f->px = NULL;
}

static uint32_t to_byte(float x)
{
    if (!(x > 0.0f)) /* NaN too */
        return 0;
    if (x >= 1.0f)
        return 255;
    return (uint32_t)(255.0f * x + 0.5f);
}

void vw_frame_image(vw_frame *f, const float *rgb, int iw, int ih)
{
    for (int y = 0; y < f->view_h; y++) {
        int sy = (int)((long)y * ih / f->view_h);
        for (int x = 0; x < f->view_w; x++) {
            int sx = (int)((long)x * iw / f->view_w);
            const float *p = rgb + 3 * ((size_t)sy * iw + sx);
            f->px[(size_t)y * f->win_w + x] = to_byte(p[0]) << 16 | to_byte(p[1]) << 8 | to_byte(p[2]);
        }
    }
}

/* Darken a rectangle to a third, so that text stays readable on a bright
 * image while the image still shows through. */
static void shade(vw_frame *f, int x0, int y0, int w, int h)
{
    for (int y = y0; y < y0 + h && y < f->win_h; y++)
        for (int x = x0; x < x0 + w && x < f->win_w; x++) {
            uint32_t *p = &f->px[(size_t)y * f->win_w + x];
            *p = (*p >> 2 & 0x3f3f3f) + (*p >> 4 & 0x0f0f0f);
        }
}

void vw_frame_hud(vw_frame *f, const char *const *lines, int nlines)
{
    int s = f->font_scale, w = 0, lh = (VW_FONT_H + 3) * s;
    for (int i = 0; i < nlines; i++) {
        int lw = vw_font_width(lines[i], s);
        w = lw > w ? lw : w;
    }
    f->hud_w = w + 2 * VW_MARGIN;
    f->hud_h = nlines * lh + 2 * VW_MARGIN - 3 * s;
    if (f->hud_w > f->view_w)
        f->hud_w = f->view_w;
    shade(f, 0, 0, f->hud_w, f->hud_h);
    for (int i = 0; i < nlines; i++)
        vw_font_draw(f->px, f->win_w, f->view_h, VW_MARGIN, VW_MARGIN + i * lh, s,
                     lines[i], 0xffffff);
}

static void rect(vw_frame *f, int x0, int y0, int w, int h, uint32_t c)
{
    for (int y = y0; y < y0 + h; y++)
        for (int x = x0; x < x0 + w; x++)
            if (x >= 0 && x < f->win_w && y >= 0 && y < f->win_h)
                f->px[(size_t)y * f->win_w + x] = c;
}

void vw_frame_panel(vw_frame *f, const char *label, double t, bool dim)
{
    uint32_t fg = dim ? 0x606060 : 0xe0e0e0;
    rect(f, 0, f->view_h, f->win_w, VW_PANEL_H, 0x202020);
    vw_font_draw(f->px, f->win_w, f->win_h, VW_MARGIN, f->slider_y - VW_FONT_H / 2, 1,
                 label, fg);
    rect(f, f->slider_x0, f->slider_y - 1, f->slider_x1 - f->slider_x0 + 1, 3, 0x505050);
    if (t < 0.0)
        t = 0.0;
    if (t > 1.0)
        t = 1.0;
    int kx = f->slider_x0 + (int)(t * (f->slider_x1 - f->slider_x0) + 0.5);
    rect(f, kx - 2, f->slider_y - 6, 5, 13, fg);
}

double vw_frame_slider_t(const vw_frame *f, int x)
{
    double t = (double)(x - f->slider_x0) / (f->slider_x1 - f->slider_x0);
    return t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
}

bool vw_frame_in_view(const vw_frame *f, int x, int y)
{
    return x >= 0 && x < f->view_w && y >= 0 && y < f->view_h;
}

bool vw_frame_in_panel(const vw_frame *f, int x, int y)
{
    return x >= 0 && x < f->win_w && y >= f->view_h && y < f->win_h;
}

bool vw_frame_save_ppm(const vw_frame *f, const char *path)
{
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return false;
    fprintf(fp, "P6\n%d %d\n255\n", f->win_w, f->win_h);
    for (size_t i = 0; i < (size_t)f->win_w * f->win_h; i++) {
        unsigned char c[3] = {f->px[i] >> 16 & 255, f->px[i] >> 8 & 255, f->px[i] & 255};
        fwrite(c, 1, 3, fp);
    }
    return fclose(fp) == 0;
}
