package box2d

import (
	"testing"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/envs/rng"
)

// BenchmarkStep measures env steps/s with uniform random actions in [-1, 1]
// and Gymnasium-style resets when an episode ends (terminated or 1600
// steps); the reset time is included. Run it on one core:
//
//	go test -run '^$' -bench . -cpu 1 ./envs/box2d/
func BenchmarkStep(b *testing.B) {
	e, err := envs.Make("bipedalwalker")
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Reset(0); err != nil {
		b.Fatal(err)
	}
	g := rng.New(1)
	act := make([]float64, 4)
	episodes := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range act {
			act[k] = g.Uniform(-1, 1)
		}
		tr, err := e.Step(act)
		if err != nil {
			b.Fatal(err)
		}
		if tr.Terminated || tr.Truncated {
			episodes++
			if _, err := e.Reset(envs.NoSeed); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
	b.ReportMetric(float64(episodes), "resets")
}

// BenchmarkPhysics is the physics limit for BenchmarkStep in the same run:
// the same random motor settings and Box2D world.Step(1/50, 180, 60) on the
// same world, without lidar, observation, reward or validation; a new
// episode starts when the env would end it (game over or out of bounds).
func BenchmarkPhysics(b *testing.B) {
	w, err := New()
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Reset(0); err != nil {
		b.Fatal(err)
	}
	g := rng.New(1)
	act := make([]float64, 4)
	steps := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range act {
			act[k] = g.Uniform(-1, 1)
		}
		w.applyAction(act)
		w.world.Step(1.0/fps, velocityIterations, positionIterations)
		steps++
		if x := w.hull.M_xf.P.X; w.gameOver || x < 0 || x > 88 || steps == 1600 {
			steps = 0
			if _, err := w.Reset(envs.NoSeed); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}

// BenchmarkReset measures Reset alone: destroying and rebuilding the 199
// terrain edges and the walker, plus the internal zero-action step.
func BenchmarkReset(b *testing.B) {
	w, err := New()
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := w.Reset(envs.NoSeed); err != nil {
			b.Fatal(err)
		}
	}
}
