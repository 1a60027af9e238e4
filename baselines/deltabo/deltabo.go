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
// DeltaBO takes its source as Records, one per iteration of each source run:
// the controlled space's hyperparameters in force, the objective and, for
// the training progress, the iteration (progress = "iteration", the
// default) or the wall time (progress = "time"); progress = "none" ignores
// progress. transfer_from names a folder of finished `hyperctl train` or
// `hyperctl compare` runs (other seeds, another environment, …); `hyperctl
// train` reads every run below it into Records before it builds the
// controller (experiment/run, ReadTransfer), and checks that
// the runs logged the objective this run uses. DeltaBO itself reads no
// file.
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
//     beta_scale, exactly as GP-UCB's (package gpucb; the same settings
//     block and defaults), so that the two differ only in the transfer.
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
//
// DeltaBO runs on the GP-UCB family's loop (baselines/internal/gploop),
// whose decision periods, window, round count, restart schedule and
// settings blocks it shares with gpucb: its member is the difference GP δ
// above a prior mean μ_g (and prior variance σ²_g) from the source, each
// period is stamped with its progress, and each point keeps μ_g and σ²_g
// at its input.
package deltabo

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/hyperctl/hyperctl/baselines/gp"
	"github.com/hyperctl/hyperctl/baselines/internal/gploop"
	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/internal/ground/words"
)

// Settings configure DeltaBO. Keys are the TOML keys of [controller.deltabo].
type Settings struct {
	// TransferFrom is the folder of finished runs to transfer from; the
	// program that builds the controller reads them into Records.
	TransferFrom string `toml:"transfer_from"`
	// Objective is the objective the source runs logged, one of
	// controller.ObjectiveNames (default "delta"), decoded once from the
	// TOML text.
	Objective controller.Objective `toml:"objective"`
	// Progress is the training-progress input: "iteration", "time" or
	// "none".
	Progress string `toml:"progress"`
	// SourceBlock is the most consecutive same-configuration source
	// iterations averaged into one source point (5).
	SourceBlock int `toml:"source_block"`
	// MaxSource caps the source GP's points (400).
	MaxSource int `toml:"max_source"`
	// Model: kernel is the source GP's kernel, "matern52" or "se" (ARD);
	// window is the number of most recent target points δ is fitted to.
	gploop.Model
	// DeltaKernel is the difference GP's kernel, "se" or "matern52" (ARD).
	DeltaKernel string `toml:"delta_kernel"`
	// Confidence is β_t's block (delta is ρ ∈ (0, 1) of β_t).
	gploop.Confidence
	// Restarts is the number of random ML-II restarts (for g at Init, and
	// for δ at every decision while it has fewer than 64 points, then at
	// every restart_every-th decision).
	gploop.Fitting
	// Candidates is the number of uniform random candidates per decision.
	Candidates int `toml:"candidates"`

	// Records are the source: the runs below TransferFrom, or any others
	// a program passes (not part of a config file).
	Records []Record `toml:"-"`
}

// DefaultSettings returns the defaults (no source: set TransferFrom or
// Records).
func DefaultSettings() Settings {
	return Settings{
		Objective:   controller.Delta,
		Progress:    progressIteration,
		SourceBlock: 5,
		MaxSource:   400,
		Model:       gploop.Model{Kernel: "matern52", Window: 200},
		DeltaKernel: "se",
		Confidence:  gploop.Confidence{Delta: 0.1, Grid: 10, BetaScale: 1},
		Fitting:     gploop.Fitting{Restarts: 1, RestartEvery: 10},
		Candidates:  256,
	}
}

// SetTransferFrom sets the source folder and the objective the source runs
// must have logged (the CLI's --transfer-from).
func (s *Settings) SetTransferFrom(dir string, objective controller.Objective) {
	s.TransferFrom = dir
	s.Objective = objective
}

