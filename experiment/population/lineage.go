package population

import (
	"fmt"
	"sort"
)

// Lineage is what a population log says about its members' weights: an
// exploit gives the copying member its donor's origin, so Origin[k] is the
// starting member whose weights member k's descend from.
type Lineage struct {
	Origin []int
	// Roots lists the origins still alive, ascending.
	Roots []int
	// OneSince is the generation whose step left a single lineage, −1
	// when more than one survives (or the population has one member).
	OneSince int
}

// Lineages follows the exploits of a population log in order. An exploit
// that names a member outside 0…size−1 is an error naming its generation.
func Lineages(recs []Record, size int) (Lineage, error) {
	if size <= 0 {
		return Lineage{}, fmt.Errorf("lineages: size %d: want at least 1 member", size)
	}
	l := Lineage{Origin: make([]int, size), OneSince: -1}
	for k := range l.Origin {
		l.Origin[k] = k
	}
	for _, r := range recs {
		if r.Event != EventExploit {
			continue
		}
		if r.From == nil || r.Member < 0 || r.Member >= size || *r.From < 0 || *r.From >= size {
			return Lineage{}, fmt.Errorf("lineages: generation %d: an exploit of member %d from %v, outside a population of %d", r.Generation, r.Member, fromText(r.From), size)
		}
		l.Origin[r.Member] = l.Origin[*r.From]
		if l.OneSince < 0 && size > 1 && len(roots(l.Origin)) == 1 {
			l.OneSince = r.Generation
		}
	}
	l.Roots = roots(l.Origin)
	return l, nil
}

// roots lists the distinct origins, ascending.
func roots(origin []int) []int {
	seen := map[int]bool{}
	var out []int
	for _, o := range origin {
		if !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	sort.Ints(out)
	return out
}

func fromText(from *int) string {
	if from == nil {
		return "no donor"
	}
	return fmt.Sprint(*from)
}
