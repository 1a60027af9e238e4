package population

import (
	"fmt"
	"math/rand/v2"

	"github.com/hyperctl/hyperctl/controller"
)

// Perturb is PBT's explore: for each key of cfg in the space's order, with
// probability resample it draws a new value uniformly in the key's own
// scale, otherwise it multiplies the value by 0.8 or 1.2 (PerturbFactors,
// equally likely); the result is clamped into the key's range and integer
// keys are rounded. It returns the new configuration and, per key, what was
// done: "resample", "*0.8" or "*1.2".
func Perturb(space controller.Space, cfg controller.Config, resample float64, rng *rand.Rand) (controller.Config, []string, error) {
	return PerturbBy(space, cfg, resample, PerturbFactors, rng)
}

// PerturbBy is Perturb with the multipliers factors (MF-PBT's are
// MFPBTFactors); the ops name the factor drawn ("*1.25").
func PerturbBy(space controller.Space, cfg controller.Config, resample float64, factors [2]float64, rng *rand.Rand) (controller.Config, []string, error) {
	if err := space.Validate(cfg); err != nil {
		return nil, nil, fmt.Errorf("pbt: perturb: %w", err)
	}
	out := make(controller.Config, len(cfg))
	ops := make([]string, len(cfg))
	for i, v := range cfg {
		if rng.Float64() < resample {
			out[i] = space.FromUnit(i, rng.Float64())
			ops[i] = "resample"
			continue
		}
		f := factors[rng.IntN(len(factors))]
		out[i] = v * f
		ops[i] = fmt.Sprintf("*%g", f)
	}
	clamped, err := space.Clamp(out)
	if err != nil {
		return nil, nil, fmt.Errorf("pbt: perturb: %w", err)
	}
	return clamped, ops, nil
}
