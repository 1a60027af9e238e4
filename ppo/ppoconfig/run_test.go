package ppoconfig

import (
	"math"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/controller"
)

// TestHyperForAnneals: without a controller, lr is annealed linearly as
// CleanRL (lr at iteration 0, lr/total at the last), over the iterations or
// over the frame budget; a tuned lr is not annealed, a tuned lr_scale
// multiplies the annealed lr.
func TestHyperForAnneals(t *testing.T) {
	base := DefaultConfig()
	for _, tc := range []struct {
		it     int
		before int64
		opts   RunOptions
		want   float64
	}{
		{0, 0, RunOptions{Iterations: 10}, 3e-4},
		{5, 0, RunOptions{Iterations: 10}, 1.5e-4},
		{9, 0, RunOptions{Iterations: 10}, 3e-5},
		// Frame budget 8192 = 4 iterations of 2048: the same schedule as
		// AnnealedLR over 4 iterations, whatever the iteration index says.
		{7, 0, RunOptions{Iterations: 10, Frames: 8192}, 3e-4},
		{0, 2048, RunOptions{Iterations: 10, Frames: 8192}, 3e-4 * 0.75},
		{0, 6144, RunOptions{Iterations: 10, Frames: 8192}, 3e-4 * 0.25},
		// Past the budget (a resumed run): the floor, one iteration's share.
		{0, 9000, RunOptions{Iterations: 10, Frames: 8192}, 3e-4 * 0.25},
	} {
		c, err := HyperFor(base, tc.it, tc.before, tc.opts, nil, nil)
		if err != nil || math.Abs(c.LR-tc.want) > 1e-15 {
			t.Errorf("iteration %d, %d frames before, %+v: lr %v (%v), want %v", tc.it, tc.before, tc.opts, c.LR, err, tc.want)
		}
	}
	for it := range 4 {
		a, b := AnnealedLR(3e-4, it, 4), AnnealedLRFrames(3e-4, int64(it)*2048, 4*2048, 2048)
		if math.Abs(a-b) > 1e-18 {
			t.Errorf("iteration %d of 4: AnnealedLR %v, AnnealedLRFrames %v", it, a, b)
		}
	}
	opts := RunOptions{Iterations: 10}
	c, err := HyperFor(base, 9, 0, opts, []string{"lr", "clip"}, controller.Config{7e-4, 0.3})
	if err != nil || c.LR != 7e-4 || c.Clip != 0.3 {
		t.Fatalf("tuned: lr %v clip %v (%v)", c.LR, c.Clip, err)
	}
	c, err = HyperFor(base, 5, 0, opts, []string{"lr_scale"}, controller.Config{2})
	if err != nil || math.Abs(c.LR-1.5e-4) > 1e-15 || c.LRScale != 2 || math.Abs(c.StepLR()-3e-4) > 1e-15 {
		t.Fatalf("lr_scale tuned: lr %v lr_scale %v step lr %v (%v), want the annealed 1.5e-4 × 2", c.LR, c.LRScale, c.StepLR(), err)
	}
	// AnnealTunedLR: the tuned value is annealed like the configured one,
	// so the configured value reproduces the untuned schedule exactly.
	anneal := RunOptions{Iterations: 10, AnnealTunedLR: true}
	for _, tc := range []struct {
		v, want float64
	}{{3e-4, 1.5e-4}, {6e-4, 3e-4}} {
		c, err := HyperFor(base, 5, 0, anneal, []string{"lr", "clip"}, controller.Config{tc.v, 0.3})
		untuned, _ := HyperFor(base, 5, 0, anneal, nil, nil)
		if err != nil || math.Abs(c.LR-tc.want) > 1e-15 || (tc.v == base.LR && c.LR != untuned.LR) {
			t.Fatalf("tuned lr %v annealed at iteration 5 of 10: %v (%v), want %v", tc.v, c.LR, err, tc.want)
		}
	}
	if _, err := HyperFor(base, 0, 0, opts, []string{"gae_lambda"}, controller.Config{1.5}); err == nil || !strings.Contains(err.Error(), "gae_lambda") {
		t.Fatalf("out-of-range suggestion: %v", err)
	}
}
