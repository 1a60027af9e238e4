package ppoconfig

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestConfigValidate: the defaults are valid, and each bad value is
// reported under its TOML key.
func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tc := range []struct {
		key string
		mut func(c *Config)
	}{
		{"init_gain_hidden", func(c *Config) { c.InitGainHidden = 0 }},
		{"init_gain_policy", func(c *Config) { c.InitGainPolicy = math.NaN() }},
		{"init_gain_value", func(c *Config) { c.InitGainValue = -1 }},
		{"adam_beta1", func(c *Config) { c.AdamBeta1 = 1 }},
		{"adam_beta2", func(c *Config) { c.AdamBeta2 = math.Inf(1) }},
		{"lr", func(c *Config) { c.LR = 0 }},
		{"minibatch_size", func(c *Config) { c.MinibatchSize = 0 }},
		{"hidden", func(c *Config) { c.Hidden = nil }},
		{"update_threads", func(c *Config) { c.UpdateThreads = 0 }},
		{"update_threads", func(c *Config) { c.UpdateThreads = 3 }},
	} {
		c := DefaultConfig()
		tc.mut(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "ppo."+tc.key) {
			t.Errorf("%s: error %v", tc.key, err)
		}
	}
	c := DefaultConfig()
	for i, name := range HyperNames() {
		v := c.Hyper.Values()[i]
		f, ok := v.(float64)
		if n, isInt := v.(int); isInt {
			f, ok = float64(n), true
		}
		if !ok {
			t.Fatalf("%s: value %v (%T)", name, v, v)
		}
		if err := c.Hyper.Set(name, f*1.01); err != nil { // inside every range (Set checks it)
			t.Fatal(err)
		}
	}
	if err := c.Hyper.Set("adam_eps", 0.5); err == nil {
		t.Fatal("adam_eps is not tunable")
	}
}

// TestHyperDeclaration: Hyper's tags are the one declaration of the
// per-iteration keys: names, integer keys, ranges as Validate and Set word
// them, the paper's bounds, and the "not tunable" error.
func TestHyperDeclaration(t *testing.T) {
	const names = "batch_size,clip,gae_lambda,lr,gamma,entropy_coef,value_coef,epochs,minibatch_size,max_grad_norm,target_kl,lr_scale"
	if got := strings.Join(HyperNames(), ","); got != names {
		t.Fatalf("names %s", got)
	}
	want := []HyperKey{
		{Name: "batch_size", Integer: true, PaperLow: 1000, PaperHigh: 6000, Collect: true},
		{Name: "clip", PaperLow: 0.1, PaperHigh: 0.5},
		{Name: "gae_lambda", PaperLow: 0.9, PaperHigh: 1.0},
		{Name: "lr", PaperLow: 1e-5, PaperHigh: 1e-3},
		{Name: "gamma", Collect: true}, {Name: "entropy_coef"}, {Name: "value_coef"},
		{Name: "epochs", Integer: true}, {Name: "minibatch_size", Integer: true},
		{Name: "max_grad_norm"}, {Name: "target_kl"}, {Name: "lr_scale"},
	}
	if got := HyperKeys(); !slices.Equal(got, want) {
		t.Fatalf("keys %+v, want %+v", got, want)
	}
	for _, tc := range []struct {
		name string
		v    float64
		want string // "" = accepted
	}{
		{"clip", 1.5, "ppo.clip: want a value in (0, 1), got 1.5"},
		{"clip", 0, "ppo.clip: want a value in (0, 1), got 0"},
		{"clip", 0.999, ""},
		{"gae_lambda", 0, ""},
		{"gae_lambda", 1, ""},
		{"gae_lambda", -0.1, "ppo.gae_lambda: want a value in [0, 1], got -0.1"},
		{"lr", 1, ""},
		{"lr", 0, "ppo.lr: want a value in (0, 1], got 0"},
		{"batch_size", 0.4, "ppo.batch_size: want an integer in [1, 1048576], got 0"},
		{"batch_size", 1e30, "ppo.batch_size: want an integer in [1, 1048576], got 1e+30"},
		{"batch_size", 2047.6, ""},
		{"lr", math.NaN(), "ppo: lr = NaN is not finite"},
		{"gamma", 0.9, ""},
		{"gamma", 0, "ppo.gamma: want a value in (0, 1], got 0"},
		{"epochs", 2.5, ""},
		{"epochs", 0, "ppo.epochs: want an integer in [1, 1000], got 0"},
		{"entropy_coef", 0, ""},
		{"entropy_coef", -0.01, "ppo.entropy_coef: want a value in [0, 1], got -0.01"},
		{"max_grad_norm", 0, ""},
		{"target_kl", 11, "ppo.target_kl: want a value in [0, 10], got 11"},
		{"lr_scale", 0, "ppo.lr_scale: want a value in (0, 1000], got 0"},
		{"adam_eps", 0.9, `ppo: "adam_eps" is not tunable; tunable: ` + strings.ReplaceAll(names, ",", ", ")},
	} {
		h := DefaultConfig().Hyper
		before := h
		err := h.Set(tc.name, tc.v)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Set(%s, %v): %v", tc.name, tc.v, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want):
			t.Errorf("Set(%s, %v): error %v, want %q", tc.name, tc.v, err, tc.want)
		case tc.want != "" && h != before:
			t.Errorf("Set(%s, %v) failed but changed h to %+v", tc.name, tc.v, h)
		}
	}
	h := DefaultConfig().Hyper
	if err := h.Set("batch_size", 2047.6); err != nil || h.BatchSize != 2048 {
		t.Fatalf("batch_size 2047.6 set to %d (%v), want 2048", h.BatchSize, err)
	}
	if got := fmt.Sprint(h.Values()...); got != fmt.Sprint(2048, 0.2, 0.95, 3e-4, 0.99, 0.0, 0.5, 10, 64, 0.5, 0.0, 1.0) {
		t.Fatalf("values %s", got)
	}
	if got, err := h.ValuesOf([]string{"epochs", "lr"}); err != nil || fmt.Sprint(got...) != fmt.Sprint(10, 3e-4) {
		t.Fatalf("ValuesOf(epochs, lr) = %v (%v)", got, err)
	}
	if v, err := h.Get("minibatch_size"); err != nil || v != 64 {
		t.Fatalf("Get(minibatch_size) = %v (%v)", v, err)
	}
	if _, err := h.ValuesOf([]string{"adam_eps"}); err == nil || !strings.Contains(err.Error(), "not tunable") {
		t.Fatalf("ValuesOf(adam_eps): %v", err)
	}
	if _, err := LookupHyperKey("adam_eps"); err == nil || !strings.Contains(err.Error(), "tunable: batch_size, clip, gae_lambda, lr, gamma") {
		t.Fatalf("LookupHyperKey(adam_eps): %v", err)
	}
	bad := DefaultConfig()
	bad.LR = 2
	if err := bad.Validate(); err == nil || err.Error() != "ppo.lr: want a value in (0, 1], got 2" {
		t.Fatalf("Config.Validate with lr 2: %v", err)
	}
}

