/* vw_main.c -- diderot-viewer: an interactive volume viewer built on a library
 * that diderotc generates from viewer.diderot (MIP and shaded DVR).
 *
 *   diderot-viewer [--size N|WxH] [--mode mip|dvr] [--iso X] [--thick X]
 *                  [--threads N] [--dump PATH] [-v] [VOLUME.nrrd]
 *
 * Drag to rotate, scroll to zoom, drag the slider (or Up/Down) for the
 * isovalue, Left/Right for the thickness of the isosurface, M to switch
 * MIP/DVR, R to reset the camera, P to dump the window to PATH (a PPM) and
 * PATH.txt (the view, as numbers), Q or Esc to quit.
 *
 * The loop stays responsive in two ways: while the user drags, frames are
 * rendered at 1/2 or 1/4 of the size when a full frame would take longer
 * than VW_BUDGET_MS; and a full-size frame is abandoned, through the
 * library's progress callback, as soon as new input arrives. */
#include <SDL.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vw_camera.h"
#include "vw_frame.h"
#include "vw_render.h"

#define VW_BUDGET_MS 60.0 /* a drag feels immediate below ~15 frames/s */

#ifndef VW_DEFAULT_VOLUME
#define VW_DEFAULT_VOLUME "blobs.nrrd"
#endif

typedef struct {
    vw_volume vol;
    vw_camera cam, cam0;
    vw_frame frame;
    int mode;
    double iso, thick, step;
    unsigned threads;
    const char *dump_path;
    bool verbose;         /* a line per frame on stdout (the tests read them) */
    /* the image on screen: which state of the view it shows (gen counts the
     * changes), whether at full size, and what it cost */
    unsigned gen, shown_gen;
    bool shown_full;
    double full_ms, shown_ms;
    int shown_w, shown_h;
    float *rgb;
    /* input state */
    bool dragging, sliding, quit;
    int last_x, last_y;
    SDL_Window *win;
} vw_app;

static void usage(FILE *fp)
{
    fputs("usage: diderot-viewer [--size N|WxH] [--mode mip|dvr] [--iso X] [--thick X]\n"
          "                      [--threads N] [--dump PATH] [-v] [VOLUME.nrrd]\n"
          "--threads N: OpenMP workers (default 1, 0: one per processor)\n"
          "-v: a line per frame on stdout (size, time, full/preview/cancelled)\n"
          "drag: rotate, wheel: zoom, slider or Up/Down: isovalue, Left/Right: thickness,\n"
          "M: MIP/DVR, R: reset, P: dump the window to PATH and PATH.txt, Q/Esc: quit\n",
          fp);
}

static double now_ms(void)
{
    return 1000.0 * (double)SDL_GetPerformanceCounter() / (double)SDL_GetPerformanceFrequency();
}

/* The view as the library takes it, at w x h with ray step step. */
static vw_view make_view(const vw_app *a, int w, int h, double step)
{
    vw_view v;
    double eye[3];
    vw_camera_eye(&a->cam, eye);
    for (int i = 0; i < 3; i++) {
        v.eye[i] = (float)eye[i];
        v.at[i] = (float)a->cam.at[i];
        v.up[i] = i == 2 ? 1.0f : 0.0f;
    }
    v.fov = (float)a->cam.fov;
    /* a little more than the volume's radius, so no ray starts inside it */
    v.radius = (float)(1.04 * a->vol.radius);
    v.w = w;
    v.h = h;
    v.step = (float)step;
    v.mode = a->mode;
    v.iso = (float)a->iso;
    v.thick = (float)a->thick;
    return v;
}

/* Abandon a full-size frame when the user does something that changes the
 * view: a key, a click, the wheel, a drag (motion with a button held). */
static bool input_pending(void *data)
{
    (void)data;
    SDL_PumpEvents();
    SDL_Event ev[16];
    int n = SDL_PeepEvents(ev, 16, SDL_PEEKEVENT, SDL_FIRSTEVENT, SDL_LASTEVENT);
    for (int i = 0; i < n; i++)
        switch (ev[i].type) {
        case SDL_QUIT: case SDL_KEYDOWN: case SDL_MOUSEBUTTONDOWN: case SDL_MOUSEBUTTONUP:
        case SDL_MOUSEWHEEL:
            return true;
        case SDL_MOUSEMOTION:
            if (ev[i].motion.state)
                return true;
            break;
        default:
            break;
        }
    return false;
}

