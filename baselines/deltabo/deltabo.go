// Package deltabo is DeltaBO (Lin, Zhao, Kolar and Liu, "Provable
// Accelerated Bayesian Optimization with Knowledge Transfer", Algorithm 1),
// registered as controller "deltabo": GP-UCB that transfers knowledge from
// earlier training runs.
//
// The target objective is modelled as f = g + δ (Assumption 1), g the
// source function and δ the difference:
//
//  1. g's posterior (μ_g, σ²_g) is fitted ONCE, at Init, to records of
//     earlier runs (eq. 5): a GP from package gp with ML-II hyperparameters
//     (its noise variance is the source noise σ_0²);
//  2. each target data point (x_i, y_i) becomes a residual
//     ỹ_i = y_i − μ_g(x_i), an observation of δ with noise variance
//     σ²_g(x_i) + σ² (Algorithm 1, line 5);
//  3. δ's posterior (μ_δ, σ²_δ) is GP regression with that per-observation
//     noise (eq. 6) and zero prior mean;
//  4. the next configuration maximises eq. 7,
//     μ_g(x) + μ_δ(x) + √β_t √(σ²_g(x) + σ²_δ(x)).
//
// # Sources
//
// transfer_from names a folder of finished `hyperctl train` or `hyperctl
// compare` runs (other seeds, another environment, …): every folder below
// it holding summary.json and train.csv is one source run (see ReadRuns).
// From train.csv it uses the columns of the controlled space's
// hyperparameters, the objective column and, for the training progress,
// the iteration (progress = "iteration", the default) or the wall time
// (progress = "time"); progress = "none" ignores progress. Programs can
// instead pass Records directly.
//
// # Inputs of g and δ, and decision periods
//
// As for GP-UCB, each decision period of the target run is one data point:
// the configuration in force (in [0, 1]^d, each parameter in its own
// scale) and the period's mean objective. A training run's objective
// changes with training progress, so unless progress = "none" both GPs take
// the progress as an extra input column: the iteration (or wall time) at
// the period's first iteration divided by the largest one in the sources,
// clamped to [0, 1]. Source rows are grouped the same way: consecutive
// iterations of one run with the same configuration, at most source_block
// of them, form one source point. The acquisition holds the progress column
// at the coming period's value and maximises over the configuration.
//
// # Deviations and choices, all deliberate
//
//   - Kernel hyperparameters: the paper takes k_g, k_δ and σ² as given.
//     Here g's are chosen by ML-II on the source data (package gp, with its
//     bounds), and δ's — τ², ARD lengthscales, and the target noise σ² — by
//     ML-II on the residuals with the per-observation noise σ²_g(x_i) + σ²
//     at every decision (warm-started; random restarts as GP-UCB). The
//     paper's real-world runs use Matérn-5/2 for the source and a squared
//     exponential for δ: the defaults kernel = "matern52",
//     delta_kernel = "se".
//   - Eq. 6 writes the noise term as (σ²_g(x) + σ²)I at the query point x;
//     this implements Algorithm 1 line 5's per-observation variance
//     σ²_g(x_i) + σ², which is what its derivation (η_t) gives.
//   - Units: everything is modelled in units of the source's target scale
//     (the standard deviation of the source objectives), which leaves the
//     argmax of eq. 7 unchanged.
//   - β_t is Theorem 1's 2 log(|D| t² π² / (6ρ)) with |D| = grid^d, times
//     beta_scale, exactly as package baselines' GP-UCB (the same defaults),
//     so that the two differ only in the transfer.
//   - The argmax of eq. 7 is over candidates = 256 uniform random
//     configurations, the configurations of the 16 best source points
//     (highest objective among the 64 closest in progress), and of the 4
//     target points with the highest μ_g + μ_δ; the best 3 are then refined
//     by a shrinking random local search (8 Gaussian steps each of standard
//     deviation 0.05, 0.02 and 0.01 in the unit box).
//   - The δ GP is fitted to the last window = 200 target points; the source
//     GP to at most max_source = 400 source points, evenly thinned.
//   - Output: the paper's x̂ (a uniform draw from the queried points) has no
//     role in an online run; each decision's x_t is used.
//   - Objective: the source runs must have logged the same objective
//     (config.toml's controller.objective) as the setting objective
//     (default "delta", the driver's default); the CLI's --transfer-from
//     sets it to the run's objective.
//
// Without a source — transfer_from empty and no Records — Init fails with
// an error saying so: DeltaBO without transfer is GP-UCB (controller
// "gpucb").
package deltabo

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/hyperctl/hyperctl/baselines/gp"
	"github.com/hyperctl/hyperctl/baselines/internal/common"
	"github.com/hyperctl/hyperctl/controller"
)

