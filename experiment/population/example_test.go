package population_test

import (
	"fmt"
	"os"
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

// A log record is written sealed, its checksum last; a changed byte in it
// is refused with the file and line named.
func ExampleAppendGeneration() {
	out, err := os.MkdirTemp("", "population")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(out)
	score := -7.5
	rec := population.Record{Generation: 0, Event: population.EventReady, Member: 1, Frames: 256, Score: &score}
	if err := population.AppendGeneration(out, 0, []population.Record{rec}); err != nil {
		fmt.Println(err)
		return
	}
	path := filepath.Join(out, population.LogFile)
	b, _ := os.ReadFile(path)
	fmt.Print(string(b))
	b[10] = '#' // damage the record
	os.WriteFile(path, b, 0o644)
	_, err = population.ReadLog(out)
	fmt.Println(err != nil)
	// Output:
	// {"generation":0,"event":"ready","member":1,"frames":256,"score":-7.5,"crc32c":"5815624d"}
	// true
}