static void present(vw_app *a)
{
    SDL_Surface *ws = SDL_GetWindowSurface(a->win);
    SDL_Surface *src = SDL_CreateRGBSurfaceWithFormatFrom(
        a->frame.px, a->frame.win_w, a->frame.win_h, 32, 4 * a->frame.win_w,
        SDL_PIXELFORMAT_RGB888);
    if (ws && src) {
        SDL_BlitSurface(src, NULL, ws, NULL);
        SDL_UpdateWindowSurface(a->win);
    }
    SDL_FreeSurface(src);
}

/* Redraw the framebuffer from the last image and the current state. */
static void compose(vw_app *a)
{
    vw_frame *f = &a->frame;
    vw_frame_image(f, a->rgb, a->shown_w, a->shown_h);
    char l1[64], l2[64], label[32];
    snprintf(l1, sizeof l1, "%s %.1f MS", a->mode == VW_MIP ? "MIP" : "DVR", a->shown_ms);
    snprintf(l2, sizeof l2, "%dX%d%s", a->shown_w, a->shown_h, a->shown_full ? "" : " DRAG");
    const char *lines[2] = {l1, l2};
    vw_frame_hud(f, lines, 2);
    snprintf(label, sizeof label, "ISO %.4g", a->iso);
    vw_frame_panel(f, label, (a->iso - a->vol.vmin) / (a->vol.vmax - a->vol.vmin),
                   a->mode != VW_DVR);
    present(a);
}

/* Render the current view at 1/div of the window's size; cancellable when
 * it is a full-size frame. false on a cancelled frame. */
static bool render(vw_app *a, int div, bool cancellable)
{
    int w = (a->frame.view_w + div - 1) / div, h = (a->frame.view_h + div - 1) / div;
    /* coarser steps in a preview too: it is a sketch, and twice as fast */
    vw_view v = make_view(a, w, h, div > 1 ? 2.0 * a->step : a->step);
    char err[1024];
    double t0 = now_ms();
    vw_render_status st = vw_render(&a->vol, &v, a->rgb, a->threads,
                                    cancellable ? input_pending : NULL, a, err, sizeof err);
    double ms = now_ms() - t0;
    if (a->verbose) {
        printf("frame %dx%d %.1f ms %s\n", w, h, ms,
               st == VW_RENDER_CANCELLED ? "cancelled" : div > 1 ? "preview" : "full");
        fflush(stdout);
    }
    if (st == VW_RENDER_FAILED) {
        fprintf(stderr, "diderot-viewer: %s\n", err);
        exit(1);
    }
    if (st == VW_RENDER_CANCELLED)
        return false;
    if (div == 1)
        a->full_ms = ms;
    a->shown_gen = a->gen;
    a->shown_full = div == 1;
    a->shown_ms = ms;
    a->shown_w = w;
    a->shown_h = h;
    compose(a);
    return true;
}

/* The preview size for a drag: the largest that fits the budget, judged
 * from the last full frame (time goes with the number of rays). */
static int preview_div(const vw_app *a)
{
    if (a->full_ms <= VW_BUDGET_MS)
        return 1;
    return a->full_ms / 4.0 <= VW_BUDGET_MS ? 2 : 4;
}

