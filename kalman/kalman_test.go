package kalman

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// testModel is a 3-state LGDS with a non-diagonal, non-symmetric Γ
// (ρ(Γ) ≈ 0.86), a full-rank Q and σ² = 0.25.
func testModel(t *testing.T) *Model {
	t.Helper()
	g := mat.NewDense(3, 3, []float64{
		0.80, 0.15, 0.00,
		-0.10, 0.60, 0.20,
		0.05, 0.00, 0.50,
	})
	q := mat.NewSymDense(3, []float64{
		0.30, 0.10, 0.00,
		0.10, 0.20, 0.05,
		0.00, 0.05, 0.10,
	})
	m, err := NewModel(g, q, 0.25)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func unit(n, i int) []float64 {
	e := make([]float64, n)
	e[i] = 1
	return e
}

// lyapunovResidual returns max |Σ − ΓΣΓᵀ − Q|.
func lyapunovResidual(m *Model, s mat.Symmetric) float64 {
	var t, u mat.Dense
	t.Mul(m.Gamma, s)
	u.Mul(&t, m.Gamma.T())
	n := m.Dim()
	r := 0.0
	for i := range n {
		for j := range n {
			r = math.Max(r, math.Abs(s.At(i, j)-u.At(i, j)-m.Q.At(i, j)))
		}
	}
	return r
}

func TestStationaryCovAgainstRecursion(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	randomModel := func(n int, diagonal bool) *Model {
		g := mat.NewDense(n, n, nil)
		for i := range n {
			for j := range n {
				if !diagonal || i == j {
					g.Set(i, j, rng.NormFloat64())
				}
			}
		}
		rho, err := SpectralRadius(g)
		if err != nil {
			t.Fatal(err)
		}
		g.Scale(0.9/rho, g)
		a := mat.NewDense(n, n, nil)
		for i := range n {
			for j := range n {
				a.Set(i, j, rng.NormFloat64())
			}
		}
		q := mat.NewSymDense(n, nil)
		q.SymOuterK(1.0/float64(n), a)
		m, err := NewModel(g, q, 0.1)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	cases := []struct {
		name     string
		m        *Model
		diagonal bool
	}{
		{"kronecker n=3", testModel(t), false},
		{"kronecker n=6", randomModel(6, false), false},
		{"diagonal n=5", randomModel(5, true), true},
		{"doubling n=40", randomModel(40, false), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if (c.m.diag != nil) != c.diagonal {
				t.Fatalf("diagonal fast path detection: got %v", c.m.diag != nil)
			}
			s, err := c.m.StationaryCov()
			if err != nil {
				t.Fatal(err)
			}
			if r := lyapunovResidual(c.m, s); r > 1e-10 {
				t.Errorf("Lyapunov residual %g", r)
			}
			// Direct recursion Σ_{k+1} = ΓΣ_kΓᵀ + Q from 0; ρ = 0.9,
			// so 600 steps leave an error below 0.9^1200.
			n := c.m.Dim()
			p := mat.NewDense(n, n, nil)
			var tmp, u mat.Dense
			for range 600 {
				tmp.Mul(c.m.Gamma, p)
				u.Mul(&tmp, c.m.Gamma.T())
				p.Add(&u, c.m.Q)
			}
			for i := range n {
				for j := range n {
					if d := math.Abs(p.At(i, j) - s.At(i, j)); d > 1e-9 {
						t.Fatalf("Σ[%d,%d] = %g, recursion gives %g", i, j, s.At(i, j), p.At(i, j))
					}
				}
			}
		})
	}
}

func TestNewModelErrors(t *testing.T) {
	q2 := mat.NewSymDense(2, []float64{1, 0, 0, 1})
	cases := []struct {
		name  string
		g     mat.Matrix
		q     mat.Symmetric
		s2    float64
		wants string
	}{
		{"unstable", mat.NewDense(2, 2, []float64{1.0, 0, 0, 0.5}), q2, 1, "spectral radius"},
		{"complex unstable", mat.NewDense(2, 2, []float64{0.8, -0.7, 0.7, 0.8}), q2, 1, "spectral radius"},
		{"not square", mat.NewDense(2, 3, nil), q2, 1, "square"},
		{"Q size", mat.NewDense(3, 3, nil), q2, 1, "Q is 2×2"},
		{"Q indefinite", mat.NewDense(2, 2, nil), mat.NewSymDense(2, []float64{1, 2, 2, 1}), 1, "semi-definite"},
		{"negative sigma2", mat.NewDense(2, 2, nil), q2, -1, "sigma2"},
		{"NaN sigma2", mat.NewDense(2, 2, nil), q2, math.NaN(), "sigma2"},
		{"NaN Gamma", mat.NewDense(2, 2, []float64{math.NaN(), 0, 0, 0}), q2, 1, "Gamma[0,0]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewModel(c.g, c.q, c.s2)
			if err == nil || !strings.Contains(err.Error(), c.wants) {
				t.Fatalf("error %v, want one mentioning %q", err, c.wants)
			}
		})
	}
}

