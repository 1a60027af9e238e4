package goucb

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ellipsoid is the ball {w : ‖w − c‖²_Σ = (w − c)ᵀΣ(w − c) ≤ r2} of
// eq. (6), with Σ symmetric positive definite given by its
// eigendecomposition Σ = Q diag(e) Qᵀ.
type ellipsoid struct {
	d    int
	q    []float64 // d×d row-major; column i is the eigenvector of e[i]
	e    []float64 // eigenvalues, ascending, > 0
	c    []float64 // centre
	r2   float64   // squared radius β
	a, b []float64 // scratch
}

// newEllipsoid eigendecomposes sigma (d×d row-major, symmetric, with every
// eigenvalue at least floor > 0) and returns the ball of squared radius r2
// around c. Computed eigenvalues below floor are raised to it: for
// Σ = λI + A with A ⪰ 0 and floor = λ this only undoes rounding, which
// with huge gradients (|A| ≈ 1e20 after a 1e12 jump in the objective) can
// otherwise make the smallest eigenvalues negative.
func newEllipsoid(sigma []float64, d int, c []float64, r2, floor float64) (*ellipsoid, error) {
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(d, append([]float64(nil), sigma...)), true) {
		return nil, errors.New("goucb: eigendecomposition of Σ failed")
	}
	e := eig.Values(nil)
	for i, v := range e {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errors.New("goucb: Σ has a non-finite eigenvalue")
		}
		e[i] = math.Max(v, floor)
	}
	if !(floor > 0) {
		return nil, errors.New("goucb: eigenvalue floor must be > 0")
	}
	var qm mat.Dense
	eig.VectorsTo(&qm)
	q := make([]float64, d*d)
	for i := range d {
		for j := range d {
			q[i*d+j] = qm.At(i, j)
		}
	}
	return &ellipsoid{d: d, q: q, e: e, c: append([]float64(nil), c...), r2: r2, a: make([]float64, d), b: make([]float64, d)}, nil
}

// logDetRatio is log det(Σ/λ) = Σ_i log(e_i/λ).
func (el *ellipsoid) logDetRatio(lambda float64) float64 {
	var s float64
	for _, v := range el.e {
		s += math.Log(v / lambda)
	}
	return s
}

// maxSemiAxis is the longest semi-axis, √(r2 / e_min).
func (el *ellipsoid) maxSemiAxis() float64 { return math.Sqrt(el.r2 / el.e[0]) }

// norm2 is ‖w − c‖²_Σ.
func (el *ellipsoid) norm2(w []float64) float64 {
	el.coords(w, el.a)
	var s float64
	for i, v := range el.a {
		s += el.e[i] * v * v
	}
	return s
}

// coords writes Qᵀ(w − c) into dst.
func (el *ellipsoid) coords(w, dst []float64) {
	d := el.d
	for i := range d {
		el.b[i] = w[i] - el.c[i]
	}
	for j := range d {
		dst[j] = 0
	}
	for i := range d {
		bi := el.b[i]
		if bi == 0 {
			continue
		}
		row := el.q[i*d : (i+1)*d]
		for j, v := range row {
			dst[j] += v * bi
		}
	}
}

// project writes into dst the Euclidean projection of z onto the ball,
// argmin_{w in ball} ‖w − z‖₂, and reports whether z was already inside
// (then dst = z). dst may alias z.
//
// With y = Qᵀ(z − c), the projection is c + Q v with v_i = y_i/(1 + µe_i),
// where µ ≥ 0 solves the secular equation Σ_i e_i y_i²/(1 + µe_i)² = r2
// (the KKT conditions of the problem: z − w = µΣ(w − c)). The left side
// decreases in µ; µ is found by Newton's method safeguarded by bisection
// on [0, ‖y‖/√(e_min r2)], where the left side is ≤ r2.
func (el *ellipsoid) project(dst, z []float64) bool {
	d := el.d
	y := el.a
	el.coords(z, y)
	g := func(mu float64) (val, der float64) {
		for i, v := range y {
			den := 1 + mu*el.e[i]
			t := el.e[i] * v * v / (den * den)
			val += t
			der -= 2 * t * el.e[i] / den
		}
		return val - el.r2, der
	}
	g0, _ := g(0)
	if g0 <= 0 {
		copy(dst, z)
		return true
	}
	var ny float64
	for _, v := range y {
		ny += v * v
	}
	lo, hi := 0.0, math.Sqrt(ny/(el.e[0]*el.r2))
	mu := 0.0
	for range 200 {
		val, der := g(mu)
		if math.Abs(val) <= 1e-13*el.r2 {
			break
		}
		if val > 0 {
			lo = mu
		} else {
			hi = mu
		}
		next := mu - val/der
		if !(next > lo && next < hi) || der >= 0 {
			next = 0.5 * (lo + hi)
		}
		if next == mu {
			break
		}
		mu = next
	}
	// v = y/(1 + µe), then rescale onto the boundary so rounding can never
	// leave the result outside.
	var s float64
	for i, v := range y {
		y[i] = v / (1 + mu*el.e[i])
		s += el.e[i] * y[i] * y[i]
	}
	if s > el.r2 {
		f := math.Sqrt(el.r2 / s)
		for i := range y {
			y[i] *= f
		}
	}
	for i := range d {
		row := el.q[i*d : (i+1)*d]
		var t float64
		for j, v := range row {
			t += v * y[j]
		}
		dst[i] = el.c[i] + t
	}
	return false
}