static void dump(vw_app *a)
{
    if (!(a->shown_gen == a->gen && a->shown_full))
        render(a, 1, false);
    char tmp[4096], txt[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", a->dump_path);
    snprintf(txt, sizeof txt, "%s.txt", a->dump_path);
    if (!vw_frame_save_ppm(&a->frame, tmp) || rename(tmp, a->dump_path)) {
        fprintf(stderr, "diderot-viewer: cannot write %s\n", a->dump_path);
        return;
    }
    /* the view as the program's inputs, floats written exactly (%.9g), then
     * the camera's own state and the window's layout, for the tests */
    vw_view v = make_view(a, a->frame.view_w, a->frame.view_h, a->step);
    FILE *fp = fopen(tmp, "w");
    if (!fp)
        return;
    fprintf(fp, "mode %d\neye %.9g %.9g %.9g\nat %.9g %.9g %.9g\nup %.9g %.9g %.9g\n",
            v.mode, v.eye[0], v.eye[1], v.eye[2], v.at[0], v.at[1], v.at[2],
            v.up[0], v.up[1], v.up[2]);
    fprintf(fp, "fov %.9g\nradius %.9g\nsize %d %d\nstep %.9g\niso %.9g\nthick %.9g\n",
            v.fov, v.radius, v.w, v.h, v.step, v.iso, v.thick);
    fprintf(fp, "azim %.17g\nelev %.17g\ndist %.17g\n", a->cam.azim, a->cam.elev, a->cam.dist);
    fprintf(fp, "window %d %d\nhud %d %d\nslider %d %d %d\nvrange %.17g %.17g\nrender_ms %.3f\n",
            a->frame.win_w, a->frame.win_h, a->frame.hud_w, a->frame.hud_h,
            a->frame.slider_x0, a->frame.slider_x1, a->frame.slider_y,
            a->vol.vmin, a->vol.vmax, a->full_ms);
    if (fclose(fp) == 0 && rename(tmp, txt) == 0)
        printf("diderot-viewer: dumped %s and %s\n", a->dump_path, txt);
    fflush(stdout);
}

static void set_iso(vw_app *a, double iso)
{
    iso = fmax(a->vol.vmin, fmin(a->vol.vmax, iso));
    if (iso != a->iso) {
        a->iso = iso;
        if (a->mode == VW_DVR)
            a->gen++;
        else
            compose(a); /* only the slider moves */
    }
}

static void on_key(vw_app *a, SDL_Keycode k)
{
    double range = a->vol.vmax - a->vol.vmin;
    switch (k) {
    case SDLK_q: case SDLK_ESCAPE: a->quit = true; break;
    case SDLK_m: a->mode = a->mode == VW_MIP ? VW_DVR : VW_MIP; a->gen++; break;
    case SDLK_r: a->cam = a->cam0; a->gen++; break;
    case SDLK_UP: set_iso(a, a->iso + 0.01 * range); break;
    case SDLK_DOWN: set_iso(a, a->iso - 0.01 * range); break;
    case SDLK_RIGHT: a->thick *= 1.25; a->gen += a->mode == VW_DVR; break;
    case SDLK_LEFT: a->thick /= 1.25; a->gen += a->mode == VW_DVR; break;
    case SDLK_p: dump(a); break;
    default: break;
    }
}

static void on_event(vw_app *a, const SDL_Event *e)
{
    vw_frame *f = &a->frame;
    switch (e->type) {
    case SDL_QUIT: a->quit = true; break;
    case SDL_KEYDOWN: on_key(a, e->key.keysym.sym); break;
    case SDL_MOUSEBUTTONDOWN:
        if (e->button.button != SDL_BUTTON_LEFT)
            break;
        if (vw_frame_in_view(f, e->button.x, e->button.y)) {
            a->dragging = true;
            a->last_x = e->button.x;
            a->last_y = e->button.y;
        } else if (vw_frame_in_panel(f, e->button.x, e->button.y)) {
            a->sliding = true;
            set_iso(a, a->vol.vmin + vw_frame_slider_t(f, e->button.x) * (a->vol.vmax - a->vol.vmin));
        }
        break;
    case SDL_MOUSEBUTTONUP:
        if (e->button.button == SDL_BUTTON_LEFT)
            a->dragging = a->sliding = false;
        break;
    case SDL_MOUSEMOTION:
        if (a->dragging) {
            /* from absolute positions, so lost or merged events lose nothing */
            vw_camera_drag(&a->cam, e->motion.x - a->last_x, e->motion.y - a->last_y, f->view_w);
            a->last_x = e->motion.x;
            a->last_y = e->motion.y;
            a->gen++;
        } else if (a->sliding) {
            set_iso(a, a->vol.vmin + vw_frame_slider_t(f, e->motion.x) * (a->vol.vmax - a->vol.vmin));
        }
        break;
    case SDL_MOUSEWHEEL:
        vw_camera_zoom(&a->cam, e->wheel.direction == SDL_MOUSEWHEEL_FLIPPED ? -e->wheel.y : e->wheel.y);
        a->gen++;
        break;
    case SDL_WINDOWEVENT:
        if (e->window.event == SDL_WINDOWEVENT_EXPOSED)
            present(a);
        break;
    default:
        break;
    }
}

static bool parse_size(const char *s, int *w, int *h)
{
    char x;
    if (sscanf(s, "%d%c%d", w, &x, h) == 3 && (x == 'x' || x == 'X'))
        return *w >= 16 && *h >= 16 && *w <= 4096 && *h <= 4096;
    if (sscanf(s, "%d", w) == 1) {
        *h = *w;
        return *w >= 16 && *w <= 4096;
    }
    return false;
}

int main(int argc, char **argv)
{
    vw_app a;
    memset(&a, 0, sizeof a);
    int w = 320, h = 320;
    const char *path = VW_DEFAULT_VOLUME, *mode = "dvr";
    double iso = NAN, thick = NAN;
    a.dump_path = "viewer-dump.ppm";
    /* One worker by default: the OpenMP workers meet at a barrier after every
     * super-step (a few hundred per frame), and where other jobs hold the
     * cores, workers spinning there dominate (on 2 busy cores a 128x128 frame
     * took 1.5-5.8 s with 2 workers, 0.85 s with 1; 0.6-0.85 s with 2 and
     * OMP_WAIT_POLICY=passive, which must be set before the program starts).
     * --threads 0: one per processor. */
    a.threads = 1;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(o, "-v") || !strcmp(o, "--verbose")) {
            a.verbose = true;
            continue;
        } else if (o[0] != '-') {
            path = o;
            continue;
        } else if (!v) {
            usage(stderr);
            return 2;
        }
        if (!strcmp(o, "--size") && parse_size(v, &w, &h)) {
        } else if (!strcmp(o, "--mode") && (!strcmp(v, "mip") || !strcmp(v, "dvr"))) {
            mode = v;
        } else if (!strcmp(o, "--iso")) {
            iso = atof(v);
        } else if (!strcmp(o, "--thick") && atof(v) > 0) {
            thick = atof(v);
        } else if (!strcmp(o, "--threads")) {
            a.threads = (unsigned)atoi(v);
        } else if (!strcmp(o, "--dump")) {
            a.dump_path = v;
        } else {
            fprintf(stderr, "diderot-viewer: bad option %s %s\n", o, v);
            usage(stderr);
            return 2;
        }
        i++;
    }
    char err[1024];
    if (!vw_volume_load(&a.vol, path, err, sizeof err)) {
        fprintf(stderr, "diderot-viewer: %s\n", err);
        return 1;
    }
    a.mode = !strcmp(mode, "mip") ? VW_MIP : VW_DVR;
    a.iso = isnan(iso) ? a.vol.vmin + 0.3 * (a.vol.vmax - a.vol.vmin) : iso;
    /* defaults in proportion to the volume: for blobs.nrrd (radius sqrt 3)
     * the thickness is 0.05 and the step 0.01, as viewer.diderot's defaults */
    a.thick = isnan(thick) ? 0.05 / sqrt(3.0) * a.vol.radius : thick;
    a.step = 0.01 / sqrt(3.0) * a.vol.radius;
    /* first seen from the direction (6, 4, 3), as examples/mip, far enough
     * that an 18-degree view holds the volume */
    double dir[3] = {6.0, 4.0, 3.0}, eye[3], len = sqrt(61.0);
    for (int i = 0; i < 3; i++)
        eye[i] = a.vol.center[i] + dir[i] / len * 4.5 * a.vol.radius;
    vw_camera_look(&a.cam, eye, a.vol.center, 18.0);
    a.cam0 = a.cam;

    if (!vw_frame_init(&a.frame, w, h)
        || !(a.rgb = malloc(sizeof(float) * 3 * (size_t)w * (size_t)h))) {
        fprintf(stderr, "diderot-viewer: out of memory\n");
        return 1;
    }
    if (SDL_Init(SDL_INIT_VIDEO)) {
        fprintf(stderr, "diderot-viewer: SDL: %s\n", SDL_GetError());
        return 1;
    }
    a.win = SDL_CreateWindow("diderot-viewer", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED,
                             a.frame.win_w, a.frame.win_h, 0);
    if (!a.win) {
        fprintf(stderr, "diderot-viewer: SDL: %s\n", SDL_GetError());
        return 1;
    }
    a.gen = 1; /* nothing shown yet */
    render(&a, 1, false);
    printf("diderot-viewer: ready, first frame %.1f ms\n", a.full_ms);
    fflush(stdout);

    SDL_Event e;
    while (!a.quit) {
        bool stale = a.shown_gen != a.gen || !a.shown_full;
        /* nothing to draw, or a drag whose preview is up to date: sleep */
        if (!stale || (a.dragging && a.shown_gen == a.gen)) {
            if (!SDL_WaitEvent(&e))
                break;
            on_event(&a, &e);
        }
        while (!a.quit && SDL_PollEvent(&e))
            on_event(&a, &e);
        if (a.quit)
            break;
        if (a.shown_gen != a.gen && (a.dragging || a.full_ms > VW_BUDGET_MS) && preview_div(&a) > 1)
            render(&a, preview_div(&a), false);
        else if ((a.shown_gen != a.gen || !a.shown_full) && !a.dragging)
            render(&a, 1, true);
        else if (a.shown_gen != a.gen)
            render(&a, 1, false); /* dragging, and a full frame fits the budget */
    }
    SDL_DestroyWindow(a.win);
    SDL_Quit();
    free(a.rgb);
    vw_frame_free(&a.frame);
    vw_volume_free(&a.vol);
    return 0;
}
