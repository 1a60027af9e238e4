// Package methodtest holds the test harness shared by the tests of
// baselines' subpackages: the paper's search space, unit boxes, a driver
// builder and synthetic training feedback. It is imported by tests only.
package methodtest

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// Sq is x².
func Sq(x float64) float64 { return x * x }

// Test functions on [0, 1]^d with maximum 1 and a second, lower mode.
var (
	// Bumps1D has a narrow global bump (width 0.08) at 0.7 and one of
	// height 0.5 at 0.2.
	Bumps1D = func(_ int, u []float64) float64 {
		return math.Exp(-Sq(u[0]-0.7)/(2*0.08*0.08)) + 0.5*math.Exp(-Sq(u[0]-0.2)/(2*0.1*0.1))
	}
	// Bumps2D has bumps of width 0.15 at (0.3, 0.8) and of height 0.6 and
	// width 0.1 at (0.8, 0.2).
	Bumps2D = func(_ int, u []float64) float64 {
		a := Sq(u[0]-0.3) + Sq(u[1]-0.8)
		b := Sq(u[0]-0.8) + Sq(u[1]-0.2)
		return math.Exp(-a/(2*0.15*0.15)) + 0.6*math.Exp(-b/(2*0.1*0.1))
	}
	// Broad2D has a broad bump (width 0.25) at (0.3, 0.7) and one of
	// height 0.4 and width 0.15 at (0.85, 0.15).
	Broad2D = func(_ int, u []float64) float64 {
		a := Sq(u[0]-0.3) + Sq(u[1]-0.7)
		b := Sq(u[0]-0.85) + Sq(u[1]-0.15)
		return math.Exp(-a/(2*0.25*0.25)) + 0.4*math.Exp(-b/(2*0.15*0.15))
	}
)

// PaperSpace is the HyperController paper's four hyperparameters, the keys
// of ppoconfig.Hyper with paper bounds, over those bounds, with lr on a log scale:
// the tests' choice (the default config tunes it linearly, as the paper
// does), so that the methods see a space with both scales.
func PaperSpace(t testing.TB) controller.Space {
	t.Helper()
	var ps []controller.Param
	for _, k := range ppoconfig.HyperKeys() {
		if !k.InPaper() {
			continue
		}
		p := controller.Param{Name: k.Name, Low: k.PaperLow, High: k.PaperHigh, Integer: k.Integer}
		if k.Name == "lr" {
			p.Scale = controller.Log
		}
		ps = append(ps, p)
	}
	s, err := controller.NewSpace(ps...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// UnitSpace is d parameters a, b, … on [0, 1].
func UnitSpace(t testing.TB, d int) controller.Space {
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

// IntSpace is one integer parameter with the two values 1 and 2.
func IntSpace(t testing.TB) controller.Space {
	t.Helper()
	s, err := controller.NewSpace(controller.Param{Name: "n", Low: 1, High: 2, Integer: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Build makes a driver for a registered method (nil settings: defaults).
func Build(t testing.TB, name string, set controller.Settings, space controller.Space, interval int, seed uint64) *controller.Controller {
	t.Helper()
	c, err := controller.Build(name, set, space, controller.Options{Interval: interval, Seed: seed})
	if err != nil {
		t.Fatalf("build %s: %v", name, err)
	}
	return c
}

// Feedback is synthetic training: each iteration the reward grows by
// Gain(it, u) + Noise·N(0,1), u the configuration in [0, 1]^d; every
// iteration takes Elapsed.
type Feedback struct {
	Space controller.Space
	Gain  func(it int, u []float64) float64
	Noise float64
	// Elapsed is each iteration's wall time (0: the default 10 ms; < 0
	// means a zero elapsed time).
	Elapsed time.Duration
	rng     *rand.Rand
	r       float64
	u       []float64
}

// NewFeedback returns feedback whose noise is seeded by seed.
func NewFeedback(space controller.Space, gain func(int, []float64) float64, noise float64, seed uint64) *Feedback {
	return &Feedback{Space: space, Gain: gain, Noise: noise, rng: rand.New(rand.NewPCG(seed, 1234))}
}

// Step runs iteration it through the driver and returns the configuration
// used; an invalid configuration or an error fails the test.
func (f *Feedback) Step(t testing.TB, c *controller.Controller, it int) controller.Config {
	t.Helper()
	cfg, err := c.Suggest()
	if err != nil {
		t.Fatalf("iteration %d: suggest: %v", it, err)
	}
	if err := f.Space.Validate(cfg); err != nil {
		t.Fatalf("iteration %d: invalid configuration %v: %v", it, cfg, err)
	}
	f.u = f.u[:0]
	for i, v := range cfg {
		f.u = append(f.u, f.Space.ToUnit(i, v))
	}
	f.r += f.Gain(it, f.u) + f.Noise*f.rng.NormFloat64()
	el := f.Elapsed
	switch {
	case el == 0:
		el = 10 * time.Millisecond
	case el < 0:
		el = 0
	}
	if err := c.Observe(controller.Result{Reward: f.r, Elapsed: el}); err != nil {
		t.Fatalf("iteration %d: observe: %v", it, err)
	}
	return append(controller.Config(nil), cfg...)
}

// Run runs iterations [from, to) and returns the configurations used.
func (f *Feedback) Run(t testing.TB, c *controller.Controller, from, to int) []controller.Config {
	t.Helper()
	out := make([]controller.Config, 0, to-from)
	for it := from; it < to; it++ {
		out = append(out, f.Step(t, c, it))
	}
	return out
}

// SameConfigs reports whether two configuration sequences are identical.
func SameConfigs(a, b []controller.Config) bool {
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
