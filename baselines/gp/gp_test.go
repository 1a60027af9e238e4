package gp

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > tol*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.15g, want %.15g (tol %g)", name, got, want, tol)
	}
}

// One data point, squared-exponential kernel: everything by hand.
//
//	K = σ² + σ_n²,  k* = σ² exp(-(x*-x1)²/(2ℓ²)),
//	μ = k* y1 / K,  var = σ² − k*²/K,
//	log p(y) = −y1²/(2K) − ½ log K − ½ log 2π.
func TestOnePointClosedForm(t *testing.T) {
	k := Kernel{Kind: SquaredExp, Dim: 1, ARD: true}
	h := Hyper{SignalVar: 2, Lengthscales: []float64{0.5}, NoiseVar: 0.1}
	x, y := []float64{0.3}, []float64{1.5}
	m, err := New(k, h, x, y)
	if err != nil {
		t.Fatal(err)
	}
	Kxx := 2.1
	for _, xs := range []float64{0.3, 0.8, 1.0} {
		ks := 2 * math.Exp(-(xs-0.3)*(xs-0.3)/(2*0.25))
		mean, vr := make([]float64, 1), make([]float64, 1)
		if err := m.Predict([]float64{xs}, mean, vr); err != nil {
			t.Fatal(err)
		}
		near(t, "mean", mean[0], ks*1.5/Kxx, 1e-12)
		near(t, "variance", vr[0], 2-ks*ks/Kxx, 1e-12)
	}
	wantL := -1.5*1.5/(2*Kxx) - 0.5*math.Log(Kxx) - 0.5*math.Log(2*math.Pi)
	near(t, "log likelihood", m.LogLikelihood(), wantL, 1e-12)
	l, err := LogLikelihood(k, h, x, y, nil)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "LogLikelihood", l, wantL, 1e-12)
}

// Two data points: K = [[a, c], [c, a]] with a = σ² + σ_n², c = k(x1, x2),
// K⁻¹ = [[a, −c], [−c, a]] / (a² − c²).
func TestTwoPointsClosedForm(t *testing.T) {
	matern := func(r float64) float64 {
		return (1 + math.Sqrt(5)*r + 5*r*r/3) * math.Exp(-math.Sqrt(5)*r)
	}
	se := func(r float64) float64 { return math.Exp(-r * r / 2) }
	cases := []struct {
		name   string
		k      Kernel
		h      Hyper
		x      []float64
		y      []float64
		xs     []float64
		kernel func(a, b []float64) float64
	}{
		{
			name: "matern52 1-D",
			k:    Kernel{Kind: Matern52, Dim: 1, ARD: true},
			h:    Hyper{SignalVar: 1.5, Lengthscales: []float64{0.4}, NoiseVar: 0.05},
			x:    []float64{0.1, 0.6}, y: []float64{-1, 2},
			xs: []float64{0.35},
			kernel: func(a, b []float64) float64 {
				return 1.5 * matern(math.Abs(a[0]-b[0])/0.4)
			},
		},
		{
			name: "se ARD 2-D",
			k:    Kernel{Kind: SquaredExp, Dim: 2, ARD: true},
			h:    Hyper{SignalVar: 0.7, Lengthscales: []float64{0.3, 2}, NoiseVar: 0.2},
			x:    []float64{0.1, 0.9, 0.5, 0.2}, y: []float64{0.4, -0.3},
			xs: []float64{0.2, 0.5},
			kernel: func(a, b []float64) float64 {
				d0, d1 := (a[0]-b[0])/0.3, (a[1]-b[1])/2
				return 0.7 * se(math.Sqrt(d0*d0+d1*d1))
			},
		},
		{
			name: "time-varying se",
			k:    Kernel{Kind: SquaredExp, Dim: 2, TimeVarying: true},
			h:    Hyper{SignalVar: 1, Lengthscales: []float64{0.5}, NoiseVar: 0.1, Epsilon: 0.3},
			x:    []float64{0, 0.2, 1, 0.4}, y: []float64{1, 0.5},
			xs: []float64{1.5, 0.3},
			kernel: func(a, b []float64) float64 {
				return math.Pow(0.7, math.Abs(a[0]-b[0])/2) * se(math.Abs(a[1]-b[1])/0.5)
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := c.k.Dim
			x1, x2 := c.x[:d], c.x[d:]
			a := c.h.SignalVar + c.h.NoiseVar
			cc := c.kernel(x1, x2)
			det := a*a - cc*cc
			inv := [2][2]float64{{a / det, -cc / det}, {-cc / det, a / det}}
			ks := [2]float64{c.kernel(c.xs, x1), c.kernel(c.xs, x2)}
			var mean, quadK, quadY float64
			for i := range 2 {
				for j := range 2 {
					mean += ks[i] * inv[i][j] * c.y[j]
					quadK += ks[i] * inv[i][j] * ks[j]
					quadY += c.y[i] * inv[i][j] * c.y[j]
				}
			}
			wantVar := c.h.SignalVar - quadK
			wantL := -0.5*quadY - 0.5*math.Log(det) - math.Log(2*math.Pi)

			m, err := New(c.k, c.h, c.x, c.y)
			if err != nil {
				t.Fatal(err)
			}
			mu, vr := make([]float64, 1), make([]float64, 1)
			if err := m.Predict(c.xs, mu, vr); err != nil {
				t.Fatal(err)
			}
			near(t, "mean", mu[0], mean, 1e-12)
			near(t, "variance", vr[0], wantVar, 1e-12)
			near(t, "log likelihood", m.LogLikelihood(), wantL, 1e-12)
			kv, err := K(c.k, c.h, x1, x2)
			if err != nil {
				t.Fatal(err)
			}
			near(t, "k(x1,x2)", kv, cc, 1e-14)
		})
	}
}

