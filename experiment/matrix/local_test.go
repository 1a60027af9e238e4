package matrix

import "testing"

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n         int
		one, many string
		want      string
	}{{1, "run", "runs", "1 run"}, {0, "run", "runs", "0 runs"}, {5, "was", "were", "5 were"}, {1, "was", "were", "1 was"}} {
		if got := Plural(tc.n, tc.one, tc.many); got != tc.want {
			t.Errorf("Plural(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestAllFinished(t *testing.T) {
	for _, tc := range []struct {
		total int
		want  string
	}{
		{1, "the 1 run in out is finished"},
		{3, "all 3 runs in out are finished"},
	} {
		if got := allFinished(tc.total, "out"); got != tc.want {
			t.Errorf("allFinished(%d) = %q, want %q", tc.total, got, tc.want)
		}
	}
}
