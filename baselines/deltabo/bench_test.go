package deltabo

import (
	"fmt"
	"testing"

	"github.com/hyperctl/hyperctl/controller"
)

// BenchmarkDecision times one DeltaBO decision (Suggest) holding n target
// points over the paper's four hyperparameters, with the source GP at its
// cap of 400 points (from 2000 source iterations): the Suggest closes the
// last period (μ_g, σ²_g at the new point), fits δ by ML-II (with a random
// restart below 64 points) and maximises eq. 7 over 276 candidates plus the
// local refinement. The state is restored before every timed Suggest
// (untimed), so each op sees the same data.
func BenchmarkDecision(b *testing.B) {
	space := paperSpace(b)
	gain := func(_ int, u []float64) float64 { return paperF(u) }
	for _, n := range []int{10, 50, 100, 200} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s := DefaultSettings()
			s.Records = synthRecords(space, paperF, 2000, 0.3, 1)
			ctl := build(b, &s, space, 1, 1)
			f := newFeedback(space, gain, 0.3, 1)
			for it := range n + 1 {
				f.Step(b, ctl, it)
			}
			m := ctl.Method()
			state, err := m.MarshalBinary()
			if err != nil {
				b.Fatal(err)
			}
			dst := make(controller.Config, space.Dim())
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				if err := m.UnmarshalBinary(state); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if err := m.Suggest(dst); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(len(m.(*DeltaBO).st.Y)), "points")
			b.ReportMetric(float64(m.(*DeltaBO).SourcePoints()), "source_points")
		})
	}
}
