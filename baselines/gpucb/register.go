package gpucb

import "github.com/hyperctl/hyperctl/controller"

// Name is the registered controller name.
const Name = "gpucb"

// GP-UCB registers itself when its package is imported (baselines/all imports
// every controller).
func init() {
	controller.MustRegister(controller.Entry{Name: Name, Defaults: func() controller.Settings { s := DefaultSettings(); return &s }, Summary: "GP-UCB (Srinivas et al. 2010): GP on (configuration -> objective), maximise mu + sqrt(beta_t) sigma"})
}
