package goucb_test

import (
	"fmt"
	"log"
	"math"

	"github.com/hyperctl/hyperctl/baselines/goucb"
	"github.com/hyperctl/hyperctl/controller"
)

// GO-UCB over two hyperparameters with a budget of T = 64 decisions: the
// first ⌈√T⌉ = 8 are uniform draws (Phase I), after which a fitted
// network and its confidence ball choose. The objective peaks at lr = 3e-4
// and clip = 0.2.
func Example() {
	settings := goucb.DefaultSettings()
	settings.Rounds = 64
	space, err := controller.NewSpace(
		controller.Param{Name: "lr", Low: 1e-5, High: 1e-3, Scale: controller.Log},
		controller.Param{Name: "clip", Low: 0.05, High: 0.5},
	)
	if err != nil {
		log.Fatal(err)
	}
	ctl, err := controller.Build(goucb.Name, &settings, space, controller.Options{Interval: 1, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	gain := func(lr, clip float64) float64 {
		return 1 - math.Abs(math.Log10(lr/3e-4)) - 2*math.Abs(clip-0.2)
	}
	reward, first, last := 0.0, 0.0, 0.0
	for it := range settings.Rounds {
		cfg, err := ctl.Suggest()
		if err != nil {
			log.Fatal(err)
		}
		g := gain(cfg[0], cfg[1])
		if it < 8 {
			first += g / 8
		} else if it >= settings.Rounds-8 {
			last += g / 8
		}
		reward += g
		if err := ctl.Observe(controller.Result{Reward: reward}); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("mean gain: Phase I %.2f, last 8 decisions %.2f (best 1)\n", first, last)
	// Output:
	// mean gain: Phase I 0.09, last 8 decisions 0.56 (best 1)
}
