// Package ppo is hyperctl's trainer: continuous-action PPO (Schulman et al.
// 2017) with the implementation details of CleanRL's ppo_continuous_action
// ("The 37 Implementation Details of PPO"), on libtorch through gotch, whose
// hyperparameters may change at every iteration.
//
// # Use
//
//	tr, err := ppo.New("halfcheetah", cfg, seed) // envs/all must be imported
//	defer tr.Close()
//	err = ppo.Run(ctx, tr, ctl, ppoconfig.RunOptions{Iterations: 1000, EvalEvery: 10},
//		func(r ppo.Report) error { /* CSV row, progress, checkpoint */ return nil })
//
// Run is a thin loop over the primitives, which embedders may call directly:
// Trainer.Iterate(ctx, h) runs one iteration with the per-iteration
// hyperparameters h, a ppoconfig.Hyper (ppoconfig.HyperFor builds them from
// the trainer's config, a controller's suggestion and the learning-rate
// schedule); every other setting is fixed when the trainer is built.
// Trainer.Evaluate runs deterministic episodes, Trainer.Snapshot/Restore
// checkpoint everything. A nil controller trains with fixed hyperparameters
// (the reference baseline).
//
// The configuration (ppoconfig.Config, ppoconfig.RunOptions and the
// schedule) is declared in ppo/ppoconfig, which needs no cgo: configs and
// the methods build and test without libtorch.
//
// # Algorithm
//
//   - Separate actor and critic MLPs (Config.Hidden, tanh or relu),
//     orthogonal initialisation computed in Go (gonum QR; gains √2, 0.01, 1),
//     zero biases; a Gaussian policy with a state-independent log std.
//   - Rollout over Config.NumEnvs copies (envs.Vec): one forward pass
//     serves all copies; actions are sampled in Go, the unclipped sample is
//     stored and the clipped one is stepped.
//   - Running observation normalisation with clipping and reward scaling by
//     the running std of the discounted return with clipping (Gymnasium's
//     wrappers), saved in checkpoints and frozen during evaluation.
//   - GAE(γ, λ): no bootstrap after termination; after truncation the return
//     is bootstrapped from the value of the final observation.
//   - Clipped surrogate, optionally clipped value loss, entropy bonus;
//     advantages normalised per minibatch; one Adam over all parameters with
//     global gradient-norm clipping; epochs passes over shuffled
//     minibatches of minibatch_size frames; optional target-KL stop. These
//     and every other key of Hyper are read from the iteration's Hyper.
//   - A non-finite loss, gradient or parameter rejects the iteration's update:
//     parameters and Adam state are restored, the event is logged and
//     counted, training goes on.
//
// # Implementation
//
// All parameters (actor, log std, critic) live in one flat float32 tensor
// θ, so the gradient is one flat tensor and Adam, clipping and the NaN
// checks work on one vector. The networks run forward in libtorch; the PPO
// loss and its gradient with respect to the networks' outputs (μ, V, log σ)
// are computed in Go in float64 (ppoLoss, following autograd's conventions
// at the max/clamp kinks), and libtorch backpropagates them through the
// networks. The minibatch step is a small C++ file of this package
// (shim.cpp, built by cgo against libtorch's C++ API): parameter and
// gradient views over θ are built once, the backward pass computes what
// autograd would (mm, row sums, tanh_backward: ATen's kernels, or on
// ATen's AVX2 kernels the same arithmetic in the shim, bit for bit,
// TestShimOpsMatchATen) without building a graph, and clipping + Adam are one vectorised pass over θ, m
// and v, so a minibatch costs three cgo calls (forward, backward, Adam)
// instead of about 80 libtorch ops and 40 more cgo calls (results/speed);
// inference runs through the same forward. TestGradientMatchesAutograd
// checks the gradient against autograd through the whole loss graph. gotch
// v0.7.0's Adam is an opaque libtorch C++ object whose moments cannot be
// saved, so Adam is implemented here with torch.optim.Adam's
// formula (moments and step count are checkpointed). Ops are issued through
// a thin layer over gotch's libtch wrappers (torch.go) because gotch's ts
// package leaks one C allocation per op (see BenchmarkOpMemory). gotch
// exposes no libtorch seed, so all randomness comes from Go PCG generators,
// which makes runs deterministic given the seed. Snapshots also hold the
// environments' complete states (envs.StateSaver), so a restored trainer
// continues bit-identically: resumed = uninterrupted.
//
// A process that links this package sets glibc's malloc to keep and reuse
// freed memory (one arena, no mmap below 64 MiB, no trimming below 1 GiB):
// each environment copy of a MuJoCo model allocates its whole stack, and
// on fresh pages every New and Restore paid a page fault per page, which
// made a population member's resume for a generation cost 0.3–0.5 s. Any
// glibc.malloc setting in GLIBC_TUNABLES leaves malloc to the user's own
// settings (malloc.go).
//
// # Deviations from CleanRL (and why)
//
//   - Vectorized rollout: num_envs copies (default 8) × batch_size/num_envs
//     steps instead of 1 copy × 2048 steps, for speed; batch_size is rounded
//     up to a multiple of num_envs.
//   - Truncation is bootstrapped (CleanRL's version treats it as termination;
//     bootstrap_truncated = false restores that).
//   - The reward scaler's discounted return is reset at every episode end,
//     terminated or truncated (as gym 0.23, which CleanRL used; Gymnasium ≥
//     0.26 resets it only on termination).
//   - The observation statistics are updated with the n observations the
//     policy acts on each step; final observations of truncated episodes are
//     normalised without updating them.
//   - The old log-probability is computed in Go (float64, from the stored
//     float32 action and mean) rather than by the network in float32, so at
//     the first epoch the ratio is 1 to within float32 rounding.
//   - target_kl (off by default, as in CleanRL) is compared with the mean
//     approximate KL of the epoch's minibatches, not the last minibatch's.
//   - A single-frame minibatch is not advantage-normalised (torch.std of one
//     value is NaN).
//   - The training reward reported to controllers, IterStats.Reward, is the
//     mean raw per-step reward of the iteration's frames, as the paper
//     authors' code logs it.
//   - Run evaluates after iterations K−1, 2K−1, … and after the last (the
//     authors' code: after iterations 0, K, 2K, …), so the final policy is
//     always evaluated.
package ppo
