// Package mujoco binds MuJoCo 2.2.2 (Debian's libmujoco-dev) through cgo and
// implements Gymnasium's Ant-v4, HalfCheetah-v4, Hopper-v4, Humanoid-v4,
// InvertedDoublePendulum-v4, InvertedPendulum-v4, Pusher-v4, Reacher-v4,
// Swimmer-v4 and Walker2d-v4 on it, registered with envs as ant,
// halfcheetah, hopper, humanoid, inverteddoublependulum (alias idp),
// invertedpendulum, pusher, reacher, swimmer and walker2d.
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
#include <stdlib.h>
#include "binding.h"
*/
import "C"

import (
	"errors"
	"fmt"
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
