package policy

import "testing"

func TestMeanLength(t *testing.T) {
	for _, tc := range []struct {
		lengths []int
		want    float64
	}{
		{nil, 0},
		{[]int{50, 50}, 50},
		{[]int{1, 2}, 1.5},
		{[]int{1000, 17, 3}, 340},
	} {
		if got := (EvalResult{Lengths: tc.lengths}).MeanLength(); got != tc.want {
			t.Errorf("MeanLength(%v) = %v, want %v", tc.lengths, got, tc.want)
		}
	}
}
