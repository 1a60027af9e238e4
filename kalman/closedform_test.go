package kalman

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/controller/hypercontroller"
)

// newHC returns a HyperController over one parameter on [0, 1] with d = 2.
func newHC(t *testing.T, s int) *hypercontroller.HyperController {
	t.Helper()
	set := hypercontroller.DefaultSettings()
	set.D, set.S = 2, s
	hc, err := hypercontroller.New(set)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := controller.NewSpace(controller.Param{Name: "x", Low: 0, High: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := hc.Init(sp, rand.New(rand.NewPCG(1, 1))); err != nil {
		t.Fatal(err)
	}
	return hc
}

// TestClosedFormPredictor is the representation test of the issue: when a
// single value A is always chosen and s = 1, the only predictor that learns
// is Ĝ_A(A), the ridge regression of X_t on X_{t−1} through the origin. As
// n → ∞ it tends to
//
//	G* = Cov(X_t, X_{t−1}) / Var(X_{t−1}) = c_AᵀΓΣc_A / (c_AᵀΣc_A + σ²),
//
// because X_t = c_Aᵀz_t + η_t with z stationary, Cov(z_t, z_{t−1}) = ΓΣ and
// Var(z_t) = Σ, the solution of Σ = ΓΣΓᵀ + Q; λ only adds a bias of order
// λ/(n·Var X). The tolerance is 5 standard errors of the lag-1
// autocorrelation estimator by Bartlett's formula,
//
//	Var(r_1) ≈ (1/n) Σ_{k≥1} (ρ_{k+1} + ρ_{k−1} − 2ρ_1ρ_k)²,  ρ_k = c_AᵀΓ^kΣc_A / (c_AᵀΣc_A + σ²),
//
// computed from the model. The same data also compare one-step prediction
// errors: the Kalman predictor (eq. 23, which knows Γ, Q, σ) must be no worse
// than the learned predictors, the s = 1 predictor must reach its
// theoretical error γ_0(1 − ρ_1²), and the s = 3 predictor must lie between
// the two (the richer representation of Appendix F gets closer to Kalman).
func TestClosedFormPredictor(t *testing.T) {
	m := testModel(t)
	const n = 200000
	c := unit(3, 0)
	sigma, err := m.StationaryCov()
	if err != nil {
		t.Fatal(err)
	}
	cv := mat.NewVecDense(3, c)
	// ρ_k from the model.
	gk := mat.NewDense(3, 3, nil) // Γ^k Σ
	gk.Copy(sigma)
	gamma0 := mat.Inner(cv, sigma, cv) + m.Sigma2
	rho := []float64{1}
	for k := 1; k <= 400; k++ {
		var next mat.Dense
		next.Mul(m.Gamma, gk)
		gk = &next
		rho = append(rho, mat.Inner(cv, gk, cv)/gamma0)
	}
	want := rho[1]
	var bart float64
	for k := 1; k < 399; k++ {
		v := rho[k+1] + rho[k-1] - 2*rho[1]*rho[k]
		bart += v * v
	}
	tol := 5 * math.Sqrt(bart/n)
	t.Logf("G* = %.5f, tolerance %.5f (5 Bartlett s.e.)", want, tol)

	pc, err := RiccatiFixedPoint(m, c)
	if err != nil {
		t.Fatal(err)
	}
	kfTheory := mat.Inner(cv, pc, cv) + m.Sigma2
	ridgeTheory := gamma0 * (1 - want*want)

	sim, err := NewSim(m, 42)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFilter(m)
	if err != nil {
		t.Fatal(err)
	}
	hc1, hc3 := newHC(t, 1), newHC(t, 3)
	cfg := controller.Config{0} // always grid value 0
	var xs []float64
	const burn = 2000
	var seKF, seR1, seR3 float64
	for i := range n {
		x := sim.Output(c)
		sim.Step()
		predKF := f.Predict(c)
		if err := f.Update(c, x); err != nil {
			t.Fatal(err)
		}
		if i >= 3 && i >= burn {
			g1, _, ok1 := hc1.Predictor(0, []int{0}, 0)
			g3, _, ok3 := hc3.Predictor(0, []int{0, 0, 0}, 0)
			if !ok1 || !ok3 {
				t.Fatal("predictor of the chosen value was never updated")
			}
			p1 := g1[0] * xs[i-1]
			p3 := g3[0]*xs[i-3] + g3[1]*xs[i-2] + g3[2]*xs[i-1]
			seKF += (x - predKF) * (x - predKF)
			seR1 += (x - p1) * (x - p1)
			seR3 += (x - p3) * (x - p3)
		}
		for _, hc := range []*hypercontroller.HyperController{hc1, hc3} {
			if err := hc.Observe(controller.Observation{Iteration: i, Config: cfg, Objective: x}); err != nil {
				t.Fatal(err)
			}
		}
		xs = append(xs, x)
	}
	g, cnt, ok := hc1.Predictor(0, []int{0}, 0)
	if !ok || cnt != n-1 {
		t.Fatalf("Ĝ fitted on %d rounds (ok=%v), want %d", cnt, ok, n-1)
	}
	t.Logf("learned Ĝ = %.5f after %d rounds", g[0], cnt)
	if d := math.Abs(g[0] - want); d > tol {
		t.Errorf("Ĝ = %.5f, closed form %.5f: |diff| %.5f > %.5f", g[0], want, d, tol)
	}
	for _, a := range []int{1} {
		if _, _, ok := hc1.Predictor(0, []int{0}, a); ok {
			t.Errorf("predictor of the never-chosen value %d was allocated", a)
		}
	}
	cnt2 := float64(n - burn)
	mseKF, mse1, mse3 := seKF/cnt2, seR1/cnt2, seR3/cnt2
	t.Logf("one-step MSE: Kalman %.5f (theory %.5f), ridge s=1 %.5f (theory %.5f), ridge s=3 %.5f", mseKF, kfTheory, mse1, ridgeTheory, mse3)
	if math.Abs(mseKF/kfTheory-1) > 0.02 {
		t.Errorf("Kalman MSE %.5f, theory %.5f (2%% tolerance)", mseKF, kfTheory)
	}
	if math.Abs(mse1/ridgeTheory-1) > 0.02 {
		t.Errorf("ridge s=1 MSE %.5f, theory γ0(1−ρ1²) = %.5f (2%% tolerance)", mse1, ridgeTheory)
	}
	if !(mseKF <= mse3 && mse3 <= mse1) {
		t.Errorf("want Kalman %.5f <= ridge s=3 %.5f <= ridge s=1 %.5f", mseKF, mse3, mse1)
	}
	if r, rt := mse1/mseKF, ridgeTheory/kfTheory; math.Abs(r-rt) > 0.02 {
		t.Errorf("ridge/Kalman MSE ratio %.4f, theory %.4f", r, rt)
	}
}
