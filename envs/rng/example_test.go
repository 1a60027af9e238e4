package rng_test

import (
	"fmt"

	"github.com/hyperctl/hyperctl/envs/rng"
)

// The same seed gives the same draws as NumPy's
// np.random.Generator(np.random.PCG64(np.random.SeedSequence(42))), the
// generator gymnasium.utils.seeding.np_random(42) returns:
//
//	g.random(), g.uniform(-0.1, 0.1), g.standard_normal(), g.integers(0, 10)
//	0.7739560485559633 -0.012224312049589542 0.7504511958064572 0
func Example() {
	g := rng.New(42)
	fmt.Println(g.Random(), g.Uniform(-0.1, 0.1), g.StandardNormal(), g.Integers(0, 10))
	// Output:
	// 0.7739560485559633 -0.012224312049589542 0.7504511958064572 0
}
