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
	for i, s := range scores {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return nil, fmt.Errorf("selection: member %d has score %v; want a finite number", i, s)
		}
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
