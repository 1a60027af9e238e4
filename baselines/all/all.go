// Package all registers every hyperctl controller: import it for its side
// effect, as `import _ "github.com/hyperctl/hyperctl/baselines/all"`.
//
// A controller is a controller.Method in a package of its own that
// registers itself (controller.MustRegister) in an init function. The
// twelve registered here:
//
//   - "hypercontroller": HyperController, Gornet et al.'s Algorithm 1, the
//     project's subject (package controller/hypercontroller);
//   - "gpucb": GP-UCB (Srinivas et al. 2010), package baselines/gpucb;
//   - "pb2": PB2 (Parker-Holder et al. 2020) with a population of one,
//     package baselines/pb2;
//   - "hyperband": HyperBand (Li et al. 2017) in one online run, package
//     baselines/hyperband;
//   - "random": Random search (Bergstra and Bengio 2012), package
//     baselines/random;
//   - "randomstart": Random Start, one configuration for the whole run,
//     package baselines/randomstart;
//   - "goucb": GO-UCB, package baselines/goucb;
//   - "neuralbo": NeuralBO, package baselines/neuralbo;
//   - "deltabo": DeltaBO, transfer from earlier runs, package
//     baselines/deltabo;
//   - "bilevel": Bayesian bilevel optimisation with UCB, package
//     baselines/bilevel;
//   - "hoof": HOOF (Paul et al. 2019), candidates tried on the collected
//     batch (the controller.Trials ability), package baselines/hoof;
//   - "kladaptive": the KL-adaptive learning rate of rsl_rl, rl_games and
//     skrl, which moves the lr inside the update (the controller.LRRule
//     ability), package baselines/kladaptive.
//
// The first six are the HyperController paper's (Section V); the next four
// come from related papers, HOOF from the single-run literature and
// kladaptive from PPO practice. All run on the same driver
// (controller.Controller), so they see the same objective (by default the
// paper's X_t = R_t − R_{t−1}), the same decision interval (the driver
// calls Suggest every Interval iterations and Observe after every
// iteration), and snapshot and restore through MarshalBinary and
// UnmarshalBinary with the driver's RNG, from which every random draw
// comes. Configurations are drawn and modelled in each parameter's own
// scale (controller.Space.FromUnit and ToUnit: uniform in value on a linear
// scale, in log(value) on a log scale). gpucb, pb2, bilevel and deltabo are
// the GP-UCB family: they share one decision loop
// (baselines/internal/gploop) and differ in their model and β_t.
//
// A new controller goes in its own package, baselines/<name>/, and gets
// one import line below.
package all

import (
	_ "github.com/hyperctl/hyperctl/baselines/bilevel"     // "bilevel"
	_ "github.com/hyperctl/hyperctl/baselines/deltabo"     // "deltabo"
	_ "github.com/hyperctl/hyperctl/baselines/goucb"       // "goucb"
	_ "github.com/hyperctl/hyperctl/baselines/gpucb"       // "gpucb"
	_ "github.com/hyperctl/hyperctl/baselines/hoof"        // "hoof"
	_ "github.com/hyperctl/hyperctl/baselines/hyperband"   // "hyperband"
	_ "github.com/hyperctl/hyperctl/baselines/kladaptive"  // "kladaptive"
	_ "github.com/hyperctl/hyperctl/baselines/neuralbo"    // "neuralbo"
	_ "github.com/hyperctl/hyperctl/baselines/pb2"         // "pb2"
	_ "github.com/hyperctl/hyperctl/baselines/random"      // "random"
	_ "github.com/hyperctl/hyperctl/baselines/randomstart" // "randomstart"
	_ "github.com/hyperctl/hyperctl/controller/hypercontroller"
)
