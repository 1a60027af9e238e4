package mujoco

/*
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
	"unsafe"
)

// Data is simulation state (mjData) for one Model.
type Data struct {
	model *Model
	d     *C.mjData
	st    *C.hcStatus // C memory: status of the last guarded call

	qpos, qvel, ctrl []float64
	xpos, siteXpos   []float64
	qfrcConstraint   []float64
	xipos, cinert    []float64
	cvel, cfrcExt    []float64
	qfrcActuator     []float64
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
	out.xipos = nums(d.xipos, 3*m.NBody())
	out.cinert = nums(d.cinert, 10*m.NBody())
	out.cvel = nums(d.cvel, 6*m.NBody())
	out.cfrcExt = nums(d.cfrc_ext, 6*m.NBody())
	out.qfrcActuator = nums(d.qfrc_actuator, m.Nv())
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
		d.xipos, d.cinert, d.cvel, d.cfrcExt, d.qfrcActuator = nil, nil, nil, nil, nil
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

// Xipos is a live view of mjData.xipos, nbody×3: each body's centre of
// mass in world coordinates (stale after Step, like Xpos).
func (d *Data) Xipos() []float64 { return d.xipos }

// Cinert is a live view of mjData.cinert, nbody×10: each body's inertia
// about the centre of mass of its kinematic tree's root subtree, as
// (Ixx, Iyy, Izz, Ixy, Ixz, Iyz, m·dx, m·dy, m·dz, m) (stale after Step).
func (d *Data) Cinert() []float64 { return d.cinert }

// Cvel is a live view of mjData.cvel, nbody×6: com-based velocities,
// [angular, linear] (stale after Step).
func (d *Data) Cvel() []float64 { return d.cvel }

// CfrcExt is a live view of mjData.cfrc_ext, nbody×6: com-based external
// forces, [torque, force]. Only StepPost fills it (mj_rnePostConstraint);
// mj_resetData zeroes it and mj_forward leaves it.
func (d *Data) CfrcExt() []float64 { return d.cfrcExt }

// QfrcActuator is a live view of mjData.qfrc_actuator (nv): the actuator
// forces in joint space, of the last internal forward pass.
func (d *Data) QfrcActuator() []float64 { return d.qfrcActuator }

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
	return d.step(n, 0)
}

// StepPost is Step followed, when no problem was found, by one
// mj_rnePostConstraint call, which fills cacc, cfrc_int and cfrc_ext as
// Gymnasium's do_simulation does after its mj_step calls.
func (d *Data) StepPost(n int) error {
	if !d.open() {
		return ErrClosed
	}
	return d.step(n, 1)
}

func (d *Data) step(n int, post C.int) error {
	if code := C.hc_step(d.model.m, d.d, C.int(n), post, d.st); code != C.HC_OK {
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
