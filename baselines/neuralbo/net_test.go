package neuralbo

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// g(z; θ) = ∇_θ h(z; θ) matches central finite differences of h in every
// parameter (points within 1e-4 of a ReLU kink are skipped; none occur for
// these seeds, which the test checks too).
func TestGradientFiniteDifferences(t *testing.T) {
	for _, c := range []struct{ m, k int }{{7, 3}, {16, 5}, {1, 2}} {
		rng := rand.New(rand.NewPCG(uint64(c.m), 9))
		n := net{m: c.m, k: c.k}
		theta := n.initTheta(rng)
		z := make([]float64, c.k)
		for i := range z {
			z[i] = 2*rng.Float64() - 1
		}
		pre := make([]float64, c.m)
		n.forward(theta, z, pre)
		g := make([]float64, n.params())
		n.grad(theta, z, pre, g)
		checked := 0
		const eps = 1e-6
		for i := range theta {
			if i < c.m*c.k && math.Abs(pre[i/c.k]) < 1e-4 {
				continue
			}
			old := theta[i]
			theta[i] = old + eps
			hp := n.forward(theta, z, pre)
			theta[i] = old - eps
			hm := n.forward(theta, z, pre)
			theta[i] = old
			fd := (hp - hm) / (2 * eps)
			if math.Abs(fd-g[i]) > 1e-6*(1+math.Abs(fd)) {
				t.Errorf("m=%d k=%d: ∂h/∂θ[%d] = %.10g, finite difference %.10g", c.m, c.k, i, g[i], fd)
			}
			checked++
		}
		if checked < n.params()-c.k {
			t.Errorf("m=%d k=%d: only %d of %d parameters checked", c.m, c.k, checked, n.params())
		}
	}
}

// One full-batch epoch of train is exactly one gradient-descent step on
// L(θ)/n: θ' = θ − η ∇(L/n), with ∇(L/n) by central finite differences of
// trainer.loss.
func TestTrainStepIsGradientOfLoss(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := net{m: 6, k: 3}
	theta0 := n.initTheta(rng)
	theta := append([]float64(nil), theta0...)
	for i := range theta {
		theta[i] += 0.1 * rng.NormFloat64() // away from θ0 so the regulariser acts
	}
	const pts = 9
	zs := make([]float64, pts*n.k)
	ys := make([]float64, pts)
	for i := range zs {
		zs[i] = 2*rng.Float64() - 1
	}
	for i := range ys {
		ys[i] = rng.NormFloat64()
	}
	tr := newTrainer(n)
	const lambda, lr, eps = 0.3, 0.01, 1e-6
	fd := make([]float64, len(theta))
	for i := range theta {
		old := theta[i]
		theta[i] = old + eps
		lp := tr.loss(theta, theta0, zs, ys, lambda)
		theta[i] = old - eps
		lm := tr.loss(theta, theta0, zs, ys, lambda)
		theta[i] = old
		fd[i] = (lp - lm) / (2 * eps)
	}
	before := append([]float64(nil), theta...)
	tr.train(theta, theta0, zs, ys, lambda, lr, 1, pts, rand.New(rand.NewPCG(1, 1)))
	for i := range theta {
		step := (before[i] - theta[i]) / lr
		if math.Abs(step-fd[i]) > 1e-5*(1+math.Abs(fd[i])) {
			t.Errorf("θ[%d]: step/η = %.8g, finite-difference gradient %.8g", i, step, fd[i])
		}
	}
	// And many epochs reduce the loss.
	l0 := tr.loss(theta, theta0, zs, ys, lambda)
	tr.train(theta, theta0, zs, ys, lambda, lr, 200, 4, rand.New(rand.NewPCG(1, 1)))
	if l1 := tr.loss(theta, theta0, zs, ys, lambda); !(l1 < 0.5*l0) {
		t.Errorf("200 epochs of SGD: loss %.4g -> %.4g, want at least halved", l0, l1)
	}
}

// The Sherman–Morrison U⁻¹ after many rank-one updates equals the direct
// inverse of U = λI + Σ g gᵀ/m, and quad equals λ gᵀU⁻¹g/m computed with it.
func TestShermanMorrisonMatchesDirectInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := net{m: 5, k: 3}
	p := n.params()
	const lambda = 0.01
	theta0 := n.initTheta(rng)
	inv := newInvU(p, lambda)
	U := mat.NewSymDense(p, nil)
	for i := range p {
		U.SetSym(i, i, lambda)
	}
	pre, g := make([]float64, n.m), make([]float64, p)
	z := make([]float64, n.k)
	for range 40 {
		u := []float64{rng.Float64(), rng.Float64()}
		embed(u, z)
		n.forward(theta0, z, pre)
		n.grad(theta0, z, pre, g)
		inv.update(g, n.m)
		for i := range p {
			for j := i; j < p; j++ {
				U.SetSym(i, j, U.At(i, j)+g[i]*g[j]/float64(n.m))
			}
		}
	}
	var direct mat.Dense
	if err := direct.Inverse(U); err != nil {
		t.Fatal(err)
	}
	full := inv.full()
	for i := range p {
		for j := range p {
			if full[i*p+j] != full[j*p+i] {
				t.Fatalf("U⁻¹ not exactly symmetric at (%d, %d)", i, j)
			}
		}
	}
	got := mat.NewDense(p, p, full)
	var diff mat.Dense
	diff.Sub(got, &direct)
	rel := mat.Norm(&diff, math.Inf(1)) / mat.Norm(&direct, math.Inf(1))
	if rel > 1e-8 {
		t.Errorf("‖U⁻¹(Sherman–Morrison) − U⁻¹(direct)‖∞ / ‖U⁻¹‖∞ = %.3g, want <= 1e-8", rel)
	}
	// quad on a few points.
	const c = 4
	gs := make([]float64, c*p)
	for r := range c {
		embed([]float64{rng.Float64(), rng.Float64()}, z)
		n.forward(theta0, z, pre)
		n.grad(theta0, z, pre, gs[r*p:(r+1)*p])
	}
	dst := make([]float64, c)
	inv.quad(gs, c, lambda, n.m, make([]float64, c*p), dst)
	for r := range c {
		gv := mat.NewVecDense(p, gs[r*p:(r+1)*p])
		var tmp mat.VecDense
		tmp.MulVec(&direct, gv)
		want := lambda * mat.Dot(gv, &tmp) / float64(n.m)
		if math.Abs(dst[r]-want) > 1e-8*math.Max(want, 1e-12) {
			t.Errorf("σ²[%d] = %.10g, direct %.10g", r, dst[r], want)
		}
	}
}

// embed gives unit-norm inputs and is one-to-one on the box.
func TestEmbed(t *testing.T) {
	z := make([]float64, 3)
	for _, u := range [][]float64{{0, 0}, {1, 1}, {0.5, 0.5}, {0.2, 0.9}} {
		embed(u, z)
		var s float64
		for _, v := range z {
			s += v * v
		}
		if math.Abs(s-1) > 1e-12 {
			t.Errorf("‖embed(%v)‖² = %g", u, s)
		}
		for i := range u {
			if back := (z[i]/z[2] + 1) / 2; math.Abs(back-u[i]) > 1e-12 {
				t.Errorf("embed(%v) does not invert: %g", u, back)
			}
		}
	}
}