func randomData(rng *rand.Rand, n, d int) (x, y []float64) {
	x = make([]float64, n*d)
	for i := range x {
		x[i] = rng.Float64()
	}
	y = make([]float64, n)
	for i := range y {
		y[i] = math.Sin(5*x[i*d]) + 0.3*rng.NormFloat64()
	}
	return x, y
}

var gradKernels = []struct {
	name string
	k    Kernel
	h    Hyper
}{
	{"se ard", Kernel{Kind: SquaredExp, Dim: 3, ARD: true}, Hyper{SignalVar: 1.3, Lengthscales: []float64{0.3, 0.7, 1.1}, NoiseVar: 0.2}},
	{"matern ard", Kernel{Kind: Matern52, Dim: 3, ARD: true}, Hyper{SignalVar: 0.8, Lengthscales: []float64{0.25, 0.5, 2}, NoiseVar: 0.05}},
	{"matern shared", Kernel{Kind: Matern52, Dim: 2}, Hyper{SignalVar: 1, Lengthscales: []float64{0.4}, NoiseVar: 0.3}},
	{"tv se shared", Kernel{Kind: SquaredExp, Dim: 3, TimeVarying: true}, Hyper{SignalVar: 1.1, Lengthscales: []float64{0.6}, NoiseVar: 0.1, Epsilon: 0.2}},
	{"tv matern ard", Kernel{Kind: Matern52, Dim: 3, ARD: true, TimeVarying: true}, Hyper{SignalVar: 0.9, Lengthscales: []float64{0.3, 0.8}, NoiseVar: 0.15, Epsilon: 0.35}},
}

// The analytic likelihood gradient matches central finite differences.
func TestLikelihoodGradientFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range gradKernels {
		t.Run(c.name, func(t *testing.T) {
			x, y := randomData(rng, 12, c.k.Dim)
			if c.k.TimeVarying {
				for i := range 12 {
					x[i*c.k.Dim] = float64(i) / 11 // time increases
				}
			}
			grad := make([]float64, c.k.NumParams())
			if _, err := LogLikelihood(c.k, c.h, x, y, grad); err != nil {
				t.Fatal(err)
			}
			p := c.k.Params(c.h, nil)
			const step = 1e-6
			for j := range p {
				at := func(delta float64) float64 {
					q := append([]float64(nil), p...)
					q[j] += delta
					h, err := c.k.HyperFromParams(q)
					if err != nil {
						t.Fatal(err)
					}
					l, err := LogLikelihood(c.k, h, x, y, nil)
					if err != nil {
						t.Fatal(err)
					}
					return l
				}
				fd := (at(step) - at(-step)) / (2 * step)
				if math.Abs(fd-grad[j]) > 1e-6*math.Max(1, math.Abs(fd)) {
					t.Errorf("param %d: analytic %.10g, finite difference %.10g", j, grad[j], fd)
				}
			}
		})
	}
}

