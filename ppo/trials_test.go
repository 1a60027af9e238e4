package ppo

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// TestTrialsOfOneEqualIterate: one candidate whose trial is its whole
// update (spec.Epochs = 0) is exactly Iterate: the same parameters and
// rewards, bit for bit, over three iterations.
func TestTrialsOfOneEqualIterate(t *testing.T) {
	cfg := toyConfig()
	a := newToyTrainer(t, "ppotest-target", cfg, 3)
	b := newToyTrainer(t, "ppotest-target", cfg, 3)
	for it := range 3 {
		sa, err := a.Iterate(context.Background(), cfg.Hyper)
		if err != nil {
			t.Fatal(err)
		}
		sb, err := b.IterateTrials(context.Background(), []ppoconfig.Hyper{cfg.Hyper}, controller.TrialSpec{})
		if err != nil {
			t.Fatal(err)
		}
		if sa.Reward != sb.Reward || sb.Trial == nil || sb.Trial.Chosen != 0 || sa.Update.Minibatches != sb.Update.Minibatches {
			t.Fatalf("iteration %d: rewards %v / %v, trial %+v, minibatches %d / %d", it, sa.Reward, sb.Reward, sb.Trial, sa.Update.Minibatches, sb.Update.Minibatches)
		}
		if !slices.Equal(paramsOf(t, a), paramsOf(t, b)) {
			t.Fatalf("iteration %d: parameters differ", it)
		}
	}
}

// TestTrialsContinueTheKeptCandidate: with trial epochs, the kept
// candidate's update is its trial epochs plus the rest of its epochs, in
// the minibatch order a plain update would take, so two identical
// candidates give Iterate's result exactly; distinct candidates give
// finite scores, the kept one is the best allowed, and a run is
// deterministic.
func TestTrialsContinueTheKeptCandidate(t *testing.T) {
	cfg := toyConfig()
	cfg.Epochs = 4
	a := newToyTrainer(t, "ppotest-target", cfg, 5)
	b := newToyTrainer(t, "ppotest-target", cfg, 5)
	sa, err := a.Iterate(context.Background(), cfg.Hyper)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := b.IterateTrials(context.Background(), []ppoconfig.Hyper{cfg.Hyper, cfg.Hyper}, controller.TrialSpec{Epochs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sb.Trial.Chosen != 0 || sb.Trial.Scores[0] != sb.Trial.Scores[1] || sb.Update.Epochs != 4 || sb.Update.Minibatches != sa.Update.Minibatches {
		t.Fatalf("identical candidates: %+v, epochs %d, minibatches %d (plain %d)", sb.Trial, sb.Update.Epochs, sb.Update.Minibatches, sa.Update.Minibatches)
	}
	if !slices.Equal(paramsOf(t, a), paramsOf(t, b)) {
		t.Fatal("kept candidate's parameters differ from a plain update's")
	}
	run := func() ([]float32, *TrialStats) {
		tr := newToyTrainer(t, "ppotest-target", cfg, 9)
		var last *TrialStats
		for range 3 {
			cands := make([]ppoconfig.Hyper, 3)
			for k, lr := range []float64{1e-4, 1e-3, 3e-3} {
				cands[k] = cfg.Hyper
				cands[k].LR = lr
			}
			st, err := tr.IterateTrials(context.Background(), cands, controller.TrialSpec{Epochs: 1, Segment: 16})
			if err != nil {
				t.Fatal(err)
			}
			if st.Hyper.LR != cands[st.Trial.Chosen].LR {
				t.Fatalf("stats' lr %v, kept candidate's %v", st.Hyper.LR, cands[st.Trial.Chosen].LR)
			}
			last = st.Trial
		}
		return paramsOf(t, tr), last
	}
	p1, t1 := run()
	p2, t2 := run()
	if !slices.Equal(p1, p2) || !slices.Equal(t1.Scores, t2.Scores) {
		t.Fatal("trials are not deterministic")
	}
	for k, s := range t1.Scores {
		if math.IsNaN(s) || math.IsInf(s, 0) || !(t1.KL[k] >= 0) {
			t.Fatalf("candidate %d: score %v, KL %v", k, s, t1.KL[k])
		}
		if s > t1.Scores[t1.Chosen] {
			t.Fatalf("kept %d (%v) but %d scored %v", t1.Chosen, t1.Scores[t1.Chosen], k, s)
		}
	}
}

func TestChooseTrial(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		scores, kl []float64
		maxKL      float64
		want       int
	}{
		{[]float64{1, 3, 2}, []float64{0.01, 0.05, 0.02}, 0, 1},
		{[]float64{1, 3, 2}, []float64{0.01, 0.05, 0.02}, 0.03, 2},
		{[]float64{1, 3, 3}, []float64{0.01, 0.02, 0.02}, 0, 1},               // tie: the lowest index
		{[]float64{1, 3}, []float64{0.5, 0.4}, 0.1, 1},                        // none allowed: least KL
		{[]float64{math.Inf(-1), 0}, []float64{inf, 0.01}, 0, 1},              // a rejected update never wins
		{[]float64{math.Inf(-1), math.Inf(-1)}, []float64{inf, inf}, 0.01, 0}, // all rejected
	} {
		if got := chooseTrial(tc.scores, tc.kl, tc.maxKL); got != tc.want {
			t.Errorf("scores %v KL %v max %v: chose %d, want %d", tc.scores, tc.kl, tc.maxKL, got, tc.want)
		}
	}
}

func TestWIS(t *testing.T) {
	// Equal weights: the mean; a weight e^1000 dominates without overflow.
	if got := wis([]float64{0.5, 0.5}, []float64{2, 4}); got != 3 {
		t.Fatalf("equal weights: %v", got)
	}
	if got := wis([]float64{1000, 0}, []float64{7, -3}); got != 7 {
		t.Fatalf("dominant weight: %v", got)
	}
	if got := wis([]float64{math.Log(3), 0}, []float64{1, 5}); math.Abs(got-2) > 1e-12 {
		t.Fatalf("weights 3:1: %v, want 2", got)
	}
}

func TestTrialsRefuseBadCandidates(t *testing.T) {
	cfg := toyConfig()
	tr := newToyTrainer(t, "ppotest-target", cfg, 1)
	other := cfg.Hyper
	other.BatchSize = 256
	bad := cfg.Hyper
	bad.Clip = 2
	for _, tc := range []struct {
		cands []ppoconfig.Hyper
		spec  controller.TrialSpec
		want  string
	}{
		{nil, controller.TrialSpec{}, "no candidates"},
		{[]ppoconfig.Hyper{cfg.Hyper, other}, controller.TrialSpec{}, "batch_size is read while the batch is collected"},
		{[]ppoconfig.Hyper{cfg.Hyper, bad}, controller.TrialSpec{}, "candidate 1: ppo.clip"},
		{[]ppoconfig.Hyper{cfg.Hyper}, controller.TrialSpec{Epochs: -1}, "want epochs >= 0"},
	} {
		if _, err := tr.IterateTrials(context.Background(), tc.cands, tc.spec); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.spec, err, tc.want)
		}
	}
	if _, err := tr.Iterate(context.Background(), cfg.Hyper); err != nil {
		t.Fatalf("refused candidates left the trainer unusable: %v", err)
	}
}
