// Package gpucb is GP-UCB (Srinivas et al. 2010, "Gaussian Process
// Optimization in the Bandit Setting: No Regret and Experimental Design")
// over decision periods, registered as "gpucb". It runs on the GP-UCB
// family's loop (baselines/internal/gploop) with κ_t = √β_t of Theorem 1.
//
// Each decision period is one bandit round t: the configuration in force,
// mapped to [0, 1]^d in each parameter's own scale, and the mean objective
// over the period's iterations form one data point. At each decision a GP
// (ML-II hyperparameters, warm-started from the previous decision) is fitted
// to the last Window points and the next configuration maximises
// μ_{t−1}(x) + √β_t σ_{t−1}(x) over the continuous box.
//
// β_t follows Srinivas et al.'s Theorem 1 (finite decision set D):
//
//	β_t = BetaScale · 2 log(|D| t² π² / (6δ)),  |D| = Grid^d,
//
// with D taken as the grid of Grid values per hyperparameter that the
// HyperController paper's discretisation uses (10 values each), the
// continuous box being searched in its place, and t the decision round
// (1-based). The default is the theorem's value (BetaScale = 1); Srinivas
// et al. note that it is conservative and scale it down in their
// experiments, which BetaScale < 1 reproduces. (With the theorem's value
// and d = 4, √β_t grows from about 4.9 at t = 1 to 6.7 at t = 200, in units
// of the standardised objective.)
//
// The GP has a constant mean (targets are standardised) and ARD
// lengthscales bounded to [0.05, 1] on the unit box and a signal variance
// of at least 0.1 of the targets' variance (gp.DefaultBounds): without
// these bounds ML-II, given a few clustered noisy points, explains them as
// pure noise or as a trend along a long lengthscale, the posterior variance
// collapses, and UCB stops exploring (observed in this package's tests).
//
// Note: the HyperController authors' "GP-UCB" code is PB2's pipeline
// (time-varying kernel, inputs time and reward, UCB μ + variance with
// κ = 1); this is GP-UCB as Srinivas et al. define it.
package gpucb

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hyperctl/hyperctl/baselines/internal/gploop"
	"github.com/hyperctl/hyperctl/controller"
)

// Settings configure GP-UCB; the blocks' keys are the table's own
// (kernel, window, delta, grid, beta_scale, restarts, restart_every,
// candidates, refine).
type Settings struct {
	gploop.Model
	gploop.Confidence
	gploop.Fitting
	gploop.Search
}

// DefaultSettings returns the defaults: a Matérn-5/2 kernel on the last 200
// points, Theorem 1's β_t with δ = 0.1 and a grid of 10 values per
// hyperparameter, one random restart every 10 decisions, 256 candidates
// and 3 refinements.
func DefaultSettings() Settings {
	return Settings{
		Model:      gploop.Model{Kernel: "matern52", Window: 200},
		Confidence: gploop.Confidence{Delta: 0.1, Grid: 10, BetaScale: 1},
		Fitting:    gploop.Fitting{Restarts: 1, RestartEvery: 10},
		Search:     gploop.Search{Candidates: 256, Refine: 3},
	}
}

// Validate checks every field; the error starts with the field's TOML key.
func (s *Settings) Validate() error {
	for _, v := range []interface{ Validate() error }{&s.Model, &s.Confidence, &s.Fitting, &s.Search} {
		if err := v.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// New returns a fresh GP-UCB.
func (s *Settings) New() (controller.Method, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("gpucb: %w", err)
	}
	return &GPUCB{set: *s, loop: gploop.Named(Name)}, nil
}

// GPUCB is GP-UCB over decision periods.
type GPUCB struct {
	set  Settings
	loop gploop.Loop
	gp   gploop.Stationary
	st   gploop.State
}

// Init prepares a run over space.
func (m *GPUCB) Init(space controller.Space, rng *rand.Rand) error {
	m.gp = gploop.Stationary{Loop: &m.loop, Kind: m.set.Kind(), Fitting: m.set.Fitting, Search: m.set.Search}
	return m.loop.Init(space, rng, &m.st, gploop.Config{Name: Name, Window: m.set.Window})
}

// Suggest fits the GP and maximises μ_{t−1}(x) + √β_t σ_{t−1}(x); the
// first decision, without data, draws uniformly.
func (m *GPUCB) Suggest(dst controller.Config) error {
	if err := m.loop.Begin(dst); err != nil {
		return err
	}
	return m.loop.Decide(dst, &m.gp, func() float64 { return math.Sqrt(m.set.Beta(m.st.Rounds, len(dst))) })
}

// Observe adds o to the current period's data point.
func (m *GPUCB) Observe(o controller.Observation) error { return m.loop.Observe(o) }

// Data returns copies of the data points (row-major unit inputs, targets).
func (m *GPUCB) Data() (x, y []float64) {
	return append([]float64(nil), m.st.X...), append([]float64(nil), m.st.Y...)
}

// Failures is the number of decisions that fell back to a random draw
// because the GP fit failed.
func (m *GPUCB) Failures() int { return m.st.Failures }

// MarshalBinary returns the data, the open period, the round count and the
// warm-start hyperparameters.
func (m *GPUCB) MarshalBinary() ([]byte, error) { return m.loop.Marshal(m.st) }

// UnmarshalBinary restores a state from MarshalBinary; on error the state
// is unchanged.
func (m *GPUCB) UnmarshalBinary(b []byte) error { return gploop.Unmarshal(&m.loop, b, &m.st, nil) }
