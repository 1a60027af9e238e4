package randomstart

import "github.com/hyperctl/hyperctl/controller"

// Name is the registered controller name.
const Name = "randomstart"

// Random Start registers itself when its package is imported (baselines/all imports
// every controller).
func init() {
	controller.MustRegister(controller.Entry{Name: Name, Defaults: func() controller.Settings { return &Settings{} }, Summary: "Random Start: one uniform configuration drawn at the start and kept for the whole run"})
}
