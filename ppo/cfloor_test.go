package ppo

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hyperctl/hyperctl/ppo/internal/cfloor"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// TestCFloorMatchesAutograd checks the update floor (package cfloor,
// CleanRL's update in C with a hand-derived backward pass) against
// libtorch's autograd through the whole loss graph (refLoss) on the same
// networks and minibatch, at HalfCheetah's sizes (17 observations, 6
// actions, 64×64 tanh, 64 rows): the gradient, relative to its largest
// element, within 1e-4, under CleanRL's settings and with an entropy bonus
// and no value clipping or normalisation; then one clipped Adam step from
// non-zero moments at step 7 against torch.optim.Adam's formula in float64
// (refAdam) applied to autograd's gradient clipped to norm 0.5: the change
// of θ within 1e-4 of its largest element. The figures are logged with the
// kernels they ran on.
func TestCFloorMatchesAutograd(t *testing.T) {
	const od, ad, hidden, rows, n = 17, 6, 64, 64, 256
	l := newLayout(od, ad, []int{hidden, hidden}, "tanh")
	rng := rand.New(rand.NewPCG(21, 22))
	theta := l.initParams(rng, initSettings{logStd: -0.3, hidden: math.Sqrt2, policy: 0.5, value: 1})
	ln := newTestLearner(t, l, theta)
	b := smallBatch(rng, n, od, ad)
	// Old log-probabilities near the current ones: ratios on both sides of
	// the clip range; old values near the returns: both value branches.
	mean := make([]float32, n*ad)
	if err := ln.infer(b.obs, n, mean, nil); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		var lp float64
		for j := 0; j < ad; j++ {
			z := (float64(b.act[i*ad+j]) - float64(mean[i*ad+j])) / math.Exp(-0.3)
			lp += -0.5*z*z + 0.3 - halfLog2Pi
		}
		b.logp[i] = lp + 0.3*rng.NormFloat64()
		b.values[i] = b.ret[i] + 0.3*rng.NormFloat64()
		b.adv[i] = 2*b.adv[i] + 0.5 // normalisation must matter
	}
	f32 := func(x []float64) []float32 {
		y := make([]float32, len(x))
		for i, v := range x {
			y[i] = float32(v)
		}
		return y
	}
	// The batch as CleanRL holds it: float32.
	logp, vals, advs, rets := f32(b.logp), f32(b.values), f32(b.adv), f32(b.ret)
	fl, err := cfloor.New(od, ad, hidden, rows, n, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	if err := fl.SetBatch(b.obs, b.act, logp, vals, advs, rets); err != nil {
		t.Fatal(err)
	}
	idx := rng.Perm(n)[:rows]

	for _, tc := range []struct {
		name string
		p    updateParams
	}{
		{"CleanRL's settings", updateParams{Hyper: ppoconfig.Hyper{Clip: 0.2, ValueCoef: 0.5, MaxGradNorm: 0.5},
			clipValueLoss: true, normAdvantage: true}},
		{"entropy bonus, plain value loss, raw advantages", updateParams{Hyper: ppoconfig.Hyper{Clip: 0.1,
			ValueCoef: 1.3, EntropyCoef: 0.05, MaxGradNorm: 0.5}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			copy(fl.Theta(), theta)
			fl.SetHyper(cfloor.Hyper{Clip: float32(p.Clip), ValueCoef: float32(p.ValueCoef),
				EntropyCoef: float32(p.EntropyCoef), MaxGradNorm: float32(p.MaxGradNorm), LR: 1e-3, Beta1: 0.9,
				Beta2: 0.999, Eps: 1e-5, ClipValue: p.clipValueLoss, NormAdv: p.normAdvantage})
			terms, gnorm, err := fl.Gradient(idx)
			if err != nil {
				t.Fatal(err)
			}
			got := append([]float32(nil), fl.Grad()...)

			// The reference: autograd through refLoss on the same frames.
			adv := make([]float64, rows)
			nadv, olpc, ov, rt := make([]float32, rows), make([]float32, rows), make([]float32, rows), make([]float32, rows)
			x, act := make([]float32, rows*od), make([]float32, rows*ad)
			for k, i := range idx {
				adv[k] = float64(advs[i])
				copy(x[k*od:(k+1)*od], b.obs[i*od:(i+1)*od])
				copy(act[k*ad:(k+1)*ad], b.act[i*ad:(i+1)*ad])
				olpc[k] = float32(float64(logp[i]) + ad*halfLog2Pi)
				ov[k], rt[k] = vals[i], rets[i]
			}
			if p.normAdvantage {
				normalizeAdvantages(adv)
			}
			for k := range adv {
				nadv[k] = float32(-adv[k])
			}
			ref := ln.refGradient(t, x, act, olpc, nadv, ov, rt, p)
			refPG, refV, want, clipped := ref.pg, ref.v, ref.grad, ref.clipped
			if clipped == 0 || clipped == rows {
				t.Fatalf("%d of %d samples clipped; the test needs both kinds", clipped, rows)
			}
			if clipped != terms.Clipped {
				t.Errorf("floor counts %d clipped samples, autograd's ratios %d", terms.Clipped, clipped)
			}
			for _, c := range []struct {
				name      string
				got, want float64
			}{{"policy loss", terms.PG, refPG}, {"value loss", terms.Value, refV}} {
				if math.Abs(c.got-c.want) > 1e-4*math.Max(1, math.Abs(c.want)) {
					t.Errorf("%s %v, autograd reference %v", c.name, c.got, c.want)
				}
			}
			gRel, gL2 := relErr(got, want)
			if gRel > 1e-4 {
				t.Errorf("gradient differs from autograd by up to %.3g of its largest element (L2 %.3g)", gRel, gL2)
			}
			var ss float64
			for _, v := range want {
				ss += float64(v) * float64(v)
			}
			if d := math.Abs(float64(gnorm) - math.Sqrt(ss)); d > 1e-4*math.Sqrt(ss) {
				t.Errorf("gradient norm %v, autograd's %v", gnorm, math.Sqrt(ss))
			}

			// One clipped Adam step from non-zero moments at step 7.
			m0, v0 := fl.M(), fl.V()
			ra := refAdam{m: make([]float64, l.total), v: make([]float64, l.total), t: 6}
			for i := range m0 {
				m0[i] = float32(1e-3 * rng.NormFloat64())
				v0[i] = float32(1e-6 * rng.ExpFloat64())
				ra.m[i], ra.v[i] = float64(m0[i]), float64(v0[i])
			}
			fl.SetAdamStep(6)
			fl.Step(gnorm)
			coef := math.Min(1, p.MaxGradNorm/(math.Sqrt(ss)+1e-6))
			refTheta, g64 := make([]float64, l.total), make([]float64, l.total)
			for i := range want {
				refTheta[i], g64[i] = float64(theta[i]), coef*float64(want[i])
			}
			ra.step(refTheta, g64, 1e-3, 1e-5)
			dGot, dWant := make([]float32, l.total), make([]float32, l.total)
			for i, v := range fl.Theta() {
				dGot[i] = float32(float64(v) - float64(theta[i]))
				dWant[i] = float32(refTheta[i] - float64(theta[i]))
			}
			sRel, sL2 := relErr(dGot, dWant)
			if sRel > 1e-4 {
				t.Errorf("Adam's change of θ differs from torch's formula on autograd's gradient by up to %.3g of its largest element (L2 %.3g)", sRel, sL2)
			}
			t.Logf("kernels %s; floor ClipValue=%v NormAdv=%v: %d/%d clipped; gradient vs autograd: max %.3g, L2 %.3g (relative); Adam step: max %.3g, L2 %.3g",
				fl.Kernels(), p.clipValueLoss, p.normAdvantage, clipped, rows, gRel, gL2, sRel, sL2)
		})
	}
}

// relErr is the largest elementwise difference of got from want relative
// to want's largest element, and the relative L2 distance ‖got − want‖/‖want‖.
func relErr(got, want []float32) (maxRel, l2 float64) {
	var maxAbs, maxDiff, dd, ww float64
	for i := range want {
		d := float64(got[i]) - float64(want[i])
		maxAbs = math.Max(maxAbs, math.Abs(float64(want[i])))
		maxDiff = math.Max(maxDiff, math.Abs(d))
		dd += d * d
		ww += float64(want[i]) * float64(want[i])
	}
	return maxDiff / maxAbs, math.Sqrt(dd / ww)
}
