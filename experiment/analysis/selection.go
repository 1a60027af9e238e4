package analysis

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hyperctl/hyperctl/internal/ground/suggest"
)

// Selection narrows a Set to some of its environments, controllers and
// seeds (report --envs, --controllers, --seeds); an empty list keeps all.
type Selection struct {
	Envs        []string
	Controllers []string
	Seeds       []int64
}

// SelectionError is a name or seed of a Selection that the set has no
// run of (nor its compare folder's manifest). Field is "envs",
// "controllers" or "seeds"; Have lists what the set does have.
type SelectionError struct {
	Field, Value string
	Have         []string
}

// Error names the value, the field it came from, what is there instead and
// the nearest name.
func (e *SelectionError) Error() string {
	what := map[string]string{"envs": "environment", "controllers": "controller", "seeds": "seed"}[e.Field]
	return fmt.Sprintf("%s %s: no such %s%s; it has %s", e.Field, e.Value, what,
		suggest.DidYouMean(e.Value, e.Have, ""), strings.Join(e.Have, ", "))
}

// Select keeps the runs of sel's environments, controllers and seeds, and
// narrows the manifest's lists alike, so that the tables expect only the
// selected runs. A value the set has no run of (nor manifest entry) is a
// *SelectionError, and the set is left as it was.
func (s *Set) Select(sel Selection) error {
	for _, c := range []struct {
		field  string
		values []string
		have   []string
	}{
		{"envs", sel.Envs, s.Envs()},
		{"controllers", sel.Controllers, s.Controllers()},
		{"seeds", int64Strings(sel.Seeds), int64Strings(s.seeds())},
	} {
		for _, v := range c.values {
			if !slices.Contains(c.have, v) {
				return &SelectionError{Field: c.field, Value: v, Have: c.have}
			}
		}
	}
	keep := func(list []string, v string) bool { return len(list) == 0 || slices.Contains(list, v) }
	keepSeed := func(v int64) bool { return len(sel.Seeds) == 0 || slices.Contains(sel.Seeds, v) }
	s.Runs = slices.DeleteFunc(s.Runs, func(r *Run) bool {
		return !keep(sel.Envs, r.Env) || !keep(sel.Controllers, r.Controller) || !keepSeed(r.Seed)
	})
	if s.Manifest != nil {
		m := *s.Manifest
		m.Envs = slices.DeleteFunc(slices.Clone(m.Envs), func(e string) bool { return !keep(sel.Envs, e) })
		m.Controllers = slices.DeleteFunc(slices.Clone(m.Controllers), func(c string) bool { return !keep(sel.Controllers, c) })
		m.Seeds = slices.DeleteFunc(slices.Clone(m.Seeds), func(sd int64) bool { return !keepSeed(sd) })
		s.Manifest = &m
	}
	return nil
}

// seeds lists the seeds present or expected, sorted.
func (s *Set) seeds() []int64 {
	var out []int64
	for _, r := range s.Runs {
		out = append(out, r.Seed)
	}
	if s.Manifest != nil {
		out = append(out, s.Manifest.Seeds...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func int64Strings(v []int64) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = strconv.FormatInt(x, 10)
	}
	return out
}
