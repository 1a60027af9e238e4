// Package mujoco binds MuJoCo 2.2.2 (Debian's libmujoco-dev) through cgo and
// implements Gymnasium's HalfCheetah-v4, InvertedDoublePendulum-v4, Pusher-v4
// and Reacher-v4 on it, registered with envs as halfcheetah,
// inverteddoublependulum (alias idp), pusher and reacher.
//
// # Binding
//
// Model and Data wrap mjModel and mjData; both must be Closed to free their
// native memory. Every call into MuJoCo that can raise mju_error is guarded:
// the error comes back as a Go error instead of MuJoCo's default exit(1).
// MuJoCo's warnings are not printed (nor written to MUJOCO_LOG.TXT); they are
// read from the mjData warning counters and reported by Data.Step.
//
// Speed: Data.Step runs all its mj_step calls, the warning checks and the
// NaN check in a single cgo call, and the views returned by Qpos, Qvel, Ctrl,
// Xpos, SiteXpos and QfrcConstraint read mjData memory directly, so an
// environment step costs one cgo call and no Go allocation.
//
// # Environments
//
// The MJCF models (models/*.xml, embedded) were written for hyperctl from the
// figures of Gymnasium's v4 files; a test compares the compiled models with
// Gymnasium's own files when ../shared/reference/mujoco exists. Observations,
// rewards (including which are measured before the step and the stale
// kinematics MuJoCo leaves after mj_step), control costs on the raw action,
// termination, reset noise and the order of random draws (envs/rng, NumPy's
// generator) follow Gymnasium; seed-0 values match the fact sheet.
//
// Deviations from Gymnasium, all deliberate:
//   - Instability: a MuJoCo warning, a NaN/huge state or an mju_error ends
//     the episode (Terminated, Reward 0, Info "unstable" = 1, observation of
//     the reference state) instead of continuing silently; see InfoUnstable.
//   - Info always carries the extra key "unstable" (0 on normal steps);
//     InvertedDoublePendulum's info, empty in Gymnasium, holds only that.
//   - mj_rnePostConstraint, which Gymnasium calls after stepping, is skipped:
//     it only fills cacc/cfrc_int/cfrc_ext, which none of these environments
//     reads and nothing later depends on.
//   - Reset(NoSeed) on a never-seeded environment seeds with 0 (envs.NoSeed),
//     where Gymnasium would use OS entropy.
//   - Actions are float64; Gymnasium's float32 sample() would compute the
//     control cost in float32 (differences around 1e-7 relative).
//   - sin/cos come from Go's math package (may differ from NumPy's libm in
//     the last bit).
//
// # Snapshots
//
// Every environment implements envs.StateSaver (state.go): envs.Snapshot
// holds the mjData inputs mj_step reads and does not derive, the stale
// outputs the rewards read between steps, and the Gymnasium layer (reset
// generator, flags, buffers); envs.Restore puts them back without calling
// mj_forward, and the continuation is bit-identical (tested in envs/all and,
// array by array, in state_test.go).
package mujoco

