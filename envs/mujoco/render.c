// C side of the offscreen renderer; see render.h. Every entry point makes
// the OSMesa context current on the calling thread first and releases it
// before returning: a cgo call stays on one OS thread, but consecutive calls
// may run on different ones, and a thread must not keep a context current
// that another thread destroys later (Mesa then calls through a stale
// dispatch table).
#include "render.h"

#include <stdlib.h>
#include <string.h>

static int hc_current(hcRender* r) {
  return OSMesaMakeCurrent(r->ctx, r->glbuf, GL_UNSIGNED_BYTE, r->w, r->h) ? HC_OK : HC_ERROR;
}

static void hc_release(void) { OSMesaMakeCurrent(NULL, NULL, 0, 0, 0); }

typedef struct {
  hcRender* r;
  mjModel* m;
} hcMakeArgs;

static int hc_make(void* p) {
  hcMakeArgs* a = (hcMakeArgs*)p;
  hcRender* r = a->r;
  // The offscreen buffer must be set before mjr_makeContext.
  a->m->vis.global.offwidth = r->w;
  a->m->vis.global.offheight = r->h;
  mjv_defaultScene(&r->scn);
  mjv_defaultCamera(&r->cam);
  mjv_defaultOption(&r->opt);
  mjr_defaultContext(&r->con);
  r->made = 1;  // freeing default-initialised structs is safe
  mjv_makeScene(a->m, &r->scn, 2000);
  mjr_makeContext(a->m, &r->con, mjFONTSCALE_100);
  mjr_setBuffer(mjFB_OFFSCREEN, &r->con);
  if (r->con.currentBuffer != mjFB_OFFSCREEN) {
    return HC_ERROR;
  }
  mjv_defaultFreeCamera(a->m, &r->cam);
  return HC_OK;
}

hcRender* hc_render_new(mjModel* m, int w, int h, hcStatus* st) {
  hcRender* r = (hcRender*)calloc(1, sizeof(hcRender));
  if (!r) {
    strncpy(st->msg, "out of memory", HC_MSG - 1);
    return NULL;
  }
  r->w = w;
  r->h = h;
  r->glbuf = (unsigned char*)malloc((size_t)w * h * 4);
  r->rgb = (unsigned char*)malloc((size_t)w * h * 3);
  r->ctx = OSMesaCreateContextExt(OSMESA_RGBA, 24, 8, 0, NULL);
  if (!r->glbuf || !r->rgb || !r->ctx) {
    strncpy(st->msg, r->ctx ? "out of memory" : "OSMesaCreateContextExt failed", HC_MSG - 1);
    hc_render_free(r);
    return NULL;
  }
  if (hc_current(r) != HC_OK) {
    strncpy(st->msg, "OSMesaMakeCurrent failed", HC_MSG - 1);
    hc_render_free(r);
    return NULL;
  }
  hcMakeArgs a = {r, m};
  if (hc_guard(st, hc_make, &a) != HC_OK) {
    if (st->msg[0] == 0) {
      strncpy(st->msg, "mjr_setBuffer: the offscreen buffer is unavailable", HC_MSG - 1);
    }
    hc_render_free(r);
    return NULL;
  }
  hc_release();
  return r;
}

void hc_render_camera(hcRender* r, int trackbody, double distance, double azimuth,
                      double elevation, const double* lookat) {
  if (trackbody >= 0) {
    r->cam.type = mjCAMERA_TRACKING;
    r->cam.trackbodyid = trackbody;
  } else {
    r->cam.type = mjCAMERA_FREE;
    for (int i = 0; i < 3; i++) {
      r->cam.lookat[i] = lookat[i];
    }
  }
  r->cam.distance = distance;
  r->cam.azimuth = azimuth;
  r->cam.elevation = elevation;
}

typedef struct {
  hcRender* r;
  const mjModel* m;
  mjData* d;
} hcFrameArgs;

static int hc_frame(void* p) {
  hcFrameArgs* a = (hcFrameArgs*)p;
  hcRender* r = a->r;
  mjrRect viewport = {0, 0, r->w, r->h};
  mjv_updateScene(a->m, a->d, &r->opt, NULL, &r->cam, mjCAT_ALL, &r->scn);
  mjr_render(viewport, &r->scn, &r->con);
  mjr_readPixels(r->rgb, NULL, viewport, &r->con);
  return HC_OK;
}

int hc_render_frame(hcRender* r, const mjModel* m, mjData* d, unsigned char* rgba,
                    hcStatus* st) {
  if (hc_current(r) != HC_OK) {
    strncpy(st->msg, "OSMesaMakeCurrent failed", HC_MSG - 1);
    st->code = HC_ERROR;
    return HC_ERROR;
  }
  hcFrameArgs a = {r, m, d};
  int rc = hc_guard(st, hc_frame, &a);
  hc_release();
  if (rc != HC_OK) {
    return rc;
  }
  // mjr_readPixels returns rows bottom-up; flip them and add alpha.
  for (int y = 0; y < r->h; y++) {
    const unsigned char* src = r->rgb + (size_t)(r->h - 1 - y) * r->w * 3;
    unsigned char* dst = rgba + (size_t)y * r->w * 4;
    for (int x = 0; x < r->w; x++) {
      dst[4 * x + 0] = src[3 * x + 0];
      dst[4 * x + 1] = src[3 * x + 1];
      dst[4 * x + 2] = src[3 * x + 2];
      dst[4 * x + 3] = 255;
    }
  }
  return HC_OK;
}

void hc_render_free(hcRender* r) {
  if (!r) {
    return;
  }
  if (r->ctx) {
    if (r->made && hc_current(r) == HC_OK) {
      mjr_freeContext(&r->con);
      mjv_freeScene(&r->scn);
    }
    hc_release();
    OSMesaDestroyContext(r->ctx);
  }
  free(r->glbuf);
  free(r->rgb);
  free(r);
}
