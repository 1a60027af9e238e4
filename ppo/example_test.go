package ppo_test

import (
	"context"
	"fmt"
	"log"

	_ "github.com/hyperctl/hyperctl/envs/all" // register the environments
	"github.com/hyperctl/hyperctl/ppo"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// Three iterations of PPO on Reacher-v4 with CleanRL's defaults and no
// controller (fixed hyperparameters, the learning rate annealed linearly
// over the run), evaluated after the last: Run calls the callback once per
// iteration, where a caller writes its rows.
func Example() {
	tr, err := ppo.New("reacher", ppoconfig.DefaultConfig(), 0)
	if err != nil {
		log.Fatal(err)
	}
	defer tr.Close()
	opts := ppoconfig.RunOptions{Iterations: 3, EvalEvery: 3}
	err = ppo.Run(context.Background(), tr, nil, opts, func(r ppo.Report) error {
		fmt.Printf("iteration %d: %d frames in all, batch %d, lr %.6f, evaluated: %v\n",
			r.Stats.Iteration, r.Stats.TotalFrames, r.Stats.Hyper.BatchSize, r.Stats.Hyper.LR, r.Eval != nil)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// iteration 0: 2048 frames in all, batch 2048, lr 0.000300, evaluated: false
	// iteration 1: 4096 frames in all, batch 2048, lr 0.000200, evaluated: false
	// iteration 2: 6144 frames in all, batch 2048, lr 0.000100, evaluated: true
}
