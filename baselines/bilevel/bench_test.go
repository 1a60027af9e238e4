package bilevel

import (
	"fmt"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
	"github.com/hyperctl/hyperctl/controller"
)

// BenchmarkDecision times one decision (Suggest: ML-II fit and UCB
// maximisation) holding n data points over the paper's four
// hyperparameters; the state is restored before every timed Suggest. The
// cost is GP-UCB's (the same GP and maximiser); only β differs.
func BenchmarkDecision(b *testing.B) {
	space := methodtest.PaperSpace(b)
	gain := func(_ int, u []float64) float64 {
		return 1 - methodtest.Sq(u[0]-0.3) - methodtest.Sq(u[1]-0.5) - 2*methodtest.Sq(u[2]-0.8) - methodtest.Sq(u[3]-0.6)
	}
	for _, n := range []int{10, 50, 200} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			ctl := build(b, nil, space, 1, 1)
			f := methodtest.NewFeedback(space, gain, 0.3, 1)
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
		})
	}
}
