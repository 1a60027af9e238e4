package ppo

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// log(2π)/2, the Gaussian log-density constant per action dimension.
var halfLog2Pi = 0.5 * math.Log(2*math.Pi)

// learner owns the networks' parameters and the optimiser state in libtorch:
// one flat float32 parameter vector θ (actor, log std, critic) and Adam's
// first and second moments over it.
//
// gotch v0.7.0's Adam is libtorch's C++ torch::optim::Adam behind an opaque
// handle whose moments cannot be read or written, so it could be neither
// checkpointed nor rolled back after a non-finite update. Adam is therefore
// implemented here in tensor ops over θ, following torch.optim.Adam (amsgrad
// off, no weight decay): m ← β1·m + (1−β1)·g, v ← β2·v + (1−β2)·g²,
// θ ← θ − lr/(1−β1^t) · m / (√v/√(1−β2^t) + ε).
type learner struct {
	s      *session
	l      *layout
	theta  tensor   // leaf requiring grad
	thetaD tensor   // detached alias of θ's storage: in-place updates, inference
	m, v   tensor   // Adam moments
	step   int64    // Adam step count t
	inf    []tensor // parameter views of thetaD for inference
	ps     []tensor // scratch for per-minibatch parameter views

	half scalar // −0.5

	// Per-minibatch host buffers.
	xb, ab           []float32
	olpc, nadv, ovb  []float32
	retb, logratio   []float32
	advScratch       []float64
	rejected         int // updates rejected for non-finite values (lifetime)
	lastRejectReason string
}

func newLearner(l *layout, theta0 []float32) (*learner, error) {
	s := newSession()
	ln := &learner{s: s, l: l}
	leaf := s.fromFloat32(theta0, int64(l.total))
	ln.theta = s.setRequiresGrad(leaf)
	s.free(leaf) // theta aliases the same tensor
	ln.thetaD = s.detach(ln.theta)
	zeros := make([]float32, l.total)
	ln.m = s.fromFloat32(zeros, int64(l.total))
	ln.v = s.fromFloat32(zeros, int64(l.total))
	ln.inf = l.params(s, ln.thetaD, nil)
	ln.half = newScalar(-0.5)
	if s.err != nil {
		err := s.err
		ln.close()
		return nil, err
	}
	return ln, nil
}

func (ln *learner) close() {
	if ln.s == nil {
		return
	}
	ln.s.free(ln.inf...)
	ln.inf = nil
	ln.s.free(ln.theta, ln.thetaD, ln.m, ln.v)
	ln.theta, ln.thetaD, ln.m, ln.v = nil, nil, nil, nil
	freeScalar(ln.half)
	ln.s.close()
	ln.s = nil
}

// readTheta copies θ into dst (len = layout total).
func (ln *learner) readTheta(dst []float32) error {
	ln.s.copyTo(ln.thetaD, dst)
	return ln.s.err
}

// state copies θ, m and v out (for checkpoints and tests).
func (ln *learner) state() (theta, m, v []float32, err error) {
	n := ln.l.total
	theta, m, v = make([]float32, n), make([]float32, n), make([]float32, n)
	ln.s.copyTo(ln.thetaD, theta)
	ln.s.copyTo(ln.m, m)
	ln.s.copyTo(ln.v, v)
	return theta, m, v, ln.s.err
}

// setState overwrites θ, m, v and the step count in place.
func (ln *learner) setState(theta, m, v []float32, step int64) error {
	n := ln.l.total
	if len(theta) != n || len(m) != n || len(v) != n {
		return fmt.Errorf("ppo: parameter state has %d/%d/%d values, the networks have %d", len(theta), len(m), len(v), n)
	}
	s := ln.s
	for _, p := range []struct {
		dst tensor
		src []float32
	}{{ln.thetaD, theta}, {ln.m, m}, {ln.v, v}} {
		t := s.fromFloat32(p.src, int64(n))
		s.copyInto(p.dst, t)
		s.free(t)
	}
	ln.step = step
	return s.err
}

