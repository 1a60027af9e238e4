package population

import (
	"fmt"
	"sort"
)

// Lineages follows the exploits of a population log: origin[k] is the
// starting member whose weights member k's descend from (every exploit
// gives the copying member its donor's origin, in log order). Roots lists
// the origins still alive, ascending. A log's exploit that names a member
// outside 0…size−1 is an error naming its generation.
func Lineages(recs []Record, size int) (origin []int, roots []int, err error) {
	if size <= 0 {
		return nil, nil, fmt.Errorf("lineages: size %d: want at least 1 member", size)
	}
	origin = make([]int, size)
	for k := range origin {
		origin[k] = k
	}
	for _, r := range recs {
		if r.Event != EventExploit {
			continue
		}
		if r.From == nil || r.Member < 0 || r.Member >= size || *r.From < 0 || *r.From >= size {
			return nil, nil, fmt.Errorf("lineages: generation %d: an exploit of member %d from %v, outside a population of %d", r.Generation, r.Member, fromText(r.From), size)
		}
		origin[r.Member] = origin[*r.From]
	}
	seen := map[int]bool{}
	for _, o := range origin {
		if !seen[o] {
			seen[o] = true
			roots = append(roots, o)
		}
	}
	sort.Ints(roots)
	return origin, roots, nil
}

func fromText(from *int) string {
	if from == nil {
		return "no donor"
	}
	return fmt.Sprint(*from)
}
