package ppo

import (
	"slices"
	"testing"

	"github.com/hyperctl/hyperctl/envs"
)

// TestGraftKeepsOwnRandomness: a trainer restored from Graft(donor, own)
// holds the donor's parameters, optimiser, normalisers and counters and
// the receiver's generators, environments, running returns and seed, so
// it does not continue as the donor's twin does; a snapshot grafted onto
// itself is unchanged; a graft across structures or of a damaged
// snapshot is refused.
func TestGraftKeepsOwnRandomness(t *testing.T) {
	cfg := toyExactConfig()
	const env = "ppotest-target"
	evalAfter := map[int]bool{1: true}
	donor := newToyTrainer(t, env, cfg, 3)
	own := newToyTrainer(t, env, cfg, 5)
	drive(t, donor, 0, 2, evalAfter)
	drive(t, own, 0, 2, evalAfter)
	sd, err1 := donor.Snapshot()
	so, err2 := own.Snapshot()
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	g, err := Graft(sd, so)
	if err != nil {
		t.Fatal(err)
	}
	r := newToyTrainer(t, env, cfg, 5)
	if err := r.Restore(g); err != nil {
		t.Fatalf("the graft does not restore into a trainer of the receiver's seed: %v", err)
	}
	snap := func(x *Trainer) (act, mb, vec, eval []byte) {
		var err error
		act, _ = x.actPCG.MarshalBinary()
		mb, _ = x.mbPCG.MarshalBinary()
		if vec, err = x.vec.Snapshot(); err != nil {
			t.Fatal(err)
		}
		if eval, err = envs.Snapshot(x.evalEnv); err != nil {
			t.Fatal(err)
		}
		return
	}
	ra, rm, rv, re := snap(r)
	oa, om, ov, oe := snap(own)
	da, _, dv, _ := snap(donor)
	for _, c := range []struct {
		what string
		ok   bool
	}{
		{"parameters are the donor's", slices.Equal(paramsOf(t, r), paramsOf(t, donor))},
		{"counters are the donor's", r.Frames() == donor.Frames() && r.Iteration() == donor.Iteration() && r.evals == donor.evals},
		{"observation normaliser is the donor's", slices.Equal(r.obsRMS.Mean, donor.obsRMS.Mean) && slices.Equal(r.obsRMS.Var, donor.obsRMS.Var)},
		{"reward normaliser is the donor's", slices.Equal(r.rew.RMS.Var, donor.rew.RMS.Var) && r.rew.RMS.Count == donor.rew.RMS.Count},
		{"running returns are the receiver's", slices.Equal(r.rew.Returns, own.rew.Returns)},
		{"generators are the receiver's", slices.Equal(ra, oa) && slices.Equal(rm, om) && !slices.Equal(ra, da)},
		{"environments are the receiver's", slices.Equal(rv, ov) && slices.Equal(re, oe) && !slices.Equal(rv, dv)},
		{"seed is the receiver's", r.seed == own.seed},
	} {
		if !c.ok {
			t.Errorf("after the graft: %s: false", c.what)
		}
	}
	twin := newToyTrainer(t, env, cfg, 3)
	if err := twin.Restore(sd); err != nil {
		t.Fatal(err)
	}
	if drive(t, r, 2, 4, evalAfter).equal(drive(t, twin, 2, 4, evalAfter)) {
		t.Error("the grafted trainer continues exactly as the donor's twin: a clone")
	}

	if same, err := Graft(sd, sd); err != nil || !slices.Equal(same, sd) {
		t.Errorf("a snapshot grafted onto itself changed (%v)", err)
	}
	wide := cfg
	wide.Hidden = []int{16}
	other := newToyTrainer(t, env, wide, 5)
	sw, err := other.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	bad := slices.Clone(so)
	bad[len(bad)/2] ^= 0x5a
	for name, o := range map[string][]byte{"other structure": sw, "damaged": bad, "truncated": so[:len(so)-1]} {
		if _, err := Graft(sd, o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
