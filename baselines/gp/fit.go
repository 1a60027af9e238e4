package gp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/optimize"
)

// Range is a closed interval [Lo, Hi] for one hyperparameter.
type Range struct{ Lo, Hi float64 }

func (r Range) valid(positive bool) bool {
	ok := !math.IsNaN(r.Lo) && !math.IsNaN(r.Hi) && !math.IsInf(r.Lo, 0) && !math.IsInf(r.Hi, 0) && r.Lo < r.Hi
	if positive {
		ok = ok && r.Lo > 0
	}
	return ok
}

// Bounds box the ML-II search. Variances and lengthscales are searched in
// log space, ε linearly.
type Bounds struct {
	SignalVar   Range // σ² of the standardised targets
	Lengthscale Range // every ℓ, in units of the [0, 1] inputs
	NoiseVar    Range // σ_n² of the standardised targets
	Epsilon     Range // ε of a time-varying kernel, within [0, 1)
}

// DefaultBounds suit inputs in [0, 1] and standardised targets:
// σ² ∈ [0.1, 100], ℓ ∈ [0.05, 1], σ_n² ∈ [1e-6, 10], ε ∈ [0, 0.5] (PB2's TV
// kernel caps ε at 0.5). The lower bound on σ² and the upper bound on ℓ keep
// ML-II from explaining a few clustered noisy points as pure noise or as a
// trend along one very long lengthscale — fits under which the posterior
// variance collapses and UCB acquisition stops exploring; the lower bound
// on ℓ is below what a few hundred points in the unit box resolve.
func DefaultBounds() Bounds {
	return Bounds{
		SignalVar:   Range{1e-1, 1e2},
		Lengthscale: Range{5e-2, 1},
		NoiseVar:    Range{1e-6, 1e1},
		Epsilon:     Range{0, 0.5},
	}
}

// Validate checks the bounds.
func (b Bounds) Validate() error {
	switch {
	case !b.SignalVar.valid(true):
		return fmt.Errorf("gp: bounds: signal variance %v: want 0 < lo < hi < inf", b.SignalVar)
	case !b.Lengthscale.valid(true):
		return fmt.Errorf("gp: bounds: lengthscale %v: want 0 < lo < hi < inf", b.Lengthscale)
	case !b.NoiseVar.valid(true):
		return fmt.Errorf("gp: bounds: noise variance %v: want 0 < lo < hi < inf", b.NoiseVar)
	case !b.Epsilon.valid(false) || b.Epsilon.Lo < 0 || b.Epsilon.Hi >= 1:
		return fmt.Errorf("gp: bounds: epsilon %v: want 0 <= lo < hi < 1", b.Epsilon)
	}
	return nil
}

// FitOptions configure Fit.
type FitOptions struct {
	// Kernel is the covariance structure.
	Kernel Kernel
	// Bounds box the hyperparameter search (zero value: DefaultBounds).
	Bounds Bounds
	// Init is the first start of the search, e.g. the previous fit's
	// hyperparameters (a warm start); values are clamped into Bounds.
	// nil starts at σ² = 1, ℓ = 0.5, σ_n² = 0.1, ε = 0.1 (clamped).
	Init *Hyper
	// Restarts is the number of extra starts drawn uniformly (log-uniform
	// for variances and lengthscales) inside Bounds from the rng.
	Restarts int
	// MaxIter caps L-BFGS major iterations per start (0: 100).
	MaxIter int
	// Clip, if > 0, clips the standardised targets to [-Clip, Clip]
	// (PB2 clips at 2).
	Clip float64
}