/*
#cgo LDFLAGS: -lmujoco
#cgo nocallback hc_step
#cgo nocallback hc_forward
#cgo nocallback hc_reset
#cgo nocallback hc_step_raw
#cgo nocallback hc_bench_env
#include <stdlib.h>
#include "binding.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"unsafe"
)

func init() { C.hc_init() }

// Version is the MuJoCo library version (222 for 2.2.2).
func Version() int { return int(C.mj_version()) }

// ErrClosed is returned when a Model or Data is used after Close.
var ErrClosed = errors.New("mujoco: use of a closed Model or Data")

// Integrator is mjtIntegrator.
type Integrator int

// MuJoCo 2.2.2 integrators.
const (
	Euler    Integrator = C.mjINT_EULER    // semi-implicit Euler
	RK4      Integrator = C.mjINT_RK4      // 4th-order Runge-Kutta
	Implicit Integrator = C.mjINT_IMPLICIT // implicit in velocity
)

// String is the integrator's MJCF name.
func (i Integrator) String() string {
	switch i {
	case Euler:
		return "Euler"
	case RK4:
		return "RK4"
	case Implicit:
		return "implicit"
	}
	return fmt.Sprintf("Integrator(%d)", int(i))
}

// JointType is mjtJoint.
type JointType int

// MuJoCo joint types.
const (
	JointFree  JointType = C.mjJNT_FREE
	JointBall  JointType = C.mjJNT_BALL
	JointSlide JointType = C.mjJNT_SLIDE
	JointHinge JointType = C.mjJNT_HINGE
)

// String is the joint type's MJCF name.
func (t JointType) String() string {
	switch t {
	case JointFree:
		return "free"
	case JointBall:
		return "ball"
	case JointSlide:
		return "slide"
	case JointHinge:
		return "hinge"
	}
	return fmt.Sprintf("JointType(%d)", int(t))
}

// ObjType is mjtObj, the kind of a named model element.
type ObjType int

// Object types accepted by Model.ID and Model.Name.
const (
	ObjBody     ObjType = C.mjOBJ_BODY
	ObjJoint    ObjType = C.mjOBJ_JOINT
	ObjGeom     ObjType = C.mjOBJ_GEOM
	ObjSite     ObjType = C.mjOBJ_SITE
	ObjActuator ObjType = C.mjOBJ_ACTUATOR
)

// String is the object type's MJCF element name.
func (o ObjType) String() string {
	switch o {
	case ObjBody:
		return "body"
	case ObjJoint:
		return "joint"
	case ObjGeom:
		return "geom"
	case ObjSite:
		return "site"
	case ObjActuator:
		return "actuator"
	}
	return fmt.Sprintf("ObjType(%d)", int(o))
}

// Warning is mjtWarning, an index into mjData's warning counters.
type Warning int

// MuJoCo 2.2.2 warnings.
const (
	WarnInertia     Warning = C.mjWARN_INERTIA
	WarnContactFull Warning = C.mjWARN_CONTACTFULL
	WarnCnstrFull   Warning = C.mjWARN_CNSTRFULL
	WarnVGeomFull   Warning = C.mjWARN_VGEOMFULL
	WarnBadQpos     Warning = C.mjWARN_BADQPOS
	WarnBadQvel     Warning = C.mjWARN_BADQVEL
	WarnBadQacc     Warning = C.mjWARN_BADQACC
	WarnBadCtrl     Warning = C.mjWARN_BADCTRL
	// NWarning is the number of warning kinds.
	NWarning = int(C.mjNWARNING)
)

var warningNames = [...]string{"mjWARN_INERTIA", "mjWARN_CONTACTFULL", "mjWARN_CNSTRFULL",
	"mjWARN_VGEOMFULL", "mjWARN_BADQPOS", "mjWARN_BADQVEL", "mjWARN_BADQACC", "mjWARN_BADCTRL"}

// String is the warning's mjtWarning constant name.
func (w Warning) String() string {
	if w >= 0 && int(w) < len(warningNames) {
		return warningNames[w]
	}
	return fmt.Sprintf("Warning(%d)", int(w))
}

// WarningStat is one mjData warning counter.
type WarningStat struct {
	LastInfo int // info from the last warning (e.g. the bad qpos index)
	Number   int // how many times the warning was raised
}

// --------------------------------------------------------------------------
// Model

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
// goroutines (compilations are serialized).
func LoadXML(xml string) (*Model, error) {
	if len(xml) == 0 {
		return nil, errors.New("mujoco: empty MJCF document")
	}
	compileMu.Lock()
	defer compileMu.Unlock()
	cs := C.CString(xml)
	defer C.free(unsafe.Pointer(cs))
	var errbuf [1000]C.char
	m := C.hc_load_xml(cs, C.int(len(xml)), &errbuf[0], C.int(len(errbuf)))
	if m == nil {
		return nil, fmt.Errorf("mujoco: compile MJCF: %s", C.GoString(&errbuf[0]))
	}
	return &Model{m: m}, nil
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

// Options are the physics options of mjModel.opt that matter for these
// environments.
type Options struct {
	Timestep     float64
	Integrator   Integrator
	Iterations   int
	Tolerance    float64
	Impratio     float64
	Gravity      [3]float64
	Wind         [3]float64
	Density      float64
	Viscosity    float64
	Cone         int
	Jacobian     int
	Solver       int
	Collision    int
	DisableFlags int
	EnableFlags  int
}

// Options returns the model's physics options.
func (m *Model) Options() (Options, error) {
	if m.m == nil {
		return Options{}, ErrClosed
	}
	o := &m.m.opt
	out := Options{
		Timestep:     float64(o.timestep),
		Integrator:   Integrator(o.integrator),
		Iterations:   int(o.iterations),
		Tolerance:    float64(o.tolerance),
		Impratio:     float64(o.impratio),
		Density:      float64(o.density),
		Viscosity:    float64(o.viscosity),
		Cone:         int(o.cone),
		Jacobian:     int(o.jacobian),
		Solver:       int(o.solver),
		Collision:    int(o.collision),
		DisableFlags: int(o.disableflags),
		EnableFlags:  int(o.enableflags),
	}
	for i := 0; i < 3; i++ {
		out.Gravity[i] = float64(o.gravity[i])
		out.Wind[i] = float64(o.wind[i])
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
// joint's first degree of freedom (all four environments use 1-dof joints).
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

// --------------------------------------------------------------------------
// Data

// Data is simulation state (mjData) for one Model.
type Data struct {
	model *Model
	d     *C.mjData
	st    *C.hcStatus // C memory: status of the last guarded call

	qpos, qvel, ctrl []float64
	xpos, siteXpos   []float64
	qfrcConstraint   []float64
}

// NewData allocates simulation state for m.
func NewData(m *Model) (*Data, error) {
	if m == nil || m.m == nil {
		return nil, errors.New("mujoco: NewData on a closed model")
	}
	st := (*C.hcStatus)(C.calloc(1, C.size_t(unsafe.Sizeof(C.hcStatus{}))))
	if st == nil {
		return nil, errors.New("mujoco: out of memory for the status block")
	}
	d := C.hc_make_data(m.m, st)
	if d == nil {
		msg := C.GoString(&st.msg[0])
		C.free(unsafe.Pointer(st))
		return nil, fmt.Errorf("mujoco: mj_makeData failed: %s", msg)
	}
	out := &Data{model: m, d: d, st: st}
	out.qpos = nums(d.qpos, m.Nq())
	out.qvel = nums(d.qvel, m.Nv())
	out.ctrl = nums(d.ctrl, m.Nu())
	out.xpos = nums(d.xpos, 3*m.NBody())
	out.siteXpos = nums(d.site_xpos, 3*m.NSite())
	out.qfrcConstraint = nums(d.qfrc_constraint, m.Nv())
	return out, nil
}

// Close frees the data. It is safe to call twice; the views returned
// earlier must not be used afterwards.
func (d *Data) Close() error {
	if d.d != nil {
		C.mj_deleteData(d.d)
		C.free(unsafe.Pointer(d.st))
		d.d, d.st = nil, nil
		d.qpos, d.qvel, d.ctrl, d.xpos, d.siteXpos, d.qfrcConstraint = nil, nil, nil, nil, nil, nil
	}
	return nil
}

func (d *Data) open() bool { return d.d != nil && d.model.m != nil }

// Model is the model the data was made for.
func (d *Data) Model() *Model { return d.model }

// Qpos is a live view of mjData.qpos.
func (d *Data) Qpos() []float64 { return d.qpos }

// Qvel is a live view of mjData.qvel.
func (d *Data) Qvel() []float64 { return d.qvel }

// Ctrl is a live view of mjData.ctrl.
func (d *Data) Ctrl() []float64 { return d.ctrl }

// Xpos is a live view of mjData.xpos for body i: the body frame origin in
// world coordinates (what Gymnasium's get_body_com returns). After Step it
// holds the kinematics of the last internal forward pass, not of the final
// qpos, exactly as Gymnasium reads it.
func (d *Data) Xpos(i int) []float64 { return d.xpos[3*i : 3*i+3 : 3*i+3] }

// SiteXpos is a live view of mjData.site_xpos for site i (stale after Step,
// like Xpos).
func (d *Data) SiteXpos(i int) []float64 { return d.siteXpos[3*i : 3*i+3 : 3*i+3] }

// QfrcConstraint is a live view of mjData.qfrc_constraint (stale after Step,
// like Xpos).
func (d *Data) QfrcConstraint() []float64 { return d.qfrcConstraint }

// Time is mjData.time.
func (d *Data) Time() float64 {
	if d.d == nil {
		return 0
	}
	return float64(d.d.time)
}

// NCon is the number of active contacts found by the last forward pass.
func (d *Data) NCon() int {
	if d.d == nil {
		return 0
	}
	return int(d.d.ncon)
}

// Warnings returns the mjData warning counters. Step clears them before it
// starts, so after a Step they describe that Step alone.
func (d *Data) Warnings() [NWarning]WarningStat {
	var out [NWarning]WarningStat
	if d.d == nil {
		return out
	}
	for i := range out {
		out[i] = WarningStat{LastInfo: int(d.d.warning[i].lastinfo), Number: int(d.d.warning[i].number)}
	}
	return out
}

// InstabilityError reports a simulation that went wrong during Step: a
// MuJoCo warning (for example mjWARN_BADQACC, after which MuJoCo has already
// reset the state to qpos0), a NaN/Inf/huge qpos or qvel entry, or an
// mju_error. The state is not meaningful afterwards: reset it.
type InstabilityError struct {
	Kind    string  // "warning", "bad state" or "mujoco error"
	Warning Warning // for Kind "warning"
	Info    int     // warning info, or the bad qpos/qvel index
	InQvel  bool    // for Kind "bad state": the bad entry is in qvel
	Substep int     // 0-based mj_step call at which it was detected
	Time    float64 // mjData.time afterwards
	Message string  // MuJoCo's message, if any
}

// Error describes the instability.
func (e *InstabilityError) Error() string {
	var what string
	switch e.Kind {
	case "warning":
		what = fmt.Sprintf("%s (info %d)", e.Warning, e.Info)
	case "bad state":
		vec := "qpos"
		if e.InQvel {
			vec = "qvel"
		}
		what = fmt.Sprintf("bad number in %s[%d]", vec, e.Info)
	default:
		what = e.Kind
	}
	s := fmt.Sprintf("mujoco: unstable simulation: %s at substep %d, time %.4f", what, e.Substep, e.Time)
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

func (d *Data) statusError(code C.int) error {
	st := d.st
	e := &InstabilityError{
		Warning: Warning(st.warning),
		Info:    int(st.info),
		InQvel:  st.isvel != 0,
		Substep: int(st.substep),
		Time:    float64(d.d.time),
		Message: C.GoString(&st.msg[0]),
	}
	switch code {
	case C.HC_WARNING:
		e.Kind = "warning"
	case C.HC_BADSTATE:
		e.Kind = "bad state"
	default:
		e.Kind = "mujoco error"
	}
	return e
}

// Step advances the simulation by n calls to mj_step in one cgo call, with
// ctrl as it is. It returns an *InstabilityError when MuJoCo raised a warning
// (stepping stops at that mj_step), when qpos or qvel end up NaN, infinite or
// beyond 1e10, or when MuJoCo raised an error.
func (d *Data) Step(n int) error {
	if !d.open() {
		return ErrClosed
	}
	if code := C.hc_step(d.model.m, d.d, C.int(n), d.st); code != C.HC_OK {
		return d.statusError(code)
	}
	return nil
}

// StepRaw is the bare physics loop: n mj_step calls in one C loop with no
// checks at all. It exists to measure the physics limit (benchmarks).
func (d *Data) StepRaw(n int) error {
	if !d.open() {
		return ErrClosed
	}
	if code := C.hc_step_raw(d.model.m, d.d, C.long(n), d.st); code != C.HC_OK {
		return d.statusError(code)
	}
	return nil
}

// BenchEnvLoop is the bare C version of an environment's stepping work, for
// measuring the physics limit: for each of nenv environment steps it copies
// the next row of actions (nu values per row, cycling) into ctrl and calls
// mj_step frameSkip times. Every episode steps (if > 0) it runs
// mj_resetData, then, if init is not empty, copies the next row of init (nq
// qpos values then nv qvel values per row, cycling) into the state, and
// runs mj_forward, as an environment's reset does. No Go code runs in
// between.
func (d *Data) BenchEnvLoop(nenv, frameSkip, episode int, actions, init []float64) error {
	if !d.open() {
		return ErrClosed
	}
	nu, nx := d.model.Nu(), d.model.Nq()+d.model.Nv()
	if nu == 0 || len(actions) == 0 || len(actions)%nu != 0 {
		return fmt.Errorf("mujoco: BenchEnvLoop: actions has %d values, want a positive multiple of nu = %d", len(actions), nu)
	}
	if len(init)%nx != 0 {
		return fmt.Errorf("mujoco: BenchEnvLoop: init has %d values, want a multiple of nq+nv = %d", len(init), nx)
	}
	// Both tables are copied to C memory: C must not keep Go pointers.
	buf := (*C.mjtNum)(C.malloc(C.size_t(8 * (len(actions) + len(init) + 1))))
	if buf == nil {
		return errors.New("mujoco: BenchEnvLoop: out of memory")
	}
	defer C.free(unsafe.Pointer(buf))
	all := nums(buf, len(actions)+len(init))
	copy(all, actions)
	copy(all[len(actions):], init)
	initPtr := (*C.mjtNum)(unsafe.Add(unsafe.Pointer(buf), 8*len(actions)))
	if code := C.hc_bench_env(d.model.m, d.d, C.long(nenv), C.int(frameSkip), C.int(episode),
		buf, C.int(len(actions)/nu), initPtr, C.int(len(init)/nx), d.st); code != C.HC_OK {
		return d.statusError(code)
	}
	return nil
}

// Forward runs mj_forward (kinematics, dynamics, no integration).
func (d *Data) Forward() error {
	if !d.open() {
		return ErrClosed
	}
	if code := C.hc_forward(d.model.m, d.d, d.st); code != C.HC_OK {
		return d.statusError(code)
	}
	return nil
}

// Reset runs mj_resetData: time 0, qpos = qpos0, everything else zero.
func (d *Data) Reset() error {
	if !d.open() {
		return ErrClosed
	}
	if code := C.hc_reset(d.model.m, d.d, d.st); code != C.HC_OK {
		return d.statusError(code)
	}
	return nil
}

// SetState copies qpos and qvel in and runs mj_forward, as Gymnasium's
// MujocoEnv.set_state. Wrong lengths and NaN/Inf entries are errors that
// leave the state unchanged.
func (d *Data) SetState(qpos, qvel []float64) error {
	if !d.open() {
		return ErrClosed
	}
	if len(qpos) != len(d.qpos) {
		return fmt.Errorf("mujoco: SetState: qpos has %d values, want nq = %d", len(qpos), len(d.qpos))
	}
	if len(qvel) != len(d.qvel) {
		return fmt.Errorf("mujoco: SetState: qvel has %d values, want nv = %d", len(qvel), len(d.qvel))
	}
	if err := finite("qpos", qpos); err != nil {
		return fmt.Errorf("mujoco: SetState: %w", err)
	}
	if err := finite("qvel", qvel); err != nil {
		return fmt.Errorf("mujoco: SetState: %w", err)
	}
	copy(d.qpos, qpos)
	copy(d.qvel, qvel)
	return d.Forward()
}

func finite(name string, x []float64) error {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s[%d] is %v, want a finite number", name, i, v)
		}
	}
	return nil
}
