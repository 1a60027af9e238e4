// Package pb2 is PB2 (Parker-Holder et al. 2020, "Provably Efficient
// Online Hyperparameter Optimization with Population-Based Bandits") with a
// population of one, registered as "pb2", as the HyperController authors
// ran it (Ray Tune's PB2 "explore"
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
//
// It runs on the GP-UCB family's loop (baselines/internal/gploop): each
// period's stamp is (time at its start, reward before it), and the loop's
// restart schedule counts PB2's fits.
package pb2

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/hyperctl/hyperctl/baselines/gp"
	"github.com/hyperctl/hyperctl/baselines/internal/gploop"
	"github.com/hyperctl/hyperctl/controller"
)

// Settings configure PB2.
type Settings struct {
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
	// Restarts (restarts, restart_every) apply to the final window's fit;
	// the select_length trial fits start from the warm start only.
	gploop.Fitting
	gploop.Search
}

// DefaultSettings returns Ray Tune's constants and the family's optimiser
// budget.
func DefaultSettings() Settings {
	return Settings{
		Time:       "iterations",
		WindowMin:  200,
		WindowStep: 10,
		WindowMax:  1000,
		Epsilon:    0.1,
		C1:         0.2,
		C2:         0.4,
		Clip:       2,
		Fitting:    gploop.Fitting{Restarts: 1, RestartEvery: 10},
		Search:     gploop.Search{Candidates: 256, Refine: 3},
	}
}

// epsMax is the largest forgetting rate (Ray's TV kernel caps ε at 0.5).
const epsMax = 0.5

// Validate checks every field; the error starts with the field's TOML key.
func (s *Settings) Validate() error {
	switch t := strings.ToLower(strings.TrimSpace(s.Time)); {
	case t != "iterations" && t != "seconds":
		return fmt.Errorf("time: want \"iterations\" or \"seconds\", got %q", s.Time)
	case s.WindowMin < 2:
		return fmt.Errorf("window_min: want an integer >= 2 rows, got %d", s.WindowMin)
	case s.WindowStep < 1:
		return fmt.Errorf("window_step: want an integer >= 1 row, got %d", s.WindowStep)
	case s.WindowMax < s.WindowMin || s.WindowMax > gploop.MaxWindow:
		return fmt.Errorf("window_max: want an integer in [window_min = %d, %d] rows, got %d", s.WindowMin, gploop.MaxWindow, s.WindowMax)
	case !(s.Epsilon >= 0 && s.Epsilon <= epsMax):
		return fmt.Errorf("epsilon: want a number in [0, %g], got %v", epsMax, s.Epsilon)
	case !(s.C1 >= 0) || math.IsInf(s.C1, 0):
		return fmt.Errorf("c1: want a finite number >= 0, got %v", s.C1)
	case !(s.C2 > 0) || math.IsInf(s.C2, 0):
		return fmt.Errorf("c2: want a finite number > 0, got %v", s.C2)
	case !(s.Clip >= 0) || math.IsInf(s.Clip, 0):
		return fmt.Errorf("clip: want a finite number >= 0, got %v", s.Clip)
	}
	if err := s.Fitting.Validate(); err != nil {
		return err
	}
	return s.Search.Validate()
}

// New returns a fresh PB2.
func (s *Settings) New() (controller.Method, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("pb2: %w", err)
	}
	return &PB2{set: *s, loop: gploop.Named(Name), seconds: strings.EqualFold(strings.TrimSpace(s.Time), "seconds")}, nil
}

// Beta is Ray Tune's PB2 exploration weight β = c1 + max(0, log(c2·n))
// for n data points.
func Beta(n int, c1, c2 float64) float64 {
	return c1 + math.Max(0, math.Log(c2*float64(n)))
}

// PB2 is Population-Based Bandits with a population of one.
type PB2 struct {
	set     Settings
	seconds bool // the time input is wall time (Time = "seconds")
	loop    gploop.Loop
	st      state
	// The last fit (the member of the loop's decision).
	model *gp.Model
	fixed []float64
}

