package gp

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// maxJitterTries is how many times the Cholesky factorisation is retried
// with a growing diagonal jitter (0, then 1e-10, 1e-9, … 1e-4 times the
// prior variance) before the covariance is declared not positive definite.
const maxJitterTries = 8

// ErrNotPD is returned when the covariance stays indefinite after every
// jitter retry.
var ErrNotPD = errors.New("gp: covariance is not positive definite even with jitter")

// workspace holds the data and the O(n²) buffers of one GP, reused across
// likelihood evaluations. The hyperparameter-free parts of every pair —
// squared differences per input column and time distances — are computed
// once, so an evaluation costs one exp per pair plus the O(n³) algebra.
type workspace struct {
	k      Kernel
	n      int
	x      []float64 // n×Dim, row-major
	y      []float64 // targets as modelled
	ncol   int       // values per pair in sq: stationary columns (ARD) or 1
	sq     []float64 // per pair a<b: (x_a,c − x_b,c)² per column, or their sum
	dt     []float64 // per pair: |t_a − t_b| (time-varying kernels)
	kv, qv []float64 // per pair: k(x_a, x_b) and q = −2∂k/∂r² at the last factorisation
	chol   []float64 // n×n upper Cholesky factor U, K = UᵀU
	inv    []float64 // n×n, K⁻¹ (upper triangle) for the gradient
	alpha  []float64 // K⁻¹ y
	jitter float64   // jitter added by the last successful factorisation

	// The last successful value call, for gradient.
	valid bool
	e     *eval
	t     blas64.Triangular
	h     Hyper
}

func newWorkspace(k Kernel, x, y []float64) *workspace {
	n := len(y)
	np := n * (n - 1) / 2
	w := &workspace{
		k: k, n: n, x: x, y: y,
		ncol:  k.NumLengthscales(),
		kv:    make([]float64, np),
		qv:    make([]float64, np),
		chol:  make([]float64, n*n),
		inv:   make([]float64, n*n),
		alpha: make([]float64, n),
	}
	w.sq = make([]float64, np*w.ncol)
	if k.TimeVarying {
		w.dt = make([]float64, np)
	}
	f := k.first()
	p := 0
	for a := range n {
		ra := w.row(a)
		for b := a + 1; b < n; b++ {
			rb := w.row(b)
			out := w.sq[p*w.ncol : (p+1)*w.ncol]
			for c := f; c < k.Dim; c++ {
				d := ra[c] - rb[c]
				if k.ARD {
					out[c-f] = d * d
				} else {
					out[0] += d * d
				}
			}
			if k.TimeVarying {
				w.dt[p] = math.Abs(ra[0] - rb[0])
			}
			p++
		}
	}
	return w
}

func (w *workspace) row(i int) []float64 { return w.x[i*w.k.Dim : (i+1)*w.k.Dim] }

// pairs fills w.kv and w.qv for hyperparameters e.
func (w *workspace) pairs(e *eval) {
	il2 := e.il2
	for p := range w.kv {
		sq := w.sq[p*w.ncol : (p+1)*w.ncol]
		var r2 float64
		for c, v := range sq {
			r2 += v * il2[c]
		}
		var logT float64
		if w.dt != nil {
			logT = e.logDecay * w.dt[p]
		}
		w.kv[p], w.qv[p] = e.profile(e.sf2, r2, logT)
	}
}

// factor builds K = K_f + σ_n² I (+ jitter) in w.chol and factorises it.
func (w *workspace) factor(e *eval, noise float64) (blas64.Triangular, error) {
	n := w.n
	w.pairs(e)
	base := e.sf2 + noise
	jitter := 0.0
	for try := 0; try < maxJitterTries; try++ {
		p := 0
		for i := range n {
			w.chol[i*n+i] = base + jitter
			copy(w.chol[i*n+i+1:(i+1)*n], w.kv[p:p+n-1-i])
			p += n - 1 - i
		}
		t, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: w.chol})
		if ok && FiniteDiag(t) {
			w.jitter = jitter
			return t, nil
		}
		jitter = e.sf2 * 1e-10 * math.Pow(10, float64(try))
	}
	return blas64.Triangular{}, ErrNotPD
}

