package baselines

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hyperctl/hyperctl/baselines/gp"
	"github.com/hyperctl/hyperctl/baselines/internal/common"
	"github.com/hyperctl/hyperctl/controller"
)

// GPUCBSettings configure GP-UCB (Srinivas et al. 2010).
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
type GPUCBSettings struct {
	// Kernel is "matern52" or "se" (ARD either way).
	Kernel string `toml:"kernel"`
	// Window is the number of most recent data points (decision periods)
	// the GP is fitted to; it bounds the cost of a decision.
	Window int `toml:"window"`
	// Delta is δ in (0, 1) of β_t.
	Delta float64 `toml:"delta"`
	// Grid is the number of values per hyperparameter of D (|D| = Grid^d).
	Grid int `toml:"grid"`
	// BetaScale multiplies Theorem 1's β_t (> 0).
	BetaScale float64 `toml:"beta_scale"`
	// Restarts is the number of random ML-II restarts, besides the warm
	// start from the previous decision's hyperparameters, at every
	// RestartEvery-th decision (the first included).
	Restarts int `toml:"restarts"`
	// RestartEvery spaces the decisions with random restarts (1: every
	// decision). While the GP holds fewer than 64 points, fits are cheap and
	// restarts run at every decision regardless.
	RestartEvery int `toml:"restart_every"`
	// Candidates is the number of uniform random points the acquisition is
	// evaluated at per decision.
	Candidates int `toml:"candidates"`
	// Refine is the number of best candidates refined by L-BFGS.
	Refine int `toml:"refine"`
}

// DefaultGPUCBSettings returns the defaults.
func DefaultGPUCBSettings() GPUCBSettings {
	return GPUCBSettings{
		Kernel:       "matern52",
		Window:       200,
		Delta:        0.1,
		Grid:         10,
		BetaScale:    1,
		Restarts:     1,
		RestartEvery: 10,
		Candidates:   256,
		Refine:       3,
	}
}

// Validate checks every field.
func (s *GPUCBSettings) Validate() error {
	if _, err := gp.ParseKind(s.Kernel); err != nil {
		return fmt.Errorf("kernel: %w", err)
	}
	switch {
	case s.Window < 2 || s.Window > 5000:
		return fmt.Errorf("window: must be in [2, 5000] data points, got %d", s.Window)
	case !(s.Delta > 0 && s.Delta < 1):
		return fmt.Errorf("delta: must be in (0, 1), got %v", s.Delta)
	case s.Grid < 2:
		return fmt.Errorf("grid: must be >= 2, got %d", s.Grid)
	case !(s.BetaScale > 0) || math.IsInf(s.BetaScale, 0):
		return fmt.Errorf("beta_scale: must be finite and > 0, got %v", s.BetaScale)
	case s.Restarts < 0 || s.Restarts > 100:
		return fmt.Errorf("restarts: must be in [0, 100], got %d", s.Restarts)
	case s.RestartEvery < 1:
		return fmt.Errorf("restart_every: must be >= 1 decision, got %d", s.RestartEvery)
	case s.Candidates < 1 || s.Candidates > 100000:
		return fmt.Errorf("candidates: must be in [1, 100000], got %d", s.Candidates)
	case s.Refine < 0 || s.Refine > s.Candidates:
		return fmt.Errorf("refine: must be in [0, candidates = %d], got %d", s.Candidates, s.Refine)
	}
	return nil
}

// New returns a fresh GP-UCB.
func (s *GPUCBSettings) New() (controller.Method, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("gpucb: %w", err)
	}
	kind, _ := gp.ParseKind(s.Kernel)
	return &GPUCB{set: *s, kind: kind}, nil
}

// Beta returns Theorem 1's β_t = scale · 2 log(|D| t² π² / (6δ)) for
// |D| = grid^dim, computed in logs so large |D| cannot overflow.
func Beta(t, dim, grid int, delta, scale float64) float64 {
	logD := float64(dim) * math.Log(float64(grid))
	tt := float64(max(t, 1))
	return scale * 2 * (logD + 2*math.Log(tt) + math.Log(math.Pi*math.Pi/(6*delta)))
}

// GPUCB is GP-UCB over decision periods.
type GPUCB struct {
	set   GPUCBSettings
	kind  gp.Kind
	space controller.Space
	rng   *rand.Rand
	st    gpucbState
	u     []float64 // scratch
}

// period accumulates one decision period's observations.
type period struct {
	common.Period
	T0 float64 // PB2: time at the period's start
	R0 float64 // PB2: reward before the period
}

