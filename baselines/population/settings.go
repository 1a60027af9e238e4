package population

import (
	"fmt"
	"math"

	"github.com/hyperctl/hyperctl/baselines/pb2"
)

// The population methods.
const (
	PBT = "pbt" // Population Based Training: perturbation or resampling
	PB2 = "pb2" // Population-Based Bandits: GP-UCB on the population's data
)

// Methods lists the population methods.
func Methods() []string { return []string{PBT, PB2} }

// Settings configure a population's exploit and explore steps.
type Settings struct {
	// Method is PBT or PB2.
	Method string
	// Quantile is the fraction of members in the bottom quantile (which
	// copy) and in the top quantile (which are copied): Ray's
	// quantile_fraction, 0.25.
	Quantile float64
	// ResampleProbability is PBT's probability of resampling a key instead
	// of perturbing it (Ray: 0.25).
	ResampleProbability float64
	// PB2 configures PB2's GP (window rule, kernel, β, optimiser budget):
	// the single-run method's settings, whose Time field is unused here
	// (a population's time is its frames).
	PB2 pb2.Settings
}

// DefaultSettings returns Ray Tune's defaults for method.
func DefaultSettings(method string) Settings {
	return Settings{Method: method, Quantile: 0.25, ResampleProbability: 0.25, PB2: pb2.DefaultSettings()}
}

// PerturbFactors are PBT's multipliers, drawn with equal probability.
var PerturbFactors = [2]float64{0.8, 1.2}

// Validate checks the settings; errors name the field.
func (s *Settings) Validate() error {
	switch {
	case s.Method != PBT && s.Method != PB2:
		return fmt.Errorf("method: want %q or %q, got %q", PBT, PB2, s.Method)
	case !(s.Quantile > 0 && s.Quantile <= 0.5):
		return fmt.Errorf("quantile: want a fraction in (0, 0.5], got %v", s.Quantile)
	case !(s.ResampleProbability >= 0 && s.ResampleProbability <= 1) || math.IsNaN(s.ResampleProbability):
		return fmt.Errorf("resample probability: want a number in [0, 1], got %v", s.ResampleProbability)
	}
	if s.Method == PB2 {
		if err := s.PB2.Validate(); err != nil {
			return fmt.Errorf("pb2: %w", err)
		}
	}
	return nil
}