// Name is the registered controller name.
const Name = "deltabo"

func init() {
	controller.MustRegister(controller.Entry{
		Name:     Name,
		Summary:  "DeltaBO (Lin et al., Algorithm 1): GP-UCB on the difference from a source GP fitted once to earlier runs (transfer_from / --transfer-from)",
		Defaults: func() controller.Settings { s := DefaultSettings(); return &s },
	})
}

// Settings configure DeltaBO. Keys are the TOML keys of [controller.deltabo].
type Settings struct {
	// TransferFrom is the folder of finished runs to transfer from.
	TransferFrom string `toml:"transfer_from"`
	// Objective is the objective the source runs logged: "delta",
	// "reward" or "delta_per_second" (default "delta").
	Objective string `toml:"objective"`
	// Progress is the training-progress input: "iteration", "time" or
	// "none".
	Progress string `toml:"progress"`
	// SourceBlock is the most consecutive same-configuration source
	// iterations averaged into one source point (5).
	SourceBlock int `toml:"source_block"`
	// MaxSource caps the source GP's points (400).
	MaxSource int `toml:"max_source"`
	// Kernel is the source GP's kernel, "matern52" or "se" (ARD).
	Kernel string `toml:"kernel"`
	// DeltaKernel is the difference GP's kernel, "se" or "matern52" (ARD).
	DeltaKernel string `toml:"delta_kernel"`
	// Window is the number of most recent target points δ is fitted to.
	Window int `toml:"window"`
	// Delta is ρ ∈ (0, 1) of β_t.
	Delta float64 `toml:"delta"`
	// Grid is the number of values per hyperparameter of D (|D| = grid^d).
	Grid int `toml:"grid"`
	// BetaScale multiplies Theorem 1's β_t.
	BetaScale float64 `toml:"beta_scale"`
	// Restarts is the number of random ML-II restarts (for g at Init, and
	// for δ at every decision while it has fewer than 64 points, then at
	// every RestartEvery-th decision).
	Restarts int `toml:"restarts"`
	// RestartEvery spaces δ's random restarts once it has 64 points.
	RestartEvery int `toml:"restart_every"`
	// Candidates is the number of uniform random candidates per decision.
	Candidates int `toml:"candidates"`

	// Records, when non-nil, are used as the source instead of reading
	// TransferFrom (for programs and tests; not part of a config file).
	Records []Record `toml:"-"`
}

// DefaultSettings returns the defaults (no source: set TransferFrom or
// Records).
func DefaultSettings() Settings {
	return Settings{
		Objective:    "delta",
		Progress:     progressIteration,
		SourceBlock:  5,
		MaxSource:    400,
		Kernel:       "matern52",
		DeltaKernel:  "se",
		Window:       200,
		Delta:        0.1,
		Grid:         10,
		BetaScale:    1,
		Restarts:     1,
		RestartEvery: 10,
		Candidates:   256,
	}
}

// SetTransferFrom sets the source folder and the objective the source runs
// must have logged (the CLI's --transfer-from).
func (s *Settings) SetTransferFrom(dir, objective string) {
	s.TransferFrom = dir
	if objective != "" {
		s.Objective = objective
	}
}

// Validate reports the first invalid field, naming its TOML key.
func (s *Settings) Validate() error {
	if _, err := controller.ParseObjective(s.Objective); err != nil || s.Objective == "" {
		return fmt.Errorf("objective: want \"delta\", \"reward\" or \"delta_per_second\", got %q", s.Objective)
	}
	switch s.Progress {
	case progressIteration, progressTime, progressNone:
	default:
		return fmt.Errorf("progress: want \"iteration\", \"time\" or \"none\", got %q", s.Progress)
	}
	if _, err := gp.ParseKind(s.Kernel); err != nil {
		return fmt.Errorf("kernel: %w", err)
	}
	if _, err := gp.ParseKind(s.DeltaKernel); err != nil {
		return fmt.Errorf("delta_kernel: %w", err)
	}
	switch {
	case s.SourceBlock < 1:
		return fmt.Errorf("source_block: want an integer >= 1, got %d", s.SourceBlock)
	case s.MaxSource < 2 || s.MaxSource > 5000:
		return fmt.Errorf("max_source: want an integer in [2, 5000], got %d", s.MaxSource)
	case s.Window < 2 || s.Window > 5000:
		return fmt.Errorf("window: want an integer in [2, 5000], got %d", s.Window)
	case !(s.Delta > 0 && s.Delta < 1):
		return fmt.Errorf("delta: want a number in (0, 1), got %v", s.Delta)
	case s.Grid < 2:
		return fmt.Errorf("grid: want an integer >= 2, got %d", s.Grid)
	case !(s.BetaScale > 0) || math.IsInf(s.BetaScale, 0):
		return fmt.Errorf("beta_scale: want a finite number > 0, got %v", s.BetaScale)
	case s.Restarts < 0 || s.Restarts > 100:
		return fmt.Errorf("restarts: want an integer in [0, 100], got %d", s.Restarts)
	case s.RestartEvery < 1:
		return fmt.Errorf("restart_every: want an integer >= 1, got %d", s.RestartEvery)
	case s.Candidates < 1 || s.Candidates > 100000:
		return fmt.Errorf("candidates: want an integer in [1, 100000], got %d", s.Candidates)
	}
	return nil
}

