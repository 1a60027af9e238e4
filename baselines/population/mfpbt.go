package population

import (
	"fmt"
	"slices"
)

// MF-PBT (Doulazmi et al. 2025, "Multiple-Frequencies Population-Based
// Training"; the authors' code is github.com/WaelDLZ/MF-PBT, read for the
// details, not copied).
//
// The population is split into M sub-populations of equal size n, member k
// in sub-population ⌊k/n⌋, sub-population i evolving every δ_i ready
// intervals (δ_1 < … < δ_M): after generation g (0-based) it evolves when
// (g+1) mod δ_i = 0. When a sub-population evolves, its members are ranked
// by score and cut into quarters B1 (best) … B4 (worst):
//
//   - internal exploit: the j-th best member of B4 copies the weights and
//     the configuration of the j-th best member of B1 and perturbs the
//     configuration (each key × 0.8 or × 1.25, MFPBTFactors);
//   - asymmetric migration: the members of B3, best first, are offered the
//     best members of the other sub-populations (ranked over the whole
//     population, best first). The member takes the offered migrant's
//     weights when the migrant's score is higher, and the next member of
//     B3 is offered the next migrant; otherwise the next member of B3 is
//     offered the same migrant. A migrant from a slower sub-population
//     (larger δ) brings its configuration; one from a faster sub-population
//     brings only its weights, and the member takes the configuration of
//     its own sub-population's best member. Migrants are not perturbed
//     (the authors' genetics sets need_explore only in the internal
//     exploit).
//
// A member that takes another's weights keeps its own random state: the
// authors' code keeps one JAX key per agent (key_rounds in
// MultipleFrequenciesPopulationBasedTraining.run, which _perform_genetics
// never touches) and copies only the agent's params: policy, value,
// observation normaliser and optimiser states. experiment/population
// applies this rule (its RandomOwn): the receiver takes its donor's run
// folder and keeps its own seed, generators and environments.
//
// The paper's runs: 32 agents in 4 sub-populations of 8 with δ = 1, 10, 25,
// 50 ready intervals of t_ready = 1M environment steps (the authors'
// configurations: 1000 rounds). A sub-population must split into quarters,
// so with N = 8 only 2 sub-populations of 4 keep the paper's brackets (B1
// … B4 are then one member each); DefaultFrequencies keeps the paper's two
// fastest periods, δ = 1 and 10 ready intervals.
//
// Deviations:
//   - a step decides from the members' weights, configurations and scores
//     at the ready point, before any copy of the step. (The authors' code
//     copies in member order from members that may already have been
//     replaced in the same step.) Migrants are always the best members of
//     their sub-populations, and donors of the internal exploit are B1, so
//     no member of a step both copies and is copied;
//   - ties in score rank as Rank does (the lower member index is the
//     lower), where the authors' numpy argsort leaves them unspecified; a
//     migrant must score strictly higher than the member it replaces (the
//     code compares ranks, so a tie broken its way also migrates);
//   - perturbed values are clamped into the tuned ranges and integer keys
//     rounded, as for PBT (the authors' perturbation is unbounded);
//   - a member's environment copies continue their episodes from one
//     generation to the next (a receiver's, its own), where the authors'
//     train_round resets every agent's environments at each round from
//     its key; a receiver also takes its donor's reward normaliser (the
//     authors' PPO scales rewards by a constant and has none) and the
//     donor's rows and counters;
//   - populations defined before the rule was recorded in population.json
//     copied the donor's random state too, so a migrant that brought its
//     configuration trained its donor's rows byte for byte; they continue
//     under that rule.

// DefaultFrequencies returns MF-PBT's evolution periods for the population
// sizes run here (N = 8): two sub-populations of 4 evolving every 1 and 10
// ready intervals, the paper's two fastest. With --ready 50000 and 1M
// frames the fast half evolves at every ready point and the slow half once,
// after 500,000 frames (where the population study found a HalfCheetah run's final mode
// readable from its score: ROC AUC 0.96).
func DefaultFrequencies() []int { return []int{1, 10} }

