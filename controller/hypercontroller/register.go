package hypercontroller

import "github.com/hyperctl/hyperctl/controller"

// Name is the registered controller name.
const Name = "hypercontroller"

// HyperController registers itself when its package is imported (baselines/all imports
// every controller).
func init() {
	controller.MustRegister(controller.Entry{Name: Name, Defaults: func() controller.Settings { s := DefaultSettings(); return &s }, Summary: "HyperController (Gornet et al., Algorithm 1): per-hyperparameter ridge predictors of the next objective from the last s objectives, greedy argmax over d grid values"})
}
