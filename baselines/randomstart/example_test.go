package randomstart_test

import (
	"fmt"
	"log"

	"github.com/hyperctl/hyperctl/baselines/randomstart"
	"github.com/hyperctl/hyperctl/controller"
)

// Random Start draws one configuration at the first decision and keeps
// it: 20 iterations with a decision every 5 see only that one.
func Example() {
	space, err := controller.NewSpace(controller.Param{Name: "lr", Low: 1e-5, High: 1e-3, Scale: controller.Log})
	if err != nil {
		log.Fatal(err)
	}
	ctl, err := controller.Build(randomstart.Name, &randomstart.Settings{}, space, controller.Options{Interval: 5, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	seen := map[float64]bool{}
	for range 20 {
		cfg, err := ctl.Suggest()
		if err != nil {
			log.Fatal(err)
		}
		seen[cfg[0]] = true
		if err := ctl.Observe(controller.Result{}); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println("distinct configurations in 20 iterations:", len(seen))
	// Output:
	// distinct configurations in 20 iterations: 1
}
