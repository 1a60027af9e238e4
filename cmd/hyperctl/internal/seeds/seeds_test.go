package seeds

import (
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
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
		{"0-9999", nil, false},
		{"0-9999,10000", nil, true}, // 10001 seeds in all
		{"0-5000,5001-9999", nil, false},
		{"9223372036854775806-9223372036854775807", nil, true}, // once an endless loop (issue 20)
		{"2305843009213693950-2305843009213693951", []int64{2305843009213693950, 2305843009213693951}, false},
		{"2305843009213693952", nil, true},
		{"99999999999999999999", nil, true},
		{"3-", nil, true},
		{"-", nil, true},
	}
	for _, c := range cases {
		got, err := Parse(c.spec)
		if (err != nil) != c.wantErr {
			t.Errorf("Parse(%q) error = %v, want error %v", c.spec, err, c.wantErr)
			continue
		}
		if !c.wantErr && c.want != nil && !slices.Equal(got, c.want) {
			t.Errorf("Parse(%q) = %v, want %v", c.spec, got, c.want)
		}
	}
}