// PredictGrad's mean and variance gradients match finite differences of
// PredictStd, and its values match PredictStd.
func TestPredictGradFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range gradKernels {
		t.Run(c.name, func(t *testing.T) {
			d := c.k.Dim
			x, y := randomData(rng, 10, d)
			m, err := New(c.k, c.h, x, y)
			if err != nil {
				t.Fatal(err)
			}
			pt := make([]float64, d)
			for i := range pt {
				pt[i] = rng.Float64()
			}
			dm, dv := make([]float64, d), make([]float64, d)
			mu, vr := m.PredictGrad(pt, dm, dv, nil)
			m1, v1 := make([]float64, 1), make([]float64, 1)
			if err := m.PredictStd(pt, m1, v1); err != nil {
				t.Fatal(err)
			}
			near(t, "mean", mu, m1[0], 1e-10)
			near(t, "variance", vr, v1[0], 1e-10)
			first := 0
			if c.k.TimeVarying {
				first = 1
			}
			const step = 1e-6
			for j := first; j < d; j++ {
				at := func(delta float64) (float64, float64) {
					q := append([]float64(nil), pt...)
					q[j] += delta
					if err := m.PredictStd(q, m1, v1); err != nil {
						t.Fatal(err)
					}
					return m1[0], v1[0]
				}
				mp, vp := at(step)
				mm, vm := at(-step)
				near(t, "dmean", dm[j], (mp-mm)/(2*step), 1e-5)
				near(t, "dvar", dv[j], (vp-vm)/(2*step), 1e-5)
			}
		})
	}
}

// ML-II recovers the lengthscale of data drawn from a GP with a known
// lengthscale. Tolerance: within 25% of the truth, for each of 3 seeds
// (150 points in 1-D, ℓ = 0.15, σ² = 1, σ_n² = 0.01).
func TestFitRecoversLengthscale(t *testing.T) {
	const n, ell = 150, 0.15
	k := Kernel{Kind: SquaredExp, Dim: 1, ARD: true}
	truth := Hyper{SignalVar: 1, Lengthscales: []float64{ell}, NoiseVar: 0.01}
	for seed := uint64(1); seed <= 3; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.Float64()
		}
		y := sampleGP(t, k, truth, x, rng)
		m, err := Fit(x, y, FitOptions{Kernel: k, Restarts: 3}, rng)
		if err != nil {
			t.Fatal(err)
		}
		got := m.Hyper().Lengthscales[0]
		t.Logf("seed %d: fitted ℓ = %.4f (truth %.2f), σ² = %.3f, σ_n² = %.4f (standardised units)", seed, got, ell, m.Hyper().SignalVar, m.Hyper().NoiseVar)
		if math.Abs(got-ell) > 0.25*ell {
			t.Errorf("seed %d: fitted lengthscale %.4f, want %.2f ± 25%%", seed, got, ell)
		}
	}
}

// sampleGP draws y ~ N(0, K + σ_n² I) by Cholesky.
func sampleGP(t *testing.T, k Kernel, h Hyper, x []float64, rng *rand.Rand) []float64 {
	t.Helper()
	n := len(x) / k.Dim
	z := make([]float64, n)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	w := newWorkspace(k, x, z)
	e, err := newEval(k, h)
	if err != nil {
		t.Fatal(err)
	}
	u, err := w.factor(e, h.NoiseVar)
	if err != nil {
		t.Fatal(err)
	}
	// y = Uᵀ z.
	y := make([]float64, n)
	for i := range n {
		var s float64
		for j := 0; j <= i; j++ {
			s += u.Data[j*u.Stride+i] * z[j]
		}
		y[i] = s
	}
	return y
}

func allFinite(v ...[]float64) bool {
	for _, s := range v {
		for _, x := range s {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return false
			}
		}
	}
	return true
}

