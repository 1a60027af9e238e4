package baselines

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/hyperctl/hyperctl/baselines/gp"
	"github.com/hyperctl/hyperctl/baselines/internal/common"
	"github.com/hyperctl/hyperctl/controller"
)

// PB2Settings configure PB2 (Parker-Holder et al. 2020) with a population
// of one, as the HyperController authors ran it (Ray Tune's PB2 "explore"
// step called on a single trial every decision interval).
//
// Mapping of PB2 to one run, following Ray Tune's pb2/pb2_utils (written by
// PB2's authors) except where noted:
//
//   - Data: one row per decision period (PB2's perturbation interval):
//     inputs (time at the period's start, reward before the period, the
//     configuration in [0, 1]^d), target the mean objective over the
//     period. PB2's target is the reward change per unit time; with the
//     driver's default objective ("delta") and Time = "iterations" the
//     target is exactly the change per training iteration, and with
//     objective "delta_per_second" and Time = "seconds" it is the change per
//     second of training (the mean of per-iteration rates). The paper's
//     protocol used "the change in collected reward" for every method,
//     which is the default here.
//   - Normalisation: time and reward are min-max scaled over the window,
//     targets standardised and clipped to ±Clip (Ray: ±2).
//   - Kernel: PB2's time-varying squared exponential
//     k = σ² (1−ε)^{|t−t'|/2} exp(−‖x−x'‖²/(2ℓ²)) over (reward,
//     configuration) with one shared lengthscale, plus Gaussian noise, all
//     fitted by ML-II. Ray writes the SE as exp(−‖·‖²/ℓ_R) and clips ℓ_R to
//     [1e-5, 1] after fitting; we bound ℓ = √(ℓ_R/2) to the same range
//     during the fit, and ε to [0, 0.5] (Ray caps ε at 0.5).
//   - Window: Ray's select_length — with fewer than WindowMin rows use them
//     all, otherwise fit the GP to the last L = WindowMin, WindowMin +
//     WindowStep, … rows (L ≤ rows) and keep the L with the highest log
//     marginal likelihood. At most WindowMax rows are stored (Ray: 1000).
//   - Acquisition: UCB μ + √β_t σ with Ray's β_t = c1 + max(0, log(c2·N)),
//     N the rows in the window, c1 = 0.2, c2 = 0.4, maximised over the
//     configuration with (time, reward) fixed at the current time and the
//     current reward. Deviations: Ray's code adds κ times the posterior
//     *variance* (PB2's paper writes the UCB with σ; we use σ), conditions on
//     the last row's (time, reward before) instead of the current values, and
//     stamps rows with their end time; and it maximises from 10 random
//     L-BFGS-B starts where we score Candidates random points and refine the
//     best Refine by L-BFGS.
//   - A new choice every decision interval (the driver's); the first
//     configuration is uniform, as in Ray.
type PB2Settings struct {
	// Time is the time input: "iterations" (training iterations) or
	// "seconds" (cumulative training wall time, the driver's Observation.Time).
	Time string `toml:"time"`
	// WindowMin is select_length's minimum window (rows).
	WindowMin int `toml:"window_min"`
	// WindowStep is select_length's step (rows).
	WindowStep int `toml:"window_step"`
	// WindowMax is the most rows kept.
	WindowMax int `toml:"window_max"`
	// Epsilon is the initial forgetting rate ε of the first fit.
	Epsilon float64 `toml:"epsilon"`
	// C1 and C2 set β_t = c1 + max(0, log(c2·N)).
	C1 float64 `toml:"c1"`
	// C2: see C1.
	C2 float64 `toml:"c2"`
	// Clip clips the standardised targets to ±Clip (0: no clipping).
	Clip float64 `toml:"clip"`
	// Restarts is the number of random ML-II restarts, besides the warm
	// start from the previous decision's hyperparameters, for the final
	// window's fit at every RestartEvery-th decision (the first included).
	Restarts int `toml:"restarts"`
	// RestartEvery spaces the decisions with random restarts (1: every
	// decision). While the GP holds fewer than 64 points, fits are cheap and
	// restarts run at every decision regardless.
	RestartEvery int `toml:"restart_every"`
	// Candidates is the number of uniform random configurations the
	// acquisition is evaluated at per decision.
	Candidates int `toml:"candidates"`
	// Refine is the number of best candidates refined by L-BFGS.
	Refine int `toml:"refine"`
}

// DefaultPB2Settings returns Ray Tune's constants and this package's
// optimiser budget.
func DefaultPB2Settings() PB2Settings {
	return PB2Settings{
		Time:         "iterations",
		WindowMin:    200,
		WindowStep:   10,
		WindowMax:    1000,
		Epsilon:      0.1,
		C1:           0.2,
		C2:           0.4,
		Clip:         2,
		Restarts:     1,
		RestartEvery: 10,
		Candidates:   256,
		Refine:       3,
	}
}

