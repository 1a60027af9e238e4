// C side of hyperctl's MuJoCo offscreen renderer: MuJoCo's own mjr_*
// renderer on a Mesa OSMesa software GL context (no display, no GPU).
#ifndef HYPERCTL_MUJOCO_RENDER_H_
#define HYPERCTL_MUJOCO_RENDER_H_

#include <GL/osmesa.h>
#include <mujoco/mujoco.h>

#include "binding.h"

typedef struct hcRender_ {
  OSMesaContext ctx;
  unsigned char* glbuf;  // OSMesa's colour buffer, w*h*4
  unsigned char* rgb;    // mjr_readPixels output, w*h*3, rows bottom-up
  int w, h;
  mjvScene scn;
  mjvCamera cam;
  mjvOption opt;
  mjrContext con;
  int made;  // scene and context made (must be freed)
} hcRender;

// hc_render_new makes a w×h renderer for model m (it sets m's offscreen
// buffer size). NULL with st->msg set on failure.
hcRender* hc_render_new(mjModel* m, int w, int h, hcStatus* st);
// hc_render_camera sets the camera: trackbody >= 0 tracks that body,
// otherwise a free camera looks at lookat.
void hc_render_camera(hcRender* r, int trackbody, double distance, double azimuth,
                      double elevation, const double* lookat);
// hc_render_frame draws d's state into rgba (w*h*4, rows top-down).
int hc_render_frame(hcRender* r, const mjModel* m, mjData* d, unsigned char* rgba,
                    hcStatus* st);
void hc_render_free(hcRender* r);

#endif  // HYPERCTL_MUJOCO_RENDER_H_
