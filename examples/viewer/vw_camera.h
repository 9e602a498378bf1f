/* vw_camera.h -- the viewer's orbit camera: what a drag or a scroll does to it.
 *
 * The camera orbits a fixed look-at point at a distance, seen from an azimuth
 * (around the world z axis) and an elevation (above the xy plane), with z up.
 * Azimuth and elevation add up, so the camera after a drag depends only on
 * the total pixels moved, not on how the motion events were split: a
 * closed form the tests check (tests/viewer), as long as the elevation stays
 * inside its limits. No SDL here. */
#ifndef VW_CAMERA_H_INCLUDED
#define VW_CAMERA_H_INCLUDED

/* A drag across the whole width of the view turns the camera by this angle
 * (radians): half a turn, so that any side of the volume is one drag away. */
#define VW_DRAG_ANGLE_PER_WIDTH 3.14159265358979323846
/* The elevation stays within +-85 degrees: at +-90 the view direction would
 * be parallel to the up vector and the image frame undefined. */
#define VW_ELEV_LIMIT (85.0 * 3.14159265358979323846 / 180.0)
/* One wheel click up moves the camera to 0.9 of its distance (a zoom in);
 * down, to 1/0.9. The distance stays within [1/8, 8] of the initial one. */
#define VW_ZOOM_PER_CLICK 0.9
#define VW_ZOOM_RANGE 8.0

typedef struct {
    double at[3];   /* look-at point */
    double dist;    /* distance of the eye from it */
    double dist0;   /* initial distance: the zoom's bounds */
    double azim;    /* radians, around +z, 0 along +x */
    double elev;    /* radians above the xy plane */
    double fov;     /* vertical field of view, degrees */
} vw_camera;

/* The camera at eye looking at at (eye != at) with the given field of view. */
void vw_camera_look(vw_camera *c, const double eye[3], const double at[3], double fov);
/* A drag by (dx, dy) pixels in a view view_w pixels wide: dragging right
 * turns the volume to the right (the eye moves left, azimuth decreases);
 * dragging down tilts its top towards the viewer (elevation increases). */
void vw_camera_drag(vw_camera *c, int dx, int dy, int view_w);
/* clicks wheel clicks, positive away from the user (zoom in). */
void vw_camera_zoom(vw_camera *c, int clicks);
/* The eye position. */
void vw_camera_eye(const vw_camera *c, double eye[3]);

#endif