// infer runs both networks on rows observations (already normalised) and
// writes the action means (rows×actDim) and values (rows).
func (ln *learner) infer(obs []float32, rows int, mean []float32, value []float32) error {
	s, l := ln.s, ln.l
	x := s.fromFloat32(obs[:rows*l.obsDim], int64(rows), int64(l.obsDim))
	mu := l.mlp(s, x, l.actor, ln.inf)
	if value != nil {
		v := l.mlp(s, x, l.critic, ln.inf)
		s.copyTo(v, value[:rows])
		s.free(v)
	}
	s.copyTo(mu, mean[:rows*l.actDim])
	s.free(x, mu)
	return s.err
}

// values runs the critic only.
func (ln *learner) values(obs []float32, rows int, value []float32) error {
	s, l := ln.s, ln.l
	x := s.fromFloat32(obs[:rows*l.obsDim], int64(rows), int64(l.obsDim))
	v := l.mlp(s, x, l.critic, ln.inf)
	s.copyTo(v, value[:rows])
	s.free(x, v)
	return s.err
}

// updateBatch is the data of one PPO update, indexed by frame.
type updateBatch struct {
	n      int
	obs    []float32 // n×obsDim, normalised as the policy saw them
	act    []float32 // n×actDim, the unclipped sampled actions
	logp   []float64 // log π_old(a|s)
	values []float64 // V_old(s)
	adv    []float64 // GAE advantages
	ret    []float64 // value targets
}

// updateParams are the settings of one update (one iteration's).
type updateParams struct {
	clip, lr, valueCoef, entropyCoef float64
	maxGradNorm, targetKL            float64
	adamEps, adamBeta1, adamBeta2    float64
	clipValueLoss, normAdvantage     bool
	epochs, minibatch                int
}

// UpdateStats summarises one iteration's update phase. Losses are averaged
// over the minibatches that were applied.
type UpdateStats struct {
	PolicyLoss    float64 // clipped surrogate loss (to minimise)
	ValueLoss     float64 // ½·mean squared (clipped) value error, before value_coef
	Entropy       float64 // mean policy entropy (nats)
	ApproxKL      float64 // mean of (r−1) − log r over the last epoch (Schulman's k3 estimator)
	ClipFrac      float64 // fraction of samples with |r − 1| > clip, over all minibatches
	GradNorm      float64 // mean global gradient norm before clipping
	Minibatches   int     // gradient steps applied
	Epochs        int     // epochs run (fewer than configured after a target_kl stop)
	Rejected      bool    // the whole update was rolled back for a non-finite value
	RejectReason  string  // what was non-finite
	ExplainedVar  float64 // 1 − Var(ret − V_old)/Var(ret) over the batch
	AdvantageMean float64 // mean raw advantage over the batch
}

// errRejected signals a non-finite loss, gradient or parameter.
var errRejected = errors.New("non-finite value")