// pb2EpsMax is the largest forgetting rate (Ray's TV kernel caps ε at 0.5).
const pb2EpsMax = 0.5

// Validate checks every field.
func (s *PB2Settings) Validate() error {
	switch t := strings.ToLower(strings.TrimSpace(s.Time)); {
	case t != "iterations" && t != "seconds":
		return fmt.Errorf("time: want \"iterations\" or \"seconds\", got %q", s.Time)
	case s.WindowMin < 2:
		return fmt.Errorf("window_min: must be >= 2 rows, got %d", s.WindowMin)
	case s.WindowStep < 1:
		return fmt.Errorf("window_step: must be >= 1 row, got %d", s.WindowStep)
	case s.WindowMax < s.WindowMin || s.WindowMax > 5000:
		return fmt.Errorf("window_max: must be in [window_min = %d, 5000] rows, got %d", s.WindowMin, s.WindowMax)
	case !(s.Epsilon >= 0 && s.Epsilon <= pb2EpsMax):
		return fmt.Errorf("epsilon: must be in [0, %g], got %v", pb2EpsMax, s.Epsilon)
	case !(s.C1 >= 0) || math.IsInf(s.C1, 0):
		return fmt.Errorf("c1: must be finite and >= 0, got %v", s.C1)
	case !(s.C2 > 0) || math.IsInf(s.C2, 0):
		return fmt.Errorf("c2: must be finite and > 0, got %v", s.C2)
	case !(s.Clip >= 0) || math.IsInf(s.Clip, 0):
		return fmt.Errorf("clip: must be finite and >= 0, got %v", s.Clip)
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

// New returns a fresh PB2.
func (s *PB2Settings) New() (controller.Method, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("pb2: %w", err)
	}
	set := *s
	set.Time = strings.ToLower(strings.TrimSpace(set.Time))
	return &PB2{set: set}, nil
}

// PB2Beta is Ray Tune's PB2 exploration weight β = c1 + max(0, log(c2·n))
// for n data points.
func PB2Beta(n int, c1, c2 float64) float64 {
	return c1 + math.Max(0, math.Log(c2*float64(n)))
}

// PB2 is Population-Based Bandits with a population of one.
type PB2 struct {
	set   PB2Settings
	space controller.Space
	rng   *rand.Rand
	st    pb2State
	u     []float64
}

type pb2State struct {
	// Rows are row-major (t0, r0, u_1 … u_d); Y the period's mean objective.
	Rows     []float64
	Y        []float64
	Acc      period
	Now      float64 // time after the last observed iteration
	Reward   float64 // the last observed reward
	HaveNow  bool
	Hyper    *gp.Hyper
	Window   int // rows used by the last decision
	Fits     int // decisions that fitted a GP
	Failures int
}

// Init prepares a run over space.
func (m *PB2) Init(space controller.Space, rng *rand.Rand) error {
	if rng == nil {
		return fmt.Errorf("pb2: init: nil rng")
	}
	m.space, m.rng = space, rng
	m.st = pb2State{}
	return nil
}

func (m *PB2) width() int { return 2 + m.space.Dim() }

func (m *PB2) closePeriod() {
	a := &m.st.Acc
	mean, ok := a.Mean()
	if !ok {
		a.Reset()
		return
	}
	m.st.Rows = append(m.st.Rows, a.T0, a.R0)
	m.st.Rows = append(m.st.Rows, a.X...)
	m.st.Y = append(m.st.Y, mean)
	m.st.Rows = common.Slide(m.st.Rows, m.width(), m.set.WindowMax)
	m.st.Y = common.Slide(m.st.Y, 1, m.set.WindowMax)
	*a = period{Period: common.Period{X: a.X[:0]}}
}

// window returns the GP inputs for the last L rows (time and reward min-max
// scaled over those rows) and the scaling of the two fixed columns.
func (m *PB2) window(L int) (x, y []float64, lo, span [2]float64) {
	w := m.width()
	n := len(m.st.Y)
	rows := m.st.Rows[(n-L)*w:]
	for c := range 2 {
		lo[c] = math.Inf(1)
		hi := math.Inf(-1)
		for i := range L {
			v := rows[i*w+c]
			lo[c], hi = math.Min(lo[c], v), math.Max(hi, v)
		}
		span[c] = hi - lo[c]
	}
	x = make([]float64, L*w)
	copy(x, rows)
	for i := range L {
		for c := range 2 {
			x[i*w+c] = scaleTo(x[i*w+c], lo[c], span[c])
		}
	}
	return x, m.st.Y[n-L:], lo, span
}

// scaleTo min-max scales v; a zero (or non-finite) span maps to 0.
func scaleTo(v, lo, span float64) float64 {
	if !(span > 0) || math.IsInf(span, 0) {
		return 0
	}
	return (v - lo) / span
}

func (m *PB2) fitOptions(restarts int) gp.FitOptions {
	b := gp.DefaultBounds()
	// Ray clips its ℓ_R ∈ [1e-5, 1] with k = exp(−d²/ℓ_R); ℓ = √(ℓ_R/2).
	b.Lengthscale = gp.Range{Lo: math.Sqrt(0.5e-5), Hi: math.Sqrt(0.5)}
	b.Epsilon = gp.Range{Lo: 0, Hi: pb2EpsMax}
	init := m.st.Hyper
	if init == nil {
		// Ray's starting point: variance 1, ℓ_R = 1, ε from the settings,
		// GPy's default noise variance 1.
		init = &gp.Hyper{SignalVar: 1, Lengthscales: []float64{math.Sqrt(0.5)}, NoiseVar: 1, Epsilon: m.set.Epsilon}
	}
	return gp.FitOptions{
		Kernel:   gp.Kernel{Kind: gp.SquaredExp, Dim: m.width(), TimeVarying: true},
		Bounds:   b,
		Init:     init,
		Restarts: restarts,
		Clip:     m.set.Clip,
	}
}

// Suggest chooses the window, fits the time-varying GP and maximises the UCB
// at the current time and reward.
func (m *PB2) Suggest(dst controller.Config) error {
	if m.rng == nil {
		return notInit("pb2")
	}
	if err := checkDst(m.space, dst); err != nil {
		return fmt.Errorf("pb2: %w", err)
	}
	m.closePeriod()
	n := len(m.st.Y)
	if n == 0 || !m.st.HaveNow {
		uniform(m.space, m.rng, dst)
		return nil
	}
	// select_length: try L = WindowMin, +WindowStep, … ≤ n; keep the best
	// log marginal likelihood. Trial fits start from the warm start only.
	L := n
	if n >= m.set.WindowMin {
		bestL, bestLL := m.set.WindowMin, math.Inf(-1)
		for l := m.set.WindowMin; l <= n; l += m.set.WindowStep {
			x, y, _, _ := m.window(l)
			model, err := gp.Fit(x, y, m.fitOptions(0), m.rng)
			if err == nil && model.LogLikelihood() > bestLL {
				bestL, bestLL = l, model.LogLikelihood()
			}
		}
		L = bestL
	}
	m.st.Window = L
	x, y, lo, span := m.window(L)
	restarts := 0
	if m.st.Hyper == nil || L < alwaysRestartBelow || m.st.Fits%m.set.RestartEvery == 0 {
		restarts = m.set.Restarts
	}
	m.st.Fits++
	model, err := gp.Fit(x, y, m.fitOptions(restarts), m.rng)
	if err != nil {
		m.st.Failures++
		uniform(m.space, m.rng, dst)
		return nil
	}
	h := model.Hyper()
	m.st.Hyper = &h
	fixed := []float64{scaleTo(m.st.Now, lo[0], span[0]), scaleTo(m.st.Reward, lo[1], span[1])}
	kappa := math.Sqrt(PB2Beta(L, m.set.C1, m.set.C2))
	acq := ucbMaximizer{Candidates: m.set.Candidates, Refine: m.set.Refine, MaxIter: 30}
	u, _ := acq.maximize(model, fixed, m.space.Dim(), kappa, m.rng, nil)
	fromUnit(m.space, u, dst)
	return nil
}

// Observe adds o to the current period's row.
func (m *PB2) Observe(o controller.Observation) error {
	if m.rng == nil {
		return notInit("pb2")
	}
	if err := checkObservation(m.space, o); err != nil {
		return fmt.Errorf("pb2: observe: %w", err)
	}
	m.u = toUnit(m.space, o.Config, m.u)
	a := &m.st.Acc
	start, now := float64(o.Iteration), float64(o.Iteration+1)
	if m.set.Time == "seconds" {
		start, now = o.Time-o.Elapsed, o.Time
	}
	if a.Add(m.u, o.Objective, m.closePeriod) {
		a.T0, a.R0 = start, o.PrevReward
	}
	m.st.Now, m.st.Reward, m.st.HaveNow = now, o.Reward, true
	return nil
}

// Window is the number of rows the last decision's GP used.
func (m *PB2) Window() int { return m.st.Window }

// Failures is the number of decisions that fell back to a random draw
// because the GP fit failed.
func (m *PB2) Failures() int { return m.st.Failures }

// MarshalBinary returns the rows, the open period, the current time and
// reward, and the warm-start hyperparameters.
func (m *PB2) MarshalBinary() ([]byte, error) { return encode("pb2", m.st) }

// UnmarshalBinary restores a state from MarshalBinary.
func (m *PB2) UnmarshalBinary(b []byte) error {
	var st pb2State
	if err := decode("pb2", b, &st); err != nil {
		return err
	}
	if len(st.Rows) != len(st.Y)*m.width() || len(st.Y) > m.set.WindowMax || !st.Acc.Fits(m.space.Dim()) {
		return fmt.Errorf("pb2: unmarshal state: inconsistent with this space and settings")
	}
	m.st = st
	return nil
}
