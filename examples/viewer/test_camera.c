/* test_camera.c -- the orbit camera (vw_camera.c) against closed forms:
 * what a drag of N pixels and a number of wheel clicks must give. Prints one
 * line per failed check and "camera: N checks, N failed"; exits 1 on a
 * failure. Run by tests/viewer/viewer.py. */
#include <math.h>
#include <stdio.h>

#include "vw_camera.h"

static int nchecks, nfailed;

static void check_eye(const char *what, const vw_camera *c, double x, double y, double z)
{
    double e[3];
    vw_camera_eye(c, e);
    nchecks++;
    /* the camera computes in double: 1e-12 leaves room for a few roundings */
    if (fabs(e[0] - x) > 1e-12 * (1 + fabs(x)) || fabs(e[1] - y) > 1e-12 * (1 + fabs(y))
        || fabs(e[2] - z) > 1e-12 * (1 + fabs(z))) {
        nfailed++;
        printf("%s: eye (%.15g, %.15g, %.15g), expected (%.15g, %.15g, %.15g)\n",
               what, e[0], e[1], e[2], x, y, z);
    }
}

int main(void)
{
    const double o[3] = {0, 0, 0}, eye[3] = {6, 4, 3}, pi = 3.14159265358979323846;
    const int W = 128;
    vw_camera c;

    vw_camera_look(&c, eye, o, 18);
    check_eye("look", &c, 6, 4, 3);

    /* a drag right by half the width turns the camera by -90 degrees about
     * z: (x, y, z) -> (y, -x, z) */
    vw_camera_drag(&c, W / 2, 0, W);
    check_eye("drag W/2 right", &c, 4, -6, 3);
    /* by the whole width: half a turn from the start, (-x, -y, z) */
    vw_camera_drag(&c, W / 2, 0, W);
    check_eye("drag W right", &c, -6, -4, 3);
    /* left by 2W: a whole turn (the azimuth wraps), then by W: the start */
    vw_camera_drag(&c, -2 * W, 0, W);
    check_eye("drag 2W left", &c, -6, -4, 3);
    vw_camera_drag(&c, -W, 0, W);
    check_eye("drag W left", &c, 6, 4, 3);

    /* N pixels in many small motion events = N pixels at once */
    vw_camera a, b;
    vw_camera_look(&a, eye, o, 18);
    b = a;
    for (int i = 0; i < 10; i++)
        vw_camera_drag(&a, 7, -3, W);
    vw_camera_drag(&b, 70, -30, W);
    double ea[3], eb[3];
    vw_camera_eye(&b, eb);
    check_eye("70x-30 in ten events", &a, eb[0], eb[1], eb[2]);
    /* and the closed form of a general drag (dx, dy): azimuth -pi dx/W,
     * elevation +pi dy/W */
    {
        double d = sqrt(61.0), az = atan2(4.0, 6.0) - pi * 70 / W,
               el = asin(3.0 / d) - pi * 30 / W;
        check_eye("drag 70x-30", &b, d * cos(el) * cos(az), d * cos(el) * sin(az), d * sin(el));
    }
    (void)ea;

    /* elevation: from (2, 0, 0), a drag down by W/4 lifts the eye by 45
     * degrees; far enough up, it stops at the 85-degree limit */
    const double e2[3] = {2, 0, 0};
    vw_camera_look(&c, e2, o, 18);
    vw_camera_drag(&c, 0, W / 4, W);
    check_eye("drag W/4 down", &c, 2 * cos(pi / 4), 0, 2 * sin(pi / 4));
    vw_camera_drag(&c, 0, W, W);
    check_eye("drag to the limit", &c, 2 * cos(VW_ELEV_LIMIT), 0, 2 * sin(VW_ELEV_LIMIT));

    /* zoom: 3 clicks in = 0.9^3 of the distance, then out past the limit */
    const double at[3] = {1, 2, 3}, e3[3] = {1, 2, 13};
    vw_camera_look(&c, e3, at, 18);
    check_eye("look from above (at the limit)", &c, 1 + 10 * cos(VW_ELEV_LIMIT), 2,
              3 + 10 * sin(VW_ELEV_LIMIT));
    const double e4[3] = {1, 12, 3};
    vw_camera_look(&c, e4, at, 18);
    vw_camera_zoom(&c, 3);
    check_eye("zoom in 3", &c, 1, 2 + 10 * 0.729, 3);
    vw_camera_zoom(&c, -200);
    check_eye("zoom out to the limit", &c, 1, 2 + 10 * VW_ZOOM_RANGE, 3);

    printf("camera: %d checks, %d failed\n", nchecks, nfailed);
    return nfailed ? 1 : 0;
}
