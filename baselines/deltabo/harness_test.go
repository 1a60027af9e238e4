package deltabo

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hyperctl/hyperctl/controller"
)

func unitSpace(t testing.TB, d int) controller.Space {
	t.Helper()
	ps := make([]controller.Param, d)
	for i := range ps {
		ps[i] = controller.Param{Name: string(rune('a' + i)), Low: 0, High: 1}
	}
	s, err := controller.NewSpace(ps...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func build(t testing.TB, set controller.Settings, space controller.Space, interval int, seed uint64) *controller.Controller {
	t.Helper()
	c, err := controller.Build(Name, set, space, controller.Options{Interval: interval, Seed: seed})
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return c
}

// feedback is synthetic training: each iteration the reward grows by
// gain(it, u) + noise·N(0,1), u the configuration in [0, 1]^d.
type feedback struct {
	space controller.Space
	gain  func(it int, u []float64) float64
	noise float64
	rng   *rand.Rand
	r     float64
	u     []float64
}

func newFeedback(space controller.Space, gain func(int, []float64) float64, noise float64, seed uint64) *feedback {
	return &feedback{space: space, gain: gain, noise: noise, rng: rand.New(rand.NewPCG(seed, 1234)), u: make([]float64, space.Dim())}
}

func (f *feedback) step(t testing.TB, c *controller.Controller, it int) controller.Config {
	t.Helper()
	cfg, err := c.Suggest()
	if err != nil {
		t.Fatalf("iteration %d: suggest: %v", it, err)
	}
	if err := f.space.Validate(cfg); err != nil {
		t.Fatalf("iteration %d: invalid configuration %v: %v", it, cfg, err)
	}
	for i, v := range cfg {
		f.u[i] = f.space.ToUnit(i, v)
	}
	f.r += f.gain(it, f.u) + f.noise*f.rng.NormFloat64()
	if err := c.Observe(controller.Result{Reward: f.r, Elapsed: 10 * time.Millisecond}); err != nil {
		t.Fatalf("iteration %d: observe: %v", it, err)
	}
	return append(controller.Config(nil), cfg...)
}

func (f *feedback) run(t testing.TB, c *controller.Controller, from, to int) []controller.Config {
	t.Helper()
	out := make([]controller.Config, 0, to-from)
	for it := from; it < to; it++ {
		out = append(out, f.step(t, c, it))
	}
	return out
}

func sameConfigs(a, b []controller.Config) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}

func sq(x float64) float64 { return x * x }
