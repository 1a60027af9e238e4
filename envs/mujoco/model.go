package mujoco

/*
#include <stdlib.h>
#include "binding.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"unsafe"
)

// Model is a compiled MuJoCo model (mjModel).
type Model struct {
	m *C.mjModel
}

// compileMu serializes MJCF compilation: MuJoCo's compiler uses
// process-wide state (its error and warning handlers), so two compilations
// must not overlap. Stepping is not affected.
var compileMu sync.Mutex

// handlersInstalled reports whether the package's MuJoCo error and warning
// handlers are the ones in place (for tests).
func handlersInstalled() bool { return C.hc_handlers_installed() != 0 }

// LoadXML compiles an MJCF document. It is safe to call from several
// goroutines (compilations are serialized). A document compiled before in
// this process is not compiled again: the model is a copy (mj_copyModel) of
// the one compiled then, equal to a new compilation field for field (see
// compiled), so a process that builds the same environment again and again
// (a population's worker, at every member and generation) pays the
// compiler once. The copy is the caller's own: closing or changing it
// leaves the others alone.
func LoadXML(xml string) (*Model, error) {
	if len(xml) == 0 {
		return nil, errors.New("mujoco: empty MJCF document")
	}
	m, err := compiled.copyOf(xml)
	if err != nil {
		return nil, err
	}
	return &Model{m: m}, nil
}

// compileXML compiles an MJCF document with MuJoCo's compiler.
func compileXML(xml string) (*C.mjModel, error) {
	compileMu.Lock()
	defer compileMu.Unlock()
	cs := C.CString(xml)
	defer C.free(unsafe.Pointer(cs))
	var errbuf [1000]C.char
	m := C.hc_load_xml(cs, C.int(len(xml)), &errbuf[0], C.int(len(errbuf)))
	if m == nil {
		return nil, fmt.Errorf("mujoco: compile MJCF: %s", C.GoString(&errbuf[0]))
	}
	return m, nil
}

// compiledCap is how many compiled documents a process keeps: more than
// the built-in environments' models, so that a long-lived process with a
// few documents of its own does not compile them again either.
const compiledCap = 32

// modelCache holds the models compiled in this process, by document, for
// LoadXML to copy; past compiledCap documents the oldest is freed (copies
// made from it are unaffected). Documents that fail to compile are not
// kept.
type modelCache struct {
	mu    sync.Mutex
	m     map[string]*C.mjModel
	order []string // documents in the order compiled
}

var compiled = modelCache{m: map[string]*C.mjModel{}}

// forget frees the compiled model of xml, if kept, so that the next
// LoadXML compiles it again (for tests).
func (c *modelCache) forget(xml string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.m[xml]
	if !ok {
		return
	}
	C.mj_deleteModel(m)
	delete(c.m, xml)
	c.order = slices.DeleteFunc(c.order, func(d string) bool { return d == xml })
}

// has reports whether the compiled model of xml is kept (for tests).
func (c *modelCache) has(xml string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.m[xml]
	return ok
}

// copyOf returns a copy of the compiled model of xml, compiling it the
// first time. The copy is made under the cache's lock, so that no other
// call frees the model while it is copied.
func (c *modelCache) copyOf(xml string) (*C.mjModel, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.m[xml]
	if !ok {
		var err error
		if m, err = compileXML(xml); err != nil {
			return nil, err
		}
		if len(c.order) == compiledCap {
			C.mj_deleteModel(c.m[c.order[0]])
			delete(c.m, c.order[0])
			c.order = c.order[1:]
		}
		c.m[xml] = m
		c.order = append(c.order, xml)
	}
	st := (*C.hcStatus)(C.calloc(1, C.size_t(unsafe.Sizeof(C.hcStatus{}))))
	if st == nil {
		return nil, errors.New("mujoco: out of memory for the status block")
	}
	defer C.free(unsafe.Pointer(st))
	cp := C.hc_copy_model(m, st)
	if cp == nil {
		return nil, fmt.Errorf("mujoco: copy the compiled model: %s", C.GoString(&st.msg[0]))
	}
	return cp, nil
}

// Close frees the model. It is safe to call twice. Data made from the model
// return ErrClosed from then on (they must still be Closed themselves).
func (m *Model) Close() error {
	if m.m != nil {
		C.mj_deleteModel(m.m)
		m.m = nil
	}
	return nil
}

// Closed reports whether Close was called.
func (m *Model) Closed() bool { return m.m == nil }

func (m *Model) count(f func(*C.mjModel) C.int) int {
	if m.m == nil {
		return 0
	}
	return int(f(m.m))
}

// Nq is the number of position coordinates (0 after Close).
func (m *Model) Nq() int { return m.count(func(c *C.mjModel) C.int { return c.nq }) }

// Nv is the number of degrees of freedom.
func (m *Model) Nv() int { return m.count(func(c *C.mjModel) C.int { return c.nv }) }

// Nu is the number of actuators.
func (m *Model) Nu() int { return m.count(func(c *C.mjModel) C.int { return c.nu }) }

// NBody is the number of bodies, the world body included.
func (m *Model) NBody() int { return m.count(func(c *C.mjModel) C.int { return c.nbody }) }

// NJnt is the number of joints.
func (m *Model) NJnt() int { return m.count(func(c *C.mjModel) C.int { return c.njnt }) }

// NGeom is the number of geoms.
func (m *Model) NGeom() int { return m.count(func(c *C.mjModel) C.int { return c.ngeom }) }

// NSite is the number of sites.
func (m *Model) NSite() int { return m.count(func(c *C.mjModel) C.int { return c.nsite }) }

// Timestep is opt.timestep (0 after Close).
func (m *Model) Timestep() float64 {
	if m.m == nil {
		return 0
	}
	return float64(m.m.opt.timestep)
}

// Integrator is opt.integrator.
func (m *Model) Integrator() Integrator {
	if m.m == nil {
		return -1
	}
	return Integrator(m.m.opt.integrator)
}

// Iterations is opt.iterations, the constraint solver's iteration limit.
func (m *Model) Iterations() int {
	if m.m == nil {
		return 0
	}
	return int(m.m.opt.iterations)
}

// Gravity is opt.gravity.
func (m *Model) Gravity() [3]float64 {
	var g [3]float64
	if m.m != nil {
		for i := range g {
			g[i] = float64(m.m.opt.gravity[i])
		}
	}
	return g
}

// Options are the physics options of mjModel.opt (all of them but apirate,
// the remote API's update rate).
type Options struct {
	Timestep         float64
	Integrator       Integrator
	Iterations       int
	Tolerance        float64
	NoslipIterations int
	NoslipTolerance  float64
	MprIterations    int
	MprTolerance     float64
	Impratio         float64
	Gravity          [3]float64
	Wind             [3]float64
	Magnetic         [3]float64
	Density          float64
	Viscosity        float64
	Margin           float64    // o_margin, the contact override's margin
	Solref           [2]float64 // o_solref
	Solimp           [5]float64 // o_solimp
	Cone             int
	Jacobian         int
	Solver           int
	Collision        int
	DisableFlags     int
	EnableFlags      int
}

// Options returns the model's physics options.
func (m *Model) Options() (Options, error) {
	if m.m == nil {
		return Options{}, ErrClosed
	}
	o := &m.m.opt
	out := Options{
		Timestep:         float64(o.timestep),
		Integrator:       Integrator(o.integrator),
		Iterations:       int(o.iterations),
		Tolerance:        float64(o.tolerance),
		NoslipIterations: int(o.noslip_iterations),
		NoslipTolerance:  float64(o.noslip_tolerance),
		MprIterations:    int(o.mpr_iterations),
		MprTolerance:     float64(o.mpr_tolerance),
		Impratio:         float64(o.impratio),
		Density:          float64(o.density),
		Viscosity:        float64(o.viscosity),
		Margin:           float64(o.o_margin),
		Cone:             int(o.cone),
		Jacobian:         int(o.jacobian),
		Solver:           int(o.solver),
		Collision:        int(o.collision),
		DisableFlags:     int(o.disableflags),
		EnableFlags:      int(o.enableflags),
	}
	for i := 0; i < 3; i++ {
		out.Gravity[i] = float64(o.gravity[i])
		out.Wind[i] = float64(o.wind[i])
		out.Magnetic[i] = float64(o.magnetic[i])
	}
	for i := range out.Solref {
		out.Solref[i] = float64(o.o_solref[i])
	}
	for i := range out.Solimp {
		out.Solimp[i] = float64(o.o_solimp[i])
	}
	return out, nil
}

// ID looks up a named element with mj_name2id.
func (m *Model) ID(obj ObjType, name string) (int, error) {
	if m.m == nil {
		return -1, ErrClosed
	}
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	id := int(C.mj_name2id(m.m, C.int(obj), cs))
	if id < 0 {
		return -1, fmt.Errorf("mujoco: no %s named %q", obj, name)
	}
	return id, nil
}

// Name is the name of element id of kind obj ("" when unnamed or invalid).
func (m *Model) Name(obj ObjType, id int) string {
	if m.m == nil {
		return ""
	}
	p := C.mj_id2name(m.m, C.int(obj), C.int(id))
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

// BodyID is ID(ObjBody, name).
func (m *Model) BodyID(name string) (int, error) { return m.ID(ObjBody, name) }

// SiteID is ID(ObjSite, name).
func (m *Model) SiteID(name string) (int, error) { return m.ID(ObjSite, name) }

// JointID is ID(ObjJoint, name).
func (m *Model) JointID(name string) (int, error) { return m.ID(ObjJoint, name) }

// ActuatorID is ID(ObjActuator, name).
func (m *Model) ActuatorID(name string) (int, error) { return m.ID(ObjActuator, name) }

func nums(p *C.mjtNum, n int) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(p)), n)
}

func ints(p *C.int, n int) []int32 {
	return unsafe.Slice((*int32)(unsafe.Pointer(p)), n)
}

func bytesOf(p *C.mjtByte, n int) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), n)
}

func (m *Model) checkIndex(what string, i, n int) error {
	if m.m == nil {
		return ErrClosed
	}
	if i < 0 || i >= n {
		return fmt.Errorf("mujoco: %s index %d out of range [0, %d)", what, i, n)
	}
	return nil
}

// Qpos0 is a copy of the reference configuration (each joint's ref).
func (m *Model) Qpos0() []float64 {
	if m.m == nil {
		return nil
	}
	return append([]float64(nil), nums(m.m.qpos0, m.Nq())...)
}

// Body describes one compiled body.
type Body struct {
	Name    string
	Parent  int
	Pos     [3]float64 // position in the parent frame
	Quat    [4]float64 // orientation in the parent frame
	Mass    float64
	Inertia [3]float64 // diagonal inertia in the inertial frame
	IPos    [3]float64 // centre of mass in the body frame
}

// Body returns body i (0 is the world).
func (m *Model) Body(i int) (Body, error) {
	if err := m.checkIndex("body", i, m.NBody()); err != nil {
		return Body{}, err
	}
	n := m.NBody()
	b := Body{
		Name:   m.Name(ObjBody, i),
		Parent: int(ints(m.m.body_parentid, n)[i]),
		Mass:   nums(m.m.body_mass, n)[i],
	}
	copy(b.Pos[:], nums(m.m.body_pos, 3*n)[3*i:])
	copy(b.Quat[:], nums(m.m.body_quat, 4*n)[4*i:])
	copy(b.Inertia[:], nums(m.m.body_inertia, 3*n)[3*i:])
	copy(b.IPos[:], nums(m.m.body_ipos, 3*n)[3*i:])
	return b, nil
}

// TotalMass is the sum of all body masses.
func (m *Model) TotalMass() float64 {
	if m.m == nil {
		return 0
	}
	s := 0.0
	for _, v := range nums(m.m.body_mass, m.NBody()) {
		s += v
	}
	return s
}

// Joint describes one compiled joint. Damping and Armature belong to the
// joint's first degree of freedom (a hinge or slide has one; a free joint's
// six share the joint's values).
type Joint struct {
	Name      string
	Type      JointType
	Body      int
	QposAdr   int
	DofAdr    int
	Axis      [3]float64
	Pos       [3]float64
	Limited   bool
	Range     [2]float64
	Margin    float64
	Stiffness float64
	Damping   float64
	Armature  float64
}

// Joint returns joint i.
func (m *Model) Joint(i int) (Joint, error) {
	if err := m.checkIndex("joint", i, m.NJnt()); err != nil {
		return Joint{}, err
	}
	n, nv := m.NJnt(), m.Nv()
	j := Joint{
		Name:      m.Name(ObjJoint, i),
		Type:      JointType(ints(m.m.jnt_type, n)[i]),
		Body:      int(ints(m.m.jnt_bodyid, n)[i]),
		QposAdr:   int(ints(m.m.jnt_qposadr, n)[i]),
		DofAdr:    int(ints(m.m.jnt_dofadr, n)[i]),
		Limited:   bytesOf(m.m.jnt_limited, n)[i] != 0,
		Margin:    nums(m.m.jnt_margin, n)[i],
		Stiffness: nums(m.m.jnt_stiffness, n)[i],
	}
	copy(j.Axis[:], nums(m.m.jnt_axis, 3*n)[3*i:])
	copy(j.Pos[:], nums(m.m.jnt_pos, 3*n)[3*i:])
	copy(j.Range[:], nums(m.m.jnt_range, 2*n)[2*i:])
	j.Damping = nums(m.m.dof_damping, nv)[j.DofAdr]
	j.Armature = nums(m.m.dof_armature, nv)[j.DofAdr]
	return j, nil
}

// Actuator describes one compiled actuator.
type Actuator struct {
	Name        string
	Joint       int // transmission target (a joint for the motors used here)
	Gear        [6]float64
	CtrlLimited bool
	CtrlRange   [2]float64
}

// Actuator returns actuator i.
func (m *Model) Actuator(i int) (Actuator, error) {
	if err := m.checkIndex("actuator", i, m.Nu()); err != nil {
		return Actuator{}, err
	}
	n := m.Nu()
	a := Actuator{
		Name:        m.Name(ObjActuator, i),
		Joint:       int(ints(m.m.actuator_trnid, 2*n)[2*i]),
		CtrlLimited: bytesOf(m.m.actuator_ctrllimited, n)[i] != 0,
	}
	copy(a.Gear[:], nums(m.m.actuator_gear, 6*n)[6*i:])
	copy(a.CtrlRange[:], nums(m.m.actuator_ctrlrange, 2*n)[2*i:])
	return a, nil
}

// Field is a copy of one mjModel array, converted to float64, row-major.
type Field struct {
	Name       string
	Rows, Cols int
	Values     []float64
}

// Field returns a copy of the mjModel array called name (as in MuJoCo's
// mjxmacro.h, e.g. "body_mass", "geom_size", "jnt_range").
func (m *Model) Field(name string) (Field, error) {
	if m.m == nil {
		return Field{}, ErrClosed
	}
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	var ptr unsafe.Pointer
	var typ, nr, nc C.int
	if C.hc_model_field(m.m, cs, &ptr, &typ, &nr, &nc) == 0 {
		return Field{}, fmt.Errorf("mujoco: mjModel has no array %q", name)
	}
	f := Field{Name: name, Rows: int(nr), Cols: int(nc)}
	n := f.Rows * f.Cols
	f.Values = make([]float64, n)
	if n == 0 || ptr == nil {
		return f, nil
	}
	switch typ {
	case 0:
		copy(f.Values, unsafe.Slice((*float64)(ptr), n))
	case 1:
		for i, v := range unsafe.Slice((*int32)(ptr), n) {
			f.Values[i] = float64(v)
		}
	case 2:
		for i, v := range unsafe.Slice((*uint8)(ptr), n) {
			f.Values[i] = float64(v)
		}
	case 3:
		for i, v := range unsafe.Slice((*float32)(ptr), n) {
			f.Values[i] = float64(v)
		}
	case 4:
		for i, v := range unsafe.Slice((*int8)(ptr), n) {
			f.Values[i] = float64(v)
		}
	default:
		return Field{}, fmt.Errorf("mujoco: array %q has unknown element type %d", name, int(typ))
	}
	return f, nil
}

// FieldNames lists every mjModel array name Field accepts.
func FieldNames() []string {
	var out []string
	for i := 0; ; i++ {
		p := C.hc_model_field_name(C.int(i))
		if p == nil {
			return out
		}
		out = append(out, C.GoString(p))
	}
}
