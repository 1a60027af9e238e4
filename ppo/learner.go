package ppo

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
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
// implemented here (adamStep, executed as one fused pass over θ, m and v by
// the shim, shim.cpp), following torch.optim.Adam (amsgrad
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
	sh     *shim    // the minibatch step in libtorch's C++ API, over thetaD, m, v

	// Per-minibatch host buffers.
	xb, ab, mub, vb []float32
	lsb, gb         []float32
	f64             []float64
	rejected        int // updates rejected for non-finite values (lifetime)
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
	if s.err != nil {
		err := s.err
		ln.close()
		return nil, err
	}
	sh, err := newShim(l, ln.thetaD, ln.m, ln.v)
	if err != nil {
		ln.close()
		return nil, err
	}
	ln.sh = sh
	return ln, nil
}

func (ln *learner) close() {
	if ln.s == nil {
		return
	}
	if ln.sh != nil {
		ln.sh.close()
		ln.sh = nil
	}
	ln.s.free(ln.inf...)
	ln.inf = nil
	ln.s.free(ln.theta, ln.thetaD, ln.m, ln.v)
	ln.theta, ln.thetaD, ln.m, ln.v = nil, nil, nil, nil
	ln.s.close()
	ln.s = nil
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
// writes the action means (rows×actDim) and values (rows; skipped when
// value is nil). It runs through the shim, one cgo call.
func (ln *learner) infer(obs []float32, rows int, mean []float32, value []float32) error {
	if ln.s.err != nil {
		return ln.s.err
	}
	var v []float32
	if value != nil {
		v = value[:rows]
	}
	return ln.sh.forward(obs[:rows*ln.l.obsDim], rows, false, mean[:rows*ln.l.actDim], v, nil)
}

// values runs the critic only.
func (ln *learner) values(obs []float32, rows int, value []float32) error {
	if ln.s.err != nil {
		return ln.s.err
	}
	return ln.sh.forward(obs[:rows*ln.l.obsDim], rows, false, nil, value[:rows], nil)
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
	// oldMean (n×actDim) and oldLogStd (actDim) are the policy that
	// collected the batch, for the KL of a KL-adaptive lr (meanKL).
	oldMean, oldLogStd []float32
	// perm is the minibatch order the update shuffles, epoch after epoch,
	// from the identity; nil starts from the identity. An update split in
	// two (IterateTrials) passes the first part's perm to the second, so
	// its minibatches are exactly those of one update.
	perm []int
}

// updateParams are the settings of one update: the iteration's
// hyperparameters (ppoconfig.Hyper; the Adam step size is StepLR) and the trainer's
// fixed switches.
type updateParams struct {
	ppoconfig.Hyper
	adamEps, adamBeta1, adamBeta2 float64
	clipValueLoss, normAdvantage  bool
	// lr is the KL-adaptive learning rate (klrate.go); nil: StepLR at
	// every step.
	lr *lrControl
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
		st = UpdateStats{Rejected: true, RejectReason: reason, ExplainedVar: st.ExplainedVar, AdvantageMean: st.AdvantageMean}
	}

	mb := min(p.MinibatchSize, b.n)
	perm := b.perm
	if perm == nil {
		perm = identity(b.n)
	}
	var sumPG, sumV, sumGN float64
	var nClip, nSamples int
	for epoch := 0; epoch < p.Epochs; epoch++ {
		rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		var klSum float64
		var klN int
		for start := 0; start < b.n; start += mb {
			idx := perm[start:min(start+mb, b.n)]
			r, err := ln.minibatch(b, idx, p)
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
		if p.lr != nil {
			p.lr.endEpoch()
		}
		st.Epochs = epoch + 1
		st.ApproxKL = klSum / float64(klN)
		if p.TargetKL > 0 && st.ApproxKL > p.TargetKL {
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

// identity returns the permutation 0, 1, …, n−1.
func identity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}

type mbResult struct {
	pg, v, gradNorm float64
	klSum           float64
	clipped         int
}

// minibatch computes the PPO loss on the frames idx and its gradient,
// clips the global gradient norm and takes one Adam step. It returns
// errRejected (wrapped) without touching θ when the loss or the gradient is
// not finite. The whole step costs three cgo calls into the shim
// (forward, backward, Adam; see shim.cpp).
func (ln *learner) minibatch(b *updateBatch, idx []int, p updateParams) (mbResult, error) {
	var r mbResult
	terms, gn, err := ln.gradient(b, idx, p)
	if err != nil {
		return r, err
	}
	r.pg, r.v, r.klSum, r.clipped = terms.pg, terms.v, terms.klSum, terms.clipped
	if !finite(terms.loss) {
		return r, fmt.Errorf("%w: loss %v", errRejected, terms.loss)
	}
	r.gradNorm = gn
	if !finite(r.gradNorm) {
		return r, fmt.Errorf("%w: loss %v, gradient norm %v", errRejected, terms.loss, r.gradNorm)
	}
	// Global gradient-norm clipping (torch.nn.utils.clip_grad_norm_).
	var coef float64
	scale := false
	if p.MaxGradNorm > 0 {
		if coef = p.MaxGradNorm / (r.gradNorm + 1e-6); coef < 1 {
			scale = true
		}
	}
	lr := p.StepLR()
	if p.lr != nil {
		lr = p.lr.step(ln.meanKL(b, idx)) * p.LRScale
	}
	return r, ln.adamStep(nil, scale, coef, lr, p.adamEps, p.adamBeta1, p.adamBeta2)
}

// gradient computes ∇θ of the PPO loss on the frames idx into the shim's
// gradient vector (ln.sh.grad) and returns the loss terms and the
// gradient's 2-norm (NaN when the loss is not finite; the gradient is then
// not computed). The networks run forward in libtorch; the loss and its
// gradient with respect to the networks' outputs (μ, V, log σ) are computed
// in Go (ppoLoss); libtorch then backpropagates those output gradients
// through the networks (shim.cpp), which gives exactly ∇θ L.
func (ln *learner) gradient(b *updateBatch, idx []int, p updateParams) (lossTerms, float64, error) {
	l := ln.l
	B := len(idx)
	od, ad := l.obsDim, l.actDim
	ln.xb = grow(ln.xb, B*od)
	ln.ab = grow(ln.ab, B*ad)
	ln.mub = grow(ln.mub, B*ad)
	ln.vb = grow(ln.vb, B)
	ln.lsb = grow(ln.lsb, ad)
	ln.gb = grow(ln.gb, B*ad+B+ad)
	if cap(ln.f64) < 4*B {
		ln.f64 = make([]float64, 4*B)
	}
	olp, adv, ov, ret := ln.f64[:B], ln.f64[B:2*B], ln.f64[2*B:3*B], ln.f64[3*B:4*B]
	for k, i := range idx {
		copy(ln.xb[k*od:(k+1)*od], b.obs[i*od:(i+1)*od])
		copy(ln.ab[k*ad:(k+1)*ad], b.act[i*ad:(i+1)*ad])
		olp[k], adv[k], ov[k], ret[k] = b.logp[i], b.adv[i], b.values[i], b.ret[i]
	}
	if p.normAdvantage {
		normalizeAdvantages(adv)
	}
	if err := ln.sh.forward(ln.xb, B, true, ln.mub, ln.vb, ln.lsb); err != nil {
		return lossTerms{}, math.NaN(), err
	}
	gmu, gv, gls := ln.gb[:B*ad], ln.gb[B*ad:B*ad+B], ln.gb[B*ad+B:]
	terms := ppoLoss(lossInput{B: B, A: ad, mu: ln.mub, v: ln.vb, logStd: ln.lsb, act: ln.ab,
		oldLogp: olp, adv: adv, oldV: ov, ret: ret}, p, gmu, gv, gls)
	if !finite(terms.loss) {
		return terms, math.NaN(), nil
	}
	gn, err := ln.sh.backward(gmu, gv, gls)
	return terms, gn, err
}

// adam takes one Adam step on θ with gradient g (g is not freed).
func (ln *learner) adam(g tensor, lr, eps, beta1, beta2 float64) {
	if ln.s.err != nil {
		return
	}
	if err := ln.adamStep(g, false, 0, lr, eps, beta1, beta2); err != nil {
		ln.s.fail("adam", err)
	}
}

// adamStep scales the gradient (g, or the shim's when g is nil) by coef if
// scale is set, then takes one Adam step on θ, following torch.optim.Adam.
// The moment updates m ← β1·m + (1−β1)·g are written as lerps toward g, and
// θ −= stepSize·m/(√v/√bc2 + ε) as θ += m/d with
// d = −(√v/√bc2 + ε)/stepSize = √v·c1 + c2.
func (ln *learner) adamStep(g tensor, scale bool, coef, lr, eps, beta1, beta2 float64) error {
	ln.step++
	t := float64(ln.step)
	bc1 := 1 - math.Pow(beta1, t)
	bc2 := 1 - math.Pow(beta2, t)
	stepSize := lr / bc1
	return ln.sh.step(g, scale, coef, 1-beta1, 1-beta2, -1/(math.Sqrt(bc2)*stepSize), -eps/stepSize)
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
