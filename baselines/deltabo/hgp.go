package deltabo

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/optimize"

	"github.com/hyperctl/hyperctl/baselines/gp"
)

// dHyper are the difference GP's hyperparameters: k_δ(x, x') = Tau2 ·
// κ(r), r² = Σ_c (x_c − x'_c)²/ℓ_c², and the target's observation noise
// variance Noise (σ² of eq. 1).
type dHyper struct {
	Tau2   float64
	Ls     []float64
	Noise  float64
	Kernel gp.Kind
}

// Bounds of the ML-II search, in units of the source's target scale (see
// DeltaBO): τ² ∈ [1e-4, 1e2], ℓ ∈ [0.05, 1] on the unit box (the bounds
// GP-UCB uses, for the same reason), σ² ∈ [1e-6, 10].
var (
	tau2Range  = [2]float64{1e-4, 1e2}
	lsRange    = [2]float64{0.05, 1}
	noiseRange = [2]float64{1e-6, 10}
)

// profile returns κ(r) and q = −2 dκ/d(r²) for unit variance.
func profile(kind gp.Kind, r2 float64) (k, q float64) {
	if kind == gp.Matern52 {
		r := math.Sqrt(r2)
		e := math.Exp(-math.Sqrt(5) * r)
		return (1 + math.Sqrt(5)*r + 5*r2/3) * e, (5.0 / 3.0) * (1 + math.Sqrt(5)*r) * e
	}
	k = math.Exp(-0.5 * r2)
	return k, k
}

// hgp is GP regression with per-observation noise: targets r_i at x_i with
// noise variance s_i + σ² (eq. 6 with Algorithm 1 line 5's per-observation
// variance σ²_g(x_i) + σ²), zero prior mean.
type hgp struct {
	dim   int
	h     dHyper
	x     []float64 // n×dim
	r, s  []float64
	n     int
	chol  []float64 // n×n upper Cholesky factor
	alpha []float64
	il2   []float64
}

// newHGP factorises K = τ²κ + diag(s) + σ²I (with growing jitter if needed).
func newHGP(dim int, h dHyper, x, r, s []float64) (*hgp, error) {
	n := len(r)
	if n == 0 || len(x) != n*dim || len(s) != n {
		return nil, fmt.Errorf("deltabo: difference GP: %d targets, %d inputs, %d variances for dimension %d", n, len(x), len(s), dim)
	}
	m := &hgp{dim: dim, h: h, x: x, r: r, s: s, n: n, chol: make([]float64, n*n), alpha: make([]float64, n), il2: make([]float64, dim)}
	for c, l := range h.Ls {
		m.il2[c] = 1 / (l * l)
	}
	jitter := 0.0
	for try := 0; ; try++ {
		for i := range n {
			m.chol[i*n+i] = h.Tau2 + s[i] + h.Noise + jitter
			for j := i + 1; j < n; j++ {
				k, _ := m.pair(m.row(i), m.row(j))
				m.chol[i*n+j] = k
			}
		}
		t, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: m.chol})
		if ok && gp.FiniteDiag(t) {
			break
		}
		if try >= 8 {
			return nil, errors.New("deltabo: difference GP: covariance not positive definite even with jitter")
		}
		jitter = h.Tau2 * 1e-10 * math.Pow(10, float64(try))
	}
	copy(m.alpha, r)
	v := blas64.Vector{N: n, Inc: 1, Data: m.alpha}
	blas64.Trsv(blas.Trans, m.tri(), v)
	blas64.Trsv(blas.NoTrans, m.tri(), v)
	return m, nil
}

func (m *hgp) row(i int) []float64 { return m.x[i*m.dim : (i+1)*m.dim] }

func (m *hgp) tri() blas64.Triangular {
	return blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: m.n, Stride: m.n, Data: m.chol}
}

// pair returns k_δ(a, b) and τ²q.
func (m *hgp) pair(a, b []float64) (k, q float64) {
	var r2 float64
	for c := range m.dim {
		d := a[c] - b[c]
		r2 += d * d * m.il2[c]
	}
	k, q = profile(m.h.Kernel, r2)
	return m.h.Tau2 * k, m.h.Tau2 * q
}

// lml returns the log marginal likelihood and, if grad != nil, its gradient
// with respect to (log τ², log ℓ_1 … log ℓ_dim, log σ²):
//
//	∂L/∂θ_j = ½ tr((ααᵀ − K⁻¹) ∂K/∂θ_j).
func (m *hgp) lml(grad []float64) (float64, error) {
	n := m.n
	var quad, logdet float64
	for i := range n {
		quad += m.r[i] * m.alpha[i]
		logdet += math.Log(m.chol[i*n+i])
	}
	l := -0.5*quad - logdet - 0.5*float64(n)*math.Log(2*math.Pi)
	if math.IsNaN(l) || math.IsInf(l, 0) {
		return 0, fmt.Errorf("deltabo: difference GP: log likelihood is %v", l)
	}
	if grad == nil {
		return l, nil
	}
	inv := append([]float64(nil), m.chol...)
	if _, ok := lapack64.Potri(blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: n, Data: inv}); !ok {
		return 0, errors.New("deltabo: difference GP: inverse failed")
	}
	for j := range grad {
		grad[j] = 0
	}
	D := m.dim
	var diag float64
	for a := range n {
		w := m.alpha[a]*m.alpha[a] - inv[a*n+a]
		diag += w
		grad[1+D] += 0.5 * w * m.h.Noise
	}
	grad[0] += 0.5 * diag * m.h.Tau2
	gl := grad[1 : 1+D]
	for a := range n {
		ra := m.row(a)
		for b := a + 1; b < n; b++ {
			rb := m.row(b)
			w := m.alpha[a]*m.alpha[b] - inv[a*n+b]
			k, q := m.pair(ra, rb)
			grad[0] += w * k
			for c := range D {
				d := ra[c] - rb[c]
				gl[c] += w * q * d * d * m.il2[c]
			}
		}
	}
	for _, g := range grad {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return 0, errors.New("deltabo: difference GP: likelihood gradient is not finite")
		}
	}
	return l, nil
}

