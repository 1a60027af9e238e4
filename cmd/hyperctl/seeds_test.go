package main

import (
	"slices"
	"testing"
)

func TestParseSeeds(t *testing.T) {
	cases := []struct {
		spec    string
		want    []int64
		wantErr bool
	}{
		{"0-4", []int64{0, 1, 2, 3, 4}, false},
		{"3", []int64{3}, false},
		{"0,3,7-9", []int64{0, 3, 7, 8, 9}, false},
		{"5,1-2,2", []int64{1, 2, 5}, false},
		{"", nil, true},
		{"a", nil, true},
		{"4-2", nil, true},
		{"-1", nil, true},
		{"0-20000", nil, true},
	}
	for _, c := range cases {
		got, err := parseSeeds(c.spec)
		if (err != nil) != c.wantErr {
			t.Errorf("parseSeeds(%q) error = %v, want error %v", c.spec, err, c.wantErr)
			continue
		}
		if !c.wantErr && !slices.Equal(got, c.want) {
			t.Errorf("parseSeeds(%q) = %v, want %v", c.spec, got, c.want)
		}
	}
}
