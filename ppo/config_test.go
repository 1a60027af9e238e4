package ppo

import (
	"math"
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
	} {
		c := DefaultConfig()
		tc.mut(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "ppo."+tc.key) {
			t.Errorf("%s: error %v", tc.key, err)
		}
	}
	c := DefaultConfig()
	for _, name := range Tunable {
		v, err := c.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Set(name, v*1.1); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Set("gamma", 0.5); err == nil {
		t.Fatal("gamma is not tunable")
	}
}
