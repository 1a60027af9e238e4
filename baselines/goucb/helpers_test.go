package goucb

import (
	"testing"

	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
	"github.com/hyperctl/hyperctl/controller"
)

// Shorthands for the shared harness.
var (
	sq          = methodtest.Sq
	bumps1D     = methodtest.Bumps1D
	broad2D     = methodtest.Broad2D
	paperSpace  = methodtest.PaperSpace
	unitSpace   = methodtest.UnitSpace
	newFeedback = methodtest.NewFeedback
	sameConfigs = methodtest.SameConfigs
)

func build(t testing.TB, set controller.Settings, space controller.Space, interval int, seed uint64) *controller.Controller {
	t.Helper()
	return methodtest.Build(t, Name, set, space, interval, seed)
}
