package bilevel

import "github.com/hyperctl/hyperctl/controller"

// Name is the registered controller name.
const Name = "bilevel"

// The bilevel controller registers itself when its package is imported (baselines/all imports
// every controller).
func init() {
	controller.MustRegister(controller.Entry{Name: Name, Defaults: func() controller.Settings { s := DefaultSettings(); return &s }, Summary: "Bayesian bilevel optimisation with UCB (Fu, He, Tian and Tao, \"Convergence of Bayesian Bilevel Optimization\", ICLR 2024, Algorithm 2): GP-UCB with beta_t = sqrt(B^2 + t phi(N)^2 / (sigma^2 N)) times sigma; interval = \"auto\" follows N ~ T (convex) or N ~ T^2 (PL)"})
}
