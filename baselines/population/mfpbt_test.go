package population

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestEvolving(t *testing.T) {
	for _, c := range []struct {
		freq []int
		step int
		want []bool
	}{
		{[]int{1, 10}, 0, []bool{true, false}},
		{[]int{1, 10}, 8, []bool{true, false}},
		{[]int{1, 10}, 9, []bool{true, true}},  // after generation 9: 500k frames at --ready 50000
		{[]int{1, 10}, 19, []bool{true, true}}, // the 20th generation (the last of 1M frames: no step)
		{[]int{1, 10, 25, 50}, 24, []bool{true, false, true, false}},
		{[]int{1, 10, 25, 50}, 49, []bool{true, true, true, true}},
		{[]int{2, 3}, 0, []bool{false, false}},
		{[]int{2, 3}, 5, []bool{true, true}},
	} {
		if got := Evolving(c.freq, c.step); !slices.Equal(got, c.want) {
			t.Errorf("Evolving(%v, %d) = %v, want %v", c.freq, c.step, got, c.want)
		}
	}
}

func TestSubPopulationSize(t *testing.T) {
	for _, c := range []struct {
		n, m, want int
		ok         bool
	}{
		{8, 2, 4, true}, {8, 1, 8, true}, {32, 4, 8, true}, {12, 3, 4, true},
		{8, 4, 0, false}, {24, 4, 0, false} /* the authors' YAMLs: 6 a sub-population */, {6, 2, 0, false}, {4, 0, 0, false},
	} {
		got, err := SubPopulationSize(c.n, c.m)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("SubPopulationSize(%d, %d) = %d, %v; want %d (ok %v)", c.n, c.m, got, err, c.want, c.ok)
		}
	}
}

// keep is a member that keeps its weights and configuration.
var keep = Move{Weights: -1, Config: -1}

// MF-PBT's step worked out by hand.
func TestMFPBTMoves(t *testing.T) {
	for _, c := range []struct {
		name   string
		freq   []int
		step   int
		scores []float64
		want   []Move
	}{
		{
			// Two sub-populations of 4 (one member a quarter): A = 0–3
			// evolves every step, B = 4–7 every 10th. A ranks 2 (9), 0 (5),
			// 3 (3), 1 (1): B4 = 1 copies B1 = 2 and explores; B3 = 3 is
			// offered B's best, 4 (8 > 3): it takes 4's weights and, 4's
			// sub-population being slower, 4's configuration. B does not
			// evolve at step 0.
			name: "N=8 step 0: only the fast half", freq: []int{1, 10}, step: 0,
			scores: []float64{5, 1, 9, 3, 8, 2, 7, 4},
			want:   []Move{keep, {2, 2, true}, keep, {4, 4, false}, keep, keep, keep, keep},
		},
		{
			// At step 9 both evolve. B ranks 4 (8), 6 (7), 7 (4), 5 (2):
			// 5 copies 4 and explores; B3 = 7 is offered A's best, 2
			// (9 > 4): it takes 2's weights but, 2's sub-population being
			// faster, the configuration of B's best, 4. A's moves are
			// step 0's.
			name: "N=8 step 9: both halves", freq: []int{1, 10}, step: 9,
			scores: []float64{5, 1, 9, 3, 8, 2, 7, 4},
			want:   []Move{keep, {2, 2, true}, keep, {4, 4, false}, keep, {4, 4, true}, keep, {2, 4, false}},
		},
		{
			// A's B3 member (3, score 6) beats B's best (4, score 5): no
			// migrant.
			name: "N=8 migrant not better", freq: []int{1, 10}, step: 0,
			scores: []float64{7, 1, 9, 6, 5, 2, 4, 3},
			want:   []Move{keep, {2, 2, true}, keep, keep, keep, keep, keep, keep},
		},
		{
			// Ties: A's scores are all 5, so Rank orders it 0 < 1 < 2 < 3
			// (the lower index is the lower): best 3, B3 = 1, worst 0. B's
			// best (4, score 5) ties member 1: a migrant must be strictly
			// better, so none.
			name: "N=8 ties", freq: []int{1, 10}, step: 0,
			scores: []float64{5, 5, 5, 5, 5, 0, 0, 0},
			want:   []Move{{3, 3, true}, keep, keep, keep, keep, keep, keep, keep},
		},
		{
			// Sub-populations of 8 (two members a quarter), A = 0–7 ranks
			// 0 … 7: 6 copies 0 and 7 copies 1 (the j-th worst of B4 the
			// j-th best of B1). B3 = 4 (60), 5 (50), best first; B's best
			// members are 8 (55), 9 (54). 4 is offered 8 and refuses
			// (55 < 60); 5 is offered the same 8 and takes it (55 > 50).
			name: "N=16 the refused migrant goes to the next member", freq: []int{1, 10}, step: 0,
			scores: []float64{100, 90, 80, 70, 60, 50, 40, 30, 55, 54, 10, 9, 8, 7, 6, 5},
			want: []Move{keep, keep, keep, keep, keep, {8, 8, false}, {0, 0, true}, {1, 1, true},
				keep, keep, keep, keep, keep, keep, keep, keep},
		},
		{
			// Three sub-populations of 4, δ = 1, 2, 5, step 1: the first two
			// evolve. Sub-population 1 (4–7) ranks 4 (40), 5 (30), 6 (20),
			// 7 (10): 7 copies 4; B3 = 6 is offered the best outside it,
			// 8 (95, in the slowest): weights and configuration. Sub-
			// population 0 ranks 3 (70), 2 (60), 1 (50), 0 (1): 0 copies 3;
			// B3 = 1 is offered 8 (95 > 50) too: each sub-population draws
			// from the whole ranking of the others.
			name: "N=12 three sub-populations", freq: []int{1, 2, 5}, step: 1,
			scores: []float64{1, 50, 60, 70, 40, 30, 20, 10, 95, 3, 2, 1},
			want: []Move{{3, 3, true}, {8, 8, false}, keep, keep, keep, keep, {8, 8, false}, {4, 4, true},
				keep, keep, keep, keep},
		},
	} {
		got, err := MFPBTMoves(c.freq, c.step, c.scores)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %v\nwant %v", c.name, got, c.want)
		}
	}
	for _, c := range []struct {
		name   string
		freq   []int
		step   int
		scores []float64
		want   string
	}{
		{"size", []int{1, 10}, 0, make([]float64, 6), "multiple of 8"},
		{"frequencies", []int{10, 1}, 0, make([]float64, 8), "increasing"},
		{"no frequencies", nil, 0, make([]float64, 8), "at least one"},
		{"step", []int{1, 10}, -1, make([]float64, 8), "step"},
		{"score", []int{1, 10}, 0, []float64{0, 0, 0, 0, 0, 0, 0, math.Inf(1)}, "member 7"},
	} {
		if _, err := MFPBTMoves(c.freq, c.step, c.scores); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}