// New returns a fresh DeltaBO; the source is read and fitted at Init.
func (s *Settings) New() (controller.Method, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("deltabo: %w", err)
	}
	gk, _ := gp.ParseKind(s.Kernel)
	dk, _ := gp.ParseKind(s.DeltaKernel)
	c := *s
	c.Records = append([]Record(nil), s.Records...)
	return &DeltaBO{set: c, gKind: gk, dKind: dk}, nil
}

// Beta returns Theorem 1's β_t = scale · 2 log(|D| t² π² / (6ρ)) for
// |D| = grid^dim, in logs.
func Beta(t, dim, grid int, rho, scale float64) float64 {
	tt := float64(max(t, 1))
	return scale * 2 * (float64(dim)*math.Log(float64(grid)) + 2*math.Log(tt) + math.Log(math.Pi*math.Pi/(6*rho)))
}

// DeltaBO is Algorithm 1 of the DeltaBO paper over decision periods.
type DeltaBO struct {
	set          Settings
	gKind, dKind gp.Kind
	space        controller.Space
	rng          *rand.Rand
	g            *gp.Model // source posterior (modelled units)
	st           state
	u            []float64
}

// period accumulates one decision period's observations.
type period struct {
	common.Period
	Progress float64 // progress at the period's first iteration
}

// state is everything MarshalBinary saves.
type state struct {
	Dim   int     // hyperparameters d
	Cols  int     // GP input columns: d, plus 1 with a progress column
	Scale float64 // progress scale (largest source iteration or time)

	// The source GP: inputs, raw targets, ML-II hyperparameters and the
	// target transform; rebuilt exactly by gp.New on restore.
	SrcX, SrcY          []float64
	SrcHyper            gp.Hyper
	SrcOffset, SrcScale float64
	SrcRuns             int // source runs used
	SrcDropped          int // source records outside the space's bounds

	X    []float64 // target points, n×Cols
	Y    []float64 // target mean objectives
	Mu   []float64 // μ_g at the points (data units)
	Var  []float64 // σ²_g at the points (data units)
	Acc  period
	Next float64 // progress of the coming period

	Rounds   int
	Hyper    *dHyper // last δ hyperparameters (warm start)
	Failures int     // decisions that fell back to a random draw
}