// update runs PPO's epochs over shuffled minibatches of b. If any loss,
// gradient or parameter becomes NaN/Inf, θ and the Adam state are restored
// to their values before the update and st.Rejected is set; the error is nil
// in that case (training goes on). Errors are libtorch failures.
func (ln *learner) update(b *updateBatch, p updateParams, rng *rand.Rand) (UpdateStats, error) {
	var st UpdateStats
	s, l := ln.s, ln.l
	if b.n < 1 {
		return st, fmt.Errorf("ppo: update on an empty batch")
	}
	st.ExplainedVar = explainedVariance(b.ret, b.values)
	for _, a := range b.adv {
		st.AdvantageMean += a
	}
	st.AdvantageMean /= float64(b.n)

	// Snapshot for roll-back.
	saveTheta, saveM, saveV, saveStep := s.clone(ln.thetaD), s.clone(ln.m), s.clone(ln.v), ln.step
	defer s.free(saveTheta, saveM, saveV)
	if s.err != nil {
		return st, s.err
	}
	restore := func(reason string) {
		s.copyInto(ln.thetaD, saveTheta)
		s.copyInto(ln.m, saveM)
		s.copyInto(ln.v, saveV)
		ln.step = saveStep
		ln.rejected++
		ln.lastRejectReason = reason
		st = UpdateStats{Rejected: true, RejectReason: reason, ExplainedVar: st.ExplainedVar, AdvantageMean: st.AdvantageMean}
	}

	lo, hi, nlo, plo := newScalar(1-p.clip), newScalar(1+p.clip), newScalar(-p.clip), newScalar(p.clip)
	vcoef := newScalar(0.5 * p.valueCoef)
	ecoef := newScalar(p.entropyCoef)
	defer func() {
		for _, c := range []scalar{lo, hi, nlo, plo, vcoef, ecoef} {
			freeScalar(c)
		}
	}()
	clipS := clipScalars{lo: lo, hi: hi, nlo: nlo, plo: plo, vcoef: vcoef, ecoef: ecoef}

	mb := min(p.minibatch, b.n)
	perm := make([]int, b.n)
	for i := range perm {
		perm[i] = i
	}
	var sumPG, sumV, sumGN float64
	var nClip, nSamples int
	for epoch := 0; epoch < p.epochs; epoch++ {
		rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		var klSum float64
		var klN int
		for start := 0; start < b.n; start += mb {
			idx := perm[start:min(start+mb, b.n)]
			r, err := ln.minibatch(b, idx, p, clipS)
			if err != nil {
				if errors.Is(err, errRejected) {
					restore(err.Error())
					return st, s.err
				}
				return st, err
			}
			sumPG += r.pg
			sumV += r.v
			sumGN += r.gradNorm
			nClip += r.clipped
			nSamples += len(idx)
			klSum += r.klSum
			klN += len(idx)
			st.Minibatches++
		}
		st.Epochs = epoch + 1
		st.ApproxKL = klSum / float64(klN)
		if p.targetKL > 0 && st.ApproxKL > p.targetKL {
			break
		}
	}
	// Parameters must be finite after the update.
	nt := s.norm(ln.thetaD)
	tn := s.item(nt)
	s.free(nt)
	if s.err != nil {
		return st, s.err
	}
	if math.IsNaN(tn) || math.IsInf(tn, 0) {
		restore(fmt.Sprintf("parameter norm is %v after the update", tn))
		return st, s.err
	}
	k := float64(st.Minibatches)
	st.PolicyLoss, st.ValueLoss, st.GradNorm = sumPG/k, sumV/k, sumGN/k
	st.ClipFrac = float64(nClip) / float64(nSamples)
	ls := make([]float32, l.actDim)
	s.copyTo(ln.inf[l.logStd], ls)
	st.Entropy = gaussianEntropy(ls)
	return st, s.err
}

type clipScalars struct{ lo, hi, nlo, plo, vcoef, ecoef scalar }

type mbResult struct {
	pg, v, gradNorm float64
	klSum           float64
	clipped         int
}

