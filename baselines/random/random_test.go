package random

import (
	"math"
	"slices"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
)

// Random draws a fresh configuration every decision, uniformly in each
// parameter's own scale.
func TestUniformEveryDecision(t *testing.T) {
	space := methodtest.PaperSpace(t)
	const interval, decisions = 5, 1000
	c := methodtest.Build(t, Name, nil, space, interval, 1)
	cfgs := methodtest.NewFeedback(space, func(int, []float64) float64 { return 0 }, 1, 1).Run(t, c, 0, interval*decisions)
	seen := map[float64]bool{}
	var below [4]int
	var mean [4]float64
	for p := range decisions {
		for k := 1; k < interval; k++ {
			if !slices.Equal(cfgs[p*interval], cfgs[p*interval+k]) {
				t.Fatalf("decision %d: configuration changed inside the interval", p)
			}
		}
		cfg := cfgs[p*interval]
		seen[cfg[3]] = true
		for i, v := range cfg {
			u := space.ToUnit(i, v)
			mean[i] += u / decisions
			if u < 0.25 {
				below[i]++
			}
		}
	}
	if len(seen) != decisions {
		t.Errorf("%d distinct learning rates in %d decisions", len(seen), decisions)
	}
	// Uniform in each parameter's own scale (log for lr): unit mean ≈ 0.5
	// and a quarter below 0.25; bounds are ±4.5 standard errors.
	for i := range 4 {
		if math.Abs(mean[i]-0.5) > 4.5*math.Sqrt(1.0/12/decisions) {
			t.Errorf("%s: mean unit value %.3f, want 0.5", space.Param(i).Name, mean[i])
		}
		if f := float64(below[i]) / decisions; math.Abs(f-0.25) > 4.5*math.Sqrt(0.25*0.75/decisions) {
			t.Errorf("%s: %.3f of draws in the lowest quarter, want 0.25", space.Param(i).Name, f)
		}
	}
}
