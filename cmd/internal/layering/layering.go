// Package layering states the order in which hyperctl's packages may import
// each other (the README's Layout section gives the same order, with what
// each layer holds). A package may import the packages of its own layer and
// of the layers below it, never those above; its test (in `make test`)
// checks every import of every package of the module against Layers.
// Tests may import upward (a driver test runs every registered method),
// except that nothing outside cmd/ imports cmd/, tests included.
package layering

import "strings"

// Layer is one floor of the order: the packages whose module-relative path
// matches one of Patterns ("x" is that package, "x/..." it and every
// package below it).
type Layer struct {
	Name     string
	Patterns []string
}

// Layers is the import order, bottom first.
var Layers = []Layer{
	{"ground", []string{"internal/ground/..."}},
	{"environments", []string{"envs/..."}},
	{"the controller interface and driver", []string{"controller"}},
	{"kalman", []string{"kalman/..."}},
	{"ppo", []string{"ppo/..."}},
	{"the methods", []string{"baselines/...", "controller/hypercontroller/..."}},
	{"configs and the run folder", []string{"configs/..."}},
	{"the service", []string{"controller/service/..."}},
	{"experiment", []string{"experiment/..."}},
	{"cmd", []string{"cmd/..."}},
}

// Of returns the layer of a module-relative package path (its index in
// Layers), and false for a path no layer names. When several patterns
// match, the most specific one (the longest) decides.
func Of(rel string) (int, bool) {
	layer, best := 0, -1
	for i, l := range Layers {
		for _, p := range l.Patterns {
			if n := len(strings.TrimSuffix(p, "/...")); matches(p, rel) && n > best {
				layer, best = i, n
			}
		}
	}
	return layer, best >= 0
}

// matches reports whether the module-relative package path rel matches
// the pattern p ("x": that package; "x/...": it and every package below).
func matches(p, rel string) bool {
	if sub, ok := strings.CutSuffix(p, "/..."); ok {
		return rel == sub || strings.HasPrefix(rel, sub+"/")
	}
	return rel == p
}