// Init reads the source (Records, else TransferFrom), fits g once and
// prepares a run over space. All randomness (g's ML-II restarts, later
// δ's restarts and the candidates) comes from rng.
func (m *DeltaBO) Init(space controller.Space, rng *rand.Rand) error {
	if rng == nil {
		return errors.New("deltabo: init: nil rng")
	}
	d := space.Dim()
	recs := m.set.Records
	runs := 0
	if recs == nil {
		if m.set.TransferFrom == "" {
			return errors.New("deltabo: transfer_from: no source given; set [controller.deltabo] transfer_from, or --transfer-from DIR (DeltaBO without a source is plain GP-UCB: controller gpucb)")
		}
		src, err := ReadRuns(m.set.TransferFrom, space.Names())
		if err != nil {
			return fmt.Errorf("deltabo: %w", err)
		}
		if src.Objective != m.set.Objective {
			return fmt.Errorf("deltabo: transfer_from %s: the source runs logged the %q objective, this run uses %q (setting objective)", m.set.TransferFrom, src.Objective, m.set.Objective)
		}
		recs, runs = src.Records, len(src.Runs)
	} else {
		ids := map[int]bool{}
		for _, r := range recs {
			ids[r.Run] = true
		}
		runs = len(ids)
	}
	if len(recs) == 0 {
		return errors.New("deltabo: source: no records")
	}
	x, y, scale, dropped, err := sourcePoints(recs, space, m.set.Progress, m.set.SourceBlock)
	if err != nil {
		return fmt.Errorf("deltabo: source %s: %w", m.sourceName(), err)
	}
	cols := d
	if m.set.Progress != progressNone {
		cols++
	}
	x, y = thin(x, y, cols, m.set.MaxSource)
	k := gp.Kernel{Kind: m.gKind, Dim: cols, ARD: true}
	fit, err := gp.Fit(x, y, gp.FitOptions{Kernel: k, Restarts: m.set.Restarts}, rng)
	if err != nil {
		return fmt.Errorf("deltabo: source %s: fitting g: %w", m.sourceName(), err)
	}
	st := state{Dim: d, Cols: cols, Scale: scale, SrcX: x, SrcY: y, SrcHyper: fit.Hyper(),
		SrcOffset: fit.Offset(), SrcScale: fit.Scale(), SrcRuns: runs, SrcDropped: dropped}
	g, err := rebuildSource(k, st)
	if err != nil {
		return fmt.Errorf("deltabo: source %s: %w", m.sourceName(), err)
	}
	m.space, m.rng, m.g, m.st = space, rng, g, st
	m.u = make([]float64, d)
	return nil
}

func (m *DeltaBO) sourceName() string {
	if m.set.Records != nil {
		return "(records)"
	}
	return m.set.TransferFrom
}

// rebuildSource conditions g on the stored source data with the stored
// hyperparameters, in the standardised units gp.Fit used (bit-identical to
// the fitted model's predictions).
func rebuildSource(k gp.Kernel, st state) (*gp.Model, error) {
	ys := make([]float64, len(st.SrcY))
	for i, v := range st.SrcY {
		ys[i] = (v - st.SrcOffset) / st.SrcScale
	}
	g, err := gp.New(k, st.SrcHyper, st.SrcX, ys)
	if err != nil {
		return nil, fmt.Errorf("source GP: %w", err)
	}
	return g, nil
}

// source returns μ_g and σ²_g (data units) at the rows of xs.
func (m *DeltaBO) source(xs []float64, mu, vr []float64) error {
	if err := m.g.PredictStd(xs, mu, vr); err != nil {
		return err
	}
	s2 := m.st.SrcScale * m.st.SrcScale
	for i := range mu {
		mu[i] = mu[i]*m.st.SrcScale + m.st.SrcOffset
		vr[i] *= s2
	}
	return nil
}

// progressOf returns the progress column value for an observation's
// iteration or period start time.
func (m *DeltaBO) progressOf(iteration int, startTime float64) float64 {
	switch m.set.Progress {
	case progressIteration:
		return clamp01(float64(iteration) / m.st.Scale)
	case progressTime:
		return clamp01(startTime / m.st.Scale)
	}
	return 0
}

// closePeriod turns the open period into a target point with its residual
// data μ_g and σ²_g.
func (m *DeltaBO) closePeriod() {
	a := &m.st.Acc
	mean, ok := a.Mean()
	if !ok {
		a.Reset()
		return
	}
	row := make([]float64, 0, m.st.Cols)
	if m.st.Cols > m.st.Dim {
		row = append(row, a.Progress)
	}
	row = append(row, a.X...)
	mu, vr := make([]float64, 1), make([]float64, 1)
	if err := m.source(row, mu, vr); err != nil {
		// Inputs are finite by construction.
		mu[0], vr[0] = 0, 0
	}
	m.st.X = append(m.st.X, row...)
	m.st.Y = append(m.st.Y, mean)
	m.st.Mu = append(m.st.Mu, mu[0])
	m.st.Var = append(m.st.Var, vr[0])
	m.st.X = common.Slide(m.st.X, m.st.Cols, m.set.Window)
	m.st.Y = common.Slide(m.st.Y, 1, m.set.Window)
	m.st.Mu = common.Slide(m.st.Mu, 1, m.set.Window)
	m.st.Var = common.Slide(m.st.Var, 1, m.set.Window)
	*a = period{Period: common.Period{X: a.X[:0]}}
}

