package ppo

import "math"

// lossInput is one minibatch: the networks' outputs on it and the rollout
// data, indexed by sample i (B samples) and action dimension j (A).
type lossInput struct {
	B, A    int
	mu      []float32 // B×A policy means
	v       []float32 // B values
	logStd  []float32 // A
	act     []float32 // B×A stored (unclipped) actions
	oldLogp []float64 // B, log π_old(a|s)
	adv     []float64 // B advantages (normalised if configured)
	oldV    []float64 // B, V_old(s)
	ret     []float64 // B value targets
}

// lossTerms are the values of one minibatch's loss.
type lossTerms struct {
	loss    float64 // L_pg + c_v·L_v − c_ent·H (CleanRL's total)
	pg      float64 // L_pg
	v       float64 // L_v (with the ½)
	entropy float64 // H
	klSum   float64 // Σ (r − 1) − log r
	clipped int     // samples with |r − 1| > ε
}

// ppoLoss computes CleanRL's ppo_continuous_action loss on one minibatch
//
//	log π(a|s) = −½·Σ_j ((a_j − μ_j)/σ_j)² − Σ_j log σ_j − (A/2)·log 2π
//	r = exp(log π(a|s) − log π_old(a|s))
//	L_pg = mean(max(−Â·r, −Â·clip(r, 1−ε, 1+ε)))
//	L_v  = ½·mean(max((V − R)², (V_old + clip(V − V_old, −ε, ε) − R)²))   (clip_value_loss)
//	     = ½·mean((V − R)²)                                                 (otherwise)
//	H    = Σ_j log σ_j + A·(½ + ½·log 2π)
//	L    = L_pg + c_v·L_v − c_ent·H
//
// in float64, and writes its gradient with respect to the network outputs
// into gmu (B×A), gv (B) and gls (A). The gradient follows PyTorch's
// autograd conventions exactly, including at the kinks: torch.maximum sends
// half the gradient to each argument on a tie, torch.clamp passes it where
// min ≤ x ≤ max. The trainer backpropagates these output gradients through
// the networks with libtorch (see learner.gradient): the loss itself is a
// few hundred scalar operations, which cost less in Go than the dozens of
// tiny libtorch ops and autograd nodes they would take there.
func ppoLoss(in lossInput, p updateParams, gmu, gv, gls []float32) lossTerms {
	var t lossTerms
	B, A := in.B, in.A
	fb := float64(B)
	sigma := make([]float64, A)
	var sumLogStd float64
	dls := make([]float64, A)
	for j, ls := range in.logStd {
		sigma[j] = math.Exp(float64(ls))
		sumLogStd += float64(ls)
	}
	t.entropy = sumLogStd + float64(A)*(0.5+halfLog2Pi)
	lo, hi := 1-p.Clip, 1+p.Clip
	z := make([]float64, A)
	for i := 0; i < B; i++ {
		// Policy term.
		var sq float64
		for j := 0; j < A; j++ {
			z[j] = (float64(in.act[i*A+j]) - float64(in.mu[i*A+j])) / sigma[j]
			sq += z[j] * z[j]
		}
		logp := -0.5*sq - sumLogStd - float64(A)*halfLog2Pi
		lr := logp - in.oldLogp[i]
		r := math.Exp(lr)
		t.klSum += (r - 1) - lr
		if math.Abs(r-1) > p.Clip {
			t.clipped++
		}
		a := in.adv[i]
		rc := math.Max(lo, math.Min(hi, r))
		u1, u2 := -a*r, -a*rc
		t.pg += math.Max(u1, u2) / fb
		w1, w2 := tieWeights(u1, u2)
		inRange := 0.0
		if r >= lo && r <= hi {
			inRange = 1
		}
		dr := -a * (w1 + w2*inRange) / fb // dL_pg/dr
		dlogp := dr * r
		for j := 0; j < A; j++ {
			gmu[i*A+j] = float32(dlogp * z[j] / sigma[j]) // ∂logp/∂μ_j = z_j/σ_j
			dls[j] += dlogp * (z[j]*z[j] - 1)             // ∂logp/∂log σ_j = z_j² − 1
		}

		// Value term.
		v := float64(in.v[i])
		e1 := v - in.ret[i]
		var dv float64
		if p.clipValueLoss {
			d := v - in.oldV[i]
			dc := math.Max(-p.Clip, math.Min(p.Clip, d))
			e2 := in.oldV[i] + dc - in.ret[i]
			s1, s2 := e1*e1, e2*e2
			t.v += 0.5 * math.Max(s1, s2) / fb
			k1, k2 := tieWeights(s1, s2)
			pass := 0.0
			if d >= -p.Clip && d <= p.Clip {
				pass = 1
			}
			dv = 0.5 * (k1*2*e1 + k2*2*e2*pass) / fb
		} else {
			t.v += 0.5 * e1 * e1 / fb
			dv = e1 / fb
		}
		gv[i] = float32(p.ValueCoef * dv)
	}
	for j := range dls {
		gls[j] = float32(dls[j] - p.EntropyCoef) // ∂H/∂log σ_j = 1
	}
	t.loss = t.pg + p.ValueCoef*t.v - p.EntropyCoef*t.entropy
	return t
}

// tieWeights is torch.maximum's gradient split between its arguments.
func tieWeights(a, b float64) (wa, wb float64) {
	switch {
	case a > b:
		return 1, 0
	case a < b:
		return 0, 1
	}
	return 0.5, 0.5
}
