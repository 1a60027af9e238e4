package hyperband

import "github.com/hyperctl/hyperctl/controller"

// Name is the registered controller name.
const Name = "hyperband"

// HyperBand registers itself when its package is imported (baselines/all imports
// every controller).
func init() {
	controller.MustRegister(controller.Entry{Name: Name, Defaults: func() controller.Settings { s := DefaultSettings(); return &s }, Summary: "HyperBand (Li et al. 2017) in one online run: brackets of successive halving over decision periods"})
}
