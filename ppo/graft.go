package ppo

import (
	"fmt"
)

// maxGraftSize bounds the observation, action, hidden and num_envs sizes a
// snapshot may declare to Graft, which reads it without a trainer to
// compare them with.
const maxGraftSize = 1 << 20

// Graft returns the trainer snapshot of a population member that takes
// another member's learning but keeps its own randomness (an MF-PBT
// exploit or migration, as the method's authors copy agents): donor's
// parameters θ, Adam's moments and step, the observation normaliser and
// the reward normaliser's mean and variance, and the iteration, frame,
// evaluation and rejection counters (the donor's rows, which the receiver
// now holds, end there); with own's seed (from which evaluation seeds
// derive), generators (action noise, minibatch shuffles), training
// environments (their simulator states, running episodes and seeding
// state, and whether observations are pending), the reward normaliser's
// running discounted returns (one per environment copy, part of those
// episodes) and evaluation environment. Both must be snapshots of trainers
// for the same environment and structure (Restore's check); the result
// restores into a trainer built with own's seed. It is a function of its
// arguments.
func Graft(donor, own []byte) ([]byte, error) {
	d, err := parseSnapshot(donor, snapshotSizes)
	if err != nil {
		return nil, fmt.Errorf("ppo: graft: donor's snapshot: %w", err)
	}
	o, err := parseSnapshot(own, snapshotSizes)
	if err != nil {
		return nil, fmt.Errorf("ppo: graft: receiver's snapshot: %w", err)
	}
	if d.envID != o.envID || d.obsDim != o.obsDim || d.actDim != o.actDim {
		return nil, fmt.Errorf("ppo: graft: the donor's snapshot is for %s (obs %d, act %d), the receiver's for %s (obs %d, act %d)",
			d.envID, d.obsDim, d.actDim, o.envID, o.obsDim, o.actDim)
	}
	if err := structureMismatch(d.structure, o.structure); err != nil {
		return nil, fmt.Errorf("ppo: graft: the donor's and the receiver's snapshots differ: %w", err)
	}
	d.seed = o.seed
	d.actRNG, d.mbRNG = o.actRNG, o.mbRNG
	d.rewReturns = o.rewReturns
	d.vec, d.haveObs, d.haveEval, d.evalEnv = o.vec, o.haveObs, o.haveEval, o.evalEnv
	b, err := encodeSnapshot(d)
	if err != nil {
		return nil, fmt.Errorf("ppo: graft: %w", err)
	}
	return b, nil
}

// snapshotSizes is parseSnapshot's sizes without a trainer: the parameters
// of the networks the header describes, and its num_envs.
func snapshotSizes(c *snapshotState) (int, int, error) {
	sizes := append([]int{c.obsDim, c.actDim, c.structure.NumEnvs}, c.structure.Hidden...)
	for _, n := range sizes {
		if n < 1 || n > maxGraftSize {
			return 0, 0, fmt.Errorf("%w: a size of %d in the header; want 1 to %d", ErrSnapshot, n, maxGraftSize)
		}
	}
	return newLayout(c.obsDim, c.actDim, c.structure.Hidden, c.structure.Activation).total, c.structure.NumEnvs, nil
}
