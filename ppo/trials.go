package ppo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// TrialStats is what IterateTrials measured of each candidate.
type TrialStats struct {
	Scores []float64 // weighted importance sampling estimate of each candidate's return per trajectory piece (−Inf: rejected update)
	KL     []float64 // mean KL divergence of each candidate's policy from the one that collected the batch
	Chosen int       // the candidate kept
	// SearchTime is the hyperparameter search's share of the iteration:
	// the trial updates of the candidates not kept, and scoring all of
	// them (Run counts it as controller time; the kept candidate's trial
	// epochs are training).
	SearchTime time.Duration
}

// IterateTrials runs one iteration in which the update is chosen among
// candidates, as HOOF does (Paul et al. 2019, "Fast Efficient
// Hyperparameter Tuning for Policy Gradients"): one batch is collected with
// the candidates' collection keys (batch_size and gamma, which must be the
// same in all of them); from the same parameters, Adam state and minibatch
// order, each candidate makes a trial update of spec.Epochs epochs (all of
// its epochs when 0); each resulting policy is scored on the batch just
// collected by weighted importance sampling (WIS) of the trajectories'
// undiscounted raw returns, with no new environment samples:
//
//	Ĵ(π_k) = Σ_i w_i G_i / Σ_i w_i,   w_i = Π_{t∈τ_i} π_k(a_t|s_t) / π_old(a_t|s_t)
//
// where τ_i are the batch's trajectories (each environment copy's frames
// between episode ends and the batch's edges, cut into pieces of at most
// spec.Segment steps when it is > 0) and G_i their summed raw rewards.
// Candidates whose mean KL divergence from π_old exceeds spec.MaxKL (when >
// 0) are discarded; the best remaining one is kept (the lowest index on a
// tie; the candidate of least KL when none remains) and runs the rest of
// its epochs. Every candidate is checked with Hyper.Validate. The stats'
// Hyper is the kept candidate's and stats.Trial holds every score.
//
// Like Iterate, the iteration runs to completion once started.
func (t *Trainer) IterateTrials(ctx context.Context, cands []ppoconfig.Hyper, spec controller.TrialSpec) (IterStats, error) {
	var st IterStats
	if err := t.ready(ctx); err != nil {
		return st, err
	}
	if len(cands) == 0 {
		return st, errors.New("ppo: trials: no candidates")
	}
	if spec.Epochs < 0 || spec.Segment < 0 || !(spec.MaxKL >= 0) {
		return st, fmt.Errorf("ppo: trials: spec %+v: want epochs >= 0, segment >= 0, max_kl >= 0", spec)
	}
	for k, h := range cands {
		if err := h.Validate(); err != nil {
			return st, fmt.Errorf("ppo: trials: candidate %d: %w", k, err)
		}
		if name, hv, v0, differ := h.CollectDiff(cands[0]); differ {
			return st, fmt.Errorf("ppo: trials: candidate %d has %s = %v, candidate 0 has %v: %s is read while the batch is collected, so every candidate must share it", k, name, hv, v0, name)
		}
	}
	return t.run(func() (IterStats, error) { return t.iterateTrials(cands, spec) })
}

// trialEnd is the learner state after one candidate's trial update.
type trialEnd struct {
	theta, m, v []float32
	step        int64
	rng         []byte // the minibatch generator's state
	perm        []int  // the minibatch order, to continue from
	stats       UpdateStats
}

