package randompolicy_test

import (
	"context"
	"fmt"
	"log"

	_ "github.com/hyperctl/hyperctl/envs/all"
	"github.com/hyperctl/hyperctl/experiment/randompolicy"
)

// The random policy's return on Reacher over two episodes (seeds 0 and 1),
// the zero of report's normalised scores. The same call always gives the
// same numbers.
func ExampleReturn() {
	est, err := randompolicy.Return(context.Background(), "reacher", 2, 0)
	if err != nil {
		log.Fatal(err)
	}
	a, err := randompolicy.Return(context.Background(), "reacher", 2, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(est.ID, est.Episodes, est.Steps, est.Mean == a.Mean)
	// Output:
	// Reacher-v4 2 100 true
}
