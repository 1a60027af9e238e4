package controller_test

import (
	"math"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/controller"
)

// TestDriverStart: with Options.Start the first decision period runs the
// start configuration without asking the method, the method observes it
// like any other, and its first Suggest comes at the next decision point.
func TestDriverStart(t *testing.T) {
	f := &fakeMethod{}
	sp := twoParams(t)
	start := controller.Config{sp.Param(0).Low, sp.Param(1).High}
	ctl, err := controller.New("fake", f, sp, controller.Options{Interval: 3, Objective: controller.Reward, Start: start})
	if err != nil {
		t.Fatal(err)
	}
	for it := range 6 {
		cfg, err := ctl.Suggest()
		if err != nil {
			t.Fatal(err)
		}
		if it < 3 && !equal(cfg, start) {
			t.Fatalf("iteration %d: %v, want the start %v", it, cfg, start)
		}
		if it >= 3 && equal(cfg, start) {
			t.Fatalf("iteration %d: still the start", it)
		}
		if err := ctl.Observe(controller.Result{Reward: float64(it)}); err != nil {
			t.Fatal(err)
		}
	}
	if len(f.suggests) != 1 || f.suggests[0] != 3 || len(f.obs) != 6 || !equal(f.obs[0].Config, start) {
		t.Fatalf("method suggested at %v, observed %d (first config %v)", f.suggests, len(f.obs), f.obs[0].Config)
	}
	bad := controller.Config{sp.Param(0).High * 2, sp.Param(1).Low}
	if _, err := controller.New("fake", &fakeMethod{}, sp, controller.Options{Start: bad}); err == nil || !strings.Contains(err.Error(), "start") {
		t.Fatalf("start outside the space: %v", err)
	}
	clamped, err := sp.Clamp(bad)
	if err != nil || clamped[0] != sp.Param(0).High || clamped[1] != bad[1] {
		t.Fatalf("Clamp(%v) = %v, %v", bad, clamped, err)
	}
	if _, err := sp.Clamp(controller.Config{math.NaN(), 1}); err == nil {
		t.Fatal("Clamp accepted NaN")
	}
}

// TestDriverPerInterval: the method sees one observation per decision
// period, the objective of the period's mean reward against the previous
// period's (none for the first period under Delta), and a snapshot taken
// mid-period continues exactly.
func TestDriverPerInterval(t *testing.T) {
	rewards := []float64{1, 2, 3, 7, 8, 9, 4, 4, 4}
	for _, tc := range []struct {
		obj  controller.Objective
		want []float64
	}{
		{controller.Delta, []float64{6, -4}},
		{controller.Reward, []float64{2, 8, 4}},
		{controller.DeltaPerKFrame, []float64{6 * 1000 / 300.0, -4 * 1000 / 300.0}},
	} {
		t.Run(tc.obj.String(), func(t *testing.T) {
			run := func(snapAt int) []controller.Observation {
				f := &fakeMethod{}
				opts := controller.Options{Interval: 3, Objective: tc.obj, PerInterval: true, Seed: 2}
				ctl, err := controller.New("fake", f, twoParams(t), opts)
				if err != nil {
					t.Fatal(err)
				}
				for it, r := range rewards {
					if it == snapAt {
						b, err := ctl.Snapshot()
						if err != nil {
							t.Fatal(err)
						}
						f2 := &fakeMethod{}
						ctl, err = controller.New("fake", f2, twoParams(t), opts)
						if err != nil {
							t.Fatal(err)
						}
						if err := ctl.Restore(b); err != nil {
							t.Fatal(err)
						}
						f2.obs = f.obs
						f = f2
					}
					if _, err := ctl.Suggest(); err != nil {
						t.Fatal(err)
					}
					if err := ctl.Observe(controller.Result{Reward: r, Frames: 100}); err != nil {
						t.Fatal(err)
					}
				}
				return f.obs
			}
			for _, snapAt := range []int{-1, 4} {
				obs := run(snapAt)
				if len(obs) != len(tc.want) {
					t.Fatalf("snapshot at %d: %d observations, want %d", snapAt, len(obs), len(tc.want))
				}
				for k, o := range obs {
					if math.Abs(o.Objective-tc.want[k]) > 1e-12 || o.Iteration%3 != 2 {
						t.Fatalf("snapshot at %d: observation %d: iteration %d objective %v, want %v at a period's end", snapAt, k, o.Iteration, o.Objective, tc.want[k])
					}
				}
			}
		})
	}
}

// trialsMethod is fakeMethod with the Trials ability: three candidates.
type trialsMethod struct{ fakeMethod }

func (m *trialsMethod) Candidates(cur controller.Config) ([]controller.Config, controller.TrialSpec, error) {
	out := make([]controller.Config, 3)
	for k := range out {
		out[k] = append(controller.Config(nil), cur...)
		out[k][1] = m.space.FromUnit(1, float64(k)/2)
	}
	return out, controller.TrialSpec{Epochs: 1}, nil
}

// TestDriverTrials: a Trials method is asked for Candidates at every
// iteration (whatever the interval), for Suggest only once, and the chosen
// candidate is what it observes and what stays in force until the next
// choice.
func TestDriverTrials(t *testing.T) {
	m := &trialsMethod{}
	ctl, err := controller.New("trials", m, twoParams(t), controller.Options{Interval: 2, Objective: controller.Reward})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := ctl.Candidates(); err != nil {
		t.Fatal(err)
	}
	if err := ctl.Choose(controller.Config{0, 0}); err == nil {
		t.Fatal("Choose before Suggest accepted")
	}
	for it := range 6 {
		if _, err := ctl.Suggest(); err != nil {
			t.Fatal(err)
		}
		cands, spec, ok, err := ctl.Candidates()
		if err != nil || !ok { // every iteration, whatever the interval
			t.Fatalf("iteration %d: candidates ok %v, %v", it, ok, err)
		}
		if it%2 == 1 {
			ok = false // choose at even iterations only: the choice stays in force
		}
		if err != nil {
			t.Fatalf("iteration %d: candidates ok %v, %v", it, ok, err)
		}
		if ok {
			if len(cands) != 3 || spec.Epochs != 1 {
				t.Fatalf("iteration %d: %d candidates, spec %+v", it, len(cands), spec)
			}
			if err := ctl.Choose(cands[it%3]); err != nil {
				t.Fatal(err)
			}
		}
		if err := ctl.Observe(controller.Result{Reward: 1}); err != nil {
			t.Fatal(err)
		}
		cur, _ := ctl.Current()
		if !equal(m.obs[it].Config, cur) {
			t.Fatalf("iteration %d: observed %v, in force %v", it, m.obs[it].Config, cur)
		}
	}
	if len(m.suggests) != 1 {
		t.Fatalf("Suggest called %d times, want once (the first configuration)", len(m.suggests))
	}
	if _, err := ctl.Suggest(); err != nil {
		t.Fatal(err)
	}
	if err := ctl.Choose(controller.Config{math.NaN(), 0}); err == nil {
		t.Fatal("Choose accepted a configuration outside the space")
	}
}