// TestRiccatiMap checks g(P, c) (eq. 25) against the formula evaluated with
// dense gonum products, on the general and the diagonal-Γ paths.
func TestRiccatiMap(t *testing.T) {
	diag, err := NewModel(mat.NewDense(3, 3, []float64{0.9, 0, 0, 0, -0.5, 0, 0, 0, 0.3}), testModel(t).Q, 0.4)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*Model{testModel(t), diag} {
		p := mat.NewSymDense(3, []float64{2, 0.3, -0.1, 0.3, 1, 0.2, -0.1, 0.2, 0.5})
		c := []float64{0.7, -0.2, 1.1}
		got, err := Riccati(m, p, c)
		if err != nil {
			t.Fatal(err)
		}
		cv := mat.NewVecDense(3, c)
		var pc mat.VecDense
		pc.MulVec(p, cv)
		s := mat.Dot(cv, &pc) + m.Sigma2
		var gpg, t1, gpc mat.Dense
		t1.Mul(m.Gamma, p)
		gpg.Mul(&t1, m.Gamma.T())
		gpc.Mul(m.Gamma, &pc)
		var corr mat.Dense
		corr.Mul(&gpc, gpc.T())
		for i := range 3 {
			for j := range 3 {
				want := gpg.At(i, j) + m.Q.At(i, j) - corr.At(i, j)/s
				if d := math.Abs(got.At(i, j) - want); d > 1e-12 {
					t.Fatalf("diag=%v g(P,c)[%d,%d] = %g, formula %g", m.diag != nil, i, j, got.At(i, j), want)
				}
			}
		}
	}
}

// TestRiccatiFixedPoint checks P_A = g(P_A, e_A) for every action, and that
// the Kalman filter's covariance under a constant action converges to it.
func TestRiccatiFixedPoint(t *testing.T) {
	m := testModel(t)
	for a := range 3 {
		c := unit(3, a)
		p, err := RiccatiFixedPoint(m, c)
		if err != nil {
			t.Fatal(err)
		}
		gp, err := Riccati(m, p, c)
		if err != nil {
			t.Fatal(err)
		}
		if r := maxAbsDiff(gp, p); r > 1e-12*maxAbs(p) {
			t.Errorf("action %d: fixed-point residual %g", a, r)
		}
		var eig mat.EigenSym
		if !eig.Factorize(p, false) || eig.Values(nil)[0] <= 0 {
			t.Errorf("action %d: P_A not positive definite", a)
		}
		f, err := NewFilter(m)
		if err != nil {
			t.Fatal(err)
		}
		for range 200 {
			if err := f.Update(c, 0); err != nil {
				t.Fatal(err)
			}
		}
		if r := maxAbsDiff(f.Cov(), p); r > 1e-10 {
			t.Errorf("action %d: filter covariance after 200 steps differs from P_A by %g", a, r)
		}
	}
}

// switching is a fixed, non-periodic action sequence over 3 actions.
func switching(t int) int { return (t*t + t/3) % 3 }

// TestKalmanCovarianceMonteCarlo checks that P_{T|T−1} of the filter (eq.
// 24) is the covariance of the one-step error z_T − ẑ_{T|T−1} over 20000
// independent trajectories under a switching action sequence, entry by
// entry within 5 Monte Carlo standard errors, and that the prediction
// errors have mean zero.
func TestKalmanCovarianceMonteCarlo(t *testing.T) {
	m := testModel(t)
	const runs, T = 20000, 12
	n := m.Dim()
	sum := make([]float64, n)
	sumsq := mat.NewDense(n, n, nil)
	var pT *mat.SymDense
	for r := range runs {
		sim, err := NewSim(m, uint64(r)+1)
		if err != nil {
			t.Fatal(err)
		}
		f, err := NewFilter(m)
		if err != nil {
			t.Fatal(err)
		}
		for step := range T {
			c := unit(n, switching(step))
			if err := f.Update(c, sim.Output(c)); err != nil {
				t.Fatal(err)
			}
			sim.Step()
		}
		if pT == nil {
			pT = f.Cov()
		}
		z, zh := sim.State(), f.State()
		for i := range n {
			ei := z[i] - zh[i]
			sum[i] += ei
			for j := range n {
				sumsq.Set(i, j, sumsq.At(i, j)+ei*(z[j]-zh[j]))
			}
		}
	}
	for i := range n {
		mean := sum[i] / runs
		if se := math.Sqrt(pT.At(i, i) / runs); math.Abs(mean) > 5*se {
			t.Errorf("mean error of z[%d]: %g, want 0 ± %g", i, mean, 5*se)
		}
		for j := range n {
			emp := sumsq.At(i, j) / runs
			se := math.Sqrt((pT.At(i, i)*pT.At(j, j) + pT.At(i, j)*pT.At(i, j)) / runs)
			if math.Abs(emp-pT.At(i, j)) > 5*se {
				t.Errorf("P[%d,%d]: filter %g, Monte Carlo %g (5 s.e. = %g)", i, j, pT.At(i, j), emp, 5*se)
			}
		}
	}
}

