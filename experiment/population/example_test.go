package population_test

import (
	"fmt"
	"path/filepath"

	popmethod "github.com/hyperctl/hyperctl/baselines/population"
	"github.com/hyperctl/hyperctl/experiment/population"
)

// Member k of a population of size members started with seed trains with
// seed·size + k, so two populations with different seeds share no member
// seed.
func ExampleMemberSeed() {
	for k := range 4 {
		fmt.Print(population.MemberSeed(2, 4, k), " ")
	}
	fmt.Println()
	// Output:
	// 8 9 10 11
}

// A member's run folder is a cell of the population's compare matrix:
// <env>/<method>/seed<member seed>.
func ExampleDefinition_MemberDir() {
	def := population.Definition{Env: "reacher", Settings: popmethod.DefaultSettings(popmethod.PB2), Size: 4, Seed: 1}
	fmt.Println(filepath.ToSlash(def.MemberDir("runs/pop", 2)))
	// Output:
	// runs/pop/reacher/pb2/seed6
}
