package controller_test

import (
	"fmt"
	"log"
	"math"
	"math/rand/v2"

	_ "github.com/hyperctl/hyperctl/baselines/all" // registers every method, HyperController included
	"github.com/hyperctl/hyperctl/controller"
)

// trainOneIteration stands in for one iteration of someone else's trainer:
// its reward gain is largest at lr = 3e-4 and clip = 0.2, and noisy.
func trainOneIteration(lr, clip float64, noise *rand.Rand) float64 {
	return 1 - math.Abs(math.Log10(lr/3e-4)) - 2*math.Abs(clip-0.2) + 0.5*noise.NormFloat64()
}

// Embedding HyperController in a foreign training loop: the loop asks for a
// configuration, trains with it, and reports the reward. The controller
// chooses every 5 iterations from the change in reward (the paper's
// objective).
func Example() {
	space, err := controller.NewSpace(
		controller.Param{Name: "lr", Low: 1e-5, High: 1e-3, Scale: controller.Log},
		controller.Param{Name: "clip", Low: 0.1, High: 0.5},
	)
	if err != nil {
		log.Fatal(err)
	}
	ctl, err := controller.Build("hypercontroller", nil, space, controller.Options{Interval: 5, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	noise := rand.New(rand.NewPCG(1, 2))
	reward, early := 0.0, 0.0
	for it := 0; it < 300; it++ {
		if it == 50 {
			early = reward
		}
		cfg, err := ctl.Suggest() // the hyperparameters for this iteration
		if err != nil {
			log.Fatal(err)
		}
		reward += trainOneIteration(cfg[0], cfg[1], noise) // the trainer's own work
		if err := ctl.Observe(controller.Result{Reward: reward}); err != nil {
			log.Fatal(err)
		}
	}
	cfg, _ := ctl.Suggest()
	fmt.Printf("mean gain: first 50 iterations %.2f, last 250 %.2f\n", early/50, (reward-early)/250)
	fmt.Printf("iteration %d: lr = %.2g, clip = %.2f\n", ctl.Iteration(), cfg[0], cfg[1])
	// Output:
	// mean gain: first 50 iterations 0.39, last 250 0.55
	// iteration 300: lr = 0.00036, clip = 0.14
}
