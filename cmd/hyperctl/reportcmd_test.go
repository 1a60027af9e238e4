package main

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
		if got := defaultFocus(c.controllers); got != c.want {
			t.Errorf("defaultFocus(%v) = %q, want %q", c.controllers, got, c.want)
		}
	}
}
