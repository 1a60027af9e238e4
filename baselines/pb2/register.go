package pb2

import "github.com/hyperctl/hyperctl/controller"

// Name is the registered controller name.
const Name = "pb2"

// PB2 registers itself when its package is imported (baselines/all imports
// every controller).
func init() {
	controller.MustRegister(controller.Entry{Name: Name, Defaults: func() controller.Settings { s := DefaultSettings(); return &s }, Summary: "PB2 (Parker-Holder et al. 2020), population of one: time-varying GP on (time, reward, configuration) with UCB"})
}
