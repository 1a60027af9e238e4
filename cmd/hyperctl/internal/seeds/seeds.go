// Package seeds parses the seed lists of hyperctl compare (--seeds): ranges
// and lists such as "0-9" or "0,3,7-9".
package seeds

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hyperctl/hyperctl/controller"
)

// Max bounds the number of seeds a spec may name.
const Max = 10000

// Parse parses "0-9", "0,3,7-9" into a sorted, de-duplicated list of
// at most Max seeds, each a valid run seed (configs: [0, controller.MaxSeed]).
// Ranges are counted before they are expanded, so no input makes it loop
// or allocate beyond the cap.
func Parse(spec string) ([]int64, error) {
	seen := map[int64]bool{}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		what := "seed"
		if isRange {
			what = "seed range"
		}
		a, err := parseSeed(lo)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", what, part, err)
		}
		b := a
		if isRange {
			if b, err = parseSeed(hi); err != nil {
				return nil, fmt.Errorf("%s %q: %w", what, part, err)
			}
			if b < a {
				return nil, fmt.Errorf("seed range %q: want LOW-HIGH with LOW <= HIGH", part)
			}
		}
		// b-a cannot overflow: 0 <= a <= b <= controller.MaxSeed.
		if b-a >= Max {
			return nil, fmt.Errorf("seed range %q: more than %d seeds", part, Max)
		}
		for k := int64(0); k <= b-a; k++ {
			seen[a+k] = true
		}
		if len(seen) > Max {
			return nil, fmt.Errorf("more than %d seeds in all", Max)
		}
	}
	if len(seen) == 0 {
		return nil, errors.New("no seeds given")
	}
	out := make([]int64, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	slices.Sort(out)
	return out, nil
}

// parseSeed parses one seed of a spec.
func parseSeed(s string) (int64, error) {
	s = strings.TrimSpace(s)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 || v > controller.MaxSeed {
		return 0, fmt.Errorf("%q is not a seed: want integers in [0, %d], or ranges like 0-9", s, int64(controller.MaxSeed))
	}
	return v, nil
}
