package neuralbo

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// net is the two-layer ReLU network of the paper's Section 7 in the NTK
// parameterisation,
//
//	h(z; θ) = √m · W2 · ReLU(W1 z),  W1 ∈ R^{m×k}, W2 ∈ R^{1×m},
//
// with θ = (vec(W1), W2) ∈ R^p, p = m·k + m, stored row-major: W1[j, c] at
// θ[j·k + c], W2[j] at θ[m·k + j]. It has no biases, as in the paper; the
// caller appends a constant input (see embed).
type net struct {
	m, k int
}

func (n net) params() int { return n.m*n.k + n.m }

// forward returns h(z; θ). pre (len m) receives W1 z.
func (n net) forward(theta, z, pre []float64) float64 {
	m, k := n.m, n.k
	w2 := theta[m*k:]
	var s float64
	for j := range m {
		row := theta[j*k : (j+1)*k]
		var a float64
		for c, v := range row {
			a += v * z[c]
		}
		pre[j] = a
		if a > 0 {
			s += w2[j] * a
		}
	}
	return math.Sqrt(float64(m)) * s
}

// grad writes g(z; θ) = ∇_θ h(z; θ) into dst (len p), given pre = W1 z from
// forward:
//
//	∂h/∂W1[j, c] = √m · W2[j] · 1[(W1 z)_j > 0] · z_c,  ∂h/∂W2[j] = √m · ReLU((W1 z)_j).
func (n net) grad(theta, z, pre, dst []float64) {
	m, k := n.m, n.k
	sm := math.Sqrt(float64(m))
	w2 := theta[m*k:]
	for j := range m {
		row := dst[j*k : (j+1)*k]
		a := pre[j]
		if a > 0 {
			c0 := sm * w2[j]
			for c := range row {
				row[c] = c0 * z[c]
			}
			dst[m*k+j] = sm * a
		} else {
			for c := range row {
				row[c] = 0
			}
			dst[m*k+j] = 0
		}
	}
}

// initTheta draws θ0 with every entry independently N(0, 1/m): the
// initialisation of the paper's experiments (Section 7). Section 4 instead
// zeroes the last layer so that h(·; θ0) = 0; see the package comment.
func (n net) initTheta(rng *rand.Rand) []float64 {
	theta := make([]float64, n.params())
	sd := 1 / math.Sqrt(float64(n.m))
	for i := range theta {
		theta[i] = sd * rng.NormFloat64()
	}
	return theta
}

// trainer holds TrainNN's buffers.
type trainer struct {
	net   net
	pre   []float64 // m
	g     []float64 // p
	acc   []float64 // p, minibatch gradient
	order []int
}

func newTrainer(n net) *trainer {
	return &trainer{net: n, pre: make([]float64, n.m), g: make([]float64, n.params()), acc: make([]float64, n.params())}
}

// train is Algorithm 2 (TrainNN) run as the paper's experiments run it:
// minibatch SGD on
//
//	L(θ) = ½ Σ_i (h(z_i; θ) − y_i)² + ½ m λ ‖θ − θ0‖²
//
// divided by n (the same minimiser; the mean over a minibatch is an
// unbiased estimate of the data term of L/n, as a framework's mean-reduced
// loss computes it), for epochs passes over the data in minibatches of
// batch points, shuffled every epoch with rng, learning rate lr. theta is
// updated in place from its current value (θ0 or a warm start). zs is n×k
// row-major, ys the (standardised) targets.
func (t *trainer) train(theta, theta0, zs, ys []float64, lambda, lr float64, epochs, batch int, rng *rand.Rand) {
	n := len(ys)
	if n == 0 {
		return
	}
	k, p := t.net.k, t.net.params()
	reg := float64(t.net.m) * lambda / float64(n)
	if cap(t.order) < n {
		t.order = make([]int, n)
	}
	order := t.order[:n]
	for i := range order {
		order[i] = i
	}
	for range epochs {
		rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		for b0 := 0; b0 < n; b0 += batch {
			b1 := min(n, b0+batch)
			for i := range t.acc {
				t.acc[i] = 0
			}
			for _, i := range order[b0:b1] {
				z := zs[i*k : (i+1)*k]
				h := t.net.forward(theta, z, t.pre)
				e := h - ys[i]
				t.net.grad(theta, z, t.pre, t.g)
				blas64.Axpy(e, blas64.Vector{N: p, Inc: 1, Data: t.g}, blas64.Vector{N: p, Inc: 1, Data: t.acc})
			}
			inv := 1 / float64(b1-b0)
			for i := range theta {
				theta[i] -= lr * (inv*t.acc[i] + reg*(theta[i]-theta0[i]))
			}
		}
	}
}

