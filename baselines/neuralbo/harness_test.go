package neuralbo

import (
	"testing"

	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
	"github.com/hyperctl/hyperctl/controller"
)

// The shared test harness (baselines/internal/methodtest), bound to this
// package's method.

func paperSpace(t testing.TB) controller.Space       { return methodtest.PaperSpace(t) }
func unitSpace(t testing.TB, d int) controller.Space { return methodtest.UnitSpace(t, d) }
func sameConfigs(a, b []controller.Config) bool      { return methodtest.SameConfigs(a, b) }
func sq(x float64) float64                           { return methodtest.Sq(x) }

func build(t testing.TB, set controller.Settings, space controller.Space, interval int, seed uint64) *controller.Controller {
	t.Helper()
	return methodtest.Build(t, Name, set, space, interval, seed)
}

func newFeedback(space controller.Space, gain func(int, []float64) float64, noise float64, seed uint64) *methodtest.Feedback {
	return methodtest.NewFeedback(space, gain, noise, seed)
}
