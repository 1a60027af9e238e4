package goucb

import "github.com/hyperctl/hyperctl/controller"

// GO-UCB registers itself when its package is imported (baselines/all imports
// every controller).
func init() {
	controller.MustRegister(controller.Entry{Name: Name, Defaults: func() controller.Settings { s := DefaultSettings(); return &s }, Summary: "GO-UCB (Liu and Wang 2023): sqrt(T) uniform rounds, a 25-sigmoid network fitted by regression, then the optimistic argmax over a gradient-covariance ball around the online estimate"})
}
