package seeds

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/controller"
)

// FuzzParse: no spec makes Parse panic, loop or overflow; what it accepts
// is a sorted list of distinct valid seeds, at most Max of them, and every
// single seed it returns was named by the spec. The seed corpus
// (testdata/fuzz/FuzzParse) runs with the normal tests; fuzz with
//
//	go test -run '^$' -fuzz '^FuzzParse$' -fuzztime 20s ./cmd/hyperctl/internal/seeds/
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0-4", "0,3,7-9", "9223372036854775806-9223372036854775807", "2305843009213693950-2305843009213693951", "0-9999,10000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		got, err := Parse(spec)
		if err != nil {
			return
		}
		if len(got) == 0 || len(got) > Max || !slices.IsSorted(got) {
			t.Fatalf("Parse(%q): %d seeds, sorted %v", spec, len(got), slices.IsSorted(got))
		}
		for i, s := range got {
			if s < 0 || s > controller.MaxSeed || (i > 0 && got[i-1] == s) {
				t.Fatalf("Parse(%q): seed %d at %d", spec, s, i)
			}
		}
		// Every listed single seed is in the result.
		for _, part := range strings.Split(spec, ",") {
			if v, err := strconv.ParseInt(strings.TrimSpace(part), 10, 64); err == nil {
				if _, found := slices.BinarySearch(got, v); !found {
					t.Fatalf("Parse(%q) lost seed %d", spec, v)
				}
			}
		}
	})
}
