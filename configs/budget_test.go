package configs

import (
	"strings"
	"testing"
)

func TestParseFrames(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		err  string // a part of the error; "" for none
	}{
		{"1000000", 1_000_000, ""},
		{" 1e6 ", 1_000_000, ""},
		{"2.5e5", 250_000, ""},
		{"0", 0, ""},
		{"1.5", 0, "not an integer"},
		{"-1", 0, "in [0, 10000000000]"},
		{"2e10", 0, "in [0, 10000000000]"},
		{"lots", 0, "such as 1000000, or 1e6"},
		{"NaN", 0, "such as 1000000, or 1e6"},
	} {
		got, err := ParseFrames(tc.in)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ParseFrames(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseFrames(%q): err %v, want one with %q", tc.in, err, tc.err)
		}
	}
}
