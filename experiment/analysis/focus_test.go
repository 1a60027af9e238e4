package analysis

import "testing"

// TestDefaultFocus: report ranks the folder's only controller, else fixed
// (the default controller), unless --focus names one.
func TestDefaultFocus(t *testing.T) {
	for _, c := range []struct {
		controllers []string
		want        string
	}{
		{[]string{"fixed"}, "fixed"},
		{[]string{"gpucb"}, "gpucb"},
		{[]string{"fixed", "hypercontroller"}, "fixed"},
		{[]string{"gpucb", "random"}, "fixed"},
		{nil, "fixed"},
	} {
		if got := DefaultFocus(c.controllers); got != c.want {
			t.Errorf("DefaultFocus(%v) = %q, want %q", c.controllers, got, c.want)
		}
	}
	if got := (&Set{Focus: "hoof"}).focus(); got != "hoof" {
		t.Errorf("a set's Focus: got %q, want hoof", got)
	}
}
