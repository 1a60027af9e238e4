package controller

import (
	"fmt"
	"math"
)

// CheckObservation is the one check of an observation, made by the driver
// before it hands the observation to a method and by every method before
// its state changes (a method may be used without the driver): finite
// reward, previous reward, elapsed time, cumulative time and objective, a
// non-negative iteration, and a configuration of the space's length with
// finite values. The error starts with the iteration.
func CheckObservation(space Space, o Observation) error {
	for _, v := range []struct {
		name string
		v    float64
	}{{"reward", o.Reward}, {"previous reward", o.PrevReward}, {"elapsed", o.Elapsed}, {"time", o.Time}, {"objective", o.Objective}} {
		if math.IsNaN(v.v) || math.IsInf(v.v, 0) {
			return fmt.Errorf("iteration %d: %s is %v, want a finite number", o.Iteration, v.name, v.v)
		}
	}
	if math.Abs(o.Reward) > MaxReward || math.Abs(o.PrevReward) > MaxReward {
		return fmt.Errorf("iteration %d: reward %g is beyond ±%g (controller.MaxReward), where the methods' statistics would overflow; rescale the rewards", o.Iteration, o.Reward, float64(MaxReward))
	}
	if o.Iteration < 0 {
		return fmt.Errorf("iteration %d: negative iteration", o.Iteration)
	}
	if len(o.Config) != space.Dim() {
		return fmt.Errorf("iteration %d: config has %d values, space has %d parameters", o.Iteration, len(o.Config), space.Dim())
	}
	for i, v := range o.Config {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("iteration %d: config value for %s is %v", o.Iteration, space.Param(i).Name, v)
		}
	}
	return nil
}

// CheckDst rejects a Suggest destination of the wrong length.
func CheckDst(space Space, dst Config) error {
	if len(dst) != space.Dim() {
		return fmt.Errorf("suggest: destination has %d values, space has %d parameters", len(dst), space.Dim())
	}
	return nil
}