// validFrequencies checks MF-PBT's periods: at least one, each >= 1,
// strictly increasing.
func validFrequencies(f []int) error {
	if len(f) == 0 {
		return fmt.Errorf("no evolution periods; want at least one (the paper's: 1, 10, 25, 50)")
	}
	for i, d := range f {
		if d < 1 {
			return fmt.Errorf("period %d is %d ready intervals; want >= 1", i, d)
		}
		if i > 0 && d <= f[i-1] {
			return fmt.Errorf("periods %v: want them strictly increasing (sub-populations are ordered from the fastest)", f)
		}
	}
	return nil
}

// SubPopulationSize returns the size of each of m sub-populations of a
// population of n: n/m, which must be a whole multiple of 4 (the paper's
// quarters).
func SubPopulationSize(n, m int) (int, error) {
	if m < 1 || n < 1 || n%m != 0 || (n/m)%4 != 0 {
		return 0, fmt.Errorf("%d members in %d sub-populations: MF-PBT needs equal sub-populations whose size is a multiple of 4 (the paper's quarters), so a size that is a multiple of %d", n, m, 4*max(m, 1))
	}
	return n / m, nil
}

// Evolving reports, for each sub-population, whether it evolves in the step
// after generation step (0-based): (step+1) mod δ_i = 0.
func Evolving(frequencies []int, step int) []bool {
	out := make([]bool, len(frequencies))
	for i, d := range frequencies {
		out[i] = d > 0 && (step+1)%d == 0
	}
	return out
}

// Move is what MF-PBT does with one member in a step.
type Move struct {
	// Weights is the member whose weights it takes, or −1 when it keeps
	// its own.
	Weights int
	// Config is the member whose configuration it takes, or −1 when it
	// keeps its own.
	Config int
	// Explore is true when the configuration taken is perturbed (the
	// internal exploit), false when it is copied as it is (migration).
	Explore bool
}

// MFPBTMoves is MF-PBT's step after generation step: for every member, in
// member order, whose weights and configuration it takes and whether it
// perturbs that configuration (see the comment at the top of this file).
// scores are the members' scores at the ready point, finite; the
// population splits into len(frequencies) sub-populations as
// SubPopulationSize says. It is a pure function of its arguments.
func MFPBTMoves(frequencies []int, step int, scores []float64) ([]Move, error) {
	if err := validFrequencies(frequencies); err != nil {
		return nil, fmt.Errorf("mf-pbt: frequencies: %w", err)
	}
	if step < 0 {
		return nil, fmt.Errorf("mf-pbt: step %d; want >= 0", step)
	}
	n := len(scores)
	size, err := SubPopulationSize(n, len(frequencies))
	if err != nil {
		return nil, fmt.Errorf("mf-pbt: %w", err)
	}
	if err := finiteScores(scores); err != nil {
		return nil, fmt.Errorf("mf-pbt: %w", err)
	}
	moves := make([]Move, n)
	for i := range moves {
		moves[i] = Move{Weights: -1, Config: -1}
	}
	share := size / 4
	sub := func(k int) int { return k / size }
	// Best first, over the whole population and within each
	// sub-population.
	global := Rank(scores)
	slices.Reverse(global)
	local := make([][]int, len(frequencies))
	for p := range local {
		order := Rank(scores[p*size : (p+1)*size])
		slices.Reverse(order)
		for j := range order {
			order[j] += p * size
		}
		local[p] = order
	}
	evolving := Evolving(frequencies, step)
	for p, ev := range evolving {
		if !ev {
			continue
		}
		for j := range share {
			winner, loser := local[p][j], local[p][size-share+j]
			moves[loser] = Move{Weights: winner, Config: winner, Explore: true}
		}
	}
	for p, ev := range evolving {
		if !ev {
			continue
		}
		var external []int
		for _, k := range global {
			if sub(k) != p {
				external = append(external, k)
			}
		}
		next := 0
		for _, k := range local[p][2*share : 3*share] {
			if next == len(external) {
				break
			}
			mig := external[next]
			if !(scores[mig] > scores[k]) {
				continue
			}
			mv := Move{Weights: mig, Config: local[p][0]}
			if frequencies[p] < frequencies[sub(mig)] {
				mv.Config = mig
			}
			moves[k] = mv
			next++
		}
	}
	return moves, nil
}
