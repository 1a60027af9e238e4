package population

import (
	"reflect"
	"strings"
	"testing"
)

func exploit(g, member, from int) Record {
	return Record{Generation: g, Event: EventExploit, Member: member, From: &from}
}

func TestLineages(t *testing.T) {
	tests := []struct {
		name   string
		size   int
		recs   []Record
		origin []int
		roots  []int
		one    int // OneSince
		err    string
	}{
		{name: "no exploit", size: 3, origin: []int{0, 1, 2}, roots: []int{0, 1, 2}, one: -1},
		{name: "ready and explore records change nothing", size: 2,
			recs:   []Record{{Event: EventReady, Member: 1}, {Event: EventExplore, Member: 1}},
			origin: []int{0, 1}, roots: []int{0, 1}, one: -1},
		{name: "one copy", size: 4, recs: []Record{exploit(0, 3, 1)},
			origin: []int{0, 1, 2, 1}, roots: []int{0, 1, 2}, one: -1},
		{name: "a copy of a copy keeps the first origin", size: 4,
			recs:   []Record{exploit(0, 3, 1), exploit(1, 0, 3), exploit(1, 2, 0)},
			origin: []int{1, 1, 1, 1}, roots: []int{1}, one: 1},
		{name: "one lineage is kept from its first generation", size: 2,
			recs:   []Record{exploit(2, 1, 0), exploit(5, 0, 1)},
			origin: []int{0, 0}, roots: []int{0}, one: 2},
		{name: "a single member is not a collapse", size: 1, origin: []int{0}, roots: []int{0}, one: -1},
		{name: "log order decides", size: 3,
			recs:   []Record{exploit(0, 0, 2), exploit(1, 2, 1)},
			origin: []int{2, 1, 1}, roots: []int{1, 2}, one: -1},
		{name: "donor outside the population", size: 2, recs: []Record{exploit(4, 0, 5)},
			err: "generation 4: an exploit of member 0 from 5, outside a population of 2"},
		{name: "exploit without donor", size: 2, recs: []Record{{Generation: 1, Event: EventExploit, Member: 1}},
			err: "from no donor"},
		{name: "no members", size: 0, err: "size 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Lineages(tc.recs, tc.size)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(l.Origin, tc.origin) || !reflect.DeepEqual(l.Roots, tc.roots) || l.OneSince != tc.one {
				t.Fatalf("got %+v, want origin %v roots %v one since %d", l, tc.origin, tc.roots, tc.one)
			}
		})
	}
}
