// Package mujoco binds MuJoCo 2.2.2 (Debian's libmujoco-dev) through cgo.
// Model and Data wrap mjModel and mjData; both must be Closed to free their
// native memory.
package mujoco

/*
#cgo LDFLAGS: -lmujoco
#include <stdlib.h>
#include <string.h>
#include <mujoco/mujoco.h>

// load_xml_string compiles an MJCF document held in memory, through a
// heap-allocated VFS (mjVFS is about 2 MB, too big for the stack).
static mjModel* load_xml_string(const char* xml, int n, char* err, int errsz) {
	mjVFS* vfs = (mjVFS*)malloc(sizeof(mjVFS));
	if (!vfs) { strncpy(err, "out of memory for VFS", errsz); return NULL; }
	mj_defaultVFS(vfs);
	if (mj_makeEmptyFileVFS(vfs, "model.xml", n) != 0) {
		strncpy(err, "could not create VFS file", errsz);
		free(vfs);
		return NULL;
	}
	memcpy(vfs->filedata[0], xml, n);
	mjModel* m = mj_loadXML("model.xml", vfs, err, errsz);
	mj_deleteVFS(vfs);
	free(vfs);
	return m;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// Version is the MuJoCo library version (222 for 2.2.2).
func Version() int { return int(C.mj_version()) }

// Model is a compiled MuJoCo model (mjModel).
type Model struct {
	m *C.mjModel
}

// LoadXML compiles an MJCF document.
func LoadXML(xml string) (*Model, error) {
	if len(xml) == 0 {
		return nil, errors.New("mujoco: empty MJCF document")
	}
	cs := C.CString(xml)
	defer C.free(unsafe.Pointer(cs))
	var errbuf [1000]C.char
	m := C.load_xml_string(cs, C.int(len(xml)), &errbuf[0], C.int(len(errbuf)))
	if m == nil {
		return nil, fmt.Errorf("mujoco: compile MJCF: %s", C.GoString(&errbuf[0]))
	}
	return &Model{m: m}, nil
}

// Close frees the model. It is safe to call twice.
func (m *Model) Close() error {
	if m.m != nil {
		C.mj_deleteModel(m.m)
		m.m = nil
	}
	return nil
}

// Nq, Nv and Nu are the position, velocity and actuator counts.
func (m *Model) Nq() int { return int(m.m.nq) }

// Nv is the number of degrees of freedom.
func (m *Model) Nv() int { return int(m.m.nv) }

// Nu is the number of actuators.
func (m *Model) Nu() int { return int(m.m.nu) }

// Timestep is opt.timestep.
func (m *Model) Timestep() float64 { return float64(m.m.opt.timestep) }

// Data is simulation state (mjData) for one Model.
type Data struct {
	model *Model
	d     *C.mjData
	qpos  []float64
	qvel  []float64
	ctrl  []float64
}

// NewData allocates simulation state for m.
func NewData(m *Model) (*Data, error) {
	if m == nil || m.m == nil {
		return nil, errors.New("mujoco: NewData on a closed model")
	}
	d := C.mj_makeData(m.m)
	if d == nil {
		return nil, errors.New("mujoco: mj_makeData failed")
	}
	out := &Data{model: m, d: d}
	out.qpos = unsafe.Slice((*float64)(unsafe.Pointer(d.qpos)), m.Nq())
	out.qvel = unsafe.Slice((*float64)(unsafe.Pointer(d.qvel)), m.Nv())
	out.ctrl = unsafe.Slice((*float64)(unsafe.Pointer(d.ctrl)), m.Nu())
	return out, nil
}

// Close frees the data. It is safe to call twice.
func (d *Data) Close() error {
	if d.d != nil {
		C.mj_deleteData(d.d)
		d.d = nil
		d.qpos, d.qvel, d.ctrl = nil, nil, nil
	}
	return nil
}

// Qpos is a live view of mjData.qpos.
func (d *Data) Qpos() []float64 { return d.qpos }

// Qvel is a live view of mjData.qvel.
func (d *Data) Qvel() []float64 { return d.qvel }

// Ctrl is a live view of mjData.ctrl.
func (d *Data) Ctrl() []float64 { return d.ctrl }

// Step advances the simulation by n calls to mj_step.
func (d *Data) Step(n int) {
	for i := 0; i < n; i++ {
		C.mj_step(d.model.m, d.d)
	}
}

// Forward runs mj_forward (kinematics, dynamics, no integration).
func (d *Data) Forward() { C.mj_forward(d.model.m, d.d) }

// Reset runs mj_resetData.
func (d *Data) Reset() { C.mj_resetData(d.model.m, d.d) }
