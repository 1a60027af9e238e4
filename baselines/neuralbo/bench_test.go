package neuralbo

import (
	"fmt"
	"testing"

	"github.com/hyperctl/hyperctl/controller"
)

// BenchmarkDecision times one decision (Suggest) of NeuralBO holding n data
// points over the paper's four hyperparameters, at the default width 100
// and the paper's 500 (fewer points there: the setup runs n decisions):
// the Suggest closes the last period (a rank-one update
// of U⁻¹ and a retraining of the network on all n points, 50 epochs), then
// scores 257 candidates (C·p² for the variances). The state is restored
// before every timed Suggest (untimed), so each op sees the same data.
func BenchmarkDecision(b *testing.B) {
	space := paperSpace(b)
	for _, c := range []struct{ width, n int }{{100, 10}, {100, 50}, {100, 200}, {500, 10}, {500, 50}} {
		width, n := c.width, c.n
		{
			b.Run(fmt.Sprintf("width=%d/n=%d", width, n), func(b *testing.B) {
				s := DefaultSettings()
				s.Width = width
				ctl := build(b, &s, space, 1, 1)
				f := newFeedback(space, paperGain, 0.3, 1)
				// With interval 1 every iteration after the first is one
				// point; the Suggest of iteration n+1 closes the n-th.
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
				b.ReportMetric(float64(m.(*NeuralBO).Len()), "points")
			})
		}
	}
}
