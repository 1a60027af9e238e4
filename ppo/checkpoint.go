package ppo

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/internal/ground/statecodec"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// SnapshotFormatVersion is the version of the trainer snapshot that
// Snapshot writes and Restore reads. Version 1 (a gob without the
// environments' states) is no longer read.
const SnapshotFormatVersion = 2

// snapMagic opens every trainer snapshot.
const snapMagic = "HCPPOSNP"

// ErrSnapshot is wrapped by every error about the snapshot bytes
// themselves: not a trainer snapshot, corrupt, truncated, another format
// version. (It is the same value as envs.ErrSnapshot.)
var ErrSnapshot = statecodec.ErrCorrupt

// Limits on what a snapshot may declare, checked before anything is
// allocated.
const (
	maxSnapEnvID  = 256
	maxSnapLayers = 16
	maxSnapString = 64
)

// Snapshot returns everything needed to continue training exactly as if the
// trainer had never stopped, as self-checking bytes (format below):
//   - the networks' parameters θ (actor, critic, log std);
//   - Adam's moments and step count;
//   - the observation normaliser, the reward normaliser and its running
//     discounted returns (one per environment copy);
//   - the generators' states (action noise, minibatch shuffles);
//   - the iteration, frame, evaluation and rejection counters;
//   - the environments: the whole state of the vector of training copies
//     (envs.Vec.Snapshot: every copy's simulator state, the running
//     episodes, autoreset and seeding state), whether the next iteration
//     continues from their current observations, and the evaluation
//     environment's state when it exists (envs.Snapshot: BipedalWalker's
//     world carries state from one evaluation episode to the next).
//
// Restored into a trainer built for the same environment with the same
// structural configuration and seed, in this process or another, the
// iterations and evaluations that follow are bit-identical to the
// uninterrupted trainer's given the same hyperparameters. Every
// environment copy must implement envs.StateSaver (all registered
// environments do). The trainer must be at an iteration boundary, which it
// always is between calls.
//
// Encoding (little-endian, package internal/ground/statecodec):
//
//	[0:8]   magic "HCPPOSNP"
//	[8:10]  format version (uint16), SnapshotFormatVersion
//	section "header" 1: environment id, observation and action sizes, seed,
//	        structural config (hidden widths, activation, num_envs,
//	        norm_obs, scale_reward)
//	section "model" 1: θ (float32 × parameters)
//	section "adam" 1: first moments, second moments (float32 × parameters),
//	        step count
//	section "norm" 1: observation mean, variance, count; reward mean,
//	        variance, count; running discounted returns (one per copy)
//	section "rng" 1: action-noise PCG, minibatch PCG (MarshalBinary)
//	section "counters" 1: iteration, frames, evaluations, rejected updates
//	section "envs" 1: Vec snapshot; whether observations are pending; whether
//	        an evaluation environment exists, and its snapshot
//	[-4:]   CRC-32C of every byte before it
//
// Restore checks the magic, the checksum and the version before it decodes
// anything, then decodes and checks every section before it changes any
// state.
func (t *Trainer) Snapshot() ([]byte, error) {
	if t.ln == nil {
		return nil, errors.New("ppo: snapshot: trainer is closed")
	}
	if t.broken != nil {
		return nil, fmt.Errorf("ppo: snapshot: the trainer is not at a consistent state (%v)", t.broken)
	}
	runtime.LockOSThread()
	theta, m, v, err := t.ln.state()
	runtime.UnlockOSThread()
	if err != nil {
		return nil, fmt.Errorf("ppo: snapshot: %w", err)
	}
	vs, err := t.vec.Snapshot()
	if err != nil {
		return nil, fmt.Errorf("ppo: snapshot: training environments: %w", err)
	}
	var es []byte
	if t.evalEnv != nil {
		if es, err = envs.Snapshot(t.evalEnv); err != nil {
			return nil, fmt.Errorf("ppo: snapshot: evaluation environment: %w", err)
		}
	}
	b, err := encodeSnapshot(&snapshotState{envID: t.spec.ID, obsDim: t.od, actDim: t.ad, seed: t.seed, structure: t.base,
		theta: theta, adamM: m, adamV: v, adamStep: t.ln.step,
		obsRMS: t.obsRMS, rewRMS: t.rew.RMS, rewReturns: t.rew.Returns, actRNG: t.actPCG, mbRNG: t.mbPCG,
		iteration: t.iteration, frames: t.frames, evals: t.evals, rejected: t.rejected,
		vec: vs, haveObs: t.rawObs != nil, haveEval: es != nil, evalEnv: es})
	if err != nil {
		return nil, fmt.Errorf("ppo: snapshot: %w", err)
	}
	return b, nil
}

