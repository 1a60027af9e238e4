package population

import (
	"fmt"
	"math"
	"slices"
)

// Successive halving, synchronous (Li et al. 2020, "A System for Massively
// Parallel Hyperparameter Tuning", Algorithm 1, the synchronous SHA that
// ASHA makes asynchronous): N members train to the first rung's frame
// budget; the top ⌊N/η⌋ by training score continue to the next rung, and
// so on; the rest stop where they are. A member continues from its
// checkpoint, so it trains each frame once. The members can be seeds of one
// configuration or N configurations drawn by Initial: the schedule and the
// promotion read only scores.

// DefaultEta is successive halving's reduction factor η: 3, Li et al.'s
// default (in Hyperband and ASHA; baselines/hyperband uses it too).
const DefaultEta = 3

// Rung is one rung of successive halving: Members train to Frames.
type Rung struct {
	Members int
	Frames  int64
}

// Rungs returns the schedule of synchronous successive halving of n
// members with reduction factor eta over budgets from minFrames to
// maxFrames.
//
// Li et al.'s SHA takes a minimum resource r, a maximum R, η and a minimum
// early-stopping rate s: rung k trains ⌊n η^−k⌋ configurations to r η^(s+k),
// k = 0 … s_max − s with s_max = ⌊log_η(R/r)⌋, and requires n ≥ η^(s_max−s)
// so that a configuration reaches R. Here the rungs are anchored at the
// maximum: there are K = 1 + min(⌊log_η(R/r)⌋, ⌊log_η n⌋) rungs, rung k
// (0-based) holds ⌊n/η^k⌋ members and trains them to ⌊R/η^(K−1−k)⌋
// frames. So the last rung always trains to R (the budget every other
// method's members get), the first is at least r, and s is the smallest
// rate that n members allow. When R/r is a power of η no smaller than n,
// this is Li et al.'s schedule with s = s_max − ⌊log_η n⌋.
func Rungs(n, eta int, minFrames, maxFrames int64) ([]Rung, error) {
	switch {
	case n < 1:
		return nil, fmt.Errorf("successive halving: %d members; want at least 1", n)
	case eta < 2:
		return nil, fmt.Errorf("successive halving: eta = %d; want >= 2", eta)
	case minFrames < 1 || minFrames > maxFrames:
		return nil, fmt.Errorf("successive halving: min frames %d, max frames %d; want 1 <= min <= max", minFrames, maxFrames)
	}
	k := 0 // min(⌊log_η n⌋, ⌊log_η(R/r)⌋): the rungs both allow
	for pow := int64(eta); pow <= int64(n) && maxFrames/pow >= minFrames; pow *= int64(eta) {
		k++
		if pow > math.MaxInt64/int64(eta) {
			break
		}
	}
	out := make([]Rung, k+1)
	members, div := int64(n), int64(1)
	for j := k; j >= 0; j-- { // from the last rung down
		out[j].Frames = maxFrames / div
		div *= int64(eta)
	}
	for j := range out {
		out[j].Members = int(members)
		members /= int64(eta)
	}
	return out, nil
}

// FramesUsed returns the frames a schedule trains in all members together:
// each member continues from its checkpoint, so rung k costs
// Members_k × (Frames_k − Frames_(k−1)), with Frames_(−1) = 0.
func FramesUsed(rungs []Rung) int64 {
	var sum, prev int64
	for _, r := range rungs {
		sum += int64(r.Members) * (r.Frames - prev)
		prev = r.Frames
	}
	return sum
}

// Promote returns the members of a rung that continue to the next: the
// keep members of alive with the highest scores[m], in increasing member
// order. Ties rank as Rank ranks them (of equal scores the lower member
// index is the lower), so the choice is deterministic. scores is indexed
// by member; only the alive members' scores are read, and they must be
// finite.
func Promote(alive []int, scores []float64, keep int) ([]int, error) {
	if keep < 0 || keep > len(alive) {
		return nil, fmt.Errorf("successive halving: keep %d of %d members", keep, len(alive))
	}
	sorted := slices.Clone(alive)
	slices.Sort(sorted)
	rs := make([]float64, len(sorted))
	for i, m := range sorted {
		if m < 0 || m >= len(scores) {
			return nil, fmt.Errorf("successive halving: member %d has no score (%d scores)", m, len(scores))
		}
		if i > 0 && m == sorted[i-1] {
			return nil, fmt.Errorf("successive halving: member %d is alive twice", m)
		}
		if err := checkScore(m, scores[m]); err != nil {
			return nil, fmt.Errorf("successive halving: %w", err)
		}
		rs[i] = scores[m]
	}
	order := Rank(rs)
	out := make([]int, 0, keep)
	for _, i := range order[len(order)-keep:] {
		out = append(out, sorted[i])
	}
	slices.Sort(out)
	return out, nil
}
