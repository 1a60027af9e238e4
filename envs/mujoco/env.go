package mujoco

import (
	"errors"
	"fmt"
	"math"

	"github.com/rs/zerolog/log"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/envs/rng"
)

// InfoUnstable is the Info key every MuJoCo environment adds to Gymnasium's
// reward components: 1 on a step whose simulation went unstable, else 0.
//
// Instability policy (a deviation from Gymnasium, which would silently
// continue from whatever MuJoCo's automatic reset left, or from NaN): when
// the physics raises a warning (for example mjWARN_BADQACC), ends with a
// NaN/Inf/huge qpos or qvel, or raises an mju_error, Step
//   - returns Terminated = true, Reward = 0 and Info "unstable" = 1, with a
//     nil error, so a trainer or a Vec autoresets and carries on;
//   - returns the observation of the model's reference state (mj_resetData
//     then mj_forward), so the observation is finite;
//   - logs the *InstabilityError at warn level (zerolog) and keeps it, with a
//     count, for Instabilities.
//
// A Step that fails that way has still consumed the action; call Reset.
const InfoUnstable = "unstable"

// sim is what the environments share: Gymnasium's MujocoEnv.
type sim struct {
	spec      envs.Spec
	model     *Model
	data      *Data
	frameSkip int
	dt        float64 // opt.timestep * frame_skip, as Gymnasium's dt
	// post makes simulate call mj_rnePostConstraint after stepping, for the
	// environments that read cfrc_ext (see simulate).
	post bool
	// held names the mjData outputs a snapshot holds beyond the common
	// ones (state.go).
	held []string

	gen *rng.Generator // nil until the first Reset

	obs      []float64 // the observation buffer returned by Reset and Step
	qpos     []float64 // reset scratch
	qvel     []float64
	initQpos []float64 // qpos right after mj_makeData: the model's qpos0
	info     envs.Info

	ready    bool // a Reset succeeded (Gymnasium's OrderEnforcing)
	closed   bool
	unstable int
	lastErr  error
}

// newSim compiles xml, makes its data and checks the sizes the environment
// relies on. infoKeys are Gymnasium's info keys; "unstable" is appended.
func newSim(spec envs.Spec, xml string, frameSkip, nq, nv int, infoKeys ...string) (*sim, error) {
	m, err := LoadXML(xml)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec.ID, err)
	}
	d, err := NewData(m)
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("%s: %w", spec.ID, err)
	}
	s := &sim{spec: spec, model: m, data: d, frameSkip: frameSkip}
	if m.Nq() != nq || m.Nv() != nv || m.Nu() != spec.Action.Dim() {
		s.free()
		return nil, fmt.Errorf("%s: model has nq/nv/nu %d/%d/%d, want %d/%d/%d",
			spec.ID, m.Nq(), m.Nv(), m.Nu(), nq, nv, spec.Action.Dim())
	}
	s.dt = m.Timestep() * float64(frameSkip)
	s.obs = make([]float64, spec.Observation.Dim())
	s.qpos = make([]float64, nq)
	s.qvel = make([]float64, nv)
	s.initQpos = append([]float64(nil), d.Qpos()...)
	s.info.Keys = append(append([]string(nil), infoKeys...), InfoUnstable)
	s.info.Values = make([]float64, len(s.info.Keys))
	return s, nil
}

func (s *sim) free() {
	s.data.Close()
	s.model.Close()
}

// Spec describes the environment.
func (s *sim) Spec() envs.Spec { return s.spec }

// Dt is the environment step's duration in simulated seconds.
func (s *sim) Dt() float64 { return s.dt }

// Close frees the model and data. Further calls, Close included, return
// envs.ErrClosed.
func (s *sim) Close() error {
	if s.closed {
		return envs.ErrClosed
	}
	s.closed = true
	s.ready = false
	s.free()
	return nil
}

// Instabilities is the number of steps that went unstable since the
// environment was made, and the last such error (nil if none).
func (s *sim) Instabilities() (int, error) { return s.unstable, s.lastErr }

// Data exposes the simulation state, for tests and checks. Writing to it
// bypasses the environment's bookkeeping.
func (s *sim) Data() *Data { return s.data }

