package ppo

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
)

// checkpointVersion is the Snapshot format version.
const checkpointVersion = 1

// checkpoint is the serialised trainer state.
type checkpoint struct {
	Version        int
	EnvID          string
	ObsDim, ActDim int
	Seed           int64
	Config         Config // the trainer's construction config

	Theta, AdamM, AdamV []float32
	AdamStep            int64

	ObsRMS RunningMeanStd
	RewRMS RunningMeanStd

	ActRNG, MinibatchRNG []byte

	Iteration int
	Frames    int64
	Evals     int
	Rejected  int
}

// Snapshot returns everything needed to continue training: actor, critic
// and log std (θ), Adam's moments and step count, the observation and
// reward normalisers, the iteration, frame, evaluation and rejection
// counters, and the generators' states (action noise, minibatch shuffles).
//
// Not included: the environments' internal states (the MuJoCo and Box2D
// environments expose no serialisable state). Restore therefore starts
// fresh episodes, and the continuation is exact only for what Snapshot
// holds; the episodes that were running at the snapshot are cut short.
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
	ar, err := t.actPCG.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("ppo: snapshot: %w", err)
	}
	mr, err := t.mbPCG.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("ppo: snapshot: %w", err)
	}
	c := checkpoint{
		Version: checkpointVersion, EnvID: t.spec.ID, ObsDim: t.od, ActDim: t.ad, Seed: t.seed, Config: t.Config(),
		Theta: theta, AdamM: m, AdamV: v, AdamStep: t.ln.step,
		ObsRMS: t.obsRMS.clone(), RewRMS: t.rew.RMS.clone(),
		ActRNG: ar, MinibatchRNG: mr,
		Iteration: t.iteration, Frames: t.frames, Evals: t.evals, Rejected: t.rejected,
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(c); err != nil {
		return nil, fmt.Errorf("ppo: snapshot: %w", err)
	}
	return buf.Bytes(), nil
}

// Restore replaces the training state with one from Snapshot of a trainer
// built for the same environment with the same structural configuration
// (hidden, activation, num_envs, norm_obs, scale_reward) and seed. The
// environments are re-created and reset with a seed derived from the
// trainer's seed and the restored iteration, so resumed runs do not replay
// the first episodes. On error the state is unchanged, except after a
// libtorch failure while copying the parameters in (then the trainer refuses
// to iterate until a successful Restore).
func (t *Trainer) Restore(b []byte) error {
	if t.ln == nil {
		return errors.New("ppo: restore: trainer is closed")
	}
	var c checkpoint
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&c); err != nil {
		return fmt.Errorf("ppo: restore: %w", err)
	}
	if c.Version != checkpointVersion {
		return fmt.Errorf("ppo: restore: checkpoint version %d, want %d", c.Version, checkpointVersion)
	}
	if c.EnvID != t.spec.ID || c.ObsDim != t.od || c.ActDim != t.ad {
		return fmt.Errorf("ppo: restore: checkpoint is for %s (obs %d, act %d), this trainer is for %s (obs %d, act %d)",
			c.EnvID, c.ObsDim, c.ActDim, t.spec.ID, t.od, t.ad)
	}
	if c.Seed != t.seed {
		return fmt.Errorf("ppo: restore: checkpoint has seed %d, this trainer %d", c.Seed, t.seed)
	}
	if err := structureMismatch(c.Config, t.base); err != nil {
		return fmt.Errorf("ppo: restore: %w", err)
	}
	n := t.l.total
	if len(c.Theta) != n || len(c.AdamM) != n || len(c.AdamV) != n {
		return fmt.Errorf("ppo: restore: checkpoint has %d parameters, the networks have %d", len(c.Theta), n)
	}
	for _, xs := range [][]float32{c.Theta, c.AdamM, c.AdamV} {
		for i, x := range xs {
			if !finite(float64(x)) {
				return fmt.Errorf("ppo: restore: checkpoint parameter/optimiser value %d is %v", i, x)
			}
		}
	}
	if c.AdamStep < 0 || c.Iteration < 0 || c.Frames < 0 || c.Evals < 0 || c.Rejected < 0 {
		return errors.New("ppo: restore: negative counter in checkpoint")
	}
	if err := checkRMS(c.ObsRMS, t.od); err != nil {
		return fmt.Errorf("ppo: restore: observation normaliser: %w", err)
	}
	if err := checkRMS(c.RewRMS, 1); err != nil {
		return fmt.Errorf("ppo: restore: reward normaliser: %w", err)
	}
	ap, mp := rand.NewPCG(0, 0), rand.NewPCG(0, 0)
	if err := ap.UnmarshalBinary(c.ActRNG); err != nil {
		return fmt.Errorf("ppo: restore: action generator: %w", err)
	}
	if err := mp.UnmarshalBinary(c.MinibatchRNG); err != nil {
		return fmt.Errorf("ppo: restore: minibatch generator: %w", err)
	}

	runtime.LockOSThread()
	err := t.ln.setState(c.Theta, c.AdamM, c.AdamV, c.AdamStep)
	runtime.UnlockOSThread()
	if err != nil {
		t.broken = err
		return fmt.Errorf("ppo: restore: %w", err)
	}
	if err := t.openVec(derivedSeed(t.seed, 1, uint64(c.Iteration))); err != nil {
		t.broken = err
		return fmt.Errorf("ppo: restore: %w", err)
	}
	t.actPCG, t.mbPCG = ap, mp
	t.actRNG, t.mbRNG = rand.New(ap), rand.New(mp)
	t.obsRMS = c.ObsRMS.clone()
	t.rew.RMS = c.RewRMS.clone()
	clear(t.rew.Returns)
	t.iteration, t.frames, t.evals, t.rejected = c.Iteration, c.Frames, c.Evals, c.Rejected
	t.broken = nil
	return nil
}

// structureMismatch names the first structural setting of a checkpoint's
// config (got) that differs from the trainer's (want): the settings that
// shape the networks and the normalisers' state. Machine-only settings
// (threads) and the ones a restored state overrides (initialisation) may
// differ.
func structureMismatch(got, want Config) error {
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