// minibatch computes the PPO loss on the frames idx, its gradient, clips the
// global gradient norm and takes one Adam step. It returns errRejected
// (wrapped) without touching θ when the loss or gradient is not finite.
func (ln *learner) minibatch(b *updateBatch, idx []int, p updateParams, c clipScalars) (mbResult, error) {
	var r mbResult
	s, l := ln.s, ln.l
	B := len(idx)
	od, ad := l.obsDim, l.actDim
	ln.xb = grow(ln.xb, B*od)
	ln.ab = grow(ln.ab, B*ad)
	ln.olpc = grow(ln.olpc, B)
	ln.nadv = grow(ln.nadv, B)
	ln.ovb = grow(ln.ovb, B)
	ln.retb = grow(ln.retb, B)
	ln.logratio = grow(ln.logratio, B)
	if cap(ln.advScratch) < B {
		ln.advScratch = make([]float64, B)
	}
	adv := ln.advScratch[:B]
	for k, i := range idx {
		copy(ln.xb[k*od:(k+1)*od], b.obs[i*od:(i+1)*od])
		copy(ln.ab[k*ad:(k+1)*ad], b.act[i*ad:(i+1)*ad])
		// log π_old + (A/2)·log 2π, so that the new log-probability's
		// constant cancels inside the graph.
		ln.olpc[k] = float32(b.logp[i] + float64(ad)*halfLog2Pi)
		ln.ovb[k] = float32(b.values[i])
		ln.retb[k] = float32(b.ret[i])
		adv[k] = b.adv[i]
	}
	if p.normAdvantage {
		normalizeAdvantages(adv)
	}
	for k, a := range adv {
		ln.nadv[k] = float32(-a)
	}

	x := s.fromFloat32(ln.xb, int64(B), int64(od))
	act := s.fromFloat32(ln.ab, int64(B), int64(ad))
	olpc := s.fromFloat32(ln.olpc, int64(B))
	nadv := s.fromFloat32(ln.nadv, int64(B))
	oldv := s.fromFloat32(ln.ovb, int64(B), 1)
	ret := s.fromFloat32(ln.retb, int64(B), 1)
	ps := l.params(s, ln.theta, ln.ps[:0])
	ln.ps = ps

	loss, pg, vl, logratio := ln.loss(x, act, olpc, nadv, oldv, ret, ps, p, c)
	g := s.grad(loss, ln.theta)
	lossV := s.item(loss)
	r.pg = s.item(pg)
	r.v = 0.5 * s.item(vl) // L_v = ½·mean(…)
	s.copyTo(logratio, ln.logratio[:B])
	s.free(loss, pg, vl, logratio)
	s.free(ps...)
	s.free(x, act, olpc, nadv, oldv, ret)
	if s.err != nil {
		s.free(g)
		return r, s.err
	}
	gn := s.norm(g)
	r.gradNorm = s.item(gn)
	s.free(gn)
	if s.err != nil {
		s.free(g)
		return r, s.err
	}
	if !finite(lossV) || !finite(r.gradNorm) {
		s.free(g)
		return r, fmt.Errorf("%w: loss %v, gradient norm %v", errRejected, lossV, r.gradNorm)
	}
	for _, lr := range ln.logratio[:B] {
		lr := float64(lr)
		ratio := math.Exp(lr)
		r.klSum += (ratio - 1) - lr
		if math.Abs(ratio-1) > p.clip {
			r.clipped++
		}
	}
	// Global gradient-norm clipping (torch.nn.utils.clip_grad_norm_).
	if p.maxGradNorm > 0 {
		if coef := p.maxGradNorm / (r.gradNorm + 1e-6); coef < 1 {
			cs := newScalar(coef)
			s.mulScalar_(g, cs)
			freeScalar(cs)
		}
	}
	ln.adam(g, p.lr, p.adamEps, p.adamBeta1, p.adamBeta2)
	s.free(g)
	return r, s.err
}

// loss builds the PPO loss graph (CleanRL's ppo_continuous_action):
//
//	log r = log π(a|s) − log π_old(a|s)
//	L_pg = mean(max(−Â·r, −Â·clip(r, 1−ε, 1+ε)))
//	L_v  = ½·mean(max((V−R)², (V_old + clip(V−V_old, −ε, ε) − R)²))  (or ½·mean((V−R)²))
//	L    = L_pg − c_ent·H + c_v·L_v,  H = Σ log σ + A·(½ + ½·log 2π)
//
// nadv holds −Â, olpc holds log π_old + (A/2)·log 2π. It returns the total
// loss, L_pg, 2·L_v (the mean squared error, before the ½ and c_v) and
// log r; the caller frees them. The total omits H's constant term (it has no
// gradient), so it is CleanRL's loss + c_ent·A·(½ + ½·log 2π).
func (ln *learner) loss(x, act, olpc, nadv, oldv, ret tensor, ps []tensor, p updateParams, c clipScalars) (loss, pg, vl, logratio tensor) {
	s, l := ln.s, ln.l
	mu := l.mlp(s, x, l.actor, ps)
	v := l.mlp(s, x, l.critic, ps)
	logStd := ps[l.logStd]

	// log π(a|s) = −½·Σ((a−μ)/σ)² − Σ log σ − (A/2)·log 2π
	d := s.sub(act, mu)
	nls := s.neg(logStd)
	istd := s.exp(nls)
	z := s.mul(d, istd)
	z2 := s.square(z)
	sq := s.sumDim(z2, 1)
	sls := s.sum(logStd)
	t1 := s.add(olpc, sls)
	h := s.mulScalar(sq, ln.half)
	logratio = s.sub(h, t1)
	s.free(mu, d, nls, istd, z, z2, sq, t1, h)

	ratio := s.exp(logratio)
	p1 := s.mul(nadv, ratio)
	rc := s.clamp(ratio, c.lo, c.hi)
	p2 := s.mul(nadv, rc)
	pm := s.maximum(p1, p2)
	pg = s.mean(pm)
	s.free(ratio, p1, rc, p2, pm)

	e1 := s.sub(v, ret)
	se1 := s.square(e1)
	s.free(e1)
	if p.clipValueLoss {
		dv := s.sub(v, oldv)
		dvc := s.clamp(dv, c.nlo, c.plo)
		vc := s.add(oldv, dvc)
		e2 := s.sub(vc, ret)
		se2 := s.square(e2)
		vm := s.maximum(se1, se2)
		vl = s.mean(vm)
		s.free(dv, dvc, vc, e2, se2, vm)
	} else {
		vl = s.mean(se1)
	}
	s.free(se1, v)
	vw := s.mulScalar(vl, c.vcoef)
	loss = s.add(pg, vw)
	s.free(vw)
	if p.entropyCoef > 0 {
		es := s.mulScalar(sls, c.ecoef)
		l2 := s.sub(loss, es)
		s.free(es, loss)
		loss = l2
	}
	s.free(sls)
	return loss, pg, vl, logratio
}