// loss returns L(θ)/n, the objective train descends.
func (t *trainer) loss(theta, theta0, zs, ys []float64, lambda float64) float64 {
	n := len(ys)
	k := t.net.k
	var s float64
	for i := range n {
		e := t.net.forward(theta, zs[i*k:(i+1)*k], t.pre) - ys[i]
		s += 0.5 * e * e
	}
	var r float64
	for i := range theta {
		d := theta[i] - theta0[i]
		r += d * d
	}
	return (s + 0.5*float64(t.net.m)*lambda*r) / float64(n)
}

// invU is U⁻¹ for U = λI + Σ_i g_i g_iᵀ / m (Algorithm 1, lines 1 and 7),
// updated by Sherman–Morrison: with v = g/√m,
//
//	(U + v vᵀ)⁻¹ = U⁻¹ − (U⁻¹v)(U⁻¹v)ᵀ / (1 + vᵀU⁻¹v).
//
// Both triangles are stored (row-major p×p) and kept exactly symmetric, so
// that the variances of many candidates are one general matrix product
// (gonum's blocked Gemm is about 30× faster than its Symm at p = 600).
type invU struct {
	p   int
	a   []float64 // p×p, row-major, symmetric
	buf []float64 // p: U⁻¹v
	v   []float64 // p
}

func newInvU(p int, lambda float64) *invU {
	u := &invU{p: p, a: make([]float64, p*p), buf: make([]float64, p), v: make([]float64, p)}
	for i := range p {
		u.a[i*p+i] = 1 / lambda
	}
	return u
}

func (u *invU) general() blas64.General {
	return blas64.General{Rows: u.p, Cols: u.p, Stride: u.p, Data: u.a}
}

// update applies U ← U + g gᵀ/m.
func (u *invU) update(g []float64, m int) {
	p := u.p
	s := 1 / math.Sqrt(float64(m))
	for i, x := range g {
		u.v[i] = s * x
	}
	vv := blas64.Vector{N: p, Inc: 1, Data: u.v}
	bv := blas64.Vector{N: p, Inc: 1, Data: u.buf}
	blas64.Gemv(blas.NoTrans, 1, u.general(), vv, 0, bv)
	den := 1 + blas64.Dot(vv, bv)
	if !(den >= 1) || math.IsInf(den, 0) {
		// U⁻¹ is positive definite, so den ≥ 1; anything else is rounding
		// gone wrong or an overflow, and the update is skipped rather than
		// poisoning U⁻¹.
		return
	}
	f := 1 / den
	for i := range p {
		bi := f * u.buf[i]
		row := u.a[i*p : (i+1)*p]
		for j := i; j < p; j++ {
			row[j] -= bi * u.buf[j]
		}
		for j := i + 1; j < p; j++ {
			u.a[j*p+i] = row[j]
		}
	}
}

// quad writes σ²(x) = λ g(x)ᵀU⁻¹g(x)/m for the rows of gs (c×p, row-major)
// into dst (len c), using tmp (c×p) as scratch. Negative rounding is
// clamped to 0.
func (u *invU) quad(gs []float64, c int, lambda float64, m int, tmp, dst []float64) {
	p := u.p
	G := blas64.General{Rows: c, Cols: p, Stride: p, Data: gs}
	T := blas64.General{Rows: c, Cols: p, Stride: p, Data: tmp}
	// T = G U⁻¹.
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, G, u.general(), 0, T)
	f := lambda / float64(m)
	for r := range c {
		var s float64
		gr, tr := gs[r*p:(r+1)*p], tmp[r*p:(r+1)*p]
		for i, x := range gr {
			s += x * tr[i]
		}
		dst[r] = math.Max(0, f*s)
	}
}

// full returns a copy of U⁻¹ (row-major p×p).
func (u *invU) full() []float64 { return append([]float64(nil), u.a...) }
