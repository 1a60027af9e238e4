package population

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// QuantileSize is the number of members in each of the bottom and top
// quantiles of a population of n: ⌈fraction·n⌉, at most ⌊n/2⌋ (0 below 2
// members).
func QuantileSize(n int, fraction float64) int {
	if n < 2 {
		return 0
	}
	k := int(math.Ceil(float64(n) * fraction))
	return min(k, n/2)
}

// Rank returns the member indices ordered from the lowest score to the
// highest; equal scores keep the lower index first.
func Rank(scores []float64) []int {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] < scores[idx[b]] })
	return idx
}

// Truncation is truncation selection: it returns, for every member, the
// member whose weights it copies (donor[i] = j), or −1 when it keeps its
// own. Each member of the bottom quantile copies a member of the top
// quantile drawn uniformly with rng, in increasing member order. Scores
// must be finite.
func Truncation(scores []float64, fraction float64, rng *rand.Rand) ([]int, error) {
	if err := finiteScores(scores); err != nil {
		return nil, fmt.Errorf("selection: %w", err)
	}
	donor := make([]int, len(scores))
	for i := range donor {
		donor[i] = -1
	}
	k := QuantileSize(len(scores), fraction)
	if k == 0 {
		return donor, nil
	}
	order := Rank(scores)
	bottom := append([]int(nil), order[:k]...)
	top := order[len(order)-k:]
	sort.Ints(bottom)
	for _, m := range bottom {
		donor[m] = top[rng.IntN(len(top))]
	}
	return donor, nil
}

// finiteScores checks that every member's score is a finite number; the
// error names the member.
func finiteScores(scores []float64) error {
	for i, s := range scores {
		if err := checkScore(i, s); err != nil {
			return err
		}
	}
	return nil
}

// checkScore checks that member m's score s is a finite number.
func checkScore(m int, s float64) error {
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return fmt.Errorf("member %d has score %v; want a finite number", m, s)
	}
	return nil
}

// CopyOrder returns the members that copy a donor in a step (donor[i] >= 0)
// in an order in which every copy reads its donor's weights as they were at
// the ready point: a member that is itself copied is overwritten only after
// every member copying it. Among the members free to go, the lowest index
// goes first, so without chains (truncation selection, MF-PBT) the order is
// increasing member order. Only t-test selection makes chains (i copies j
// while j copies k). A donor out of range, a member copying itself or a
// cycle is an error.
func CopyOrder(donor []int) ([]int, error) {
	readers := make([]int, len(donor)) // copies still to read each member
	for i, d := range donor {
		switch {
		case d < -1 || d >= len(donor):
			return nil, fmt.Errorf("copy order: member %d copies member %d, outside the %d members", i, d, len(donor))
		case d == i:
			return nil, fmt.Errorf("copy order: member %d copies itself", i)
		case d >= 0:
			readers[d]++
		}
	}
	done := make([]bool, len(donor))
	var order []int
	for {
		next := -1
		for i, d := range donor {
			if d >= 0 && !done[i] && readers[i] == 0 {
				next = i
				break
			}
		}
		if next < 0 {
			break
		}
		done[next] = true
		readers[donor[next]]--
		order = append(order, next)
	}
	for i, d := range donor {
		if d >= 0 && !done[i] {
			return nil, fmt.Errorf("copy order: member %d is in a cycle of copies", i)
		}
	}
	return order, nil
}
