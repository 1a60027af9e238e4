// Package baselines holds the methods the HyperController paper compares
// against (Section V): GP-UCB, PB2, HyperBand, Random and Random Start, each
// a controller.Method registered as "gpucb", "pb2", "hyperband", "random"
// and "randomstart".
//
// All of them run on the shared driver (controller.Controller), so they see
// the same objective (by default the paper's X_t = R_t − R_{t−1}, "the
// change in the collected reward"), the same decision interval (the driver
// calls Suggest every Interval iterations and Observe after every
// iteration), and snapshot/restore through MarshalBinary/UnmarshalBinary
// with the driver's RNG. Every random draw comes from the rng given to Init.
//
// Mapping to one online training run (documented per method):
//
//   - GP-UCB and PB2 turn each decision period into one data point: the
//     configuration in force and the mean objective over the period's
//     iterations (the reward change per iteration under the default
//     objective).
//   - HyperBand runs each configuration of a rung for r_i consecutive
//     decision periods of the one training run (no restarts from scratch).
//   - Random draws a new configuration every decision period, Random Start
//     draws one and keeps it.
//
// Configurations are drawn and modelled in each parameter's own scale
// (controller.Space.FromUnit/ToUnit: uniform in value on a linear scale, in
// log(value) on a log scale).
package baselines

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hyperctl/hyperctl/controller"
)

func init() {
	controller.MustRegister(controller.Entry{
		Name:     "gpucb",
		Summary:  "GP-UCB (Srinivas et al. 2010): GP on (configuration -> objective), maximise mu + sqrt(beta_t) sigma",
		Defaults: func() controller.Settings { s := DefaultGPUCBSettings(); return &s },
	})
	controller.MustRegister(controller.Entry{
		Name:     "pb2",
		Summary:  "PB2 (Parker-Holder et al. 2020), population of one: time-varying GP on (time, reward, configuration) with UCB",
		Defaults: func() controller.Settings { s := DefaultPB2Settings(); return &s },
	})
	controller.MustRegister(controller.Entry{
		Name:     "hyperband",
		Summary:  "HyperBand (Li et al. 2017) in one online run: brackets of successive halving over decision periods",
		Defaults: func() controller.Settings { s := DefaultHyperBandSettings(); return &s },
	})
	controller.MustRegister(controller.Entry{
		Name:     "random",
		Summary:  "Random (Bergstra and Bengio 2012): a new uniform configuration every decision interval",
		Defaults: func() controller.Settings { return &RandomSettings{} },
	})
	controller.MustRegister(controller.Entry{
		Name:     "randomstart",
		Summary:  "Random Start: one uniform configuration drawn at the start and kept for the whole run",
		Defaults: func() controller.Settings { return &RandomStartSettings{} },
	})
}

// checkObservation rejects non-finite or malformed observations before any
// state changes.
func checkObservation(space controller.Space, o controller.Observation) error {
	if math.IsNaN(o.Objective) || math.IsInf(o.Objective, 0) {
		return fmt.Errorf("iteration %d: objective is %v, want a finite number", o.Iteration, o.Objective)
	}
	for _, v := range []struct {
		name string
		v    float64
	}{{"reward", o.Reward}, {"previous reward", o.PrevReward}, {"elapsed", o.Elapsed}, {"time", o.Time}} {
		if math.IsNaN(v.v) || math.IsInf(v.v, 0) {
			return fmt.Errorf("iteration %d: %s is %v, want a finite number", o.Iteration, v.name, v.v)
		}
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

// checkDst rejects a destination of the wrong length.
func checkDst(space controller.Space, dst controller.Config) error {
	if len(dst) != space.Dim() {
		return fmt.Errorf("suggest: destination has %d values, space has %d parameters", len(dst), space.Dim())
	}
	return nil
}

// uniform writes a configuration drawn uniformly in each parameter's own
// scale.
func uniform(space controller.Space, rng *rand.Rand, dst controller.Config) {
	for i := range dst {
		dst[i] = space.FromUnit(i, rng.Float64())
	}
}

// toUnit maps a configuration to [0, 1]^d.
func toUnit(space controller.Space, c controller.Config, dst []float64) []float64 {
	dst = dst[:0]
	for i, v := range c {
		dst = append(dst, space.ToUnit(i, v))
	}
	return dst
}

// fromUnit maps u ∈ [0, 1]^d to a configuration (rounding integers).
func fromUnit(space controller.Space, u []float64, dst controller.Config) {
	for i := range dst {
		dst[i] = space.FromUnit(i, u[i])
	}
}

// encode gob-encodes a method state.
func encode(name string, v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, fmt.Errorf("%s: marshal state: %w", name, err)
	}
	return buf.Bytes(), nil
}

// decode gob-decodes a method state into v.
func decode(name string, b []byte, v any) error {
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(v); err != nil {
		return fmt.Errorf("%s: unmarshal state: %w", name, err)
	}
	return nil
}

func notInit(name string) error {
	return fmt.Errorf("%s: used before Init", name)
}