// FiniteDiag reports whether a Cholesky factor's diagonal is positive and
// finite, i.e. whether the factorisation succeeded numerically.
func FiniteDiag(t blas64.Triangular) bool {
	for i := 0; i < t.N; i++ {
		v := t.Data[i*t.Stride+i]
		if !(v > 0) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// solve sets w.alpha = K⁻¹ y and returns the log marginal likelihood.
func (w *workspace) solve(t blas64.Triangular) float64 {
	copy(w.alpha, w.y)
	v := blas64.Vector{N: w.n, Inc: 1, Data: w.alpha}
	blas64.Trsv(blas.Trans, t, v)
	var quad, logdet float64
	for i := range w.n {
		quad += w.alpha[i] * w.alpha[i] // yᵀK⁻¹y = |U⁻ᵀy|²
		logdet += math.Log(t.Data[i*t.Stride+i])
	}
	blas64.Trsv(blas.NoTrans, t, v)
	// log|K| = 2 Σ log U_ii.
	return -0.5*quad - logdet - 0.5*float64(w.n)*math.Log(2*math.Pi)
}

// lml returns the log marginal likelihood log p(y | X, θ) and, if grad is
// non-nil, its gradient (see gradient).
func (w *workspace) lml(h Hyper, grad []float64) (float64, error) {
	l, err := w.value(h)
	if err != nil || grad == nil {
		return l, err
	}
	return l, w.gradient(grad)
}

// value factorises K for h and returns the log marginal likelihood; the
// factor, α and h stay in w for gradient.
func (w *workspace) value(h Hyper) (float64, error) {
	w.valid = false
	e, err := newEval(w.k, h)
	if err != nil {
		return 0, err
	}
	t, err := w.factor(e, h.NoiseVar)
	if err != nil {
		return 0, err
	}
	l := w.solve(t)
	if math.IsNaN(l) || math.IsInf(l, 0) {
		return 0, fmt.Errorf("gp: log marginal likelihood is %v", l)
	}
	w.e, w.t, w.h, w.valid = e, t, h, true
	return l, nil
}

// gradient writes the gradient of the log marginal likelihood at the
// hyperparameters of the last successful value call with respect to the
// parameter vector [log σ², log ℓ…, log σ_n², (ε)]:
//
//	∂L/∂θ_j = ½ tr((ααᵀ − K⁻¹) ∂K/∂θ_j),  α = K⁻¹y.
//
// The jitter, when one is needed, is treated as a constant.
func (w *workspace) gradient(grad []float64) error {
	if !w.valid {
		return errors.New("gp: gradient without a factorisation")
	}
	e, t, h := w.e, w.t, w.h
	n := w.n
	copy(w.inv, t.Data[:n*n])
	if _, ok := lapack64.Potri(blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: n, Data: w.inv}); !ok {
		return ErrNotPD
	}
	for j := range grad {
		grad[j] = 0
	}
	L := w.ncol
	iNoise := 1 + L
	iEps := 2 + L
	eps1 := 1 - h.Epsilon
	// Diagonal: ∂K_aa/∂log σ² = σ², ∂K_aa/∂log σ_n² = σ_n².
	var diag float64
	for a := range n {
		diag += w.alpha[a]*w.alpha[a] - w.inv[a*n+a]
	}
	grad[0] += 0.5 * diag * e.sf2
	grad[iNoise] += 0.5 * diag * h.NoiseVar
	// Off-diagonal pairs count twice (W and ∂K are symmetric):
	// ∂k/∂log σ² = k, ∂k/∂log ℓ_c = q·d_c²/ℓ_c², ∂k/∂ε = −k·(Δt/2)/(1−ε).
	gl := grad[1 : 1+L]
	var gs, ge float64
	p := 0
	for a := range n {
		aa := w.alpha[a]
		inv := w.inv[a*n : (a+1)*n]
		for b := a + 1; b < n; b++ {
			wab := aa*w.alpha[b] - inv[b]
			kv := w.kv[p]
			gs += wab * kv
			wq := wab * w.qv[p]
			sq := w.sq[p*L : (p+1)*L]
			for c, v := range sq {
				gl[c] += wq * v
			}
			if w.dt != nil {
				ge -= wab * kv * w.dt[p]
			}
			p++
		}
	}
	grad[0] += gs
	for c := range gl {
		gl[c] *= e.il2[c]
	}
	if w.k.TimeVarying {
		grad[iEps] = 0.5 * ge / eps1
	}
	for _, g := range grad {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return errors.New("gp: likelihood gradient is not finite")
		}
	}
	return nil
}