// Model exposes the compiled model.
func (s *sim) Model() *Model { return s.model }

// SetState copies qpos and qvel in and runs mj_forward, as Gymnasium's
// set_state. Wrong lengths or NaN/Inf entries are errors and leave the state
// unchanged. It is not a resume: the warm start, the time, the stale body
// positions the rewards read and the generator are not set; use
// envs.Snapshot and envs.Restore for that (state.go).
func (s *sim) SetState(qpos, qvel []float64) error {
	if s.closed {
		return envs.ErrClosed
	}
	if err := s.data.SetState(qpos, qvel); err != nil {
		return fmt.Errorf("%s: %w", s.spec.ID, err)
	}
	return nil
}

// beginReset validates the seed, (re)seeds the generator and runs
// mj_resetData, as the first steps of Gymnasium's reset.
func (s *sim) beginReset(seed int64) error {
	if s.closed {
		return envs.ErrClosed
	}
	switch {
	case seed >= 0:
		s.gen = rng.New(uint64(seed))
	case seed == envs.NoSeed:
		if s.gen == nil {
			s.gen = rng.New(0)
		}
	default:
		return fmt.Errorf("%s: reset seed %d: want a seed >= 0 or envs.NoSeed (%d)", s.spec.ID, seed, envs.NoSeed)
	}
	s.ready = false
	if err := s.data.Reset(); err != nil {
		return fmt.Errorf("%s: reset: %w", s.spec.ID, err)
	}
	return nil
}

// finishReset applies the drawn state with set_state (copy + mj_forward).
func (s *sim) finishReset() error {
	if err := s.data.SetState(s.qpos, s.qvel); err != nil {
		return fmt.Errorf("%s: reset: %w", s.spec.ID, err)
	}
	s.ready = true
	return nil
}

// resetUniform is the reset of the environments whose noise is uniform on
// both vectors: beginReset, then qpos = qpos0 + U(-scale, scale) (nq draws)
// and qvel = U(-scale, scale) (nv draws), in that order, then finishReset.
func (s *sim) resetUniform(seed int64, scale float64) error {
	if err := s.beginReset(seed); err != nil {
		return err
	}
	for i := range s.qpos {
		s.qpos[i] = s.initQpos[i] + s.gen.Uniform(-scale, scale)
	}
	for i := range s.qvel {
		s.qvel[i] = s.gen.Uniform(-scale, scale)
	}
	return s.finishReset()
}

// checkStep validates an action before anything is touched.
func (s *sim) checkStep(action []float64) error {
	if s.closed {
		return envs.ErrClosed
	}
	if err := envs.CheckAction(s.spec, action); err != nil {
		return err
	}
	if !s.ready {
		return fmt.Errorf("%s: step before a successful Reset", s.spec.ID)
	}
	return nil
}

// simulate is Gymnasium's do_simulation: ctrl = action (unclipped; MuJoCo
// clamps its own copy to ctrlrange), then frame_skip mj_step calls, in one
// cgo call. Gymnasium then calls mj_rnePostConstraint, which only fills
// cacc/cfrc_int/cfrc_ext; nothing in the next step depends on them, so it
// runs (in the same cgo call) only for the environments that read cfrc_ext
// (s.post: Humanoid, and Ant with contact forces).
func (s *sim) simulate(action []float64) error {
	copy(s.data.ctrl, action)
	if s.post {
		return s.data.StepPost(s.frameSkip)
	}
	return s.data.Step(s.frameSkip)
}

// motion is how a tracked point moved in one step: its position after the
// step and its velocity, (after − before) / dt, in x and y.
type motion struct{ x, y, vx, vy float64 }

// move opens every locomotion Step as Gymnasium's step methods do: it
// checks action, reads the tracked point with at, simulates the step and
// reads the point again. When the step cannot go on (a refused action or a
// failed simulation, unstableStep), stop is true and tr, err are the
// step's result.
func (s *sim) move(action []float64, at func() (x, y float64), observe func()) (m motion, stop bool, tr envs.Transition, err error) {
	if err := s.checkStep(action); err != nil {
		return motion{}, true, envs.Transition{}, err
	}
	xBefore, yBefore := at()
	if err := s.simulate(action); err != nil {
		tr, err := s.unstableStep(err, observe)
		return motion{}, true, tr, err
	}
	m.x, m.y = at()
	m.vx, m.vy = (m.x-xBefore)/s.dt, (m.y-yBefore)/s.dt
	return m, false, envs.Transition{}, nil
}

