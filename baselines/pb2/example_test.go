package pb2_test

import (
	"fmt"

	"github.com/hyperctl/hyperctl/baselines/pb2"
)

// PB2's exploration weight grows with the data in its window, as Ray
// Tune's β = c1 + max(0, log(c2·N)); the UCB adds √β standard deviations.
func ExampleBeta() {
	set := pb2.DefaultSettings()
	for _, n := range []int{1, 3, 10, 100} {
		fmt.Printf("N=%3d: beta %.3f\n", n, pb2.Beta(n, set.C1, set.C2))
	}
	// Output:
	// N=  1: beta 0.200
	// N=  3: beta 0.382
	// N= 10: beta 1.586
	// N=100: beta 3.889
}