// LogLikelihood returns the log marginal likelihood of targets y (used as
// given, not standardised) at inputs x (n×Dim, row-major) under kernel k
// with hyperparameters h, and, if grad is non-nil (len k.NumParams()), its
// analytic gradient with respect to the parameter vector of k.Params.
func LogLikelihood(k Kernel, h Hyper, x, y, grad []float64) (float64, error) {
	if err := checkData(k, x, y); err != nil {
		return 0, err
	}
	if grad != nil && len(grad) != k.NumParams() {
		return 0, fmt.Errorf("gp: gradient has length %d, want %d", len(grad), k.NumParams())
	}
	return newWorkspace(k, x, y).lml(h, grad)
}

func checkData(k Kernel, x, y []float64) error {
	if err := k.Validate(); err != nil {
		return err
	}
	if len(y) == 0 {
		return errors.New("gp: no data")
	}
	if len(x) != len(y)*k.Dim {
		return fmt.Errorf("gp: %d input values for %d targets of dimension %d", len(x), len(y), k.Dim)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("gp: input %d, column %d is %v", i/k.Dim, i%k.Dim, v)
		}
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("gp: target %d is %v", i, v)
		}
	}
	return nil
}

// Model is a GP posterior: data, hyperparameters, and the Cholesky factor
// of the training covariance. Targets are modelled as (y − Offset)/Scale;
// Predict reports data units, PredictStd the modelled (standardised) ones.
// A Model is read-only after construction and safe for concurrent reads.
type Model struct {
	k      Kernel
	h      Hyper
	e      *eval
	n      int
	x      []float64
	offset float64
	scale  float64
	ys     []float64
	u      blas64.Triangular
	alpha  []float64
	lml    float64
	jitter float64
}

// New conditions a GP with kernel k and hyperparameters h on targets y at
// inputs x (n×Dim, row-major), using the targets as given (no
// standardisation, zero prior mean). It copies x and y.
func New(k Kernel, h Hyper, x, y []float64) (*Model, error) {
	if err := checkData(k, x, y); err != nil {
		return nil, err
	}
	return newModel(k, h, append([]float64(nil), x...), append([]float64(nil), y...), 0, 1)
}

// newModel factorises the covariance for modelled targets ys (owned by the
// model from now on, as is x).
func newModel(k Kernel, h Hyper, x, ys []float64, offset, scale float64) (*Model, error) {
	w := newWorkspace(k, x, ys)
	e, err := newEval(k, h)
	if err != nil {
		return nil, err
	}
	t, err := w.factor(e, h.NoiseVar)
	if err != nil {
		return nil, err
	}
	l := w.solve(t)
	if math.IsNaN(l) || math.IsInf(l, 0) {
		return nil, fmt.Errorf("gp: log marginal likelihood is %v", l)
	}
	return &Model{
		k: k, h: h.Clone(), e: e, n: w.n, x: x,
		offset: offset, scale: scale, ys: ys,
		u: t, alpha: w.alpha, lml: l, jitter: w.jitter,
	}, nil
}

// Kernel returns the model's kernel structure.
func (m *Model) Kernel() Kernel { return m.k }

// Hyper returns a copy of the model's hyperparameters.
func (m *Model) Hyper() Hyper { return m.h.Clone() }

// Len is the number of training points.
func (m *Model) Len() int { return m.n }

// LogLikelihood is the log marginal likelihood of the modelled targets.
func (m *Model) LogLikelihood() float64 { return m.lml }

// Jitter is the diagonal jitter the factorisation needed (usually 0).
func (m *Model) Jitter() float64 { return m.jitter }

// Standardize maps a target in data units to modelled units.
func (m *Model) Standardize(y float64) float64 { return (y - m.offset) / m.scale }

// Offset and Scale return the target transform y_modelled = (y − Offset)/Scale.
func (m *Model) Offset() float64 { return m.offset }

// Scale returns the target scale (see Offset).
func (m *Model) Scale() float64 { return m.scale }

// PredictStd writes the posterior mean and variance of the latent function
// (noise excluded) at the m points xs (m×Dim, row-major) in modelled
// (standardised) units. mean and variance must have length m.
func (m *Model) PredictStd(xs, mean, variance []float64) error {
	d := m.k.Dim
	if len(xs)%d != 0 || len(xs)/d != len(mean) || len(mean) != len(variance) {
		return fmt.Errorf("gp: predict: %d input values, %d means, %d variances for dimension %d", len(xs), len(mean), len(variance), d)
	}
	q := len(mean)
	if q == 0 {
		return nil
	}
	for i, v := range xs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("gp: predict: point %d, column %d is %v", i/d, i%d, v)
		}
	}
	n := m.n
	// ks is n×q: ks[i][j] = k(x_i, xs_j).
	ks := make([]float64, n*q)
	for i := range n {
		xi := m.x[i*d : (i+1)*d]
		for j := range q {
			v, _, _ := m.e.pair(xi, xs[j*d:(j+1)*d])
			ks[i*q+j] = v
		}
	}
	Posterior(ks, m.alpha, m.u, m.e.sf2, mean, variance)
	return nil
}