// predict writes the posterior mean and variance of δ at the rows of xs.
func (m *hgp) predict(xs []float64, mean, vr []float64) {
	n, D := m.n, m.dim
	q := len(mean)
	ks := make([]float64, n*q)
	for i := range n {
		xi := m.row(i)
		for j := range q {
			k, _ := m.pair(xi, xs[j*D:(j+1)*D])
			ks[i*q+j] = k
		}
	}
	gp.Posterior(ks, m.alpha, m.tri(), m.h.Tau2, mean, vr)
}

// ranges returns the search bounds of the log-parameters.
func ranges(dim int) (lo, hi []float64) {
	lo = append(lo, math.Log(tau2Range[0]))
	hi = append(hi, math.Log(tau2Range[1]))
	for range dim {
		lo = append(lo, math.Log(lsRange[0]))
		hi = append(hi, math.Log(lsRange[1]))
	}
	lo = append(lo, math.Log(noiseRange[0]))
	hi = append(hi, math.Log(noiseRange[1]))
	return lo, hi
}

// fitHGP chooses the hyperparameters by ML-II (L-BFGS on the log marginal
// likelihood with its analytic gradient, inside the bounds through the map
// v = lo + (hi − lo)(1 − cos(w/s))/2, s = (hi − lo)/2, as package gp does),
// from init (clamped into the bounds) and restarts uniform random starts.
func fitHGP(kind gp.Kind, dim int, x, r, s []float64, init *dHyper, restarts int, rng *rand.Rand) (*hgp, error) {
	lo, hi := ranges(dim)
	np := len(lo)
	toV := func(w []float64, v []float64) {
		for i := range w {
			sc := 0.5 * (hi[i] - lo[i])
			v[i] = lo[i] + (hi[i]-lo[i])*0.5*(1-math.Cos(w[i]/sc))
		}
	}
	fromU := func(i int, u float64) float64 {
		u = math.Max(1e-3, math.Min(1-1e-3, u))
		return math.Acos(1-2*u) * 0.5 * (hi[i] - lo[i])
	}
	hyperOf := func(v []float64) dHyper {
		h := dHyper{Tau2: math.Exp(v[0]), Ls: make([]float64, dim), Noise: math.Exp(v[1+dim]), Kernel: kind}
		for c := range dim {
			h.Ls[c] = math.Exp(v[1+c])
		}
		return h
	}
	var starts [][]float64
	first := make([]float64, np)
	h0 := dHyper{Tau2: 1, Noise: 0.1}
	if init != nil && len(init.Ls) == dim {
		h0 = *init
	}
	vals := []float64{math.Log(h0.Tau2)}
	for c := range dim {
		l := 0.5
		if init != nil && len(init.Ls) == dim {
			l = h0.Ls[c]
		}
		vals = append(vals, math.Log(l))
	}
	vals = append(vals, math.Log(h0.Noise))
	for i, v := range vals {
		first[i] = fromU(i, (v-lo[i])/(hi[i]-lo[i]))
	}
	starts = append(starts, first)
	for range restarts {
		w := make([]float64, np)
		for i := range w {
			w[i] = fromU(i, rng.Float64())
		}
		starts = append(starts, w)
	}

	v := make([]float64, np)
	gv := make([]float64, np)
	bestL := math.Inf(-1)
	var best *hgp
	var lastErr error
	eval := func(w []float64, g []float64) float64 {
		toV(w, v)
		m, err := newHGP(dim, hyperOf(v), x, r, s)
		if err != nil {
			lastErr = err
			for i := range g {
				g[i] = 0
			}
			return math.Inf(1)
		}
		var gg []float64
		if g != nil {
			gg = gv
		}
		l, err := m.lml(gg)
		if err != nil {
			lastErr = err
			for i := range g {
				g[i] = 0
			}
			return math.Inf(1)
		}
		if l > bestL {
			bestL, best = l, m
		}
		for i := range g {
			sc := 0.5 * (hi[i] - lo[i])
			g[i] = -gv[i] * math.Sin(w[i]/sc)
		}
		return -l
	}
	problem := optimize.Problem{
		Func: func(w []float64) float64 { return eval(w, nil) },
		Grad: func(g, w []float64) { eval(w, g) },
	}
	settings := &optimize.Settings{
		MajorIterations:   60,
		GradientThreshold: 1e-3,
		Converger:         &optimize.FunctionConverge{Absolute: 1e-2, Iterations: 2},
	}
	for _, w0 := range starts {
		if math.IsInf(eval(w0, nil), 1) {
			continue
		}
		// The best point seen is tracked inside eval, so an optimiser error
		// (e.g. a failed line search) still leaves a usable optimum.
		_, _ = optimize.Minimize(problem, w0, settings, &optimize.LBFGS{})
	}
	if best == nil {
		if lastErr == nil {
			lastErr = errors.New("no finite likelihood")
		}
		return nil, fmt.Errorf("deltabo: difference GP fit: %w", lastErr)
	}
	return best, nil
}
