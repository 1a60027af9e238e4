// Package ppoconfig declares what the PPO trainer (package ppo) is
// configured with, in plain Go without cgo: Config, the [ppo] table of a run
// config, with its defaults (DefaultConfig) and checks; Hyper, the
// per-iteration hyperparameters a controller may tune, whose struct tags are
// the one declaration of each key's name, range and paper bounds
// (HyperKeys); and RunOptions with the learning-rate schedule that turns a
// config, a controller's suggestion and the run's progress into an
// iteration's Hyper (HyperFor).
//
// The trainer itself links libtorch; this package does not, so the config
// parser (configs), the methods (baselines) and the tools that read run
// folders build and test with CGO_ENABLED=0.
package ppoconfig