func (t *Trainer) iterateTrials(cands []ppoconfig.Hyper, spec controller.TrialSpec) (IterStats, error) {
	start := time.Now()
	st, err := t.rollout(cands[0])
	if err != nil {
		return st, err
	}
	frames := st.Frames
	tu := time.Now()
	theta0, m0, v0, err := t.ln.state()
	if err != nil {
		return st, err
	}
	step0 := t.ln.step
	rng0, err := t.mbPCG.MarshalBinary()
	if err != nil {
		return st, err
	}
	restore := func(theta, m, v []float32, step int64, rng []byte) error {
		if err := t.ln.setState(theta, m, v, step); err != nil {
			return err
		}
		return t.mbPCG.UnmarshalBinary(rng)
	}
	tr := &TrialStats{Scores: make([]float64, len(cands)), KL: make([]float64, len(cands))}
	ends := make([]trialEnd, len(cands))
	trialTime := make([]time.Duration, len(cands))
	for k, h := range cands {
		tk := time.Now()
		if err := restore(theta0, m0, v0, step0, rng0); err != nil {
			return st, err
		}
		epochs := h.Epochs
		if spec.Epochs > 0 {
			epochs = min(spec.Epochs, h.Epochs)
		}
		t.advantages(h, frames)
		e := &ends[k]
		bt := t.batch(frames)
		e.perm = identity(frames)
		bt.perm = e.perm
		us, err := t.ln.update(bt, t.updateParams(h, epochs), t.mbRNG)
		if err != nil {
			return st, err
		}
		trialTime[k] = time.Since(tk)
		e.stats = us
		if us.Rejected {
			tr.Scores[k], tr.KL[k] = math.Inf(-1), math.Inf(1)
		} else if tr.Scores[k], tr.KL[k], err = t.trialScore(frames, spec.Segment); err != nil {
			return st, err
		}
		if e.theta, e.m, e.v, err = t.ln.state(); err != nil {
			return st, err
		}
		e.step = t.ln.step
		if e.rng, err = t.mbPCG.MarshalBinary(); err != nil {
			return st, err
		}
	}
	best := chooseTrial(tr.Scores, tr.KL, spec.MaxKL)
	tr.Chosen = best
	tr.SearchTime = time.Since(tu) - trialTime[best]
	h := cands[best]
	e := ends[best]
	if err := restore(e.theta, e.m, e.v, e.step, e.rng); err != nil {
		return st, err
	}
	us := e.stats
	t.advantages(h, frames)
	if rest := h.Epochs - us.Epochs; !us.Rejected && spec.Epochs > 0 && rest > 0 && !(h.TargetKL > 0 && us.ApproxKL > h.TargetKL) {
		bt := t.batch(frames)
		bt.perm = e.perm
		more, err := t.ln.update(bt, t.updateParams(h, rest), t.mbRNG)
		if err != nil {
			return st, err
		}
		if more.Rejected {
			us = more
		} else {
			more.Minibatches += us.Minibatches
			more.Epochs += us.Epochs
			us = more
		}
	}
	st.UpdateTime = time.Since(tu)
	st.Hyper = h
	st.Trial = tr
	t.finish(&st, us, start)
	return st, nil
}

// chooseTrial returns the candidate with the highest score among those
// whose KL is at most maxKL (every one when maxKL is 0), the lowest index
// on a tie; when none qualifies, the one of least KL.
func chooseTrial(scores, kl []float64, maxKL float64) int {
	best, least := -1, 0
	for k, s := range scores {
		if kl[k] < kl[least] {
			least = k
		}
		if math.IsInf(s, -1) || (maxKL > 0 && kl[k] > maxKL) {
			continue
		}
		if best < 0 || s > scores[best] {
			best = k
		}
	}
	if best < 0 {
		return least
	}
	return best
}

// trialScore scores the learner's current policy on the collected batch of
// frames frames: the WIS estimate of its return per trajectory piece (see
// IterateTrials) and its mean KL divergence from the policy that collected
// the batch (the estimator of UpdateStats.ApproxKL).
func (t *Trainer) trialScore(frames, segment int) (score, kl float64, err error) {
	b := &t.buf
	n, ad := t.n, t.ad
	b.trialMean = grow(b.trialMean, frames*ad)
	if err := t.ln.infer(b.obs, frames, b.trialMean, nil); err != nil {
		return 0, 0, err
	}
	logStd := make([]float32, ad)
	t.ln.s.copyTo(t.ln.inf[t.l.logStd], logStd)
	if t.ln.s.err != nil {
		return 0, 0, t.ln.s.err
	}
	var sumLogStd float64
	std := make([]float64, ad)
	for j, v := range logStd {
		std[j] = math.Exp(float64(v))
		sumLogStd += float64(v)
	}
	b.logRatio = growF(b.logRatio, frames)
	for i := range frames {
		lp := -sumLogStd - float64(ad)*halfLog2Pi
		for j := range ad {
			z := (float64(b.act[i*ad+j]) - float64(b.trialMean[i*ad+j])) / std[j]
			lp -= 0.5 * z * z
		}
		lr := lp - b.logp[i]
		b.logRatio[i] = lr
		kl += math.Expm1(lr) - lr
	}
	kl /= float64(frames)
	var logW, ret []float64
	steps := frames / n
	for e := range n {
		var lw, g float64
		length := 0
		for s := range steps {
			f := s*n + e
			lw += b.logRatio[f]
			g += b.raw[f]
			length++
			done := b.trunc[f] || b.term[f]
			if done || (segment > 0 && length == segment) || s == steps-1 {
				logW, ret = append(logW, lw), append(ret, g)
				lw, g, length = 0, 0, 0
			}
		}
	}
	return wis(logW, ret), kl, nil
}

// wis is the weighted importance sampling estimate Σ w_i g_i / Σ w_i with
// w_i = exp(logW_i), computed stably (relative to the largest log-weight).
func wis(logW, g []float64) float64 {
	top := math.Inf(-1)
	for _, l := range logW {
		top = math.Max(top, l)
	}
	var num, den float64
	for i, l := range logW {
		w := math.Exp(l - top)
		num += w * g[i]
		den += w
	}
	return num / den
}
