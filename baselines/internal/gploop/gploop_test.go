package gploop

import (
	"math"
	"strings"
	"testing"
)

// Theorem 1's β_t by hand.
func TestBeta(t *testing.T) {
	// |D| = 10^4, t = 3, δ = 0.1: 2 log(10^4 · 9 · π² / 0.6).
	want := 2 * math.Log(1e4*9*math.Pi*math.Pi/0.6)
	if got := Beta(3, 4, 10, 0.1, 1); math.Abs(got-want) > 1e-12*want {
		t.Errorf("Beta = %v, want %v", got, want)
	}
	if got := Beta(3, 4, 10, 0.1, 0.2); math.Abs(got-0.2*want) > 1e-12*want {
		t.Errorf("scaled Beta = %v, want %v", got, 0.2*want)
	}
	c := Confidence{Delta: 0.1, Grid: 10, BetaScale: 1}
	if got := c.Beta(3, 4); got != Beta(3, 4, 10, 0.1, 1) {
		t.Errorf("Confidence.Beta = %v, want Beta's %v", got, Beta(3, 4, 10, 0.1, 1))
	}
	// Large |D| does not overflow.
	if b := Beta(1000, 400, 100, 0.1, 1); math.IsInf(b, 0) || math.IsNaN(b) {
		t.Errorf("Beta overflowed: %v", b)
	}
}

// The restart schedule: every fit without a warm start, every fit below 64
// points, else every RestartEvery-th.
func TestRestartsAt(t *testing.T) {
	f := Fitting{Restarts: 2, RestartEvery: 10}
	for _, c := range []struct {
		warm    bool
		n, k    int
		restart bool
	}{
		{false, 500, 3, true},
		{true, 63, 3, true},
		{true, 64, 3, false},
		{true, 64, 10, true},
		{true, 64, 0, true},
		{true, 200, 21, false},
	} {
		want := 0
		if c.restart {
			want = 2
		}
		if got := f.At(c.warm, c.n, c.k); got != want {
			t.Errorf("At(warm %v, n %d, k %d) = %d, want %d", c.warm, c.n, c.k, got, want)
		}
	}
}

// Each settings block rejects a bad field with an error naming its TOML
// key (the members' Validate return these errors unwrapped).
func TestBlocksNameField(t *testing.T) {
	model := func(f func(*Model)) func() error {
		s := Model{Kernel: "matern52", Window: 200}
		f(&s)
		return s.Validate
	}
	conf := func(f func(*Confidence)) func() error {
		s := Confidence{Delta: 0.1, Grid: 10, BetaScale: 1}
		f(&s)
		return s.Validate
	}
	fit := func(f func(*Fitting)) func() error {
		s := Fitting{Restarts: 1, RestartEvery: 10}
		f(&s)
		return s.Validate
	}
	search := func(f func(*Search)) func() error {
		s := Search{Candidates: 256, Refine: 3}
		f(&s)
		return s.Validate
	}
	for _, c := range []struct {
		field    string
		validate func() error
	}{
		{"kernel", model(func(s *Model) { s.Kernel = "cubic" })},
		{"window", model(func(s *Model) { s.Window = 1 })},
		{"window", model(func(s *Model) { s.Window = MaxWindow + 1 })},
		{"delta", conf(func(s *Confidence) { s.Delta = 1 })},
		{"delta", conf(func(s *Confidence) { s.Delta = math.NaN() })},
		{"grid", conf(func(s *Confidence) { s.Grid = 1 })},
		{"beta_scale", conf(func(s *Confidence) { s.BetaScale = 0 })},
		{"beta_scale", conf(func(s *Confidence) { s.BetaScale = math.Inf(1) })},
		{"restarts", fit(func(s *Fitting) { s.Restarts = -1 })},
		{"restarts", fit(func(s *Fitting) { s.Restarts = 101 })},
		{"restart_every", fit(func(s *Fitting) { s.RestartEvery = 0 })},
		{"restart_every", fit(func(s *Fitting) { s.RestartEvery = -2 })},
		{"candidates", search(func(s *Search) { s.Candidates = 0 })},
		{"candidates", search(func(s *Search) { s.Candidates = -3 })},
		{"refine", search(func(s *Search) { s.Refine = s.Candidates + 1 })},
		{"refine", search(func(s *Search) { s.Refine = -1 })},
	} {
		if err := c.validate(); err == nil || !strings.HasPrefix(err.Error(), c.field+":") {
			t.Errorf("field %s: got error %v, want one starting with %q", c.field, err, c.field+":")
		}
	}
	for _, v := range []func() error{model(func(*Model) {}), conf(func(*Confidence) {}), fit(func(*Fitting) {}), search(func(*Search) {})} {
		if err := v(); err != nil {
			t.Errorf("valid block refused: %v", err)
		}
	}
}
