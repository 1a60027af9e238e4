package gpucb_test

import (
	"fmt"
	"log"
	"math"

	"github.com/hyperctl/hyperctl/baselines/gpucb"
	"github.com/hyperctl/hyperctl/controller"
)

// GP-UCB with Srinivas et al.'s β_t scaled down, as their experiments do,
// on a noiseless objective whose best lr is 3e-4: one decision every 5
// iterations, each from a GP fitted to the periods so far.
func Example() {
	settings := gpucb.DefaultSettings()
	settings.BetaScale = 0.2
	space, err := controller.NewSpace(controller.Param{Name: "lr", Low: 1e-5, High: 1e-3, Scale: controller.Log})
	if err != nil {
		log.Fatal(err)
	}
	ctl, err := controller.Build(gpucb.Name, &settings, space, controller.Options{Interval: 5, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	reward := 0.0
	for it := 0; it < 100; it++ {
		cfg, err := ctl.Suggest()
		if err != nil {
			log.Fatal(err)
		}
		reward += 1 - math.Abs(math.Log10(cfg[0]/3e-4)) // this iteration's gain
		if err := ctl.Observe(controller.Result{Reward: reward}); err != nil {
			log.Fatal(err)
		}
	}
	cfg, _ := ctl.Suggest()
	fmt.Printf("after %d iterations: lr = %.2g\n", ctl.Iteration(), cfg[0])
	// Output: after 100 iterations: lr = 0.00041
}