// Standardize returns the offset and scale that map y to zero mean and unit
// (population) standard deviation. A constant y gets scale 1, so the
// standardised targets are all 0. It never overflows for finite y.
func Standardize(y []float64) (offset, scale float64) {
	if len(y) == 0 {
		return 0, 1
	}
	// Divide by the largest magnitude first so squares cannot overflow.
	var big float64
	for _, v := range y {
		big = math.Max(big, math.Abs(v))
	}
	if big == 0 {
		return 0, 1
	}
	var mean float64
	for _, v := range y {
		mean += v / big
	}
	mean /= float64(len(y))
	var ss float64
	for _, v := range y {
		d := v/big - mean
		ss += d * d
	}
	sd := math.Sqrt(ss / float64(len(y)))
	offset = mean * big
	scale = sd * big
	if !(scale > 0) || math.IsInf(scale, 0) || sd < 1e-15 {
		// Constant (to double precision): centre only.
		return offset, 1
	}
	return offset, scale
}

// Fit standardises y, chooses the hyperparameters by ML-II and returns the
// posterior. x is n×Dim row-major with inputs expected in [0, 1]. All
// randomness (the restarts) comes from rng. Non-finite data is an error.
func Fit(x, y []float64, opt FitOptions, rng *rand.Rand) (*Model, error) {
	k := opt.Kernel
	if err := checkData(k, x, y); err != nil {
		return nil, err
	}
	b := opt.Bounds
	if b == (Bounds{}) {
		b = DefaultBounds()
	}
	if err := b.Validate(); err != nil {
		return nil, err
	}
	if opt.Restarts < 0 {
		return nil, fmt.Errorf("gp: restarts = %d, want >= 0", opt.Restarts)
	}
	if opt.Restarts > 0 && rng == nil {
		return nil, errors.New("gp: restarts need an rng")
	}
	maxIter := opt.MaxIter
	if maxIter <= 0 {
		maxIter = 100
	}
	offset, scale := Standardize(y)
	ys := make([]float64, len(y))
	for i, v := range y {
		z := (v - offset) / scale
		if opt.Clip > 0 {
			z = math.Max(-opt.Clip, math.Min(opt.Clip, z))
		}
		ys[i] = z
	}
	xc := append([]float64(nil), x...)
	w := newWorkspace(k, xc, ys)
	p := newReparam(k, b)

	init := Hyper{SignalVar: 1, Lengthscales: make([]float64, k.NumLengthscales()), NoiseVar: 0.1, Epsilon: 0.1}
	for i := range init.Lengthscales {
		init.Lengthscales[i] = 0.5
	}
	if opt.Init != nil && opt.Init.validate(k) == nil {
		init = opt.Init.Clone()
	}
	starts := make([][]float64, 0, 1+opt.Restarts)
	starts = append(starts, p.toZ(init))
	for range opt.Restarts {
		starts = append(starts, p.randomZ(rng))
	}

	bestL := math.Inf(-1)
	var best Hyper
	gv := make([]float64, k.NumParams())
	// The line search asks for values and gradients separately; a value
	// costs one Cholesky, a gradient one more O(n³) inverse, so gradients
	// are computed only when asked for, at the point last valued.
	var memo struct {
		z     []float64
		f     float64
		g     []float64
		err   error
		have  bool
		haveG bool
	}
	memo.g = make([]float64, k.NumParams())
	value := func(z []float64) {
		if memo.have && slices.Equal(memo.z, z) {
			return
		}
		memo.z = append(memo.z[:0], z...)
		memo.have, memo.haveG = true, false
		h := p.hyper(z)
		l, err := w.value(h)
		if err != nil {
			memo.f, memo.err = math.Inf(1), err
			return
		}
		memo.f, memo.err = -l, nil
		if l > bestL {
			bestL, best = l, h
		}
	}
	gradient := func(z []float64) {
		value(z)
		if memo.haveG {
			return
		}
		memo.haveG = true
		if memo.err == nil {
			memo.err = w.gradient(gv)
		}
		if memo.err != nil {
			for i := range memo.g {
				memo.g[i] = 0
			}
			return
		}
		p.chain(z, gv, memo.g)
		for i := range memo.g {
			memo.g[i] = -memo.g[i]
		}
	}
	problem := optimize.Problem{
		Func: func(z []float64) float64 { value(z); return memo.f },
		Grad: func(g, z []float64) { gradient(z); copy(g, memo.g) },
	}
	settings := &optimize.Settings{
		MajorIterations:   maxIter,
		GradientThreshold: 1e-3,
		Converger:         &optimize.FunctionConverge{Absolute: 1e-2, Iterations: 2},
	}
	var lastErr error
	for _, z0 := range starts {
		gradient(z0)
		if memo.err != nil {
			lastErr = memo.err
			continue
		}
		// The best point seen is tracked inside evalZ, so an optimiser error
		// (e.g. a failed line search) still leaves a usable optimum.
		_, _ = optimize.Minimize(problem, z0, settings, &optimize.LBFGS{})
	}
	if math.IsInf(bestL, -1) {
		if lastErr == nil {
			lastErr = errors.New("no finite likelihood")
		}
		return nil, fmt.Errorf("gp: fit: %w", lastErr)
	}
	// Condition on the (possibly clipped) targets the likelihood was fitted to.
	m, err := newModel(k, best, xc, ys, offset, scale)
	if err != nil {
		return nil, fmt.Errorf("gp: fit: %w", err)
	}
	return m, nil
}

