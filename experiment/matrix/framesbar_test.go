package matrix

import (
	"testing"
	"time"
)

func TestFramesLine(t *testing.T) {
	for _, tc := range []struct {
		trained, left int64
		elapsed       time.Duration
		want          string
	}{
		{0, 8000, time.Second, "generation 1 of 4 | speed and ETA after the first iteration"},
		{4000, 8000, 0, "generation 1 of 4 | speed and ETA after the first iteration"},
		{4000, 8000, 2 * time.Second, "generation 1 of 4 | 2000 frames/s | ETA 4s"},
		{3000, 0, time.Second, "generation 1 of 4 | 3000 frames/s | ETA 0s"},
	} {
		if got := framesLine("generation 1 of 4", tc.trained, tc.left, tc.elapsed); got != tc.want {
			t.Errorf("framesLine(%d, %d, %v) = %q, want %q", tc.trained, tc.left, tc.elapsed, got, tc.want)
		}
	}
}
