package hoof_test

import (
	"fmt"

	"github.com/hyperctl/hyperctl/baselines/hoof"
)

// hyperctl's HOOF differs from the paper's only in settings, each one a
// field: PaperSettings (what `--preset paper` selects) turns every
// deviation off, DefaultSettings is the tuned form `--controller hoof`
// runs.
func ExamplePaperSettings() {
	for _, c := range []struct {
		name string
		set  hoof.Settings
	}{{"paper", hoof.PaperSettings()}, {"default", hoof.DefaultSettings()}} {
		s := c.set
		fmt.Printf("%-7s  k %d, trial_epochs %d, segment %d, max_kl %g, incumbent %v\n",
			c.name, s.K, s.TrialEpochs, s.Segment, s.MaxKL, s.Incumbent)
	}
	// Output:
	// paper    k 5, trial_epochs 0, segment 0, max_kl 0, incumbent false
	// default  k 5, trial_epochs 1, segment 64, max_kl 0.005, incumbent true
}
