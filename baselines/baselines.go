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
	"math/rand/v2"

	"github.com/hyperctl/hyperctl/baselines/internal/common"
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

// The helpers below delegate to package common, shared with the methods in
// baselines' subpackages.

func checkObservation(space controller.Space, o controller.Observation) error {
	return common.CheckObservation(space, o)
}

func checkDst(space controller.Space, dst controller.Config) error {
	return common.CheckDst(space, dst)
}

func uniform(space controller.Space, rng *rand.Rand, dst controller.Config) {
	common.Uniform(space, rng, dst)
}

func toUnit(space controller.Space, c controller.Config, dst []float64) []float64 {
	return common.ToUnit(space, c, dst)
}

func fromUnit(space controller.Space, u []float64, dst controller.Config) {
	common.FromUnit(space, u, dst)
}

func encode(name string, v any) ([]byte, error) { return common.Encode(name, v) }

func decode(name string, b []byte, v any) error { return common.Decode(name, b, v) }

func notInit(name string) error { return common.NotInit(name) }
