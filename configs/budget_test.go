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

// FramesValue sets its int64 by ParseFrames, keeps it on a refusal, and
// shows it in decimal as type frames.
func TestFramesValue(t *testing.T) {
	var n int64
	v := NewFramesValue(&n, 7)
	if n != 7 || v.String() != "7" || v.Type() != "frames" {
		t.Fatalf("NewFramesValue(&n, 7): n = %d, String %q, Type %q", n, v.String(), v.Type())
	}
	for _, c := range []struct {
		in   string
		want int64
		err  string
	}{
		{"1000000", 1_000_000, ""},
		{"2.5e5", 250_000, ""},
		{"1.5", 250_000, "whole number of frames"},
		{"-1", 250_000, "in [0,"},
	} {
		err := v.Set(c.in)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) || n != c.want {
			t.Errorf("Set(%q): n = %d, err %v; want %d, error with %q", c.in, n, err, c.want, c.err)
		}
	}
}
