package ppo

import (
	"math"
	"testing"
)

// refLoss is the straightforward implementation of CleanRL's PPO loss: the
// whole graph in libtorch ops, differentiated by autograd. It is the
// reference that ppoLoss's analytic output gradients are checked against
// (TestGradientMatchesAutograd). nadv holds −Â, olpc log π_old + (A/2)·log 2π.
// It returns the total loss (without H's constant, which has no gradient),
// L_pg, 2·L_v and log r; the caller frees them.
func (ln *learner) refLoss(x, act, olpc, nadv, oldv, ret tensor, ps []tensor, p updateParams) (loss, pg, vl, logratio tensor) {
	s, l := ln.s, ln.l
	half := newScalar(-0.5)
	lo, hi, nlo, plo := newScalar(1-p.Clip), newScalar(1+p.Clip), newScalar(-p.Clip), newScalar(p.Clip)
	vcoef, ecoef := newScalar(0.5*p.ValueCoef), newScalar(p.EntropyCoef)
	defer func() {
		for _, c := range []scalar{half, lo, hi, nlo, plo, vcoef, ecoef} {
			freeScalar(c)
		}
	}()
	mu := l.mlp(s, x, l.actor, ps)
	v := l.mlp(s, x, l.critic, ps)
	logStd := ps[l.logStd]

	d := s.sub(act, mu)
	nls := s.neg(logStd)
	istd := s.exp(nls)
	z := s.mul(d, istd)
	z2 := s.square(z)
	sq := s.sumDim(z2, 1)
	sls := s.sum(logStd)
	t1 := s.add(olpc, sls)
	h := s.mulScalar(sq, half)
	logratio = s.sub(h, t1)
	s.free(mu, d, nls, istd, z, z2, sq, t1, h)

	ratio := s.exp(logratio)
	p1 := s.mul(nadv, ratio)
	rc := s.clamp(ratio, lo, hi)
	p2 := s.mul(nadv, rc)
	pm := s.maximum(p1, p2)
	pg = s.mean(pm)
	s.free(ratio, p1, rc, p2, pm)

	e1 := s.sub(v, ret)
	se1 := s.square(e1)
	s.free(e1)
	if p.clipValueLoss {
		dv := s.sub(v, oldv)
		dvc := s.clamp(dv, nlo, plo)
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
	vw := s.mulScalar(vl, vcoef)
	loss = s.add(pg, vw)
	s.free(vw)
	if p.EntropyCoef > 0 {
		es := s.mulScalar(sls, ecoef)
		l2 := s.sub(loss, es)
		s.free(es, loss)
		loss = l2
	}
	s.free(sls)
	return loss, pg, vl, logratio
}

// refRun is autograd's answer on one minibatch: the gradient with respect
// to θ, L_pg, L_v (with the ½) and how many samples have a clipped ratio.
type refRun struct {
	grad    []float32
	pg, v   float64
	clipped int
}

// refGradient runs refLoss on a minibatch given as host slices (x rows×obs,
// act rows×act; olpc, nadv, ov and rt one value per row, as refLoss takes
// them) and differentiates it with autograd.
func (ln *learner) refGradient(t *testing.T, x, act, olpc, nadv, ov, rt []float32, p updateParams) refRun {
	t.Helper()
	s, l, rows := ln.s, ln.l, int64(len(olpc))
	xt, at := s.fromFloat32(x, rows, int64(l.obsDim)), s.fromFloat32(act, rows, int64(l.actDim))
	op, na := s.fromFloat32(olpc, rows), s.fromFloat32(nadv, rows)
	oldv, ret := s.fromFloat32(ov, rows, 1), s.fromFloat32(rt, rows, 1)
	ps := l.params(s, ln.theta, nil)
	loss, pg, vl, lr := ln.refLoss(xt, at, op, na, oldv, ret, ps, p)
	r := refRun{pg: s.item(pg), v: 0.5 * s.item(vl), grad: make([]float32, l.total)}
	gr := s.grad(loss, ln.theta)
	s.copyTo(gr, r.grad)
	lrs := make([]float32, rows)
	s.copyTo(lr, lrs)
	s.free(gr, loss, pg, vl, lr, xt, at, op, na, oldv, ret)
	s.free(ps...)
	if s.err != nil {
		t.Fatal(s.err)
	}
	for _, v := range lrs {
		if math.Abs(math.Exp(float64(v))-1) > p.Clip {
			r.clipped++
		}
	}
	return r
}
