package progress_test

import (
	"fmt"

	"github.com/hyperctl/hyperctl/experiment/progress"
)

// Fit drops the fields a glance at a run needs least until the line fits
// the terminal's width; the position always stays.
func ExampleFit() {
	f := progress.Fields{Pos: "it 123/488", Done: 123.0 / 488, ETA: "ETA 12m34s", Aside: "frames 251904",
		FPS: "1520 f/s", Rew: "ep_rew_mean -1234.5", RewN: " (100 ep)", Eval: "eval 2345.6", Reward: "reward/step -1.234"}
	for _, width := range []int{200, 79, 39, 11} {
		fmt.Println(progress.Fit(f, width))
	}
	// Output:
	// it 123/488 [#####---------------] 25% | ETA 12m34s | frames 251904 | 1520 f/s | ep_rew_mean -1234.5 (100 ep) | eval 2345.6 | reward/step -1.234
	// it 123/488 25% | ETA 12m34s | frames 251904 | ep_rew_mean -1234.5 | eval 2345.6
	// it 123/488 25% | ETA 12m34s
	// it 123/488
}