// Validate reports the first invalid field, naming its TOML key.
func (s *Settings) Validate() error {
	if _, err := s.Objective.MarshalText(); err != nil {
		return fmt.Errorf("objective: want one of %s, got %v", strings.Join(controller.ObjectiveNames(), ", "), s.Objective)
	}
	switch s.Progress {
	case progressIteration, progressTime, progressNone:
	default:
		return fmt.Errorf("progress: want \"iteration\", \"time\" or \"none\", got %q", s.Progress)
	}
	if err := s.Model.Validate(); err != nil {
		return err
	}
	if _, err := gp.ParseKind(s.DeltaKernel); err != nil {
		return fmt.Errorf("delta_kernel: %w", err)
	}
	switch {
	case s.SourceBlock < 1 || s.SourceBlock > gploop.MaxWindow:
		return fmt.Errorf("source_block: want an integer in [1, %d], got %d", gploop.MaxWindow, s.SourceBlock)
	case s.MaxSource < 2 || s.MaxSource > gploop.MaxWindow:
		return fmt.Errorf("max_source: want an integer in [2, %d], got %d", gploop.MaxWindow, s.MaxSource)
	}
	for _, v := range []interface{ Validate() error }{&s.Confidence, &s.Fitting} {
		if err := v.Validate(); err != nil {
			return err
		}
	}
	return gploop.ValidateCandidates(s.Candidates)
}

// New returns a fresh DeltaBO; the source is read and fitted at Init.
func (s *Settings) New() (controller.Method, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("deltabo: %w", err)
	}
	dk, _ := gp.ParseKind(s.DeltaKernel)
	c := *s
	c.Records = append([]Record(nil), s.Records...)
	return &DeltaBO{set: c, gKind: s.Kind(), dKind: dk, loop: gploop.Named(Name)}, nil
}

// DeltaBO is Algorithm 1 of the DeltaBO paper over decision periods.
type DeltaBO struct {
	set          Settings
	gKind, dKind gp.Kind
	loop         gploop.Loop
	g            *gp.Model // source posterior (modelled units)
	dm           *hgp      // δ's posterior of the current decision
	st           state
}

// state is everything MarshalBinary saves. The loop's points are the
// target's: inputs (progress, then the configuration; Cols columns), mean
// objectives, and per point (Aux) μ_g and σ²_g at its input, in data units.
type state struct {
	gploop.State

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

	Next   float64 // progress of the coming period
	DHyper *dHyper // last δ hyperparameters (warm start)
}

// errNoSource is Init's refusal of settings without a source, naming
// configs.SetTransferFrom in Go and a command's flag in its words.
var errNoSource = &words.AdviceError{Msg: "deltabo: transfer_from: no source given; set [controller.deltabo] transfer_from, or {transfer-from} (DeltaBO without a source is plain GP-UCB: controller gpucb)"}

// Init takes the source (Records, read from TransferFrom by the caller),
// fits g once and prepares a run over space. All randomness (g's ML-II
// restarts, later δ's restarts and the candidates) comes from rng.
func (m *DeltaBO) Init(space controller.Space, rng *rand.Rand) error {
	if rng == nil {
		return errors.New("deltabo: init: nil rng")
	}
	d := space.Dim()
	recs := m.set.Records
	if recs == nil {
		if m.set.TransferFrom == "" {
			return errNoSource
		}
		return fmt.Errorf("deltabo: transfer_from %s: the source runs were not read; the program that builds the controller reads them into Records (hyperctl train does)", m.set.TransferFrom)
	}
	ids := map[int]bool{}
	for _, r := range recs {
		ids[r.Run] = true
	}
	runs := len(ids)
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
	fit, err := gp.Fit(x, y, gp.FitOptions{Kernel: k, Restarts: m.set.Fitting.Restarts}, rng)
	if err != nil {
		return fmt.Errorf("deltabo: source %s: fitting g: %w", m.sourceName(), err)
	}
	st := state{Dim: d, Cols: cols, Scale: scale, SrcX: x, SrcY: y, SrcHyper: fit.Hyper(),
		SrcOffset: fit.Offset(), SrcScale: fit.Scale(), SrcRuns: runs, SrcDropped: dropped}
	g, err := rebuildSource(k, st)
	if err != nil {
		return fmt.Errorf("deltabo: source %s: %w", m.sourceName(), err)
	}
	m.g, m.st = g, st
	cfg := gploop.Config{Name: Name, Window: m.set.Window, StampCols: cols - d, AuxCols: 2, Aux: m.sourceAt}
	if cols > d {
		cfg.Stamp = func(o controller.Observation) []float64 {
			return []float64{m.progressOf(o.Iteration, o.Time-o.Elapsed)}
		}
	}
	return m.loop.Init(space, rng, &m.st.State, cfg)
}

