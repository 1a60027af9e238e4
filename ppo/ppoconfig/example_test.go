package ppoconfig_test

import (
	"fmt"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// A controller's suggestion is set by key name; a key outside Hyper is not
// tunable.
func ExampleHyper_Set() {
	h := ppoconfig.DefaultConfig().Hyper
	if err := h.Set("batch_size", 2047.6); err != nil {
		fmt.Println(err)
	}
	fmt.Println(h.BatchSize)
	fmt.Println(h.Set("clip", 1.5))
	// Output:
	// 2048
	// ppo.clip: want a value in (0, 1), got 1.5
}

// The Hyper of iteration 5 of 10 with clip tuned to 0.3: the configured lr
// (3e-4) annealed linearly, halfway through the run.
func ExampleHyperFor() {
	cfg := ppoconfig.DefaultConfig()
	opts := ppoconfig.RunOptions{Iterations: 10}
	h, err := ppoconfig.HyperFor(cfg, 5, 0, opts, []string{"clip"}, controller.Config{0.3})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(h.LR, h.Clip, h.BatchSize)
	// Output: 0.00015 0.3 2048
}