// encodeSnapshot returns the bytes of the snapshot c (the format above).
func encodeSnapshot(c *snapshotState) ([]byte, error) {
	ar, err := c.actRNG.MarshalBinary()
	if err != nil {
		return nil, err
	}
	mr, err := c.mbRNG.MarshalBinary()
	if err != nil {
		return nil, err
	}
	w := statecodec.NewWriter(make([]byte, 0, 512+12*len(c.theta)+len(c.vec)+len(c.evalEnv)))
	w.Tag("header", 1)
	w.String(c.envID)
	w.Len(c.obsDim)
	w.Len(c.actDim)
	w.I64(c.seed)
	hidden := make([]int64, len(c.structure.Hidden))
	for i, h := range c.structure.Hidden {
		hidden[i] = int64(h)
	}
	w.I64s(hidden)
	w.String(c.structure.Activation)
	w.Len(c.structure.NumEnvs)
	w.Bool(c.structure.NormObs)
	w.Bool(c.structure.ScaleReward)

	w.Tag("model", 1)
	w.F32s(c.theta)

	w.Tag("adam", 1)
	w.F32s(c.adamM)
	w.F32s(c.adamV)
	w.I64(c.adamStep)

	w.Tag("norm", 1)
	putRMS(w, c.obsRMS)
	putRMS(w, c.rewRMS)
	w.F64s(c.rewReturns)

	w.Tag("rng", 1)
	w.Bytes32(ar)
	w.Bytes32(mr)

	w.Tag("counters", 1)
	w.I64(int64(c.iteration))
	w.I64(c.frames)
	w.I64(int64(c.evals))
	w.I64(int64(c.rejected))

	w.Tag("envs", 1)
	w.Bytes32(c.vec)
	w.Bool(c.haveObs)
	w.Bool(c.haveEval)
	w.Bytes32(c.evalEnv)
	return statecodec.Seal(snapMagic, SnapshotFormatVersion, w.Bytes()), nil
}

func putRMS(w *statecodec.Writer, r RunningMeanStd) {
	w.F64s(r.Mean)
	w.F64s(r.Var)
	w.F64(r.Count)
}

func getRMS(r *statecodec.Reader, what string, dim int) RunningMeanStd {
	return RunningMeanStd{Mean: r.F64s(what+" mean", dim), Var: r.F64s(what+" variance", dim), Count: r.F64(what + " count")}
}

// snapshotState is a decoded snapshot.
type snapshotState struct {
	envID          string
	obsDim, actDim int
	seed           int64
	structure      ppoconfig.Config // the structural settings only (see structureMismatch)

	theta, adamM, adamV []float32
	adamStep            int64

	obsRMS, rewRMS RunningMeanStd
	rewReturns     []float64

	actRNG, mbRNG *rand.PCG

	iteration, evals, rejected int
	frames                     int64

	vec        []byte
	haveObs    bool
	haveEval   bool
	evalEnv    []byte
	paramCount int
}

// decodeSnapshot checks and decodes b for this trainer without changing it.
func (t *Trainer) decodeSnapshot(b []byte) (*snapshotState, error) {
	return parseSnapshot(b, func(c *snapshotState) (int, int, error) {
		if c.envID != t.spec.ID || c.obsDim != t.od || c.actDim != t.ad {
			return 0, 0, fmt.Errorf("checkpoint is for %s (obs %d, act %d), this trainer is for %s (obs %d, act %d)",
				c.envID, c.obsDim, c.actDim, t.spec.ID, t.od, t.ad)
		}
		if c.seed != t.seed {
			return 0, 0, fmt.Errorf("checkpoint has seed %d, this trainer %d", c.seed, t.seed)
		}
		if err := structureMismatch(c.structure, t.base); err != nil {
			return 0, 0, err
		}
		return t.l.total, t.n, nil
	})
}

