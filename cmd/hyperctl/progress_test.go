package main

import (
	"math"
	"strings"
	"testing"
)

// TestRecentReturns: the mean of the last 100 episodes, as SB3's
// ep_rew_mean, and the bar's text naming it and the per-step reward apart.
func TestRecentReturns(t *testing.T) {
	var w recentReturns
	if _, k := w.mean(); k != 0 {
		t.Fatalf("empty: %d episodes", k)
	}
	for i := range 150 {
		w.add([]float64{float64(i)})
	}
	m, k := w.mean()
	if k != 100 || math.Abs(m-99.5) > 1e-12 { // episodes 50..149
		t.Fatalf("mean %v over %d, want 99.5 over 100", m, k)
	}
	p := &progress{total: 488}
	p.recent = w
	if got := p.describe(12, 24576, 15000); !strings.Contains(got, "it 12/488 | frames 24576 | 15000 f/s | ep_rew_mean 99.5 (100 ep)") {
		t.Fatalf("describe: %q", got)
	}
}

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n         int
		one, many string
		want      string
	}{{1, "run", "runs", "1 run"}, {0, "run", "runs", "0 runs"}, {5, "was", "were", "5 were"}, {1, "was", "were", "1 was"}} {
		if got := plural(tc.n, tc.one, tc.many); got != tc.want {
			t.Errorf("plural(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
