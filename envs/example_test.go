package envs_test

import (
	"fmt"
	"log"

	"github.com/hyperctl/hyperctl/envs"
	_ "github.com/hyperctl/hyperctl/envs/all" // register the five environments
)

// A zero-torque episode of Reacher-v4, the Gymnasium way: Reset with a seed,
// then Step until the episode is terminated or truncated (its time limit).
func Example() {
	env, err := envs.Make("reacher")
	if err != nil {
		log.Fatal(err)
	}
	defer env.Close()
	spec := env.Spec()
	obs, err := env.Reset(0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d observations, %d actions, time limit %d steps\n", spec.ID, len(obs), spec.Action.Dim(), spec.MaxEpisodeSteps)
	action := make([]float64, spec.Action.Dim()) // no torque
	steps, ret := 0, 0.0
	for {
		tr, err := env.Step(action)
		if err != nil {
			log.Fatal(err)
		}
		steps++
		ret += tr.Reward
		if tr.Terminated || tr.Truncated {
			fmt.Printf("episode ended after %d steps (truncated: %v), return %.2f\n", steps, tr.Truncated, ret)
			break
		}
	}
	// Output:
	// Reacher-v4: 11 observations, 2 actions, time limit 50 steps
	// episode ended after 50 steps (truncated: true), return -9.52
}

// The registry looks an environment up by its short name or its Gymnasium
// id.
func ExampleLookup() {
	for _, name := range []string{"halfcheetah", "BipedalWalker-v3"} {
		s, err := envs.Lookup(name)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(s.Name, s.ID, s.Observation.Dim(), s.Action.Dim(), s.MaxEpisodeSteps)
	}
	// Output:
	// halfcheetah HalfCheetah-v4 17 6 1000
	// bipedalwalker BipedalWalker-v3 24 4 1600
}
