package box2d_test

import (
	"fmt"
	"log"

	"github.com/hyperctl/hyperctl/envs/box2d"
)

// BipedalWalker-v3 with no torque on its four joints: the legs fold, the
// hull touches the ground, and the episode ends in game over (a reward of
// −100 in its return), long before the 1600-step time limit.
func Example() {
	w, err := box2d.New()
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	obs, err := w.Reset(0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(obs), "observations")
	action := make([]float64, 4)
	steps, ret := 0, 0.0
	for {
		tr, err := w.Step(action)
		if err != nil {
			log.Fatal(err)
		}
		steps++
		ret += tr.Reward
		if tr.Terminated || tr.Truncated {
			fmt.Printf("after %d steps: terminated %v, truncated %v, return %.2f\n", steps, tr.Terminated, tr.Truncated, ret)
			break
		}
	}
	// Output:
	// 24 observations
	// after 117 steps: terminated true, truncated false, return -91.74
}