// adam takes one Adam step on θ with gradient g (g is not freed). The
// moment updates m ← β1·m + (1−β1)·g are written as lerps toward g.
func (ln *learner) adam(g tensor, lr, eps, beta1, beta2 float64) {
	s := ln.s
	ln.step++
	t := float64(ln.step)
	bc1 := 1 - math.Pow(beta1, t)
	bc2 := 1 - math.Pow(beta2, t)
	stepSize := lr / bc1
	w1, w2 := newScalar(1-beta1), newScalar(1-beta2)
	s.lerp_(ln.m, g, w1)
	g2 := s.square(g)
	s.lerp_(ln.v, g2, w2)
	s.free(g2)
	freeScalar(w1)
	freeScalar(w2)
	// θ += m / d with d = −(√v/√bc2 + ε)/stepSize, i.e. θ −= stepSize·m/(√v/√bc2 + ε).
	d := s.sqrt(ln.v)
	c1, c2 := newScalar(-1/(math.Sqrt(bc2)*stepSize)), newScalar(-eps/stepSize)
	s.mulScalar_(d, c1)
	s.addScalar_(d, c2)
	freeScalar(c1)
	freeScalar(c2)
	s.addcdiv_(ln.thetaD, ln.m, d)
	s.free(d)
}

// normalizeAdvantages standardises a minibatch's advantages in place as
// CleanRL: (A − mean)/(std + 1e-8) with torch.std's unbiased estimate. A
// single-sample minibatch (whose unbiased std is undefined; torch would give
// NaN) is left unnormalised.
func normalizeAdvantages(adv []float64) {
	n := len(adv)
	if n < 2 {
		return
	}
	var mean float64
	for _, a := range adv {
		mean += a
	}
	mean /= float64(n)
	var ss float64
	for _, a := range adv {
		ss += (a - mean) * (a - mean)
	}
	std := math.Sqrt(ss / float64(n-1))
	for k, a := range adv {
		adv[k] = (a - mean) / (std + 1e-8)
	}
}

// gaussianEntropy is the entropy of a diagonal Gaussian with the given log
// stds: Σ (log σ_j + ½ + ½·log 2π).
func gaussianEntropy(logStd []float32) float64 {
	var h float64
	for _, v := range logStd {
		h += float64(v) + 0.5 + halfLog2Pi
	}
	return h
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func grow(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n)
	}
	return b[:n]
}

// explainedVariance is 1 − Var(y − ŷ)/Var(y) (NaN when Var(y) = 0).
func explainedVariance(y, pred []float64) float64 {
	n := float64(len(y))
	var my, md float64
	for i := range y {
		my += y[i]
		md += y[i] - pred[i]
	}
	my /= n
	md /= n
	var vy, vd float64
	for i := range y {
		vy += (y[i] - my) * (y[i] - my)
		d := y[i] - pred[i] - md
		vd += d * d
	}
	if vy == 0 {
		return math.NaN()
	}
	return 1 - vd/vy
}
