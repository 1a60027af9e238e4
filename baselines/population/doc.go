// Package population holds the methods of population-based training:
// PBT (Jaderberg et al. 2017, "Population Based Training of Neural
// Networks") and PB2 (Parker-Holder et al. 2020, "Provably Efficient Online
// Hyperparameter Optimization with Population-Based Bandits") on a real
// population of training runs. Ray Tune's PopulationBasedTraining and PB2
// schedulers were the reference for the details; no code was copied.
//
// A population trains generation by generation: every member trains to
// the same frame target (the ready point), then Step decides, for every
// member, whether it keeps its weights and configuration or copies a
// stronger member's weights (exploit) and moves that member's configuration
// (explore), and the next generation trains. Step is a pure function of
// its input: every random draw comes from a generator seeded with the
// population's seed and the generation, so a step that is redone after a
// crash decides the same.
//
//   - Exploit (both methods): truncation selection. Members are ranked by
//     their score at the ready point; each member of the bottom quantile
//     (Quantile, 25 %) copies a member of the top quantile drawn uniformly.
//     The quantile holds ⌈Quantile·N⌉ members, at most ⌊N/2⌋ (Ray's rule;
//     Jaderberg et al. used 20 %). Ties in score rank the lower member
//     index first (Ray ranks by a stable sort of the trials).
//   - Explore, PBT: each tuned key of the donor's configuration is
//     resampled uniformly (in its own scale) with probability
//     ResampleProbability (Ray: 0.25), else multiplied by 0.8 or 1.2 drawn
//     with equal probability. Deviation: the result is clamped into the
//     key's tuned range, because the trainer accepts only values inside it
//     (Ray leaves a perturbed continuous value unbounded), and integer keys
//     are rounded to the nearest integer (Ray truncates).
//   - Explore, PB2: GP-UCB over (time, score, configuration) → score change
//     per unit time on the population's intervals, chosen by pb2.Choose
//     (see baselines/pb2 for its deviations from Ray).
//   - Members that are not exploited keep their weights and configuration.
//
// Given is the controller.Method a member trains with: the configuration
// in force is the one the population gave it for the generation.
package population
