package matrix

import (
	"testing"
	"time"

	progressline "github.com/hyperctl/hyperctl/experiment/progress"
)

// TestFramesFields: a population's line, drawn as train's: its prefix, the
// bar and percentage of the frames, the ETA, the frames and their speed;
// before the first frames, when speed and ETA come.
func TestFramesFields(t *testing.T) {
	for _, tc := range []struct {
		done, total, trained int64
		elapsed              time.Duration
		want                 string
	}{
		{0, 8000, 0, time.Second, "generation 1 of 4 [--------------------] 0% | ETA after the first iteration | frames 0/8000"},
		{4000, 8000, 4000, 0, "generation 1 of 4 [##########----------] 50% | ETA after the first iteration | frames 4000/8000"},
		{4000, 12000, 4000, 2 * time.Second, "generation 1 of 4 [######--------------] 33% | ETA 4s | frames 4000/12000 | 2000 f/s"},
		{3000, 3000, 3000, time.Second, "generation 1 of 4 [####################] 100% | ETA 0s | frames 3000/3000 | 3000 f/s"},
	} {
		if got := progressline.Fit(framesFields("generation 1 of 4", tc.done, tc.total, tc.trained, tc.elapsed), 200); got != tc.want {
			t.Errorf("framesFields(%d, %d, %d, %v) = %q, want %q", tc.done, tc.total, tc.trained, tc.elapsed, got, tc.want)
		}
	}
}
