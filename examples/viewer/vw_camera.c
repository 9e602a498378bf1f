/* vw_camera.c -- the orbit camera (see vw_camera.h). */
#include "vw_camera.h"

#include <math.h>

static double clampd(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

void vw_camera_look(vw_camera *c, const double eye[3], const double at[3], double fov)
{
    double d[3];
    for (int i = 0; i < 3; i++) {
        c->at[i] = at[i];
        d[i] = eye[i] - at[i];
    }
    c->dist = c->dist0 = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    c->azim = atan2(d[1], d[0]);
    c->elev = clampd(asin(d[2] / c->dist), -VW_ELEV_LIMIT, VW_ELEV_LIMIT);
    c->fov = fov;
}

void vw_camera_drag(vw_camera *c, int dx, int dy, int view_w)
{
    double k = VW_DRAG_ANGLE_PER_WIDTH / (view_w > 0 ? view_w : 1);
    c->azim -= k * dx;
    /* keep the azimuth in (-pi, pi] so that long sessions keep precision */
    c->azim = remainder(c->azim, 2.0 * 3.14159265358979323846);
    c->elev = clampd(c->elev + k * dy, -VW_ELEV_LIMIT, VW_ELEV_LIMIT);
}

void vw_camera_zoom(vw_camera *c, int clicks)
{
    c->dist = clampd(c->dist * pow(VW_ZOOM_PER_CLICK, clicks),
                     c->dist0 / VW_ZOOM_RANGE, c->dist0 * VW_ZOOM_RANGE);
}

void vw_camera_eye(const vw_camera *c, double eye[3])
{
    eye[0] = c->at[0] + c->dist * cos(c->elev) * cos(c->azim);
    eye[1] = c->at[1] + c->dist * cos(c->elev) * sin(c->azim);
    eye[2] = c->at[2] + c->dist * sin(c->elev);
}