// state is everything MarshalBinary saves: the loop's rows (t0, r0, u_1 …
// u_d) and targets, and PB2's own.
type state struct {
	gploop.State
	Now    float64 // time after the last observed iteration
	Reward float64 // the last observed reward
	Window int     // rows used by the last decision
	Fits   int     // decisions that fitted a GP
}

// Init prepares a run over space.
func (m *PB2) Init(space controller.Space, rng *rand.Rand) error {
	m.st = state{}
	return m.loop.Init(space, rng, &m.st.State, gploop.Config{Name: Name, Window: m.set.WindowMax, StampCols: 2, Stamp: m.stamp})
}

func (m *PB2) width() int { return m.loop.Cols() }

// stamp is a period's (time at its start, reward before it).
func (m *PB2) stamp(o controller.Observation) []float64 {
	start := float64(o.Iteration)
	if m.seconds {
		start = o.Time - o.Elapsed
	}
	return []float64{start, o.PrevReward}
}

// data is PB2's GP data: rows of w inputs (the time and the reward before
// the row's interval, then the configuration in [0, 1]^d), row-major, and
// their targets. The single-run method keeps its decision periods here; the
// population's explore step (Choose) builds it from the population's
// intervals.
type data struct {
	x, y []float64
	w    int
}

// window returns the GP inputs for the last L rows (time and reward min-max
// scaled over those rows) and the scaling of the two fixed columns.
func (d data) window(L int) (x, y []float64, lo, span [2]float64) {
	w := d.w
	n := len(d.y)
	rows := d.x[(n-L)*w:]
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
	return x, d.y[n-L:], lo, span
}

// fitted is one fit of PB2's GP: the model, the rows it used (the last
// Window) and the scaling of the two fixed columns over them.
type fitted struct {
	model  *gp.Model
	x      []float64 // the scaled inputs of the rows it used
	window int
	lo     [2]float64
	span   [2]float64
}

// fixedAt returns the two fixed inputs (time, reward) scaled as the fit
// scaled its rows.
func (f fitted) fixedAt(now, reward float64) []float64 {
	return []float64{scaleTo(now, f.lo[0], f.span[0]), scaleTo(reward, f.lo[1], f.span[1])}
}

// selectWindow is Ray's select_length: with fewer than WindowMin rows it
// uses them all; otherwise it fits the GP to the last L = WindowMin,
// WindowMin + WindowStep, … rows (L ≤ rows), each from the warm start only,
// and keeps the L with the highest log marginal likelihood.
func (s *Settings) selectWindow(d data, warm *gp.Hyper, rng *rand.Rand) int {
	n := len(d.y)
	if n < s.WindowMin {
		return n
	}
	bestL, bestLL := s.WindowMin, math.Inf(-1)
	for l := s.WindowMin; l <= n; l += s.WindowStep {
		x, y, _, _ := d.window(l)
		model, err := gp.Fit(x, y, s.fitOptions(d.w, warm, 0), rng)
		if err == nil && model.LogLikelihood() > bestLL {
			bestL, bestLL = l, model.LogLikelihood()
		}
	}
	return bestL
}

// fit fits the GP to the last L rows of d with restarts random ML-II
// restarts besides the warm start (nil: Ray's starting point).
func (s *Settings) fit(d data, L int, warm *gp.Hyper, restarts int, rng *rand.Rand) (fitted, error) {
	x, y, lo, span := d.window(L)
	model, err := gp.Fit(x, y, s.fitOptions(d.w, warm, restarts), rng)
	if err != nil {
		return fitted{}, err
	}
	return fitted{model: model, x: x, window: L, lo: lo, span: span}, nil
}

// scaleTo min-max scales v; a zero (or non-finite) span maps to 0.
func scaleTo(v, lo, span float64) float64 {
	if !(span > 0) || math.IsInf(span, 0) {
		return 0
	}
	return (v - lo) / span
}

