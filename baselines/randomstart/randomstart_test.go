package randomstart

import (
	"slices"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
)

// Random Start keeps its first configuration; seeds give different ones.
func TestKeepsFirstConfiguration(t *testing.T) {
	space := methodtest.PaperSpace(t)
	const interval = 5
	first := map[float64]bool{}
	for seed := uint64(1); seed <= 5; seed++ {
		c := methodtest.Build(t, Name, nil, space, interval, seed)
		cfgs := methodtest.NewFeedback(space, func(int, []float64) float64 { return 0 }, 1, 1).Run(t, c, 0, 300)
		for i, cfg := range cfgs {
			if !slices.Equal(cfg, cfgs[0]) {
				t.Fatalf("seed %d: configuration changed at iteration %d", seed, i)
			}
		}
		first[cfgs[0][1]] = true
	}
	if len(first) != 5 {
		t.Errorf("5 seeds gave %d distinct Random Start configurations", len(first))
	}
}
