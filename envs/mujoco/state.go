package mujoco

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/envs/rng"
	"github.com/hyperctl/hyperctl/internal/ground/statecodec"
)

// Snapshot state of a MuJoCo environment (envs.StateSaver).
//
// MuJoCo 2.2.2 has no mj_getState; the arrays below were chosen from
// mjdata.h and are proved sufficient by the restore tests (state_test.go and
// envs/all), which compare every observation, reward, flag and info value
// bit for bit against an uninterrupted run, after restoring into a fresh
// environment and into one whose mjData holds another trajectory's values.
//
// Inputs of mj_step that it reads and does not derive (MuJoCo's own
// "integration state" and "user inputs"):
//
//	time, qpos, qvel, act (na), qacc_warmstart (the constraint solver's warm
//	start: leaving it out changes HalfCheetah's trajectory, tested),
//	ctrl, qfrc_applied, xfrc_applied (nbody×6), mocap_pos, mocap_quat,
//	userdata (nuserdata)
//
// MuJoCo 2.2.2 has no plugins and no eq_active in mjData; the models here
// have na = nmocap = nuserdata = 0, which the encoding records anyway.
// The warning counters are not held: Data.Step clears them before it
// starts, so they never carry from one step to the next.
//
// Outputs the environments read between steps, held verbatim: after
// mj_step they describe the last internal forward pass, not the final qpos
// (Reacher's and Pusher's rewards are computed from these stale body
// positions before the step, as in Gymnasium, and Ant's forward velocity
// starts from the stale torso xpos):
//
//	xpos (nbody×3), site_xpos (nsite×3), qfrc_constraint (nv)
//
// An environment may hold more outputs, after these, named in sim.held:
// Humanoid holds xipos (nbody×3), the stale centres of mass its velocity
// starts from. The observation's cinert, cvel, qfrc_actuator and cfrc_ext
// are not held: they are read only right after a step (or a reset) that
// recomputes them, and the observation itself is held.
//
// Every other mjData array is recomputed from the inputs by the next
// mj_step's forward pass before anything reads it. mj_forward is not called
// after a restore: it changes the continuation of HalfCheetah, Pusher and
// Reacher (TestRestoreArraysThatMatter), through the stale positions and
// the warm start.
//
// Which held arrays matter is measured by TestRestoreArraysThatMatter
// (restore with one array left at another trajectory's values): qpos and
// qvel for all, qacc_warmstart for HalfCheetah, xpos for Ant, Pusher and
// Reacher, xipos for Humanoid. time, ctrl (overwritten by every action), the applied forces
// (always 0 here) and the empty arrays change nothing in these
// environments; they are held because mj_step reads them.
//
// Gymnasium layer: whether a Reset succeeded, the reset generator
// (envs/rng state, buffered half included), the instability count and last
// message, and the observation and info buffers.
//
// Payload layout, section "mujoco" version 1: the environment id, ready
// (bool), has-generator (bool) and the generator's 38-byte state,
// instability count (int64) and last message, the observation and info
// values (float64 lists), then the number of arrays and, for each, its name
// and float64 values; names, order and lengths must match the model's.
const mujocoStateVersion = 1

// stateArray is one mjData array a snapshot holds: a live view.
type stateArray struct {
	name string
	vals []float64
}

// stateArrays returns live views of the mjData arrays a snapshot holds, in
// snapshot order (see the comment above): the common ones, then held, which
// must name arrays of heldArray.
func (d *Data) stateArrays(held []string) []stateArray {
	out := d.commonStateArrays()
	for _, name := range held {
		out = append(out, stateArray{name, d.heldArray(name)})
	}
	return out
}

// heldArray is the live view of an output an environment may add to its
// snapshot (sim.held); nil for an unknown name.
func (d *Data) heldArray(name string) []float64 {
	switch name {
	case "xipos":
		return d.xipos
	}
	return nil
}

func (d *Data) commonStateArrays() []stateArray {
	m, dd := d.model.m, d.d
	nv, nbody := int(m.nv), int(m.nbody)
	return []stateArray{
		{"time", unsafe.Slice((*float64)(unsafe.Pointer(&dd.time)), 1)},
		{"qpos", nums(dd.qpos, int(m.nq))},
		{"qvel", nums(dd.qvel, nv)},
		{"act", nums(dd.act, int(m.na))},
		{"qacc_warmstart", nums(dd.qacc_warmstart, nv)},
		{"ctrl", nums(dd.ctrl, int(m.nu))},
		{"qfrc_applied", nums(dd.qfrc_applied, nv)},
		{"xfrc_applied", nums(dd.xfrc_applied, 6*nbody)},
		{"mocap_pos", nums(dd.mocap_pos, 3*int(m.nmocap))},
		{"mocap_quat", nums(dd.mocap_quat, 4*int(m.nmocap))},
		{"userdata", nums(dd.userdata, int(m.nuserdata))},
		{"xpos", nums(dd.xpos, 3*nbody)},
		{"site_xpos", nums(dd.site_xpos, 3*int(m.nsite))},
		{"qfrc_constraint", nums(dd.qfrc_constraint, nv)},
	}
}

