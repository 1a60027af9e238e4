package main

import (
	"testing"

	"github.com/hyperctl/hyperctl/experiment/matrix"
)

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n         int
		one, many string
		want      string
	}{{1, "run", "runs", "1 run"}, {0, "run", "runs", "0 runs"}, {5, "was", "were", "5 were"}, {1, "was", "were", "1 was"}} {
		if got := matrix.Plural(tc.n, tc.one, tc.many); got != tc.want {
			t.Errorf("matrix.Plural(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