// Suggest fits δ and maximises eq. 7 at the coming period's progress.
func (m *DeltaBO) Suggest(dst controller.Config) error {
	if m.rng == nil {
		return errors.New("deltabo: used before Init")
	}
	d, cols := m.st.Dim, m.st.Cols
	if len(dst) != d {
		return fmt.Errorf("deltabo: suggest: destination has %d values, space has %d parameters", len(dst), d)
	}
	m.closePeriod()
	m.st.Rounds++
	sc := m.st.SrcScale
	// δ in units of the source scale.
	var dm *hgp
	if n := len(m.st.Y); n > 0 {
		r, s := make([]float64, n), make([]float64, n)
		for i := range n {
			r[i] = (m.st.Y[i] - m.st.Mu[i]) / sc
			s[i] = m.st.Var[i] / (sc * sc)
		}
		restarts := 0
		if m.st.Hyper == nil || n < 64 || (m.st.Rounds-1)%m.set.RestartEvery == 0 {
			restarts = m.set.Restarts
		}
		fit, err := fitHGP(m.dKind, cols, append([]float64(nil), m.st.X...), r, s, m.st.Hyper, restarts, m.rng)
		if err != nil {
			m.st.Failures++
		} else {
			h := fit.h
			h.Ls = append([]float64(nil), h.Ls...)
			m.st.Hyper = &h
			dm = fit
		}
	}
	kappa := math.Sqrt(Beta(m.st.Rounds, d, m.set.Grid, m.set.Delta, m.set.BetaScale))
	prog := m.st.Next
	// score writes eq. 7 (in source-scale units) for configurations us
	// (rows of d) into out.
	score := func(us []float64, out []float64) {
		q := len(out)
		xs := make([]float64, 0, q*cols)
		for j := range q {
			if cols > d {
				xs = append(xs, prog)
			}
			xs = append(xs, us[j*d:(j+1)*d]...)
		}
		mg, vg := make([]float64, q), make([]float64, q)
		if err := m.source(xs, mg, vg); err != nil {
			for j := range out {
				out[j] = math.Inf(-1)
			}
			return
		}
		md, vd := make([]float64, q), make([]float64, q)
		if dm != nil {
			dm.predict(xs, md, vd)
		} else {
			// No target data yet (or a failed fit): δ at its prior, τ² of
			// the last fit or 1.
			tau2 := 1.0
			if m.st.Hyper != nil {
				tau2 = m.st.Hyper.Tau2
			}
			for j := range vd {
				vd[j] = tau2
			}
		}
		for j := range out {
			v := mg[j]/sc + md[j] + kappa*math.Sqrt(vg[j]/(sc*sc)+vd[j])
			if math.IsNaN(v) {
				v = math.Inf(-1)
			}
			out[j] = v
		}
	}
	// Candidates: uniform, the best source configurations at this
	// progress, the best target points.
	c := m.set.Candidates
	us := make([]float64, 0, (c+20)*d)
	for range c * d {
		us = append(us, m.rng.Float64())
	}
	us = append(us, m.topSource(prog, 16)...)
	us = append(us, m.topTarget(dm, 4)...)
	nc := len(us) / d
	val := make([]float64, nc)
	score(us, val)
	idx := make([]int, nc)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return val[idx[a]] > val[idx[b]] })
	best := append([]float64(nil), us[idx[0]*d:(idx[0]+1)*d]...)
	bestV := val[idx[0]]
	// Local refinement of the best 3.
	const steps = 8
	trial := make([]float64, steps*d)
	tv := make([]float64, steps)
	for r := 0; r < 3 && r < nc; r++ {
		cur := append([]float64(nil), us[idx[r]*d:(idx[r]+1)*d]...)
		curV := val[idx[r]]
		for _, sd := range []float64{0.05, 0.02, 0.01} {
			for k := range steps {
				for i := range d {
					trial[k*d+i] = clamp01(cur[i] + sd*m.rng.NormFloat64())
				}
			}
			score(trial, tv)
			for k := range steps {
				if tv[k] > curV {
					curV = tv[k]
					copy(cur, trial[k*d:(k+1)*d])
				}
			}
		}
		if curV > bestV {
			bestV = curV
			copy(best, cur)
		}
	}
	for i := range dst {
		dst[i] = m.space.FromUnit(i, best[i])
	}
	return nil
}

