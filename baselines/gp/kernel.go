// Package gp is Gaussian-process regression for hyperctl's Bayesian
// baselines (GP-UCB, PB2 and later DeltaBO), built on gonum.
//
// Inputs are expected in [0, 1] per column (callers map hyperparameters with
// controller.Space.ToUnit; PB2 min-max normalises its time and reward
// columns). Fit standardises the targets, chooses the kernel hyperparameters
// by ML-II — maximising the log marginal likelihood with its analytic
// gradient by gonum's L-BFGS inside box bounds, from a few starts — and
// returns a Model that predicts the posterior mean and variance at a batch
// of points. The covariance is factorised by Cholesky with jitter retries.
//
// Kernels are squared-exponential or Matérn-5/2 with ARD (one lengthscale
// per input) or a shared lengthscale, optionally multiplied by PB2's
// time-varying factor (1-ε)^{|t-t'|/2} on input column 0 (Bogunovic et al.
// 2016; Parker-Holder et al. 2020).
package gp

import (
	"fmt"
	"math"
	"strings"
)

// Kind is the stationary part of a kernel.
type Kind int

const (
	// SquaredExp is k(r) = σ² exp(-r²/2) with r² = Σ_c (x_c-x'_c)²/ℓ_c².
	SquaredExp Kind = iota
	// Matern52 is k(r) = σ² (1 + √5 r + 5r²/3) exp(-√5 r).
	Matern52
)

// String returns the kind's config name.
func (k Kind) String() string {
	switch k {
	case SquaredExp:
		return "se"
	case Matern52:
		return "matern52"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ParseKind parses "se" (also "squared_exp", "rbf") or "matern52".
func ParseKind(s string) (Kind, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "se", "squared_exp", "squaredexp", "rbf":
		return SquaredExp, nil
	case "matern52", "matern_52", "matern-5/2", "matern5/2":
		return Matern52, nil
	}
	return 0, fmt.Errorf("kernel %q: want \"se\" or \"matern52\"", s)
}

// Kernel fixes a covariance function's structure; Hyper holds its values.
type Kernel struct {
	// Kind is the stationary part.
	Kind Kind
	// Dim is the input dimension, the time column included.
	Dim int
	// ARD gives every (non-time) input its own lengthscale; otherwise one
	// lengthscale is shared (isotropic).
	ARD bool
	// TimeVarying treats input column 0 as time and multiplies the
	// stationary kernel over the other columns by (1-ε)^{|t-t'|/2}.
	TimeVarying bool
}

// Validate checks the structure.
func (k Kernel) Validate() error {
	if k.Kind != SquaredExp && k.Kind != Matern52 {
		return fmt.Errorf("gp: kernel: unknown kind %d", int(k.Kind))
	}
	min := 1
	if k.TimeVarying {
		min = 2
	}
	if k.Dim < min {
		return fmt.Errorf("gp: kernel: dim %d, want >= %d", k.Dim, min)
	}
	return nil
}

// first is the first stationary (non-time) column.
func (k Kernel) first() int {
	if k.TimeVarying {
		return 1
	}
	return 0
}

// NumLengthscales is 1 for a shared lengthscale, else the number of
// stationary inputs.
func (k Kernel) NumLengthscales() int {
	if !k.ARD {
		return 1
	}
	return k.Dim - k.first()
}

// NumParams is the length of the parameter vector used by LogLikelihood:
// [log σ², log ℓ_1 … log ℓ_L, log σ_n², (ε if time-varying)].
func (k Kernel) NumParams() int {
	p := 1 + k.NumLengthscales() + 1
	if k.TimeVarying {
		p++
	}
	return p
}

// Hyper holds a kernel's hyperparameter values.
type Hyper struct {
	SignalVar    float64   // σ², the prior variance of the latent function
	Lengthscales []float64 // ℓ, len = Kernel.NumLengthscales()
	NoiseVar     float64   // σ_n², Gaussian observation noise variance
	Epsilon      float64   // ε in [0, 1), the time-varying forgetting rate
}

// Clone returns a deep copy.
func (h Hyper) Clone() Hyper {
	h.Lengthscales = append([]float64(nil), h.Lengthscales...)
	return h
}

// validate checks h against k.
func (h Hyper) validate(k Kernel) error {
	pos := func(name string, v float64) error {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("gp: hyper: %s = %v, want finite > 0", name, v)
		}
		return nil
	}
	if err := pos("signal variance", h.SignalVar); err != nil {
		return err
	}
	if err := pos("noise variance", h.NoiseVar); err != nil {
		return err
	}
	if len(h.Lengthscales) != k.NumLengthscales() {
		return fmt.Errorf("gp: hyper: %d lengthscales, kernel wants %d", len(h.Lengthscales), k.NumLengthscales())
	}
	for _, l := range h.Lengthscales {
		if err := pos("lengthscale", l); err != nil {
			return err
		}
	}
	if k.TimeVarying && !(h.Epsilon >= 0 && h.Epsilon < 1) {
		return fmt.Errorf("gp: hyper: epsilon = %v, want in [0, 1)", h.Epsilon)
	}
	return nil
}