// parseSnapshot checks and decodes the snapshot b. After the header it
// calls sizes, which checks the header and returns the number of
// parameters and of environment copies the other sections hold.
func parseSnapshot(b []byte, sizes func(c *snapshotState) (params, copies int, err error)) (*snapshotState, error) {
	payload, err := statecodec.Open(b, "trainer snapshot", snapMagic, SnapshotFormatVersion)
	if err != nil {
		return nil, err
	}
	var c snapshotState
	r := statecodec.NewReader(payload)
	r.Tag("header", 1)
	c.envID = r.String("environment id", maxSnapEnvID)
	c.obsDim = int(r.U32("observation size"))
	c.actDim = int(r.U32("action size"))
	c.seed = r.I64("seed")
	n := r.Len("hidden", maxSnapLayers, 8)
	for i := 0; i < n; i++ {
		c.structure.Hidden = append(c.structure.Hidden, int(r.Int("hidden width", 1, math.MaxInt32)))
	}
	c.structure.Activation = r.String("activation", maxSnapString)
	c.structure.NumEnvs = int(r.U32("num_envs"))
	c.structure.NormObs = r.Bool("norm_obs")
	c.structure.ScaleReward = r.Bool("scale_reward")
	if err := r.Err(); err != nil {
		return nil, err
	}
	p, copies, err := sizes(&c)
	if err != nil {
		return nil, err
	}

	r.Tag("model", 1)
	c.theta = r.F32s("parameters", p)
	r.Tag("adam", 1)
	c.adamM = r.F32s("Adam first moments", p)
	c.adamV = r.F32s("Adam second moments", p)
	c.adamStep = r.Int("Adam step", 0, math.MaxInt64)
	r.Tag("norm", 1)
	c.obsRMS = getRMS(r, "observation normaliser", c.obsDim)
	c.rewRMS = getRMS(r, "reward normaliser", 1)
	c.rewReturns = r.F64s("reward normaliser returns", copies)
	r.Tag("rng", 1)
	ar := r.Bytes32("action generator", maxSnapString)
	mr := r.Bytes32("minibatch generator", maxSnapString)
	r.Tag("counters", 1)
	c.iteration = int(r.Int("iteration", 0, math.MaxInt32))
	c.frames = r.Int("frames", 0, math.MaxInt64)
	c.evals = int(r.Int("evaluations", 0, math.MaxInt32))
	c.rejected = int(r.Int("rejected updates", 0, math.MaxInt32))
	r.Tag("envs", 1)
	c.vec = r.Bytes32("training environments", len(payload))
	c.haveObs = r.Bool("observations pending flag")
	c.haveEval = r.Bool("evaluation environment flag")
	c.evalEnv = r.Bytes32("evaluation environment", len(payload))
	if err := r.Done(); err != nil {
		return nil, err
	}
	if c.haveEval != (len(c.evalEnv) > 0) {
		return nil, fmt.Errorf("%w: evaluation environment flag %v with %d bytes of state", ErrSnapshot, c.haveEval, len(c.evalEnv))
	}
	for _, xs := range [][]float32{c.theta, c.adamM, c.adamV} {
		for i, x := range xs {
			if !finite(float64(x)) {
				return nil, fmt.Errorf("checkpoint parameter/optimiser value %d is %v", i, x)
			}
		}
	}
	if err := checkRMS(c.obsRMS, c.obsDim); err != nil {
		return nil, fmt.Errorf("observation normaliser: %w", err)
	}
	if err := checkRMS(c.rewRMS, 1); err != nil {
		return nil, fmt.Errorf("reward normaliser: %w", err)
	}
	if slices.ContainsFunc(c.rewReturns, func(x float64) bool { return !finite(x) }) {
		return nil, errors.New("reward normaliser: non-finite running return")
	}
	c.actRNG, c.mbRNG = rand.NewPCG(0, 0), rand.NewPCG(0, 0)
	if err := c.actRNG.UnmarshalBinary(ar); err != nil {
		return nil, fmt.Errorf("action generator: %w", err)
	}
	if err := c.mbRNG.UnmarshalBinary(mr); err != nil {
		return nil, fmt.Errorf("minibatch generator: %w", err)
	}
	return &c, nil
}

