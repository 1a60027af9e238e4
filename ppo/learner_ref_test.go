package ppo

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
