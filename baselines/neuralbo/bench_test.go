package neuralbo

import (
	"fmt"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
)

// BenchmarkDecision times one decision (Suggest) of NeuralBO holding n data
// points over the paper's four hyperparameters, at the default width 100
// and the paper's 500 (fewer points there: the setup runs n decisions):
// the Suggest closes the last period (a rank-one update
// of U⁻¹ and a retraining of the network on all n points, 50 epochs), then
// scores 257 candidates (C·p² for the variances). The state is restored
// before every timed Suggest (untimed), so each op sees the same data.
func BenchmarkDecision(b *testing.B) {
	space := methodtest.PaperSpace(b)
	for _, c := range []struct{ width, n int }{{100, 10}, {100, 50}, {100, 200}, {500, 10}, {500, 50}} {
		b.Run(fmt.Sprintf("width=%d/n=%d", c.width, c.n), func(b *testing.B) {
			s := DefaultSettings()
			s.Width = c.width
			// The Suggest of iteration n+1 closes the n-th point.
			m := methodtest.Decision(b, methodtest.Build(b, Name, &s, space, 1, 1), c.n)
			b.ReportMetric(float64(m.(*NeuralBO).Len()), "points")
		})
	}
}
