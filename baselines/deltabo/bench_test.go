package deltabo

import (
	"fmt"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
)

// BenchmarkDecision times one DeltaBO decision (Suggest) holding n target
// points over the paper's four hyperparameters, with the source GP at its
// cap of 400 points (from 2000 source iterations): the Suggest closes the
// last period (μ_g, σ²_g at the new point), fits δ by ML-II (with a random
// restart below 64 points) and maximises eq. 7 over 276 candidates plus the
// local refinement. The state is restored before every timed Suggest
// (untimed), so each op sees the same data.
func BenchmarkDecision(b *testing.B) {
	space := methodtest.PaperSpace(b)
	for _, n := range []int{10, 50, 100, 200} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s := DefaultSettings()
			s.Records = synthRecords(space, paperF, 2000, 0.3, 1)
			m := methodtest.Decision(b, methodtest.Build(b, Name, &s, space, 1, 1), n).(*DeltaBO)
			b.ReportMetric(float64(len(m.st.Y)), "points")
			b.ReportMetric(float64(m.SourcePoints()), "source_points")
		})
	}
}
