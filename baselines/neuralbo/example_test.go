package neuralbo_test

import (
	"fmt"
	"log"
	"math"
	"math/rand/v2"

	"github.com/hyperctl/hyperctl/baselines/neuralbo"
	"github.com/hyperctl/hyperctl/controller"
)

// NeuralBO as a bare controller.Method, without the driver: each round
// suggests one configuration and observes its objective. Thompson samples
// from the network's posterior steer it to the peak at lr = 3e-4.
func Example() {
	settings := neuralbo.DefaultSettings()
	method, err := settings.New()
	if err != nil {
		log.Fatal(err)
	}
	space, err := controller.NewSpace(controller.Param{Name: "lr", Low: 1e-5, High: 1e-3, Scale: controller.Log})
	if err != nil {
		log.Fatal(err)
	}
	if err := method.Init(space, rand.New(rand.NewPCG(1, 2))); err != nil {
		log.Fatal(err)
	}
	cfg := make(controller.Config, space.Dim())
	best, bestLR := math.Inf(-1), 0.0
	for t := range 30 {
		if err := method.Suggest(cfg); err != nil {
			log.Fatal(err)
		}
		y := 1 - math.Abs(math.Log10(cfg[0]/3e-4))
		if y > best {
			best, bestLR = y, cfg[0]
		}
		if err := method.Observe(controller.Observation{Iteration: t, Config: cfg, Objective: y}); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("best of 30 rounds: lr %.1e, objective %.2f\n", bestLR, best)
	// Output:
	// best of 30 rounds: lr 3.1e-04, objective 0.99
}