// Params packs h into the parameter vector (see NumParams).
func (k Kernel) Params(h Hyper, dst []float64) []float64 {
	dst = dst[:0]
	dst = append(dst, math.Log(h.SignalVar))
	for _, l := range h.Lengthscales {
		dst = append(dst, math.Log(l))
	}
	dst = append(dst, math.Log(h.NoiseVar))
	if k.TimeVarying {
		dst = append(dst, h.Epsilon)
	}
	return dst
}

// HyperFromParams unpacks a parameter vector.
func (k Kernel) HyperFromParams(p []float64) (Hyper, error) {
	if len(p) != k.NumParams() {
		return Hyper{}, fmt.Errorf("gp: %d parameters, kernel wants %d", len(p), k.NumParams())
	}
	L := k.NumLengthscales()
	h := Hyper{SignalVar: math.Exp(p[0]), Lengthscales: make([]float64, L), NoiseVar: math.Exp(p[1+L])}
	for i := range L {
		h.Lengthscales[i] = math.Exp(p[1+i])
	}
	if k.TimeVarying {
		h.Epsilon = p[2+L]
	}
	return h, h.validate(k)
}

// eval is a kernel with its hyperparameters, prepared for fast pair
// evaluation.
type eval struct {
	k        Kernel
	sf2      float64
	il2      []float64 // 1/ℓ² per lengthscale
	invL2    []float64 // 1/ℓ² per input column; unused for the time column
	logDecay float64   // log(1-ε)/2, multiplied by |t-t'|
}

func newEval(k Kernel, h Hyper) (*eval, error) {
	if err := h.validate(k); err != nil {
		return nil, err
	}
	e := &eval{k: k, sf2: h.SignalVar, il2: make([]float64, len(h.Lengthscales)), invL2: make([]float64, k.Dim)}
	for i, l := range h.Lengthscales {
		e.il2[i] = 1 / (l * l)
	}
	f := k.first()
	for c := f; c < k.Dim; c++ {
		if k.ARD {
			e.invL2[c] = e.il2[c-f]
		} else {
			e.invL2[c] = e.il2[0]
		}
	}
	if k.TimeVarying {
		e.logDecay = 0.5 * math.Log1p(-h.Epsilon)
	}
	return e, nil
}

const sqrt5 = 2.23606797749978969640917366873127623544061835961152572427089

// profile returns k and q = −2 ∂k/∂(r²) for signal variance s, scaled
// squared distance r² and log time factor logT = log((1-ε)^{|t-t'|/2}),
// with one exp.
func (e *eval) profile(s, r2, logT float64) (k, q float64) {
	if e.k.Kind == Matern52 {
		r := math.Sqrt(r2)
		ex := s * math.Exp(logT-sqrt5*r)
		return (1 + sqrt5*r + 5*r2/3) * ex, (5.0 / 3.0) * (1 + sqrt5*r) * ex
	}
	k = s * math.Exp(logT-0.5*r2)
	return k, k
}

// pair returns k(a, b), the factor q = -2 ∂k/∂(r²) used by gradients, and
// the time distance |t-t'| (0 unless time-varying).
func (e *eval) pair(a, b []float64) (k, q, dt float64) {
	var r2 float64
	for c := e.k.first(); c < e.k.Dim; c++ {
		d := a[c] - b[c]
		r2 += d * d * e.invL2[c]
	}
	if e.k.TimeVarying {
		dt = math.Abs(a[0] - b[0])
	}
	k, q = e.profile(e.sf2, r2, e.logDecay*dt)
	return k, q, dt
}

// K returns k(a, b) for kernel k with hyperparameters h. It is meant for
// tests and diagnostics; Model uses a prepared form.
func K(k Kernel, h Hyper, a, b []float64) (float64, error) {
	if len(a) != k.Dim || len(b) != k.Dim {
		return 0, fmt.Errorf("gp: K: inputs of length %d and %d, kernel dim %d", len(a), len(b), k.Dim)
	}
	e, err := newEval(k, h)
	if err != nil {
		return 0, err
	}
	v, _, _ := e.pair(a, b)
	return v, nil
}
