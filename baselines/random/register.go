package random

import "github.com/hyperctl/hyperctl/controller"

// Name is the registered controller name.
const Name = "random"

// Random registers itself when its package is imported (baselines/all imports
// every controller).
func init() {
	controller.MustRegister(controller.Entry{Name: Name, Defaults: func() controller.Settings { return &Settings{} }, Summary: "Random (Bergstra and Bengio 2012): a new uniform configuration every decision interval"})
}