type gpucbState struct {
	X        []float64 // data, row-major in [0, 1]^d, the last Window points
	Y        []float64 // mean objective per point
	Acc      period
	Rounds   int       // decisions made so far (t of the last decision)
	Hyper    *gp.Hyper // last fitted hyperparameters (warm start)
	Failures int       // decisions that fell back to a random draw because the fit failed
}

// Init prepares a run over space.
func (m *GPUCB) Init(space controller.Space, rng *rand.Rand) error {
	if rng == nil {
		return fmt.Errorf("gpucb: init: nil rng")
	}
	m.space, m.rng = space, rng
	m.st = gpucbState{}
	return nil
}

// closePeriod turns the open period into a data point.
func (m *GPUCB) closePeriod() {
	a := &m.st.Acc
	mean, ok := a.Mean()
	if !ok {
		a.Reset()
		return
	}
	m.st.X = append(m.st.X, a.X...)
	m.st.Y = append(m.st.Y, mean)
	m.st.X = common.Slide(m.st.X, m.space.Dim(), m.set.Window)
	m.st.Y = common.Slide(m.st.Y, 1, m.set.Window)
	*a = period{Period: common.Period{X: a.X[:0]}}
}

// Suggest fits the GP and maximises the UCB.
func (m *GPUCB) Suggest(dst controller.Config) error {
	if m.rng == nil {
		return notInit("gpucb")
	}
	if err := checkDst(m.space, dst); err != nil {
		return fmt.Errorf("gpucb: %w", err)
	}
	m.closePeriod()
	m.st.Rounds++
	d := m.space.Dim()
	if len(m.st.Y) == 0 {
		// t = 1 with no data: the prior UCB is flat, so draw uniformly.
		uniform(m.space, m.rng, dst)
		return nil
	}
	k := gp.Kernel{Kind: m.kind, Dim: d, ARD: true}
	restarts := 0
	if m.st.Hyper == nil || len(m.st.Y) < alwaysRestartBelow || (m.st.Rounds-1)%m.set.RestartEvery == 0 {
		restarts = m.set.Restarts
	}
	model, err := gp.Fit(m.st.X, m.st.Y, gp.FitOptions{Kernel: k, Init: m.st.Hyper, Restarts: restarts}, m.rng)
	if err != nil {
		// Data are finite by construction, so this means a numerically
		// hopeless covariance; keep going with a random configuration.
		m.st.Failures++
		uniform(m.space, m.rng, dst)
		return nil
	}
	h := model.Hyper()
	m.st.Hyper = &h
	kappa := math.Sqrt(Beta(m.st.Rounds, d, m.set.Grid, m.set.Delta, m.set.BetaScale))
	acq := ucbMaximizer{Candidates: m.set.Candidates, Refine: m.set.Refine, MaxIter: 30}
	u, _ := acq.maximize(model, nil, d, kappa, m.rng, nil)
	fromUnit(m.space, u, dst)
	return nil
}

// Observe adds o to the current period's data point.
func (m *GPUCB) Observe(o controller.Observation) error {
	if m.rng == nil {
		return notInit("gpucb")
	}
	if err := checkObservation(m.space, o); err != nil {
		return fmt.Errorf("gpucb: observe: %w", err)
	}
	m.u = toUnit(m.space, o.Config, m.u)
	m.st.Acc.Add(m.u, o.Objective, m.closePeriod)
	return nil
}

// Data returns copies of the data points (row-major unit inputs, targets).
func (m *GPUCB) Data() (x, y []float64) {
	return append([]float64(nil), m.st.X...), append([]float64(nil), m.st.Y...)
}

// Failures is the number of decisions that fell back to a random draw
// because the GP fit failed.
func (m *GPUCB) Failures() int { return m.st.Failures }

// MarshalBinary returns the data, the open period, the round count and the
// warm-start hyperparameters.
func (m *GPUCB) MarshalBinary() ([]byte, error) { return encode("gpucb", m.st) }

// UnmarshalBinary restores a state from MarshalBinary.
func (m *GPUCB) UnmarshalBinary(b []byte) error {
	var st gpucbState
	if err := decode("gpucb", b, &st); err != nil {
		return err
	}
	d := m.space.Dim()
	if len(st.X) != len(st.Y)*d || len(st.Y) > m.set.Window || !st.Acc.Fits(d) {
		return fmt.Errorf("gpucb: unmarshal state: inconsistent with this space and settings")
	}
	m.st = st
	return nil
}