// reparam maps unconstrained optimiser coordinates w to bounded parameters:
// each parameter v (log σ², log ℓ, log σ_n², or ε) is
//
//	v = lo + (hi − lo)·(1 − cos(w/s))/2,  s = (hi − lo)/2,
//
// a smooth, periodic map of ℝ onto [lo, hi], so L-BFGS runs unconstrained
// while every evaluated point lies inside the bounds. The scale s makes
// |dv/dw| = |sin(w/s)| ≤ 1, so a unit step of the optimiser moves each log
// parameter by at most 1 (L-BFGS's first step has unit length).
type reparam struct {
	k      Kernel
	lo, hi []float64
}

func newReparam(k Kernel, b Bounds) reparam {
	p := reparam{k: k}
	add := func(r Range, log bool) {
		if log {
			p.lo, p.hi = append(p.lo, math.Log(r.Lo)), append(p.hi, math.Log(r.Hi))
		} else {
			p.lo, p.hi = append(p.lo, r.Lo), append(p.hi, r.Hi)
		}
	}
	add(b.SignalVar, true)
	for range k.NumLengthscales() {
		add(b.Lengthscale, true)
	}
	add(b.NoiseVar, true)
	if k.TimeVarying {
		add(b.Epsilon, false)
	}
	return p
}

func (p reparam) scale(i int) float64 { return 0.5 * (p.hi[i] - p.lo[i]) }

func (p reparam) v(i int, w float64) float64 {
	return p.lo[i] + (p.hi[i]-p.lo[i])*0.5*(1-math.Cos(w/p.scale(i)))
}

func (p reparam) hyper(w []float64) Hyper {
	v := make([]float64, len(w))
	for i := range w {
		v[i] = p.v(i, w[i])
	}
	// Within bounds by construction; the error is impossible.
	h, _ := p.k.HyperFromParams(v)
	return h
}

// chain converts a gradient with respect to the parameters into one with
// respect to w.
func (p reparam) chain(w, gv, gw []float64) {
	for i := range w {
		gw[i] = gv[i] * math.Sin(w[i]/p.scale(i))
	}
}

// fromUnit returns w for the fraction u ∈ (0, 1) of parameter i's range.
func (p reparam) fromUnit(i int, u float64) float64 {
	// Keep starts off the bounds, where the map's derivative vanishes.
	u = math.Max(1e-3, math.Min(1-1e-3, u))
	return math.Acos(1-2*u) * p.scale(i)
}

func (p reparam) toZ(h Hyper) []float64 {
	v := p.k.Params(h, nil)
	w := make([]float64, len(v))
	for i := range v {
		w[i] = p.fromUnit(i, (v[i]-p.lo[i])/(p.hi[i]-p.lo[i]))
	}
	return w
}

func (p reparam) randomZ(rng *rand.Rand) []float64 {
	w := make([]float64, len(p.lo))
	for i := range w {
		w[i] = p.fromUnit(i, rng.Float64())
	}
	return w
}
