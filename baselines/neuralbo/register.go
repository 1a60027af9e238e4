package neuralbo

import "github.com/hyperctl/hyperctl/controller"

// Name is the registered controller name.
const Name = "neuralbo"

// NeuralBO registers itself when its package is imported (baselines/all imports
// every controller).
func init() {
	controller.MustRegister(controller.Entry{Name: Name, Defaults: func() controller.Settings { s := DefaultSettings(); return &s }, Summary: "NeuralBO (Phan-Trong et al., Algorithm 1): two-layer ReLU network, Thompson sampling with NTK-feature variance, U^-1 by Sherman-Morrison"})
}
