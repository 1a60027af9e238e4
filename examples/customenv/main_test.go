package main

import (
	"math"
	"testing"

	"github.com/hyperctl/hyperctl/envs"
)

// rollout resets env with seed and steps it with a fixed sequence of
// actions, returning every observation and reward.
func rollout(t *testing.T, env envs.Env, seed int64, steps int) []float64 {
	t.Helper()
	obs, err := env.Reset(seed)
	if err != nil {
		t.Fatal(err)
	}
	out := append([]float64(nil), obs...)
	for k := range steps {
		tr, err := env.Step([]float64{math.Sin(float64(k)), math.Cos(float64(k))})
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, tr.Obs...), tr.Reward)
	}
	return out
}

// TestPointMass checks the registered environment: a seed decides the
// episode, a snapshot continues it exactly, the time limit truncates it,
// and bad actions are refused.
func TestPointMass(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, a, b envs.Env)
	}{
		{"same seed, same episode", func(t *testing.T, a, b envs.Env) {
			x, y := rollout(t, a, 7, 30), rollout(t, b, 7, 30)
			for i := range x {
				if x[i] != y[i] {
					t.Fatalf("value %d: %v != %v", i, x[i], y[i])
				}
			}
		}},
		{"another seed, another start", func(t *testing.T, a, b envs.Env) {
			x, y := rollout(t, a, 7, 0), rollout(t, b, 8, 0)
			if x[0] == y[0] && x[1] == y[1] {
				t.Fatalf("seeds 7 and 8 start at the same position %v", x[:2])
			}
		}},
		{"snapshot continues exactly", func(t *testing.T, a, b envs.Env) {
			rollout(t, a, 3, 10)
			snap, err := envs.Snapshot(a)
			if err != nil {
				t.Fatal(err)
			}
			if err := envs.Restore(b, snap); err != nil {
				t.Fatal(err)
			}
			for k := range 20 {
				act := []float64{0.5, -0.25 * float64(k%3)}
				ta, err := a.Step(act)
				if err != nil {
					t.Fatal(err)
				}
				tb, err := b.Step(act)
				if err != nil {
					t.Fatal(err)
				}
				if ta.Reward != tb.Reward || ta.Obs[0] != tb.Obs[0] || ta.Truncated != tb.Truncated {
					t.Fatalf("step %d after restore: %+v != %+v", k, ta, tb)
				}
			}
		}},
		{"time limit truncates", func(t *testing.T, a, _ envs.Env) {
			if _, err := a.Reset(1); err != nil {
				t.Fatal(err)
			}
			for k := 1; k <= maxSteps; k++ {
				tr, err := a.Step([]float64{0, 0})
				if err != nil {
					t.Fatal(err)
				}
				if tr.Truncated != (k == maxSteps) || tr.Terminated {
					t.Fatalf("step %d: truncated %v, terminated %v", k, tr.Truncated, tr.Terminated)
				}
			}
		}},
		{"bad actions refused", func(t *testing.T, a, _ envs.Env) {
			if _, err := a.Reset(1); err != nil {
				t.Fatal(err)
			}
			for _, act := range [][]float64{{0}, {0, math.NaN()}, {math.Inf(1), 0}} {
				if _, err := a.Step(act); err == nil {
					t.Errorf("action %v accepted", act)
				}
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := envs.Make(envName)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			b, err := envs.Make(envID)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			tc.run(t, a, b)
		})
	}
}
