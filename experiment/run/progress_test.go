package run

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
	p := &Progress{total: 488}
	p.recent = w
	if got := p.describe(12, 24576, 15000); !strings.Contains(got, "it 12/488 | frames 24576 | 15000 f/s | ep_rew_mean 99.5 (100 ep)") {
		t.Fatalf("describe: %q", got)
	}
}
