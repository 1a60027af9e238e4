package random_test

import (
	"fmt"
	"log"

	"github.com/hyperctl/hyperctl/baselines/random"
	"github.com/hyperctl/hyperctl/controller"
)

// Random search draws a new configuration at every decision, uniformly in
// each parameter's own scale: over a log-scaled lr in [1e-5, 1e-3], about
// half of the draws fall below the geometric midpoint 1e-4.
func Example() {
	space, err := controller.NewSpace(controller.Param{Name: "lr", Low: 1e-5, High: 1e-3, Scale: controller.Log})
	if err != nil {
		log.Fatal(err)
	}
	ctl, err := controller.Build(random.Name, &random.Settings{}, space, controller.Options{Interval: 1, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	below, decisions := 0, 1000
	for range decisions {
		cfg, err := ctl.Suggest()
		if err != nil {
			log.Fatal(err)
		}
		if cfg[0] < 1e-4 {
			below++
		}
		if err := ctl.Observe(controller.Result{}); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("%d of %d draws below 1e-4\n", below, decisions)
	// Output:
	// 520 of 1000 draws below 1e-4
}
