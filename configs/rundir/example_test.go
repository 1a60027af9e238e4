package rundir_test

import (
	"fmt"
	"log"

	"github.com/hyperctl/hyperctl/configs/rundir"
)

// The finished runs below a folder, and what one of them recorded: issue
// 37's hoof runs from a large entropy bonus on Pusher (committed under
// results/; seed 2 is the run of the README's trace figure), read as any
// run folder is.
func Example() {
	root := "../../results/wrong-start/decide/entropy-high/hoof/pusher"
	finished, unfinished, err := rundir.FindRuns(root)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d finished, %d unfinished\n", len(finished), unfinished)
	s, err := rundir.ReadSummary(finished[2])
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s, %s, seed %d: %d iterations, %d frames, final evaluation %.2f\n",
		s.Env, s.Controller, s.Seed, s.Iterations, s.Frames, *s.FinalEvalReturn)
	// Output:
	// 5 finished, 0 unfinished
	// pusher, hoof, seed 2: 489 iterations, 1001472 frames, final evaluation -23.32
}