// TestModifiedFilter checks Theorem 3: every closed loop Γ − ΓL_A c_Aᵀ is
// stable, the fixed-gain error covariance recursion matches Monte Carlo
// under switching actions, and the residual variance stays bounded.
func TestModifiedFilter(t *testing.T) {
	m := testModel(t)
	n := m.Dim()
	actions := [][]float64{unit(n, 0), unit(n, 1), unit(n, 2)}
	mf, err := NewModifiedFilter(m, actions)
	if err != nil {
		t.Fatal(err)
	}
	for a := range actions {
		rho, err := SpectralRadius(mf.ClosedLoop(a))
		if err != nil {
			t.Fatal(err)
		}
		if rho >= 1 {
			t.Errorf("action %d: closed loop spectral radius %g, Theorem 3 says < 1", a, rho)
		}
	}
	// A constant action: P'_t tends to P_A (the steady-state Kalman filter).
	for range 300 {
		if err := mf.Update(1, 0); err != nil {
			t.Fatal(err)
		}
	}
	p := mf.ErrorCov()
	if r := maxAbsDiff(mat.NewSymDense(n, []float64{p.At(0, 0), p.At(0, 1), p.At(0, 2), p.At(1, 0), p.At(1, 1), p.At(1, 2), p.At(2, 0), p.At(2, 1), p.At(2, 2)}), mf.Fixed(1)); r > 1e-10 {
		t.Errorf("constant action: P' differs from P_A by %g", r)
	}
	// Switching actions: Monte Carlo against the exact P'_T.
	const runs, T = 20000, 12
	sumsq := mat.NewDense(n, n, nil)
	var pT *mat.Dense
	maxRes := 0.0
	f, err := NewModifiedFilter(m, actions)
	if err != nil {
		t.Fatal(err)
	}
	for r := range runs {
		sim, err := NewSim(m, uint64(r)+100000)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Reset(); err != nil {
			t.Fatal(err)
		}
		for step := range T {
			a := switching(step)
			if r == 0 {
				maxRes = math.Max(maxRes, f.ResidualVar(a))
			}
			if err := f.Update(a, sim.Output(actions[a])); err != nil {
				t.Fatal(err)
			}
			sim.Step()
		}
		if pT == nil {
			pT = f.ErrorCov()
		}
		z := sim.State()
		for i := range n {
			for j := range n {
				sumsq.Set(i, j, sumsq.At(i, j)+(z[i]-f.z[i])*(z[j]-f.z[j]))
			}
		}
	}
	for i := range n {
		for j := range n {
			emp := sumsq.At(i, j) / runs
			se := math.Sqrt((pT.At(i, i)*pT.At(j, j) + pT.At(i, j)*pT.At(i, j)) / runs)
			if math.Abs(emp-pT.At(i, j)) > 5*se {
				t.Errorf("P'[%d,%d]: recursion %g, Monte Carlo %g (5 s.e. = %g)", i, j, pT.At(i, j), emp, 5*se)
			}
		}
	}
	// Bounded residual variance over a long switching run: never above
	// the residual variance of the trivial predictor 0, c_AᵀΣc_A + σ².
	sigma, err := m.StationaryCov()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Reset(); err != nil {
		t.Fatal(err)
	}
	for step := range 5000 {
		a := switching(step)
		maxRes = math.Max(maxRes, f.ResidualVar(a))
		if err := f.Update(a, 0); err != nil {
			t.Fatal(err)
		}
	}
	bound := 0.0
	for a := range actions {
		bound = math.Max(bound, sigma.At(a, a)+m.Sigma2)
	}
	if !(maxRes <= bound) {
		t.Errorf("max residual variance %g exceeds c_AᵀΣc_A + σ² = %g", maxRes, bound)
	}
}

func TestFilterRejectsBadInput(t *testing.T) {
	m := testModel(t)
	f, err := NewFilter(m)
	if err != nil {
		t.Fatal(err)
	}
	before := f.State()
	if err := f.Update(unit(3, 0), math.NaN()); err == nil {
		t.Error("NaN observation accepted")
	}
	if err := f.Update([]float64{1}, 1); err == nil {
		t.Error("short c accepted")
	}
	for i, v := range f.State() {
		if v != before[i] {
			t.Fatal("state changed by a rejected update")
		}
	}
}