// Degenerate data never crashes and never yields NaN.
func TestFitDegenerate(t *testing.T) {
	k := Kernel{Kind: Matern52, Dim: 2, ARD: true}
	grid := []float64{0.1, 0.2, 0.5, 0.5, 0.9, 0.1, 0.3, 0.7}
	cases := []struct {
		name string
		x, y []float64
	}{
		{"single point", []float64{0.4, 0.6}, []float64{3}},
		{"all equal targets", grid, []float64{2, 2, 2, 2}},
		{"all zero targets", grid, []float64{0, 0, 0, 0}},
		{"duplicate inputs", []float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.2, 0.2}, []float64{1, 1.2, 0.9, -3}},
		{"duplicates, equal targets", []float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5}, []float64{7, 7, 7}},
		{"scale 1e-12", grid, []float64{1e-12, 3e-12, -2e-12, 5e-12}},
		{"scale 1e12", grid, []float64{1e12, 3e12, -2e12, 5e12}},
		{"offset 1e12, tiny spread", grid, []float64{1e12, 1e12 + 1e-3, 1e12, 1e12 + 2e-3}},
		{"mixed 1e-12 and 1e12", grid, []float64{1e-12, 1e12, 0, -1e12}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 8))
			m, err := Fit(c.x, c.y, FitOptions{Kernel: k, Restarts: 2}, rng)
			if err != nil {
				t.Fatalf("Fit: %v", err)
			}
			h := m.Hyper()
			if !allFinite([]float64{h.SignalVar, h.NoiseVar, m.LogLikelihood()}, h.Lengthscales) {
				t.Fatalf("non-finite hyperparameters %+v, lml %v", h, m.LogLikelihood())
			}
			xs := []float64{0, 0, 0.5, 0.5, 1, 1, 0.1, 0.2}
			mean, vr := make([]float64, 4), make([]float64, 4)
			if err := m.Predict(xs, mean, vr); err != nil {
				t.Fatal(err)
			}
			if !allFinite(mean, vr) {
				t.Fatalf("non-finite prediction: mean %v var %v", mean, vr)
			}
			for _, v := range vr {
				if v < 0 {
					t.Fatalf("negative variance %v", v)
				}
			}
			if err := m.PredictStd(xs, mean, vr); err != nil || !allFinite(mean, vr) {
				t.Fatalf("standardised prediction: %v %v %v", err, mean, vr)
			}
			dm, dv := make([]float64, 2), make([]float64, 2)
			mu, va := m.PredictGrad([]float64{0.3, 0.3}, dm, dv, nil)
			if !allFinite([]float64{mu, va}, dm, dv) {
				t.Fatalf("non-finite PredictGrad: %v %v %v %v", mu, va, dm, dv)
			}
		})
	}
	// Constant targets: the posterior mean is the constant everywhere.
	m, err := Fit(grid, []float64{2, 2, 2, 2}, FitOptions{Kernel: k}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mean, vr := make([]float64, 1), make([]float64, 1)
	if err := m.Predict([]float64{0.77, 0.01}, mean, vr); err != nil {
		t.Fatal(err)
	}
	near(t, "constant mean", mean[0], 2, 1e-12)
	// Extreme scales: the fit interpolates its data in data units.
	for _, s := range []float64{1e-12, 1e12} {
		y := []float64{1 * s, 3 * s, -2 * s, 5 * s}
		m, err := Fit(grid, y, FitOptions{Kernel: k, Restarts: 2}, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		mean, vr := make([]float64, 4), make([]float64, 4)
		if err := m.Predict(grid, mean, vr); err != nil {
			t.Fatal(err)
		}
		for i := range y {
			// Within 3 posterior sds of each observation, at the data's scale.
			tol := 3 * math.Sqrt(vr[i]+m.Hyper().NoiseVar*m.Scale()*m.Scale())
			if math.Abs(mean[i]-y[i]) > tol {
				t.Errorf("scale %g: mean %g at a point observed as %g (var %g)", s, mean[i], y[i], vr[i])
			}
		}
	}
}

// Non-finite data is an error, not a NaN model.
func TestFitRejectsNonFinite(t *testing.T) {
	k := Kernel{Kind: SquaredExp, Dim: 1, ARD: true}
	for _, c := range []struct {
		name string
		x, y []float64
	}{
		{"NaN target", []float64{0.1, 0.2}, []float64{1, math.NaN()}},
		{"+Inf target", []float64{0.1, 0.2}, []float64{math.Inf(1), 1}},
		{"-Inf target", []float64{0.1, 0.2}, []float64{0, math.Inf(-1)}},
		{"NaN input", []float64{math.NaN(), 0.2}, []float64{1, 2}},
		{"no data", nil, nil},
		{"shape mismatch", []float64{0.1}, []float64{1, 2}},
	} {
		if _, err := Fit(c.x, c.y, FitOptions{Kernel: k}, nil); err == nil {
			t.Errorf("%s: Fit accepted it", c.name)
		}
		if _, err := New(k, Hyper{SignalVar: 1, Lengthscales: []float64{1}, NoiseVar: 1}, c.x, c.y); err == nil {
			t.Errorf("%s: New accepted it", c.name)
		}
	}
	m, err := New(k, Hyper{SignalVar: 1, Lengthscales: []float64{1}, NoiseVar: 1}, []float64{0.5}, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Predict([]float64{math.NaN()}, make([]float64, 1), make([]float64, 1)); err == nil {
		t.Error("Predict accepted a NaN point")
	}
}

func TestStandardize(t *testing.T) {
	for _, c := range []struct {
		y             []float64
		offset, scale float64
	}{
		{[]float64{1, 3}, 2, 1},
		{[]float64{5, 5, 5}, 5, 1},
		{[]float64{0}, 0, 1},
		{[]float64{1e300, -1e300}, 0, 1e300},
		{[]float64{2e-12, 4e-12}, 3e-12, 1e-12},
	} {
		o, s := Standardize(c.y)
		near(t, "offset", o, c.offset, 1e-12)
		if math.Abs(s-c.scale) > 1e-12*c.scale {
			t.Errorf("Standardize(%v) scale %g, want %g", c.y, s, c.scale)
		}
	}
}

// Fit is a deterministic function of its data, options and rng state.
func TestFitDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x, y := randomData(rng, 30, 2)
	k := Kernel{Kind: Matern52, Dim: 2, ARD: true}
	a, err := Fit(x, y, FitOptions{Kernel: k, Restarts: 2}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Fit(x, y, FitOptions{Kernel: k, Restarts: 2}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if a.LogLikelihood() != b.LogLikelihood() || a.Hyper().Lengthscales[0] != b.Hyper().Lengthscales[0] {
		t.Errorf("two identical fits differ: %v vs %v", a.Hyper(), b.Hyper())
	}
	// The fitted optimum is at least as good as the default start.
	start := Hyper{SignalVar: 1, Lengthscales: []float64{0.5, 0.5}, NoiseVar: 0.1}
	o, s := Standardize(y)
	ys := make([]float64, len(y))
	for i := range y {
		ys[i] = (y[i] - o) / s
	}
	l0, err := LogLikelihood(k, start, x, ys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.LogLikelihood() < l0 {
		t.Errorf("ML-II optimum %g below its starting point %g", a.LogLikelihood(), l0)
	}
}

// A singular covariance (duplicate inputs, negligible noise) is factorised
// with jitter instead of failing, and predictions stay finite.
func TestCholeskyJitter(t *testing.T) {
	k := Kernel{Kind: SquaredExp, Dim: 1, ARD: true}
	h := Hyper{SignalVar: 1, Lengthscales: []float64{0.3}, NoiseVar: 1e-300}
	x := []float64{0.5, 0.5, 0.5, 0.2}
	y := []float64{1, 1, 1, 0}
	m, err := New(k, h, x, y)
	if err != nil {
		t.Fatal(err)
	}
	if !(m.Jitter() > 0) {
		t.Errorf("jitter %g, want > 0 for a singular covariance", m.Jitter())
	}
	mean, vr := make([]float64, 2), make([]float64, 2)
	if err := m.Predict([]float64{0.5, 0.9}, mean, vr); err != nil {
		t.Fatal(err)
	}
	if !allFinite(mean, vr) || math.Abs(mean[0]-1) > 1e-3 {
		t.Errorf("prediction at a triplicated point: mean %v var %v, want mean ≈ 1", mean, vr)
	}
	// Without duplicates no jitter is needed.
	m, err = New(k, h, []float64{0.1, 0.9}, []float64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if m.Jitter() != 0 {
		t.Errorf("jitter %g for a well-conditioned covariance", m.Jitter())
	}
}