// Posterior writes a GP's posterior mean and latent variance at q query
// points: ks (n×q, row-major) holds the cross-covariances k(x_i, xs_j) of
// the n training inputs and the queries and is overwritten, alpha = K⁻¹y,
// u is the upper Cholesky factor of K, and prior = k(x, x) is the prior
// variance (a stationary kernel's). mean_j = Σ_i ks_ij α_i and variance_j =
// max(0, prior − Σ_i V_ij²) with V = U⁻ᵀ ks.
func Posterior(ks, alpha []float64, u blas64.Triangular, prior float64, mean, variance []float64) {
	n, q := len(alpha), len(mean)
	for j := range q {
		var s float64
		for i := range n {
			s += ks[i*q+j] * alpha[i]
		}
		mean[j] = s
	}
	blas64.Trsm(blas.Left, blas.Trans, 1, u, blas64.General{Rows: n, Cols: q, Stride: q, Data: ks})
	for j := range q {
		var s float64
		for i := range n {
			s += ks[i*q+j] * ks[i*q+j]
		}
		variance[j] = math.Max(0, prior-s)
	}
}

// Predict is PredictStd in data units: mean·Scale + Offset, variance·Scale².
func (m *Model) Predict(xs, mean, variance []float64) error {
	if err := m.PredictStd(xs, mean, variance); err != nil {
		return err
	}
	s2 := m.scale * m.scale
	for j := range mean {
		mean[j] = mean[j]*m.scale + m.offset
		variance[j] *= s2
	}
	return nil
}

// Gradient holds reusable buffers for PredictGrad.
type Gradient struct {
	k, v []float64 // n
	dk   []float64 // n×Dim
}

// PredictGrad returns the posterior mean and variance (modelled units) at
// one point x and writes their gradients with respect to x into dmean and
// dvar (len Dim). The time column of a time-varying kernel gets a zero
// gradient (time is never optimised). buf may be nil.
func (m *Model) PredictGrad(x []float64, dmean, dvar []float64, buf *Gradient) (mean, variance float64) {
	d, n := m.k.Dim, m.n
	if buf == nil {
		buf = &Gradient{}
	}
	if len(buf.k) != n || len(buf.dk) != n*d {
		buf.k, buf.v, buf.dk = make([]float64, n), make([]float64, n), make([]float64, n*d)
	}
	f := m.k.first()
	for i := range n {
		xi := m.x[i*d : (i+1)*d]
		kv, q, _ := m.e.pair(x, xi)
		buf.k[i] = kv
		row := buf.dk[i*d : (i+1)*d]
		for c := range d {
			if c < f {
				row[c] = 0
				continue
			}
			row[c] = -q * (x[c] - xi[c]) * m.e.invL2[c]
		}
	}
	for c := range d {
		dmean[c], dvar[c] = 0, 0
	}
	for i := range n {
		mean += buf.k[i] * m.alpha[i]
		for c := range d {
			dmean[c] += buf.dk[i*d+c] * m.alpha[i]
		}
	}
	// v = U⁻ᵀ k; variance = σ² − vᵀv; ∂variance/∂x = −2 (∂k)ᵀ K⁻¹ k = −2 (∂k)ᵀ U⁻¹ v.
	copy(buf.v, buf.k)
	vec := blas64.Vector{N: n, Inc: 1, Data: buf.v}
	blas64.Trsv(blas.Trans, m.u, vec)
	var s float64
	for i := range n {
		s += buf.v[i] * buf.v[i]
	}
	variance = m.e.sf2 - s
	blas64.Trsv(blas.NoTrans, m.u, vec)
	for i := range n {
		for c := range d {
			dvar[c] -= 2 * buf.dk[i*d+c] * buf.v[i]
		}
	}
	if variance < 0 {
		variance = 0
		for c := range d {
			dvar[c] = 0
		}
	}
	return mean, variance
}
