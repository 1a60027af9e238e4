package mujoco

/*
#cgo LDFLAGS: -lOSMesa
#include <stdlib.h>
#include "render.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"image"
	"math"
	"runtime"
	"strings"
	"unsafe"

	"github.com/hyperctl/hyperctl/envs"
)

// Camera places the view. Track >= 0 follows that body (MuJoCo's tracking
// camera); otherwise the camera looks at Lookat.
type Camera struct {
	Track     int
	Distance  float64
	Azimuth   float64 // degrees
	Elevation float64 // degrees, negative looks down
	Lookat    [3]float64
}

// Style is how an environment is drawn: its camera, the size of the floor's
// checker squares, whether the floor is drawn without end, and colours of
// named geoms (RGBA); other geoms without a colour of their own get Body.
type Style struct {
	Camera    Camera
	TexRepeat float64 // checker repeats per metre of floor
	// FollowFloor moves the drawn floor plane with the camera's tracked
	// body, by whole periods of its checker pattern (so the squares stay
	// put on screen as the body runs over them), so a body that runs past
	// the model's floor (HalfCheetah's ends at x = 40 m, and a good policy
	// runs further in an episode) still runs on it. The simulation model
	// is untouched: its plane is infinite for contacts anyway. (MuJoCo can
	// draw an infinite plane, sizes 0, but in software GL that made a
	// 640×480 HalfCheetah frame about twice as slow: 20 against 11 ms.)
	FollowFloor bool
	Body        [4]float32
	Geoms       map[string][4]float32
}

// Styles are the render styles by environment short name. The models define
// no cameras or materials; these frame each task about as Gymnasium's
// default viewers do (HalfCheetah, Ant and Humanoid followed from the side,
// the others from a fixed point) and colour the parts that matter (Pusher's
// object and goal, Reacher's target and fingertip). The floors of
// HalfCheetah, Ant and Humanoid follow the body; the other bodies stay on
// their floors (Pusher's
// table, Reacher's arena, InvertedDoublePendulum's 80 m floor under a cart
// on a 2 m rail). Hopper, Walker2d (left leg in purple) and Swimmer are
// followed as HalfCheetah, the swimmer from above; InvertedPendulum, which
// has no floor, is framed like InvertedDoublePendulum.
var Styles = map[string]Style{
	"ant": {Camera: Camera{Track: 1, Distance: 5, Azimuth: 90, Elevation: -25}, TexRepeat: 2, FollowFloor: true,
		Body: [4]float32{0.8, 0.6, 0.4, 1}},
	"humanoid": {Camera: Camera{Track: 1, Distance: 4, Azimuth: 90, Elevation: -10}, TexRepeat: 2, FollowFloor: true,
		Body: [4]float32{0.8, 0.6, 0.4, 1}},
	"halfcheetah": {Camera: Camera{Track: 1, Distance: 4, Azimuth: 90, Elevation: -15}, TexRepeat: 2, FollowFloor: true,
		Body: [4]float32{0.8, 0.6, 0.4, 1}},
	"inverteddoublependulum": {Camera: Camera{Track: -1, Distance: 3.4, Azimuth: 90, Elevation: -5, Lookat: [3]float64{0, 0, 0.55}}, TexRepeat: 2,
		Body: [4]float32{0.8, 0.6, 0.4, 1}, Geoms: map[string][4]float32{"rail": {0.5, 0.5, 0.5, 1}}},
	"pusher": {Camera: Camera{Track: -1, Distance: 2.2, Azimuth: 135, Elevation: -40, Lookat: [3]float64{0.2, -0.2, -0.3}}, TexRepeat: 5,
		Body: [4]float32{0.8, 0.6, 0.4, 1}, Geoms: map[string][4]float32{"object": {0.95, 0.95, 0.95, 1}, "goal": {0.9, 0.15, 0.15, 1}}},
	"hopper": {Camera: Camera{Track: 1, Distance: 3, Azimuth: 90, Elevation: -20}, TexRepeat: 2, FollowFloor: true,
		Body: [4]float32{0.8, 0.6, 0.4, 1}},
	"walker2d": {Camera: Camera{Track: 1, Distance: 4, Azimuth: 90, Elevation: -20}, TexRepeat: 2, FollowFloor: true,
		Body: [4]float32{0.8, 0.6, 0.4, 1}, Geoms: map[string][4]float32{"thigh_left_geom": {0.7, 0.3, 0.6, 1},
			"leg_left_geom": {0.7, 0.3, 0.6, 1}, "foot_left_geom": {0.7, 0.3, 0.6, 1}}},
	"swimmer": {Camera: Camera{Track: 1, Distance: 4, Azimuth: 90, Elevation: -60}, TexRepeat: 2, FollowFloor: true,
		Body: [4]float32{0.8, 0.6, 0.4, 1}},
	"invertedpendulum": {Camera: Camera{Track: -1, Distance: 2.4, Azimuth: 90, Elevation: -5, Lookat: [3]float64{0, 0, 0.3}}, TexRepeat: 2,
		Body: [4]float32{0.8, 0.6, 0.4, 1}, Geoms: map[string][4]float32{"rail": {0.5, 0.5, 0.5, 1}, "cpole": {0, 0.7, 0.7, 1}}},
	"reacher": {Camera: Camera{Track: -1, Distance: 0.8, Azimuth: 90, Elevation: -75}, TexRepeat: 10,
		Body: [4]float32{0.8, 0.6, 0.4, 1}, Geoms: map[string][4]float32{"target": {0.9, 0.15, 0.15, 1}, "fingertip": {0.1, 0.7, 0.6, 1}, "root": {0.4, 0.4, 0.4, 1}}},
}

// Renderer draws a Data with MuJoCo's own OpenGL renderer (mjr_*) into an
// offscreen buffer of a Mesa OSMesa software context: no display and no GPU
// are needed. It is not safe for concurrent use.
type Renderer struct {
	r     *C.hcRender
	st    *C.hcStatus
	model *Model
	data  *Data
	w, h  int
}

// NewRenderer makes a width×height renderer for data (its model's offscreen
// buffer size is set to width×height) with the given camera.
func NewRenderer(data *Data, width, height int, cam Camera) (*Renderer, error) {
	if data == nil || !data.open() {
		return nil, ErrClosed
	}
	if width < 1 || height < 1 {
		return nil, fmt.Errorf("mujoco: render size %dx%d", width, height)
	}
	st := (*C.hcStatus)(C.calloc(1, C.size_t(unsafe.Sizeof(C.hcStatus{}))))
	if st == nil {
		return nil, errors.New("mujoco: out of memory for the status block")
	}
	r := C.hc_render_new(data.model.m, C.int(width), C.int(height), st)
	if r == nil {
		msg := C.GoString(&st.msg[0])
		C.free(unsafe.Pointer(st))
		return nil, fmt.Errorf("mujoco: offscreen renderer: %s", msg)
	}
	lookat := [3]C.double{C.double(cam.Lookat[0]), C.double(cam.Lookat[1]), C.double(cam.Lookat[2])}
	C.hc_render_camera(r, C.int(cam.Track), C.double(cam.Distance), C.double(cam.Azimuth), C.double(cam.Elevation), &lookat[0])
	return &Renderer{r: r, st: st, model: data.model, data: data, w: width, h: height}, nil
}

// Render draws the data's current state into dst (width×height, rows top
// down).
func (r *Renderer) Render(dst *image.RGBA) error {
	if r.r == nil || !r.data.open() {
		return ErrClosed
	}
	if b := dst.Bounds(); b.Dx() != r.w || b.Dy() != r.h || dst.Stride != 4*r.w {
		return fmt.Errorf("mujoco: render into a %dx%d image (stride %d), want %dx%d", b.Dx(), b.Dy(), dst.Stride, r.w, r.h)
	}
	// The C call writes into Go memory that holds no Go pointers.
	if code := C.hc_render_frame(r.r, r.model.m, r.data.d, (*C.uchar)(unsafe.Pointer(&dst.Pix[0])), r.st); code != C.HC_OK {
		return fmt.Errorf("mujoco: render: %s", C.GoString(&r.st.msg[0]))
	}
	runtime.KeepAlive(dst)
	return nil
}

// Close frees the GL context and buffers. It is safe to call twice.
func (r *Renderer) Close() error {
	if r.r != nil {
		C.hc_render_free(r.r)
		C.free(unsafe.Pointer(r.st))
		r.r, r.st = nil, nil
	}
	return nil
}

// renderXML decorates an environment's MJCF for drawing only: a headlight,
// a gradient skybox, a checker material on the floor plane (if any) and a
// light.
// Bodies, joints and their inertial figures are untouched, so the state of
// the simulation model (qpos, qvel) drives this one.
func renderXML(xml string, st Style) (string, error) {
	head := strings.Index(xml, "<mujoco")
	if head < 0 {
		return "", errors.New("no <mujoco> element")
	}
	head += strings.Index(xml[head:], ">") + 1
	assets := fmt.Sprintf(`
  <visual><quality offsamples="0"/><headlight ambient="0.35 0.35 0.35" diffuse="0.6 0.6 0.6" specular="0.1 0.1 0.1"/></visual>
  <asset>
    <texture name="hc_sky" type="skybox" builtin="gradient" rgb1="0.45 0.6 0.75" rgb2="0.05 0.05 0.1" width="256" height="256"/>
    <texture name="hc_floor" type="2d" builtin="checker" rgb1="0.12 0.2 0.28" rgb2="0.22 0.3 0.38" width="256" height="256"/>
    <material name="hc_floor" texture="hc_floor" texrepeat="%g %g" texuniform="true"/>
  </asset>`, st.TexRepeat, st.TexRepeat)
	out := xml[:head] + assets + xml[head:]
	// A model without a floor (InvertedPendulum) is drawn over the sky.
	if plane := strings.Index(out, `type="plane"`); plane >= 0 {
		out = out[:plane] + `type="plane" material="hc_floor"` + out[plane+len(`type="plane"`):]
	}
	wb := strings.Index(out, "<worldbody>")
	if wb < 0 {
		return "", errors.New("no <worldbody>")
	}
	wb += len("<worldbody>")
	return out[:wb] + `
    <light name="hc_sun" pos="0 0 5" dir="0 0 -1" directional="true" diffuse="0.45 0.45 0.45" castshadow="false"/>` + out[wb:], nil
}

// envRenderer draws a MuJoCo environment: a decorated copy of its model
// (renderXML) whose state is set from the environment's before each frame.
type envRenderer struct {
	src   *Data
	model *Model
	data  *Data
	r     *Renderer
	// follow moves these floor planes (geom ids; none without
	// Style.FollowFloor) with body track, by whole periods.
	follow []int
	track  int
	period float64
}

// NewRenderer makes the environment's renderer (envs.Renderable) with its
// Style.
func (s *sim) NewRenderer(width, height int) (envs.Renderer, error) {
	if s.closed {
		return nil, envs.ErrClosed
	}
	st, ok := Styles[s.spec.Name]
	xml, ok2 := ModelXML(s.spec.Name)
	if !ok || !ok2 {
		return nil, fmt.Errorf("%s: %w", s.spec.ID, envs.ErrNotRenderable)
	}
	dx, err := renderXML(xml, st)
	if err != nil {
		return nil, fmt.Errorf("mujoco: %s render model: %w", s.spec.ID, err)
	}
	m, err := LoadXML(dx)
	if err != nil {
		return nil, fmt.Errorf("mujoco: %s render model: %w", s.spec.ID, err)
	}
	if m.Nq() != s.model.Nq() || m.Nv() != s.model.Nv() || m.NGeom() != s.model.NGeom() {
		m.Close()
		return nil, fmt.Errorf("mujoco: %s render model differs from the simulation model", s.spec.ID)
	}
	colourGeoms(m, st)
	d, err := NewData(m)
	if err != nil {
		m.Close()
		return nil, err
	}
	r, err := NewRenderer(d, width, height, st.Camera)
	if err != nil {
		d.Close()
		m.Close()
		return nil, err
	}
	e := &envRenderer{src: s.data, model: m, data: d, r: r}
	if st.FollowFloor && st.Camera.Track >= 0 && st.TexRepeat > 0 {
		e.follow, e.track, e.period = planes(m), st.Camera.Track, 1/st.TexRepeat
	}
	return e, nil
}

// colourGeoms sets the colours of a render model's geoms (rendering only).
func colourGeoms(m *Model, st Style) {
	n := m.NGeom()
	rgba := unsafe.Slice((*float32)(unsafe.Pointer(m.m.geom_rgba)), 4*n)
	types := unsafe.Slice((*int32)(unsafe.Pointer(m.m.geom_type)), n)
	for i := 0; i < n; i++ {
		c, named := st.Geoms[m.Name(ObjGeom, i)]
		switch {
		case named:
		case types[i] == C.mjGEOM_PLANE || rgba[4*i+3] == 0:
			continue // the floor has its material; invisible geoms stay so
		default:
			c = st.Body
		}
		copy(rgba[4*i:4*i+4], c[:])
	}
}

// planes lists a model's plane geoms.
func planes(m *Model) []int {
	n := m.NGeom()
	types := unsafe.Slice((*int32)(unsafe.Pointer(m.m.geom_type)), n)
	var out []int
	for i := 0; i < n; i++ {
		if types[i] == C.mjGEOM_PLANE {
			out = append(out, i)
		}
	}
	return out
}

// followFloor puts the followed floor planes under the tracked body (x
// and y, in whole checker periods, which the checker's texuniform mapping
// draws seamlessly). It sets the render data's geom_xpos, which the scene
// reads, after the forward pass (which copies a plane at its body's frame
// from the world body, ignoring geom_pos).
func (e *envRenderer) followFloor() {
	if len(e.follow) == 0 {
		return
	}
	at := e.src.Xpos(e.track)
	pos := unsafe.Slice((*float64)(unsafe.Pointer(e.data.d.geom_xpos)), 3*e.model.NGeom())
	for _, g := range e.follow {
		for k := 0; k < 2; k++ {
			if v := at[k]; !math.IsNaN(v) && !math.IsInf(v, 0) {
				pos[3*g+k] = math.Round(v/e.period) * e.period
			}
		}
	}
}

// Render sets the render model to the environment's state and draws it.
func (e *envRenderer) Render(dst *image.RGBA) error {
	if e.r == nil || !e.src.open() {
		return ErrClosed
	}
	if err := e.data.SetState(e.src.Qpos(), e.src.Qvel()); err != nil {
		return fmt.Errorf("mujoco: render: %w", err)
	}
	e.followFloor()
	return e.r.Render(dst)
}

// Close frees the renderer and its model.
func (e *envRenderer) Close() error {
	if e.r != nil {
		e.r.Close()
		e.data.Close()
		e.model.Close()
		e.r = nil
	}
	return nil
}
