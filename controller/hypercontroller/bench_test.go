package hypercontroller_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/controller/hypercontroller"
)

// benchSpace is h unit-interval parameters.
func benchSpace(tb testing.TB, h int) controller.Space {
	tb.Helper()
	ps := make([]controller.Param, h)
	for i := range ps {
		ps[i] = controller.Param{Name: fmt.Sprintf("x%d", i), Low: 0, High: 1}
	}
	sp, err := controller.NewSpace(ps...)
	if err != nil {
		tb.Fatal(err)
	}
	return sp
}

// BenchmarkHyperController measures one decision plus one observation
// through the driver (Interval = 1, so every iteration is a decision), after
// a warm-up of 100000 iterations, on a reward stream that depends on the
// chosen configuration. Targets: h = 4, d = 10, s = 1 at most 1 µs and 0
// allocations; s = 3 at most 5 µs.
func BenchmarkHyperController(b *testing.B) {
	for _, c := range []struct{ h, d, s int }{{4, 10, 1}, {4, 10, 2}, {4, 10, 3}, {2, 100, 1}} {
		b.Run(fmt.Sprintf("h=%d/d=%d/s=%d", c.h, c.d, c.s), func(b *testing.B) {
			set := hypercontroller.DefaultSettings()
			set.D, set.S = c.d, c.s
			ctl, err := controller.Build(hypercontroller.Name, &set, benchSpace(b, c.h), controller.Options{Interval: 1, Objective: controller.Reward, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			noise := rand.New(rand.NewPCG(7, 7))
			r := 0.0
			step := func() {
				cfg, err := ctl.Suggest()
				if err != nil {
					b.Fatal(err)
				}
				// An AR(1) reward whose level depends on the first value.
				r = 0.8*r + 0.3*noise.NormFloat64() + 0.1*(0.5-cfg[0])
				if err := ctl.Observe(controller.Result{Reward: r}); err != nil {
					b.Fatal(err)
				}
			}
			for range 100000 {
				step()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				step()
			}
		})
	}
}
