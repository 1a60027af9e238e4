package deltabo

import "github.com/hyperctl/hyperctl/controller"

// Name is the registered controller name.
const Name = "deltabo"

// DeltaBO registers itself when its package is imported (baselines/all imports
// every controller).
func init() {
	controller.MustRegister(controller.Entry{Name: Name, Defaults: func() controller.Settings { s := DefaultSettings(); return &s }, Summary: "DeltaBO (Lin et al., Algorithm 1): GP-UCB on the difference from a source GP fitted once to earlier runs (source: transfer_from)"})
}
