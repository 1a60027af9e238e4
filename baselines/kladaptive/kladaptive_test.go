package kladaptive

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/controller"
)

// TestRule: the rule as rsl_rl states it, with its defaults (desired KL
// 0.01, factor 1.5, lr in [1e-5, 1e-2]).
func TestRule(t *testing.T) {
	s := DefaultSettings()
	for _, c := range []struct {
		name   string
		lr, kl float64
		want   float64
	}{
		{"above 2x desired: down", 1e-3, 0.021, 1e-3 / 1.5},
		{"far above: down once", 1e-3, 5, 1e-3 / 1.5},
		{"at 2x desired: unchanged", 1e-3, 0.02, 1e-3},
		{"between: unchanged", 1e-3, 0.01, 1e-3},
		{"at desired/2: unchanged", 1e-3, 0.005, 1e-3},
		{"below desired/2: up", 1e-3, 0.004, 1e-3 * 1.5},
		{"tiny positive: up", 1e-3, 1e-9, 1e-3 * 1.5},
		{"zero: unchanged", 1e-3, 0, 1e-3},
		{"negative: unchanged", 1e-3, -0.1, 1e-3},
		{"NaN: unchanged", 1e-3, math.NaN(), 1e-3},
		{"clamped at lr_min", 1.2e-5, 0.5, 1e-5},
		{"stays at lr_min", 1e-5, 0.5, 1e-5},
		{"clamped at lr_max", 8e-3, 0.001, 1e-2},
		{"stays at lr_max", 1e-2, 0.001, 1e-2},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := s.Next(c.lr, c.kl); got != c.want {
				t.Fatalf("Next(%g, %g) = %g, want %g", c.lr, c.kl, got, c.want)
			}
		})
	}
}

// TestValidateNamesTheField: each invalid setting is reported with its key.
func TestValidateNamesTheField(t *testing.T) {
	for _, c := range []struct {
		key string
		set func(*Settings)
	}{
		{"desired_kl", func(s *Settings) { s.DesiredKL = 0 }},
		{"desired_kl", func(s *Settings) { s.DesiredKL = math.NaN() }},
		{"factor", func(s *Settings) { s.Factor = 1 }},
		{"lr_min", func(s *Settings) { s.LRMin = -1 }},
		{"lr_max", func(s *Settings) { s.LRMax = 2 }},
		{"lr_max", func(s *Settings) { s.LRMax = s.LRMin }},
		{"measure", func(s *Settings) { s.Measure = "step" }},
		{"initial_lr", func(s *Settings) { s.InitialLR = 0.5 }},
	} {
		s := DefaultSettings()
		c.set(&s)
		err := s.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), c.key+":") {
			t.Errorf("%s: %v", c.key, err)
		}
		if _, err := s.New(); err == nil {
			t.Errorf("%s: New accepted invalid settings", c.key)
		}
	}
	for _, s := range []Settings{DefaultSettings(), PaperSettings(), {DesiredKL: 0.008, Factor: 1.5, LRMin: 1e-6, LRMax: 1e-2, Measure: MeasureEpoch, InitialLR: 3e-4}} {
		if err := s.Validate(); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
}

// TestMethod: the method controls lr alone, starts from initial_lr, applies
// the rule and has no state beyond the driver's.
func TestMethod(t *testing.T) {
	s := DefaultSettings()
	s.Measure = MeasureEpoch
	m, err := s.New()
	if err != nil {
		t.Fatal(err)
	}
	rule := m.(controller.LRRule)
	two, _ := controller.NewSpace(controller.Param{Name: "lr", Low: 1e-5, High: 1e-2}, controller.Param{Name: "clip", Low: 0.1, High: 0.3})
	if err := m.Init(two, rand.New(rand.NewPCG(1, 2))); err == nil || !strings.Contains(err.Error(), "lr alone") {
		t.Fatalf("two-key space: %v", err)
	}
	p := s.Space()
	sp, err := controller.NewSpace(p)
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := controller.New(Name, m, sp, controller.Options{Interval: 5})
	if err != nil {
		t.Fatal(err)
	}
	if rule.Measure() != controller.PerEpoch || rule.NextLR(1e-3, 1) != 1e-3/1.5 {
		t.Fatal("measure or rule not the settings'")
	}
	// The driver: the first configuration is initial_lr; after it, the
	// lr the trainer puts in force stays, at every iteration whatever the
	// interval.
	lr := s.InitialLR
	for it := range 7 {
		cfg, err := ctl.Suggest()
		if err != nil {
			t.Fatal(err)
		}
		if cfg[0] != lr {
			t.Fatalf("iteration %d: lr in force %g, want %g", it, cfg[0], lr)
		}
		lr = rule.NextLR(lr, 0.001)
		if err := ctl.Choose(controller.Config{lr}); err != nil {
			t.Fatal(err)
		}
		if err := ctl.Observe(controller.Result{Reward: float64(it)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, i, ok := ctl.LRRule(); !ok || i != 0 {
		t.Fatalf("driver's LRRule: %v %v", i, ok)
	}
	b, err := m.MarshalBinary()
	if err != nil || m.UnmarshalBinary(b) != nil || m.UnmarshalBinary([]byte("x")) == nil {
		t.Fatal("state round trip")
	}
}