// topSource returns the unit configurations of k promising source points
// (rows of d): among the 64 source points closest in progress to prog (all
// of them without a progress column), the k with the highest objective.
// It costs no GP evaluation.
func (m *DeltaBO) topSource(prog float64, k int) []float64 {
	d, cols := m.st.Dim, m.st.Cols
	n := len(m.st.SrcY)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	if cols > d {
		dist := func(i int) float64 { return math.Abs(m.st.SrcX[i*cols] - prog) }
		sort.SliceStable(idx, func(a, b int) bool { return dist(idx[a]) < dist(idx[b]) })
		idx = idx[:min(64, n)]
	}
	sort.SliceStable(idx, func(a, b int) bool { return m.st.SrcY[idx[a]] > m.st.SrcY[idx[b]] })
	var out []float64
	for _, i := range idx[:min(k, len(idx))] {
		out = append(out, m.st.SrcX[(i+1)*cols-d:(i+1)*cols]...)
	}
	return out
}

// topTarget returns the unit configurations of the k target points with
// the highest μ_g + μ_δ at their own inputs.
func (m *DeltaBO) topTarget(dm *hgp, k int) []float64 {
	n := len(m.st.Y)
	if n == 0 {
		return nil
	}
	md, vd := make([]float64, n), make([]float64, n)
	if dm != nil {
		dm.predict(m.st.X, md, vd)
	}
	score := make([]float64, n)
	for i := range n {
		score[i] = m.st.Mu[i]/m.st.SrcScale + md[i]
	}
	return topRows(m.st.X, m.st.Cols, m.st.Dim, score, k)
}

// topRows returns the last d columns of the k rows with the highest score.
func topRows(xs []float64, cols, d int, score []float64, k int) []float64 {
	idx := make([]int, len(score))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return score[idx[a]] > score[idx[b]] })
	var out []float64
	for _, i := range idx[:min(k, len(idx))] {
		out = append(out, xs[(i+1)*cols-d:(i+1)*cols]...)
	}
	return out
}

// Observe adds o to the current period's data point. A non-finite
// objective, reward, time or configuration is an error and changes
// nothing.
func (m *DeltaBO) Observe(o controller.Observation) error {
	if m.rng == nil {
		return errors.New("deltabo: used before Init")
	}
	if err := common.CheckObservation(m.space, o); err != nil {
		return fmt.Errorf("deltabo: observe: %w", err)
	}
	for i, v := range o.Config {
		m.u[i] = m.space.ToUnit(i, v)
	}
	a := &m.st.Acc
	if a.Add(m.u, o.Objective, m.closePeriod) {
		a.Progress = m.progressOf(o.Iteration, o.Time-o.Elapsed)
	}
	m.st.Next = m.progressOf(o.Iteration+1, o.Time)
	return nil
}

// SourcePoints is the number of source points g was fitted to.
func (m *DeltaBO) SourcePoints() int { return len(m.st.SrcY) }

// Failures is the number of decisions whose δ fit failed (δ was then taken
// at its prior).
func (m *DeltaBO) Failures() int { return m.st.Failures }

// MarshalBinary returns the full state: the source data and g's fitted
// hyperparameters (g is rebuilt from them exactly), the target points, the
// open period, the round count and δ's warm-start hyperparameters.
func (m *DeltaBO) MarshalBinary() ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(m.st); err != nil {
		return nil, fmt.Errorf("deltabo: marshal state: %w", err)
	}
	return buf.Bytes(), nil
}

// UnmarshalBinary restores a state from MarshalBinary, on a DeltaBO Init-ed
// over the same space with the same settings (the source is taken from the
// state, not re-read). On error the state is unchanged.
func (m *DeltaBO) UnmarshalBinary(b []byte) error {
	if m.rng == nil {
		return errors.New("deltabo: used before Init")
	}
	var st state
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&st); err != nil {
		return fmt.Errorf("deltabo: unmarshal state: %w", err)
	}
	d := m.space.Dim()
	cols := d
	if m.set.Progress != progressNone {
		cols++
	}
	n := len(st.Y)
	if st.Dim != d || st.Cols != cols || len(st.X) != n*cols || len(st.Mu) != n || len(st.Var) != n || n > m.set.Window ||
		len(st.SrcX) != len(st.SrcY)*cols || len(st.SrcY) == 0 || !st.Acc.Fits(d) ||
		!(st.SrcScale > 0) || !(st.Scale > 0) || (st.Hyper != nil && len(st.Hyper.Ls) != cols) {
		return errors.New("deltabo: unmarshal state: inconsistent with this space and settings")
	}
	g, err := rebuildSource(gp.Kernel{Kind: m.gKind, Dim: cols, ARD: true}, st)
	if err != nil {
		return fmt.Errorf("deltabo: unmarshal state: %w", err)
	}
	m.g, m.st = g, st
	return nil
}
