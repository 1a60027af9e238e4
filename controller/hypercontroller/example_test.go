package hypercontroller_test

import (
	"fmt"
	"log"
	"math"
	"math/rand/v2"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/controller/hypercontroller"
)

// HyperController choosing among d = 5 values of lr (1e-5 to 1e-3, log
// scale) every 5 iterations, on a noisy objective whose best lr is 3e-4,
// with two options beyond the paper's Algorithm 1: the intercept (the
// study found it needs it on RL objectives) and an exploration bonus b = 1.
// Greedy, as the paper states it (b = 0), this run settles on 1e-4 for
// good; with the bonus it finds 3.2e-4.
func Example() {
	settings := hypercontroller.DefaultSettings()
	settings.D, settings.Intercept, settings.Bonus = 5, true, 1
	space, err := controller.NewSpace(controller.Param{Name: "lr", Low: 1e-5, High: 1e-3, Scale: controller.Log})
	if err != nil {
		log.Fatal(err)
	}
	ctl, err := controller.Build(hypercontroller.Name, &settings, space, controller.Options{Interval: 5, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	noise := rand.New(rand.NewPCG(1, 2))
	reward := 0.0
	picks := map[string]int{}
	for it := 0; it < 500; it++ {
		cfg, err := ctl.Suggest()
		if err != nil {
			log.Fatal(err)
		}
		if it >= 250 {
			picks[fmt.Sprintf("%.2g", cfg[0])]++
		}
		reward += 1 - math.Abs(math.Log10(cfg[0]/3e-4)) + 0.3*noise.NormFloat64()
		if err := ctl.Observe(controller.Result{Reward: reward}); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println("lr in the last 250 iterations:", picks)
	// Output: lr in the last 250 iterations: map[0.0001:5 0.00032:245]
}
