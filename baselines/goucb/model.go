package goucb

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/optimize"
)

// network is GO-UCB's parametric model, the paper's experiments' (Section 6)
// two linear layers with a sigmoid between them:
//
//	f_w(x) = w₂ᵀ sigmoid(W₁x + b₁) + b₂,  W₁ ∈ ℝ^{H×h}, b₁, w₂ ∈ ℝ^H, b₂ ∈ ℝ,
//
// with the parameters in one vector w = [W₁ (row-major), b₁, w₂, b₂] of
// length d_w = H(h+2) + 1. The configuration u ∈ [0, 1]^h enters as
// x = scale·(2u − 1) ∈ [−scale, scale]^h: the paper's synthetic domain is
// [−5, 5]^{d_x}. With inputs in [0, 1] and the default initialisation the
// pre-activations would vary by about ±1 over the whole domain, every
// sigmoid would be nearly linear there, and the network's features (and
// its gradient features ∇_w f) could not represent a local optimum.
type network struct {
	in, hidden int
	scale      float64
}

// dim is d_w.
func (n network) dim() int { return n.hidden*(n.in+2) + 1 }

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// eval returns f_w at the configuration u = x ∈ [0, 1]^h and, when gw
// (len d_w) or gx (len h) is non-nil, writes ∇_w f or ∇_u f into them.
func (n network) eval(w, x, gw, gx []float64) float64 {
	h, H := n.in, n.hidden
	b1 := w[H*h : H*h+H]
	w2 := w[H*h+H : H*h+2*H]
	f := w[H*h+2*H]
	if gx != nil {
		for j := range gx {
			gx[j] = 0
		}
	}
	for k := range H {
		row := w[k*h : (k+1)*h]
		a := b1[k]
		for j, v := range row {
			a += v * n.scale * (2*x[j] - 1)
		}
		s := sigmoid(a)
		f += w2[k] * s
		ds := w2[k] * s * (1 - s) // ∂f/∂a_k
		if gw != nil {
			for j := range h {
				gw[k*h+j] = ds * n.scale * (2*x[j] - 1)
			}
			gw[H*h+k] = ds
			gw[H*h+H+k] = s
		}
		if gx != nil {
			for j, v := range row {
				gx[j] += ds * v * 2 * n.scale
			}
		}
	}
	if gw != nil {
		gw[H*h+2*H] = 1
	}
	return f
}

// initWeights draws PyTorch's default nn.Linear initialisation,
// U(±1/√fan_in) for weights and biases of each layer.
func (n network) initWeights(rng *rand.Rand, w []float64) {
	h, H := n.in, n.hidden
	a1, a2 := 1/math.Sqrt(float64(h)), 1/math.Sqrt(float64(H))
	for i := range H*h + H {
		w[i] = a1 * (2*rng.Float64() - 1)
	}
	for i := H*h + H; i < len(w); i++ {
		w[i] = a2 * (2*rng.Float64() - 1)
	}
}

// fitResult is the regression oracle's output.
type fitResult struct {
	W    []float64
	Loss float64 // ½Σ(f_w(x_j) − y_j)² + ½·decay·‖w‖² at W
}

// fit is the regression oracle of eq. (2): it minimises the squared loss
// ½Σ_j (f_w(x_j) − y_j)² plus ½·decay·‖w‖² (a small weight decay: with
// about √T points and d_w ≫ √T parameters the unregularised problem has a
// continuum of interpolating minimisers) by L-BFGS from restarts random
// initialisations, and returns the best. x is n×h row-major.
func (n network) fit(x, y []float64, decay float64, restarts, maxIter int, rng *rand.Rand) fitResult {
	dw := n.dim()
	h := n.in
	g := make([]float64, dw)
	loss := func(w, grad []float64) float64 {
		var l float64
		if grad != nil {
			for i := range grad {
				grad[i] = decay * w[i]
			}
		}
		for j := range y {
			var f float64
			if grad != nil {
				f = n.eval(w, x[j*h:(j+1)*h], g, nil)
			} else {
				f = n.eval(w, x[j*h:(j+1)*h], nil, nil)
			}
			r := f - y[j]
			l += 0.5 * r * r
			if grad != nil {
				for i, v := range g {
					grad[i] += r * v
				}
			}
		}
		for _, v := range w {
			l += 0.5 * decay * v * v
		}
		if math.IsNaN(l) || math.IsInf(l, 0) {
			return math.Inf(1)
		}
		return l
	}
	best := fitResult{Loss: math.Inf(1)}
	track := func(w []float64, l float64) {
		if l < best.Loss {
			best.Loss = l
			best.W = append(best.W[:0], w...)
		}
	}
	problem := optimize.Problem{
		Func: func(w []float64) float64 {
			l := loss(w, nil)
			track(w, l)
			return l
		},
		Grad: func(grad, w []float64) {
			if math.IsInf(loss(w, grad), 0) {
				for i := range grad {
					grad[i] = 0
				}
			}
		},
	}
	settings := &optimize.Settings{
		MajorIterations:   maxIter,
		GradientThreshold: 1e-8,
		Converger:         &optimize.FunctionConverge{Absolute: 1e-10, Relative: 1e-10, Iterations: 10},
	}
	w0 := make([]float64, dw)
	for range max(restarts, 1) {
		n.initWeights(rng, w0)
		track(w0, loss(w0, nil))
		// The best point seen is tracked in Func, so an optimiser error (a
		// failed line search) still leaves a usable fit.
		_, _ = optimize.Minimize(problem, w0, settings, &optimize.LBFGS{})
	}
	if best.W == nil {
		// Every loss was non-finite (impossible for finite data, since the
		// sigmoid layer is bounded); keep the last initialisation.
		best.W = append([]float64(nil), w0...)
	}
	return best
}
