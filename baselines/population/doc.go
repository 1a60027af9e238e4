// Package population holds the methods of population-based training:
// PBT (Jaderberg et al. 2017, "Population Based Training of Neural
// Networks") and PB2 (Parker-Holder et al. 2020, "Provably Efficient Online
// Hyperparameter Optimization with Population-Based Bandits") on a real
// population of training runs, MF-PBT (Doulazmi et al. 2025,
// "Multiple-Frequencies Population-Based Training"), and the baselines
// that select without copying weights: random search and synchronous
// successive halving (Li et al. 2020, "A System for Massively Parallel
// Hyperparameter Tuning"). Ray Tune's PopulationBasedTraining and PB2
// schedulers were the reference for PBT and PB2's details, the authors'
// repository for MF-PBT's; no code was copied.
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
//   - Exploit (PBT and PB2): truncation selection. Members are ranked by
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
// Options against early selection, off by default (the defaults decide as
// before them, byte for byte: TestStepGolden):
//
//   - Settings.FirstExploit: no member is exploited before every member has
//     reached this frame (Ray Tune's burn_in_period). The population study found that a
//     HalfCheetah run's final mode cannot be read from its training score
//     before about 400,000 frames.
//   - Settings.Selection = SelectTTest: Jaderberg et al.'s t-test selection
//     in place of truncation (TTestSelection): every member draws another
//     uniformly and copies it when that member's last TTestEpisodes (10,
//     the paper's "last 10 episodic rewards") training episode returns are
//     significantly better by Welch's t-test at TTestLevel (0.05; the
//     paper states no level). Exploited members are explored by the
//     method's explore.
//   - No cap on how much of the population one lineage may hold: a search
//     of the population-based training literature found none. The nearest
//     rules bias selection instead of capping it (Gustafson's lineage
//     selection in genetic programming draws a lineage first, then a
//     member); MF-PBT's sub-populations are the published way to keep
//     lineages apart.
//
// MFPBT splits the population into sub-populations that evolve at
// different periods (Settings.Frequencies, in ready intervals) and migrate
// asymmetrically; see MFPBTMoves and the comment in mfpbt.go for the
// method, the structure chosen for 8 members and the deviations.
// RandomSearch trains Initial's configurations without exploits (Step
// keeps every member; Best picks the answer). Successive halving does not
// step a population: Rungs gives its schedule, Promote who continues.
//
// Given is the controller.Method a member trains with: the configuration
// in force is the one the population gave it for the generation.
package population
