package controller

import (
	"fmt"
	"math"
	"slices"
)

// Trials is an optional ability of a Method, beside the interface (as
// gonum/optimize's methods have theirs): the method chooses among candidate
// configurations that the trainer tries on the batch it has just collected,
// each by a trial update scored without new environment samples (HOOF,
// Paul et al. 2019, baselines/hoof). Trainers that cannot run trials use
// Suggest alone; trainers that can ask the driver for Candidates, at every
// iteration: HOOF's choice is one update's, so the decision interval does
// not apply to it.
type Trials interface {
	Method
	// Candidates returns the configurations to try at this decision point,
	// given the configuration in force (what Suggest returned), and how to
	// try them. The returned configurations are owned by the caller.
	Candidates(current Config) ([]Config, TrialSpec, error)
}

// TrialSpec says how a trainer tries candidates. Its fields are settings of
// the method; the trainer reads them and never changes them.
type TrialSpec struct {
	// Epochs is the number of epochs of each trial update before the
	// candidates are compared; the chosen candidate then runs its
	// remaining epochs. 0: every candidate runs its whole update (as the
	// HOOF paper's candidate updates do).
	Epochs int
	// MaxKL discards candidates whose mean KL divergence from the policy
	// that collected the batch exceeds it (HOOF's constraint that keeps
	// the importance weights reliable); 0 disables it.
	MaxKL float64
	// Segment cuts each trajectory of the batch into pieces of at most
	// Segment steps for the weighted importance sampling estimate; 0 keeps
	// whole trajectories, as the paper.
	Segment int
}

func isTrials(m Method) bool {
	_, ok := m.(Trials)
	return ok
}

// Candidates returns the configurations to try at the current iteration
// and how to try them: at a decision point of a method with the Trials
// ability, after Suggest and before Observe. ok is false otherwise (the
// configuration Suggest returned stays in force). Every candidate is
// validated against the space.
func (c *Controller) Candidates() (cands []Config, spec TrialSpec, ok bool, err error) {
	tm, has := c.method.(Trials)
	if !has || !c.st.Pending || !c.st.Decided {
		return nil, TrialSpec{}, false, nil
	}
	cands, spec, err = tm.Candidates(slices.Clone(c.st.Current))
	if err != nil {
		return nil, TrialSpec{}, false, fmt.Errorf("controller %s: candidates at iteration %d: %w", c.name, c.st.Iteration, err)
	}
	if len(cands) == 0 {
		return nil, TrialSpec{}, false, fmt.Errorf("controller %s: candidates at iteration %d: none", c.name, c.st.Iteration)
	}
	for k, cand := range cands {
		if err := c.space.Validate(cand); err != nil {
			return nil, TrialSpec{}, false, fmt.Errorf("controller %s: candidate %d at iteration %d: %w", c.name, k, c.st.Iteration, err)
		}
	}
	if spec.Epochs < 0 || spec.Segment < 0 || !(spec.MaxKL >= 0) || math.IsInf(spec.MaxKL, 0) {
		return nil, TrialSpec{}, false, fmt.Errorf("controller %s: trial spec %+v: want epochs >= 0, segment >= 0 and a finite max_kl >= 0", c.name, spec)
	}
	return cands, spec, true, nil
}

// Choose puts cand, the candidate the trainer kept (Trials) or the
// configuration with the lr the update ended with (LRRule), in force for
// the current iteration: Observe then attributes the iteration to it, and
// Current returns it. Call it after Suggest (and Candidates) and before
// Observe.
func (c *Controller) Choose(cand Config) error {
	if !c.st.Pending {
		return fmt.Errorf("controller %s: Choose at iteration %d without a preceding Suggest", c.name, c.st.Iteration)
	}
	if err := c.space.Validate(cand); err != nil {
		return fmt.Errorf("controller %s: chosen configuration at iteration %d: %w", c.name, c.st.Iteration, err)
	}
	copy(c.st.Current, cand)
	return nil
}
