// Package hypercontroller is HyperController, Algorithm 1 of Gornet et al.,
// "HyperController: A Hyperparameter Controller for Fast and Stable Training
// of Reinforcement Learning Neural Networks". It registers itself as
// "hypercontroller" when imported (baselines/all imports it).
//
// Each hyperparameter i is discretised into d values D_i (controller.Space.Grid, uniform
// in the parameter's own scale). For hyperparameter i, the context c_i is the
// tuple of grid indices in force during the last s rounds (oldest first), and
// Ξ_t = (X_{t−s}, …, X_{t−1}) are the last s objective values. For every
// context c and value a there is a ridge predictor
//
//	V_a(c) = λI + Σ Ξ_τ Ξ_τᵀ,  B_a(c) = Σ X_τ Ξ_τᵀ,  Ĝ_a(c) = B_a(c) V_a(c)⁻¹  (eqs. 9–10)
//
// summed over the rounds τ at which value a was in force under context c.
// A decision picks, for each hyperparameter separately, a_t = argmax_a
// Ĝ_a(c_i)ᵀ Ξ_t (eq. 15), ties broken uniformly at random; while fewer than s
// rounds have been observed it picks uniformly at random (lines 19, 29).
// Predictors are allocated lazily on their first update, so memory grows
// with the contexts actually visited, never with d^s.
//
// # Rounds and the decision interval
//
// One round t of Algorithm 1 is one observed training iteration: one
// objective value X_t reaching Observe. With the driver's Interval = 1 the
// method is exactly Algorithm 1. With Interval = K > 1 (the paper's
// experiments: K = 5) it follows the authors' code: it learns every round and
// chooses every K rounds. At the rounds in between, the selection step of
// line 21 is skipped and a_t is the value in force; the update of lines
// 23–27 still runs, so the predictor of the value in force under the
// previous-s-rounds context learns from (Ξ_t, X_t) every iteration. Concretely,
// at every Observe of round t ≥ s, for each hyperparameter i:
//
//   - Ξ_t is the s objective values observed before X_t (oldest first);
//   - c_i are the grid indices of hyperparameter i in force at rounds
//     t−s, …, t−1 (oldest first);
//   - a_t is the grid index in force at round t (the configuration the
//     driver passes in Observation.Config);
//   - the model (i, c_i, a_t) gets V += Ξ_tΞ_tᵀ, B += X_tΞ_tᵀ, Ĝ = V⁻¹Bᵀ.
//
// Suggest at round t ranks values with Ĝ_a(c_i) and Ξ_t formed the same way
// from the rounds before t. With the driver's Delta objective the first
// training iteration has no objective, so round 0 is iteration 1.
//
// # Deliberate differences from the authors' code (hyper_optimizers.py)
//
//   - Keying: the authors key a model by s+1 consecutive per-iteration
//     actions and store it under (code = the later s actions, a = the
//     earliest one), so the model used to score a is the one trained on
//     transitions whose regressor, not target, was produced under a. Here
//     models are keyed as in Algorithm 1: the value a is the one in force
//     when the target X_t was produced, the context is the s values before.
//   - Update timing: the authors update at iteration t with the target
//     X_{t−1} (one iteration late) and predict with the model of the context
//     ending at t−1. Here round t's observation updates the model at once
//     (lines 24–27 run after X_t is observed).
//   - Exploration: the authors compute and then zero an exploration term;
//     here Bonus = 0 is the default and any b > 0 is the optimistic index of
//     eq. 50 with a constant width.
//   - Ties: torch.argmax takes the first maximum (always the lowest value
//     while predictors are zero); here ties are broken uniformly at random
//     with the driver's seeded generator.
//   - λ: fixed to 1 in the code, a setting here (default 1).
//   - Intercept (off by default, in neither the paper nor the code): the
//     regressor becomes (Ξ_t, 1), so a predictor can learn a mean
//     improvement per value, which the paper's Ĝᵀ Ξ cannot express.
//
// Deviation from the paper's listing: line 32 (Observe X_t) follows lines
// 24–27 in the listing, which use X_t; the update necessarily runs after
// X_t is observed, which is what Observe does.
package hypercontroller