func (m *DeltaBO) sourceName() string {
	if m.set.TransferFrom != "" {
		return m.set.TransferFrom
	}
	return "(records)"
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

// sourceAt returns μ_g and σ²_g (data units) at a new target point's input
// row, the point's per-point values.
func (m *DeltaBO) sourceAt(row []float64) []float64 {
	mu, vr := make([]float64, 1), make([]float64, 1)
	if err := m.source(row, mu, vr); err != nil {
		// Inputs are finite by construction.
		mu[0], vr[0] = 0, 0
	}
	return []float64{mu[0], vr[0]}
}

// Suggest fits δ and maximises eq. 7 at the coming period's progress.
func (m *DeltaBO) Suggest(dst controller.Config) error {
	if err := m.loop.Begin(dst); err != nil {
		return err
	}
	return m.loop.Decide(dst, (*member)(m), func() float64 { return math.Sqrt(m.set.Beta(m.st.Rounds, m.st.Dim)) })
}

// member is DeltaBO's part of the loop's decision.
type member DeltaBO

// Fit fits δ by ML-II to the residuals of the target points, in units of
// the source scale, with per-point noise σ²_g(x_i) + σ² (warm-started;
// restarts by the loop's schedule, k = rounds − 1).
func (p *member) Fit() error {
	m := (*DeltaBO)(p)
	m.dm = nil
	sc := m.st.SrcScale
	n := len(m.st.Y)
	r, s := make([]float64, n), make([]float64, n)
	for i := range n {
		r[i] = (m.st.Y[i] - m.st.Aux[2*i]) / sc
		s[i] = m.st.Aux[2*i+1] / (sc * sc)
	}
	restarts := m.set.Fitting.At(m.st.DHyper != nil, n, m.st.Rounds-1)
	fit, err := fitHGP(m.dKind, m.st.Cols, append([]float64(nil), m.st.X...), r, s, m.st.DHyper, restarts, m.loop.Rng())
	if err != nil {
		return err
	}
	h := fit.h
	h.Ls = append([]float64(nil), h.Ls...)
	m.st.DHyper = &h
	m.dm = fit
	return nil
}

// FlatPrior is false: the source's μ_g and σ²_g rank configurations before
// any target data.
func (p *member) FlatPrior() bool { return false }

// Maximize maximises eq. 7 with δ's posterior (fitted) or its prior, over
// candidates: uniform ones, the best source configurations at this
// progress and the best target points; the best 3 are refined by a
// shrinking random local search.
func (p *member) Maximize(kappa float64, fitted bool) []float64 {
	m := (*DeltaBO)(p)
	d, cols := m.st.Dim, m.st.Cols
	sc := m.st.SrcScale
	rng := m.loop.Rng()
	dm := m.dm
	if !fitted {
		dm = nil
	}
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
			if m.st.DHyper != nil {
				tau2 = m.st.DHyper.Tau2
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
		us = append(us, rng.Float64())
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
					trial[k*d+i] = clamp01(cur[i] + sd*rng.NormFloat64())
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
	return best
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
		score[i] = m.st.Aux[2*i]/m.st.SrcScale + md[i]
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
	if err := m.loop.Observe(o); err != nil {
		return err
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
func (m *DeltaBO) MarshalBinary() ([]byte, error) { return m.loop.Marshal(m.st) }

// UnmarshalBinary restores a state from MarshalBinary, on a DeltaBO Init-ed
// over the same space with the same settings (the source is taken from the
// state, not re-read). On error the state is unchanged.
func (m *DeltaBO) UnmarshalBinary(b []byte) error {
	return gploop.Unmarshal(&m.loop, b, &m.st, func(st *state) error {
		cols := m.loop.Cols()
		if st.Dim != m.loop.Space().Dim() || st.Cols != cols || len(st.SrcX) != len(st.SrcY)*cols || len(st.SrcY) == 0 ||
			!(st.SrcScale > 0) || !(st.Scale > 0) || (st.DHyper != nil && len(st.DHyper.Ls) != cols) {
			return errors.New("deltabo: unmarshal state: inconsistent with this space and settings")
		}
		g, err := rebuildSource(gp.Kernel{Kind: m.gKind, Dim: cols, ARD: true}, *st)
		if err != nil {
			return fmt.Errorf("deltabo: unmarshal state: %w", err)
		}
		m.g = g
		return nil
	})
}
