package ppo

import (
	"context"
	"testing"

	_ "github.com/hyperctl/hyperctl/envs/mujoco"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// TestTrainingImprovesIDP: 16 seeded iterations of 1024 frames (16k
// frames) on InvertedDoublePendulum-v4 with the default configuration
// (64×64, CleanRL settings; lr annealed over 100 iterations) must raise the
// mean return of finished training episodes and the deterministic evaluation
// return at least twofold (measured here: about fourfold).
func TestTrainingImprovesIDP(t *testing.T) {
	cfg := ppoconfig.DefaultConfig()
	cfg.BatchSize = 1024
	cfg.Threads = 1
	tr, err := New("InvertedDoublePendulum-v4", cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	ctx := context.Background()
	ev0, err := tr.Evaluate(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	var first, last []float64
	for it := 0; it < 16; it++ {
		c, err := ppoconfig.HyperFor(cfg, it, 0, ppoconfig.RunOptions{Iterations: 100}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		st, err := tr.Iterate(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		if it == 0 {
			first = st.Returns
		}
		if it >= 14 {
			last = append(last, st.Returns...)
		}
	}
	ev1, err := tr.Evaluate(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("training episode return %.1f (%d episodes) -> %.1f (%d); evaluation %.1f -> %.1f",
		mean(first), len(first), mean(last), len(last), ev0.Mean, ev1.Mean)
	if !(mean(last) >= 2*mean(first)) || !(ev1.Mean >= 2*ev0.Mean) {
		t.Fatalf("no clear improvement: training return %.1f -> %.1f, evaluation %.1f -> %.1f", mean(first), mean(last), ev0.Mean, ev1.Mean)
	}
}