// fitOptions are the GP fit's options for rows of w inputs, warm-started
// from warm (nil: Ray's starting point).
func (s *Settings) fitOptions(w int, warm *gp.Hyper, restarts int) gp.FitOptions {
	b := gp.DefaultBounds()
	// Ray clips its ℓ_R ∈ [1e-5, 1] with k = exp(−d²/ℓ_R); ℓ = √(ℓ_R/2).
	b.Lengthscale = gp.Range{Lo: math.Sqrt(0.5e-5), Hi: math.Sqrt(0.5)}
	b.Epsilon = gp.Range{Lo: 0, Hi: epsMax}
	init := warm
	if init == nil {
		// Ray's starting point: variance 1, ℓ_R = 1, ε from the settings,
		// GPy's default noise variance 1.
		init = &gp.Hyper{SignalVar: 1, Lengthscales: []float64{math.Sqrt(0.5)}, NoiseVar: 1, Epsilon: s.Epsilon}
	}
	return gp.FitOptions{
		Kernel:   gp.Kernel{Kind: gp.SquaredExp, Dim: w, TimeVarying: true},
		Bounds:   b,
		Init:     init,
		Restarts: restarts,
		Clip:     s.Clip,
	}
}

// Suggest chooses the window, fits the time-varying GP and maximises the UCB
// at the current time and reward; the first decision, without data, draws
// uniformly.
func (m *PB2) Suggest(dst controller.Config) error {
	if err := m.loop.Begin(dst); err != nil {
		return err
	}
	return m.loop.Decide(dst, (*member)(m), func() float64 { return math.Sqrt(Beta(m.st.Window, m.set.C1, m.set.C2)) })
}

// member is PB2's part of the loop's decision.
type member PB2

// Fit applies select_length (selectWindow), then fits the GP to the last L
// rows with the restarts of the loop's schedule (k = the fits so far).
func (p *member) Fit() error {
	m := (*PB2)(p)
	d := data{x: m.st.X, y: m.st.Y, w: m.width()}
	L := m.set.selectWindow(d, m.st.Hyper, m.loop.Rng())
	m.st.Window = L
	restarts := m.set.Fitting.At(m.st.Hyper != nil, L, m.st.Fits)
	m.st.Fits++
	f, err := m.set.fit(d, L, m.st.Hyper, restarts, m.loop.Rng())
	if err != nil {
		return err
	}
	h := f.model.Hyper()
	m.st.Hyper = &h
	m.model = f.model
	m.fixed = f.fixedAt(m.st.Now, m.st.Reward)
	return nil
}

// FlatPrior is true: without data the UCB ranks nothing.
func (p *member) FlatPrior() bool { return true }

// Maximize maximises μ + κσ over the configuration, with (time, reward)
// held at the current values.
func (p *member) Maximize(kappa float64, _ bool) []float64 {
	m := (*PB2)(p)
	acq := m.set.Search.Maximizer()
	u, _ := acq.Maximize(m.model, m.fixed, m.loop.Space().Dim(), kappa, m.loop.Rng(), nil)
	return u
}

// Observe adds o to the current period's row.
func (m *PB2) Observe(o controller.Observation) error {
	if err := m.loop.Observe(o); err != nil {
		return err
	}
	m.st.Now, m.st.Reward = float64(o.Iteration+1), o.Reward
	if m.seconds {
		m.st.Now = o.Time
	}
	return nil
}

// Window is the number of rows the last decision's GP used.
func (m *PB2) Window() int { return m.st.Window }

// Rows is the number of rows stored.
func (m *PB2) Rows() int { return len(m.st.Y) }

// Failures is the number of decisions that fell back to a random draw
// because the GP fit failed.
func (m *PB2) Failures() int { return m.st.Failures }

// MarshalBinary returns the rows, the open period, the current time and
// reward, and the warm-start hyperparameters.
func (m *PB2) MarshalBinary() ([]byte, error) { return m.loop.Marshal(m.st) }

// UnmarshalBinary restores a state from MarshalBinary; on error the state
// is unchanged.
func (m *PB2) UnmarshalBinary(b []byte) error { return gploop.Unmarshal(&m.loop, b, &m.st, nil) }
