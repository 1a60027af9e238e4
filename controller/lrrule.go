package controller

import "fmt"

// LRRule is an optional ability of a Method, beside the interface (as
// Trials is): the method sets the learning rate inside the trainer's update,
// from the KL divergence the trainer measures between the policy that
// collected the batch and the one being trained, as the KL-adaptive rule of
// rsl_rl, rl_games and skrl does (baselines/kladaptive). The other methods
// act only between iterations.
//
// A trainer that can measure the KL (ppo.Run) asks the driver for the rule
// (Controller.LRRule) and, at every iteration, starts the update from the lr
// of the configuration in force (the parameter named LRParam), calls NextLR
// at every measurement point (Measure), takes its gradient steps with the lr
// in force, and puts the lr the update ended with in force with Choose
// before Observe. The lr thus lives in the driver's configuration in force,
// which Snapshot saves: a restored run continues with the lr it had. The
// driver asks such a method for Suggest only for the first configuration
// (when it has no start), and decides at every iteration whatever the
// interval. A trainer that cannot measure the KL uses Suggest alone, which
// keeps the first lr; `hyperctl serve` refuses these methods for that
// reason.
type LRRule interface {
	Method
	// Measure says where the trainer measures the KL and applies NextLR.
	Measure() KLMeasure
	// NextLR returns the learning rate after a KL measurement kl, given the
	// lr in force.
	NextLR(lr, kl float64) float64
}

// LRParam is the name of the parameter an LRRule method controls: the
// Adam learning rate, ppoconfig.Hyper's lr.
const LRParam = "lr"

// KLMeasure is where a trainer measures the KL for an LRRule.
type KLMeasure int

const (
	// PerMinibatch: before every minibatch's gradient step, the mean KL
	// over the minibatch's frames, with the parameters before the step;
	// the new lr is that step's (rsl_rl).
	PerMinibatch KLMeasure = iota
	// PerEpoch: after every epoch, the mean over its minibatches of their
	// mean KL, each measured before its step as PerMinibatch; the new lr
	// is the next epoch's (rl_games' and skrl's mini-epoch).
	PerEpoch
)

// String returns the measure's config name: "minibatch" or "epoch".
func (m KLMeasure) String() string {
	switch m {
	case PerMinibatch:
		return "minibatch"
	case PerEpoch:
		return "epoch"
	}
	return fmt.Sprintf("KLMeasure(%d)", int(m))
}

func isLRRule(m Method) bool {
	_, ok := m.(LRRule)
	return ok
}

// LRRule returns the method's LRRule ability and the index of the lr in
// the space; ok is false for a method without the ability. A method with
// it over a space without LRParam is refused by its Init, so the index is
// valid.
func (c *Controller) LRRule() (rule LRRule, index int, ok bool) {
	r, has := c.method.(LRRule)
	if !has {
		return nil, -1, false
	}
	i := c.space.Index(LRParam)
	if i < 0 {
		return nil, -1, false
	}
	return r, i, true
}