// TestHyperRules: the rules between keys, checked by Validate with both
// keys named.
func TestHyperRules(t *testing.T) {
	for _, tc := range []struct {
		name string
		mut  func(h *Hyper)
		want string // "" = valid
	}{
		{"defaults", func(h *Hyper) {}, ""},
		{"minibatch = batch", func(h *Hyper) { h.MinibatchSize = h.BatchSize }, ""},
		{"minibatch > batch", func(h *Hyper) { h.BatchSize, h.MinibatchSize = 100, 101 }, "ppo.minibatch_size: want an integer <= 100 (ppo.batch_size), got 101"},
		{"lr × scale = 1", func(h *Hyper) { h.LR, h.LRScale = 0.5, 2 }, ""},
		{"lr × scale > 1", func(h *Hyper) { h.LR, h.LRScale = 0.5, 4 }, "ppo.lr_scale: want lr × lr_scale <= 1, got 0.5 × 4 = 2"},
	} {
		h := DefaultConfig().Hyper
		tc.mut(&h)
		err := h.Validate()
		if (tc.want == "" && err != nil) || (tc.want != "" && (err == nil || err.Error() != tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	h := DefaultConfig().Hyper
	h.LR, h.LRScale = 2e-4, 2.5
	if h.StepLR() != 2e-4*2.5 {
		t.Fatalf("StepLR %v", h.StepLR())
	}
}

// TestCollectDiff: only the keys read while the batch is collected
// (batch_size, gamma) make two candidates differ, the first one named with
// both values.
func TestCollectDiff(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mut    func(h *Hyper)
		want   string // "" = no difference
		hv, ov float64
	}{
		{"same", func(h *Hyper) {}, "", 0, 0},
		{"clip and lr differ", func(h *Hyper) { h.Clip, h.LR = 0.3, 1e-3 }, "", 0, 0},
		{"gamma differs", func(h *Hyper) { h.Gamma = 0.9 }, "gamma", 0.9, 0.99},
		{"batch_size first", func(h *Hyper) { h.Gamma, h.BatchSize = 0.9, 1024 }, "batch_size", 1024, 2048},
	} {
		h, o := DefaultConfig().Hyper, DefaultConfig().Hyper
		tc.mut(&h)
		name, hv, ov, differ := h.CollectDiff(o)
		if name != tc.want || differ != (tc.want != "") || hv != tc.hv || ov != tc.ov {
			t.Errorf("%s: CollectDiff = %q, %v, %v, %v; want %q, %v, %v", tc.name, name, hv, ov, differ, tc.want, tc.hv, tc.ov)
		}
	}
}