// Restore replaces the training state with one from Snapshot of a trainer
// built for the same environment with the same structural configuration
// (hidden, activation, num_envs, norm_obs, scale_reward) and seed; the
// continuation is then exact (see Snapshot). Bytes that are corrupt,
// truncated, of another format version, environment, structure or seed are
// an error and leave the trainer unchanged. After a failure past those
// checks (libtorch failing to copy the parameters in, or an environment
// copy refusing its state, which the checksum makes possible only for
// crafted bytes) the trainer refuses to iterate until a successful Restore.
func (t *Trainer) Restore(b []byte) error {
	if t.ln == nil {
		return errors.New("ppo: restore: trainer is closed")
	}
	c, err := t.decodeSnapshot(b)
	if err != nil {
		return fmt.Errorf("ppo: restore: %w", err)
	}
	// The environments are built aside and swapped in at the end, so a
	// failure before the parameters are copied leaves the trainer as it was.
	var evalEnv envs.Env
	closeNew := func(v *envs.Vec) {
		if v != nil {
			_ = v.Close()
		}
		if evalEnv != nil {
			_ = evalEnv.Close()
		}
	}
	if c.haveEval {
		if evalEnv, err = envs.Make(t.envName); err != nil {
			return fmt.Errorf("ppo: restore: evaluation environment: %w", err)
		}
		if err := envs.Restore(evalEnv, c.evalEnv); err != nil {
			closeNew(nil)
			return fmt.Errorf("ppo: restore: evaluation environment: %w", err)
		}
	}
	vec, err := t.newVec(t.seed)
	if err != nil {
		closeNew(nil)
		return fmt.Errorf("ppo: restore: %w", err)
	}
	if err := vec.Restore(c.vec); err != nil {
		closeNew(vec)
		return fmt.Errorf("ppo: restore: training environments: %w", err)
	}
	runtime.LockOSThread()
	err = t.ln.setState(c.theta, c.adamM, c.adamV, c.adamStep)
	runtime.UnlockOSThread()
	if err != nil {
		closeNew(vec)
		t.broken = err
		return fmt.Errorf("ppo: restore: %w", err)
	}
	_ = t.vec.Close()
	t.vec = vec
	if t.evalEnv != nil {
		_ = t.evalEnv.Close()
	}
	t.evalEnv = evalEnv
	t.rawObs = nil
	if c.haveObs {
		t.rawObs = slices.Clone(t.vec.Obs())
	}
	t.actPCG, t.mbPCG = c.actRNG, c.mbRNG
	t.actRNG, t.mbRNG = rand.New(c.actRNG), rand.New(c.mbRNG)
	t.obsRMS = c.obsRMS.clone()
	t.rew.RMS = c.rewRMS.clone()
	t.rew.Returns = slices.Clone(c.rewReturns)
	t.iteration, t.frames, t.evals, t.rejected = c.iteration, c.frames, c.evals, c.rejected
	t.broken = nil
	return nil
}

// structureMismatch names the first structural setting of a checkpoint's
// config (got) that differs from the trainer's (want): the settings that
// shape the networks and the normalisers' state. Machine-only settings
// (threads) and the ones a restored state overrides (initialisation) may
// differ.
func structureMismatch(got, want ppoconfig.Config) error {
	bad := func(key string, got, want any) error {
		return fmt.Errorf("ppo.%s: the checkpoint has %v, this trainer %v", key, got, want)
	}
	switch {
	case !slices.Equal(got.Hidden, want.Hidden):
		return bad("hidden", got.Hidden, want.Hidden)
	case got.Activation != want.Activation:
		return bad("activation", got.Activation, want.Activation)
	case got.NumEnvs != want.NumEnvs:
		return bad("num_envs", got.NumEnvs, want.NumEnvs)
	case got.NormObs != want.NormObs:
		return bad("norm_obs", got.NormObs, want.NormObs)
	case got.ScaleReward != want.ScaleReward:
		return bad("scale_reward", got.ScaleReward, want.ScaleReward)
	}
	return nil
}

func checkRMS(r RunningMeanStd, dim int) error {
	if len(r.Mean) != dim || len(r.Var) != dim {
		return fmt.Errorf("%d/%d values, want %d", len(r.Mean), len(r.Var), dim)
	}
	if !finite(r.Count) || r.Count <= 0 {
		return fmt.Errorf("count %v", r.Count)
	}
	if slices.ContainsFunc(r.Mean, func(x float64) bool { return !finite(x) }) ||
		slices.ContainsFunc(r.Var, func(x float64) bool { return !finite(x) || x < 0 }) {
		return errors.New("non-finite mean or invalid variance")
	}
	return nil
}