// StateArrayNames lists, in snapshot order, the mjData arrays every
// environment snapshot holds (an environment may hold more after them; see
// the comment above).
func StateArrayNames() []string {
	return []string{"time", "qpos", "qvel", "act", "qacc_warmstart", "ctrl", "qfrc_applied",
		"xfrc_applied", "mocap_pos", "mocap_quat", "userdata", "xpos", "site_xpos", "qfrc_constraint"}
}

// stateArrayNames lists the mjData arrays s's snapshots hold, in order.
func (s *sim) stateArrayNames() []string {
	return append(StateArrayNames(), s.held...)
}

// maxMsg bounds the instability message a snapshot carries.
const maxMsg = 4096

// SaveState encodes the environment's complete state (envs.StateSaver); use
// envs.Snapshot, which adds the checked envelope.
func (s *sim) SaveState() ([]byte, error) {
	if s.closed {
		return nil, envs.ErrClosed
	}
	arrays := s.data.stateArrays(s.held)
	size := 128 + 8*(len(s.obs)+len(s.info.Values))
	for _, a := range arrays {
		size += 8 + len(a.name) + 8*len(a.vals)
	}
	w := statecodec.NewWriter(make([]byte, 0, size))
	w.Tag("mujoco", mujocoStateVersion)
	w.String(s.spec.ID)
	w.Bool(s.ready)
	w.Bool(s.gen != nil)
	if s.gen != nil {
		g, err := s.gen.MarshalBinary()
		if err != nil {
			return nil, fmt.Errorf("%s: generator: %w", s.spec.ID, err)
		}
		w.Bytes32(g)
	}
	w.I64(int64(s.unstable))
	msg := ""
	if s.lastErr != nil {
		msg = s.lastErr.Error()
		if len(msg) > maxMsg {
			msg = msg[:maxMsg]
		}
	}
	w.String(msg)
	w.F64s(s.obs)
	w.F64s(s.info.Values)
	w.Len(len(arrays))
	for _, a := range arrays {
		w.String(a.name)
		w.F64s(a.vals)
	}
	return w.Bytes(), nil
}

// LoadState restores a state written by SaveState for the same environment
// (envs.StateSaver); use envs.Restore. Everything is decoded and checked
// before anything changes; on error the state is unchanged. mj_forward is
// not called: the arrays are put back exactly as they were.
func (s *sim) LoadState(b []byte) error {
	if s.closed {
		return envs.ErrClosed
	}
	r := statecodec.NewReader(b)
	r.Tag("mujoco", mujocoStateVersion)
	id := r.String("environment id", 256)
	if r.Err() == nil && id != s.spec.ID {
		return fmt.Errorf("%s: %w: the state is of %q", s.spec.ID, envs.ErrSnapshot, id)
	}
	ready := r.Bool("ready flag")
	var gen *rng.Generator
	if r.Bool("generator flag") {
		raw := r.Bytes32("generator state", 64)
		if r.Err() == nil {
			gen = new(rng.Generator)
			if err := gen.UnmarshalBinary(raw); err != nil {
				r.Fail("reset generator: %v", err)
			}
		}
	}
	unstable := r.Int("instability count", 0, 1<<62)
	msg := r.String("instability message", maxMsg)
	obs := r.F64s("observation", len(s.obs))
	info := r.F64s("info values", len(s.info.Values))
	arrays := s.data.stateArrays(s.held)
	count := r.Len("mjData array count", len(arrays), 0)
	if r.Err() == nil && count != len(arrays) {
		r.Fail("%d mjData arrays, want %d (%v)", count, len(arrays), s.stateArrayNames())
	}
	vals := make([][]float64, len(arrays))
	for i := 0; i < count && r.Err() == nil; i++ {
		name := r.String("mjData array name", 64)
		if r.Err() == nil && name != arrays[i].name {
			r.Fail("mjData array %d is %q, want %q", i, name, arrays[i].name)
		}
		vals[i] = r.F64s(arrays[i].name, len(arrays[i].vals))
	}
	if err := r.Done(); err != nil {
		return fmt.Errorf("%s: %w", s.spec.ID, err)
	}
	if ready && gen == nil {
		return fmt.Errorf("%s: %w: ready without a reset generator", s.spec.ID, envs.ErrSnapshot)
	}

	for i, a := range arrays {
		copy(a.vals, vals[i])
	}
	s.ready = ready
	s.gen = gen
	s.unstable = int(unstable)
	s.lastErr = nil
	if msg != "" {
		s.lastErr = errors.New(msg)
	}
	copy(s.obs, obs)
	copy(s.info.Values, info)
	return nil
}

var _ envs.StateSaver = (*sim)(nil)
