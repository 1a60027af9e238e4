package hoof

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
	"github.com/hyperctl/hyperctl/controller"
)

func TestContract(t *testing.T) { methodtest.Contract(t, Name, false) }

func lrClip(t *testing.T) controller.Space {
	t.Helper()
	sp, err := controller.NewSpace(
		controller.Param{Name: "lr", Low: 1e-5, High: 1e-3, Scale: controller.Log},
		controller.Param{Name: "clip", Low: 0.1, High: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// TestCandidates: K draws in the space, the incumbent first when set, the
// spec carrying the settings, and the kept candidate in force afterwards.
func TestCandidates(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  Settings
	}{
		{"paper", PaperSettings()},
		{"incumbent", Settings{K: 4, TrialEpochs: 2, Segment: 32, MaxKL: 0.02, Incumbent: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp := lrClip(t)
			start := controller.Config{3e-4, 0.2}
			m, err := tc.set.New()
			if err != nil {
				t.Fatal(err)
			}
			c, err := controller.New(Name, m, sp, controller.Options{Seed: 7, Start: start})
			if err != nil {
				t.Fatal(err)
			}
			for it := 0; it < 5; it++ {
				cur, err := c.Suggest()
				if err != nil {
					t.Fatal(err)
				}
				cur = append(controller.Config(nil), cur...)
				cands, spec, ok, err := c.Candidates()
				if err != nil || !ok {
					t.Fatalf("iteration %d: candidates: %v, ok %v", it, err, ok)
				}
				if len(cands) != tc.set.K || spec != (controller.TrialSpec{Epochs: tc.set.TrialEpochs, MaxKL: tc.set.MaxKL, Segment: tc.set.Segment}) {
					t.Fatalf("iteration %d: %d candidates, spec %+v", it, len(cands), spec)
				}
				if tc.set.Incumbent && (cands[0][0] != cur[0] || cands[0][1] != cur[1]) {
					t.Fatalf("iteration %d: candidate 0 %v, in force %v", it, cands[0], cur)
				}
				keep := cands[len(cands)-1]
				if err := c.Choose(keep); err != nil {
					t.Fatal(err)
				}
				if err := c.Observe(controller.Result{Reward: float64(it)}); err != nil {
					t.Fatal(err)
				}
				if got, _ := c.Current(); got[0] != keep[0] || got[1] != keep[1] {
					t.Fatalf("iteration %d: in force %v, kept %v", it, got, keep)
				}
				if it == 0 && (cur[0] != start[0] || cur[1] != start[1]) {
					t.Fatalf("first configuration %v, want the start %v", cur, start)
				}
			}
		})
	}
}

// TestKeepsCollectionKeys: batch_size and gamma are read while a batch is
// collected, so every candidate keeps the value in force.
func TestKeepsCollectionKeys(t *testing.T) {
	sp, err := controller.NewSpace(controller.Param{Name: "batch_size", Low: 1000, High: 6000, Integer: true},
		controller.Param{Name: "clip", Low: 0.1, High: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := (&Settings{K: 8}).New()
	if err := m.Init(sp, rand.New(rand.NewPCG(1, 2))); err != nil {
		t.Fatal(err)
	}
	cands, _, err := m.(*HOOF).Candidates(controller.Config{2048, 0.2})
	if err != nil {
		t.Fatal(err)
	}
	varied := false
	for _, c := range cands {
		if c[0] != 2048 {
			t.Fatalf("candidate %v changes batch_size", c)
		}
		varied = varied || c[1] != 0.2
	}
	if !varied {
		t.Fatal("no candidate varies clip")
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		set  Settings
		want string
	}{
		{Settings{K: 0}, "k: want an integer in [1, 64]"},
		{Settings{K: 5, TrialEpochs: -1}, "trial_epochs"},
		{Settings{K: 5, Segment: -2}, "segment"},
		{Settings{K: 5, MaxKL: -1}, "max_kl"},
		{Settings{K: 1, Incumbent: true}, "at least 2 with incumbent"},
	} {
		if err := tc.set.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.set, err, tc.want)
		}
	}
	d := DefaultSettings()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
}