// rootXY is the first two coordinates of qpos: the root's x and, for a
// free or planar-xy root, its y (a planar walker's second coordinate is its
// height, which its Step does not use).
func (s *sim) rootXY() (x, y float64) { return s.data.qpos[0], s.data.qpos[1] }

// unstableStep handles a failed simulate (see InfoUnstable): it records and
// logs err, puts the simulation back in the model's reference state and
// fills the observation from there with observe. It returns a non-nil error
// only if even that reset failed.
func (s *sim) unstableStep(err error, observe func()) (envs.Transition, error) {
	s.unstable++
	s.lastErr = fmt.Errorf("%s: %w", s.spec.ID, err)
	log.Warn().Err(s.lastErr).Int("count", s.unstable).Msg("mujoco: unstable step, episode terminated")
	if rerr := s.data.Reset(); rerr != nil {
		return envs.Transition{}, fmt.Errorf("%s: reset after instability (%v): %w", s.spec.ID, err, rerr)
	}
	if rerr := s.data.Forward(); rerr != nil {
		return envs.Transition{}, fmt.Errorf("%s: forward after instability (%v): %w", s.spec.ID, err, rerr)
	}
	observe()
	for i := range s.info.Values {
		s.info.Values[i] = 0
	}
	s.info.Values[len(s.info.Values)-1] = 1
	return envs.Transition{Obs: s.obs, Terminated: true, Info: s.info}, nil
}

// setInfo fills the Gymnasium components in key order; "unstable" = 0.
func (s *sim) setInfo(values ...float64) envs.Info {
	copy(s.info.Values, values)
	s.info.Values[len(s.info.Values)-1] = 0
	return s.info
}

// sumSquares is np.square(a).sum(), summed in NumPy's order (npSum).
func sumSquares(a []float64) float64 {
	return npSum(len(a), func(i int) float64 { return a[i] * a[i] })
}

// npSum is NumPy's pairwise summation of the n values at(0..n-1), the
// order np.sum uses on a contiguous float64 array: fewer than 8 values are
// summed in turn; up to 128 go into 8 interleaved partial sums, added as a
// tree, then the rest in turn; longer arrays are split in two, at a
// multiple of 8, and summed recursively.
func npSum(n int, at func(int) float64) float64 {
	return npSumRange(0, n, at)
}

func npSumRange(lo, n int, at func(int) float64) float64 {
	switch {
	case n < 8:
		s := 0.0
		for i := 0; i < n; i++ {
			s += at(lo + i)
		}
		return s
	case n <= 128:
		var r [8]float64
		for j := range r {
			r[j] = at(lo + j)
		}
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] += at(lo + i + j)
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += at(lo + i)
		}
		return s
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return npSumRange(lo, n2, at) + npSumRange(lo+n2, n-n2, at)
	}
}

// dist3 is np.linalg.norm(a - b) for 3-vectors.
func dist3(a, b []float64) float64 {
	x, y, z := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return math.Sqrt(x*x + y*y + z*z)
}

func clip(x, lo, hi float64) float64 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

// box returns a Box of n dimensions with the same bounds in every one.
func box(n int, lo, hi float64) envs.Box {
	b := envs.Box{Low: make([]float64, n), High: make([]float64, n)}
	for i := range b.Low {
		b.Low[i], b.High[i] = lo, hi
	}
	return b
}

// lookup resolves names of one kind, for constructors.
func lookup(m *Model, obj ObjType, names ...string) ([]int, error) {
	ids := make([]int, len(names))
	var errs []error
	for i, n := range names {
		id, err := m.ID(obj, n)
		ids[i] = id
		errs = append(errs, err)
	}
	return ids, errors.Join(errs...)
}
