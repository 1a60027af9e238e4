package deltabo_test

import (
	"fmt"
	"log"
	"math"

	"github.com/hyperctl/hyperctl/baselines/deltabo"
	"github.com/hyperctl/hyperctl/controller"
)

// DeltaBO transfers from earlier runs: here five source runs, each with
// one lr held for 20 iterations, whose objective peaked at lr = 3e-4. Its
// first suggestion for a new run, before any observation of its own, is
// already near the sources' best (GP-UCB's first is a uniform draw).
func Example() {
	settings := deltabo.DefaultSettings()
	settings.Progress = "none" // the sources' objective does not change with training
	gain := func(lr float64) float64 { return 1 - math.Abs(math.Log10(lr/3e-4)) }
	for run, lr := range []float64{1e-5, 5e-5, 2e-4, 5e-4, 1e-3} {
		for it := range 20 {
			settings.Records = append(settings.Records, deltabo.Record{
				Run: run, Iteration: it, Config: map[string]float64{"lr": lr}, Objective: gain(lr),
			})
		}
	}
	space, err := controller.NewSpace(controller.Param{Name: "lr", Low: 1e-5, High: 1e-3, Scale: controller.Log})
	if err != nil {
		log.Fatal(err)
	}
	ctl, err := controller.Build(deltabo.Name, &settings, space, controller.Options{Interval: 5, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	cfg, err := ctl.Suggest()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("first lr: %.1e\n", cfg[0])
	// Output:
	// first lr: 2.9e-04
}
