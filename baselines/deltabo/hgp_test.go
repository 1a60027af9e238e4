package deltabo

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/gp"
)

func randomPoints(rng *rand.Rand, n, dim int) (x, r, s []float64) {
	for range n * dim {
		x = append(x, rng.Float64())
	}
	for i := range n {
		r = append(r, math.Sin(5*x[i*dim])+0.3*rng.NormFloat64())
		s = append(s, 0.05*rng.Float64())
	}
	return x, r, s
}

// The analytic gradient of the heteroscedastic log marginal likelihood
// matches central finite differences, for both kernels.
func TestHGPLikelihoodGradient(t *testing.T) {
	for _, kind := range []gp.Kind{gp.SquaredExp, gp.Matern52} {
		rng := rand.New(rand.NewPCG(1, 2))
		const dim = 3
		x, r, s := randomPoints(rng, 15, dim)
		h := dHyper{Tau2: 0.8, Ls: []float64{0.3, 0.5, 0.9}, Noise: 0.07, Kernel: kind}
		lmlAt := func(p []float64) float64 {
			hh := dHyper{Tau2: math.Exp(p[0]), Ls: []float64{math.Exp(p[1]), math.Exp(p[2]), math.Exp(p[3])}, Noise: math.Exp(p[4]), Kernel: kind}
			m, err := newHGP(dim, hh, x, r, s)
			if err != nil {
				t.Fatal(err)
			}
			l, err := m.lml(nil)
			if err != nil {
				t.Fatal(err)
			}
			return l
		}
		p := []float64{math.Log(h.Tau2), math.Log(h.Ls[0]), math.Log(h.Ls[1]), math.Log(h.Ls[2]), math.Log(h.Noise)}
		m, err := newHGP(dim, h, x, r, s)
		if err != nil {
			t.Fatal(err)
		}
		g := make([]float64, len(p))
		if _, err := m.lml(g); err != nil {
			t.Fatal(err)
		}
		const eps = 1e-5
		for i := range p {
			pp := append([]float64(nil), p...)
			pp[i] += eps
			lp := lmlAt(pp)
			pp[i] -= 2 * eps
			lm := lmlAt(pp)
			fd := (lp - lm) / (2 * eps)
			if math.Abs(fd-g[i]) > 1e-5*(1+math.Abs(fd)) {
				t.Errorf("%v: ∂L/∂θ[%d] = %.8g, finite difference %.8g", kind, i, g[i], fd)
			}
		}
	}
}

// With zero per-observation variances the difference GP is ordinary GP
// regression: its posterior and likelihood equal package gp's for the same
// kernel and hyperparameters.
func TestHGPMatchesGPWithoutSourceVariance(t *testing.T) {
	for _, kind := range []gp.Kind{gp.SquaredExp, gp.Matern52} {
		rng := rand.New(rand.NewPCG(3, 4))
		const dim = 2
		x, r, _ := randomPoints(rng, 20, dim)
		s := make([]float64, 20)
		h := dHyper{Tau2: 1.3, Ls: []float64{0.2, 0.6}, Noise: 0.05, Kernel: kind}
		m, err := newHGP(dim, h, x, r, s)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := gp.New(gp.Kernel{Kind: kind, Dim: dim, ARD: true}, gp.Hyper{SignalVar: h.Tau2, Lengthscales: h.Ls, NoiseVar: h.Noise}, x, r)
		if err != nil {
			t.Fatal(err)
		}
		l, _ := m.lml(nil)
		if math.Abs(l-ref.LogLikelihood()) > 1e-9*math.Abs(l) {
			t.Errorf("%v: log likelihood %.12g, package gp %.12g", kind, l, ref.LogLikelihood())
		}
		xs, _, _ := randomPoints(rng, 7, dim)
		mu, vr := make([]float64, 7), make([]float64, 7)
		m.predict(xs, mu, vr)
		rmu, rvr := make([]float64, 7), make([]float64, 7)
		if err := ref.PredictStd(xs, rmu, rvr); err != nil {
			t.Fatal(err)
		}
		for j := range mu {
			if math.Abs(mu[j]-rmu[j]) > 1e-9 || math.Abs(vr[j]-rvr[j]) > 1e-9 {
				t.Errorf("%v: point %d: (%.10g, %.10g), package gp (%.10g, %.10g)", kind, j, mu[j], vr[j], rmu[j], rvr[j])
			}
		}
	}
}

// A point observed with a large source variance σ²_g(x_i) pulls the
// posterior less, and leaves more variance, than the same point observed
// with none (Algorithm 1 line 5's per-observation noise is used).
func TestHGPPerObservationNoise(t *testing.T) {
	x := []float64{0.3, 0.7}
	r := []float64{1, -1}
	h := dHyper{Tau2: 1, Ls: []float64{0.2}, Noise: 0.01, Kernel: gp.SquaredExp}
	sure, _ := newHGP(1, h, x, r, []float64{0, 0})
	unsure, _ := newHGP(1, h, x, r, []float64{2, 0})
	mu1, v1 := make([]float64, 1), make([]float64, 1)
	mu2, v2 := make([]float64, 1), make([]float64, 1)
	sure.predict([]float64{0.3}, mu1, v1)
	unsure.predict([]float64{0.3}, mu2, v2)
	if !(mu2[0] < mu1[0] && v2[0] > v1[0]) {
		t.Errorf("at x = 0.3: without source variance (μ, σ²) = (%.4f, %.4f), with σ²_g = 2 (%.4f, %.4f); want a smaller mean and a larger variance", mu1[0], v1[0], mu2[0], v2[0])
	}
}

// ML-II on data from a known δ recovers a sensible fit and stays inside
// the bounds; degenerate data (constant, duplicate inputs) fits without error.
func TestFitHGP(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x, r, s := randomPoints(rng, 40, 1)
	m, err := fitHGP(gp.SquaredExp, 1, x, r, s, nil, 2, rng)
	if err != nil {
		t.Fatal(err)
	}
	if m.h.Tau2 < tau2Range[0] || m.h.Tau2 > tau2Range[1] || m.h.Ls[0] < lsRange[0] || m.h.Ls[0] > lsRange[1] || m.h.Noise < noiseRange[0] || m.h.Noise > noiseRange[1] {
		t.Errorf("fit outside the bounds: %+v", m.h)
	}
	// sin(5x) has a length scale well below 1 and noise sd 0.3.
	if m.h.Ls[0] > 0.6 || m.h.Noise < 0.02 || m.h.Noise > 0.3 {
		t.Errorf("fit %+v: want ℓ < 0.6 and σ² near 0.09", m.h)
	}
	for _, c := range []struct {
		name string
		x, r []float64
	}{
		{"constant", []float64{0.1, 0.5, 0.9}, []float64{2, 2, 2}},
		{"duplicates", []float64{0.5, 0.5, 0.5, 0.5}, []float64{1, 1.1, 0.9, 1}},
		{"zeros", []float64{0, 0}, []float64{0, 0}},
		{"single", []float64{0.4}, []float64{-3}},
	} {
		m, err := fitHGP(gp.Matern52, 1, c.x, c.r, make([]float64, len(c.r)), nil, 1, rng)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		mu, vr := make([]float64, 1), make([]float64, 1)
		m.predict([]float64{0.5}, mu, vr)
		if math.IsNaN(mu[0]) || math.IsNaN(vr[0]) || vr[0] < 0 {
			t.Errorf("%s: prediction (%v, %v)", c.name, mu[0], vr[0])
		}
	}
}
