package population

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hyperctl/hyperctl/controller"
)

func TestRungs(t *testing.T) {
	for _, c := range []struct {
		name     string
		n, eta   int
		min, max int64
		want     []Rung
		used     int64
	}{
		// K = 1 + min(⌊log_3 3.33⌋, ⌊log_3 8⌋) = 2: 8 members to
		// ⌊10^6/3⌋, 2 to 10^6; used 8·333333 + 2·666667.
		{"N=8 η=3 from 300k", 8, 3, 300_000, 1_000_000, []Rung{{8, 333_333}, {2, 1_000_000}}, 3_999_998},
		// K = 1 + min(⌊log_2 10⌋, ⌊log_2 8⌋) = 4: 125k, 250k, 500k, 1M;
		// used 8·125k + 4·125k + 2·250k + 1·500k.
		{"N=8 η=2 from 100k", 8, 2, 100_000, 1_000_000, []Rung{{8, 125_000}, {4, 250_000}, {2, 500_000}, {1, 1_000_000}}, 2_500_000},
		// ⌊log_2 2.5⌋ = 1: the first cut at 500k, where issue 26's ROC AUC
		// is 0.96; used 8·500k + 4·500k.
		{"N=8 η=2 from 400k", 8, 2, 400_000, 1_000_000, []Rung{{8, 500_000}, {4, 1_000_000}}, 6_000_000},
		// Li et al.'s (Hyperband's) bracket s = 4 of R = 81, η = 3:
		// n_i = 81, 27, 9, 3, 1 at r_i = 1, 3, 9, 27, 81.
		{"Li et al. R=81 η=3", 81, 3, 1, 81, []Rung{{81, 1}, {27, 3}, {9, 9}, {3, 27}, {1, 81}}, 81 + 27*2 + 9*6 + 3*18 + 54},
		// More budget ratio than members: n bounds the rungs (s > 0).
		{"N=4 η=2 long range", 4, 2, 1, 1000, []Rung{{4, 250}, {2, 500}, {1, 1000}}, 4*250 + 2*250 + 500},
		{"one member", 1, 3, 10, 1000, []Rung{{1, 1000}}, 1000},
		{"min = max", 8, 3, 1000, 1000, []Rung{{8, 1000}}, 8000},
	} {
		got, err := Rungs(c.n, c.eta, c.min, c.max)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: rungs %v, want %v", c.name, got, c.want)
		}
		if u := FramesUsed(got); u != c.used {
			t.Errorf("%s: %d frames used, want %d", c.name, u, c.used)
		}
	}
	for _, c := range []struct {
		name     string
		n, eta   int
		min, max int64
	}{
		{"no members", 0, 3, 1, 10}, {"eta 1", 8, 1, 1, 10}, {"min 0", 8, 3, 0, 10}, {"min > max", 8, 3, 11, 10},
	} {
		if _, err := Rungs(c.n, c.eta, c.min, c.max); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func TestPromote(t *testing.T) {
	for _, c := range []struct {
		name   string
		alive  []int
		scores []float64
		keep   int
		want   []int
	}{
		{"top 2 of 8", []int{0, 1, 2, 3, 4, 5, 6, 7}, []float64{3, 9, 1, 4, 8, 2, 7, 5}, 2, []int{1, 4}},
		// Members 0, 2 and 5 tie at 5; as in Rank the lower index is the
		// lower, so 2 and 5 continue.
		{"ties", []int{0, 1, 2, 3, 4, 5, 6, 7}, []float64{5, 3, 5, 1, 4, 5, 2, 0}, 2, []int{2, 5}},
		// Only the alive members compete; the order of alive does not
		// matter; member 3's high score is that of a stopped member.
		{"a later rung", []int{6, 1, 4}, []float64{0, 2, 0, 99, 7, 0, 5}, 1, []int{4}},
		{"keep all", []int{2, 0}, []float64{1, 2, 3}, 2, []int{0, 2}},
		{"keep none", []int{2, 0}, []float64{1, 2, 3}, 0, []int{}},
	} {
		got, err := Promote(c.alive, c.scores, c.keep)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	for _, c := range []struct {
		name   string
		alive  []int
		scores []float64
		keep   int
	}{
		{"keep too many", []int{0, 1}, []float64{1, 2}, 3},
		{"member without score", []int{0, 4}, []float64{1, 2}, 1},
		{"member twice", []int{1, 1}, []float64{1, 2}, 1},
		{"NaN", []int{0, 1}, []float64{1, math.NaN()}, 1},
	} {
		if _, err := Promote(c.alive, c.scores, c.keep); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// A whole successive halving, over seeds of one configuration and over
// random configurations: the rungs hold the members Rungs says, the
// frames trained are FramesUsed's, and the winner is the member that leads
// at every rung. Scores are made up, growing with frames: over seeds of one
// configuration, a seed's constant offset decides; over random
// configurations (no seed noise), the configuration's quality, highest
// for lr = 1e-4.
func TestSuccessiveHalving(t *testing.T) {
	space := testSpace(t)
	random, err := Initial(space, 8, nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	one := make([]controller.Config, 8)
	for k := range one {
		one[k] = controller.Config{1e-4, 0.2, 2048}
	}
	offsets := make([]float64, 8)
	rng := rand.New(rand.NewPCG(7, 7))
	for k := range offsets {
		offsets[k] = 0.1 * rng.NormFloat64()
	}
	quality := func(c controller.Config) float64 { return 1 - math.Abs(math.Log10(c[0])+4) } // in [0, 1]
	for _, set := range []struct {
		name    string
		configs []controller.Config
		offsets []float64
	}{{"seeds of one configuration", one, offsets}, {"random configurations", random, make([]float64, 8)}} {
		rungs, err := Rungs(8, 2, 100_000, 1_000_000)
		if err != nil {
			t.Fatal(err)
		}
		alive := []int{0, 1, 2, 3, 4, 5, 6, 7}
		frames := make([]int64, 8)
		for r, rung := range rungs {
			if len(alive) != rung.Members {
				t.Fatalf("%s: rung %d has %d members, want %d", set.name, r, len(alive), rung.Members)
			}
			scores := make([]float64, 8)
			for _, k := range alive {
				frames[k] = rung.Frames
				scores[k] = float64(rung.Frames)/1e6*quality(set.configs[k]) + set.offsets[k]
			}
			keep := 1
			if r+1 < len(rungs) {
				keep = rungs[r+1].Members
			}
			if alive, err = Promote(alive, scores, keep); err != nil {
				t.Fatal(err)
			}
		}
		var used int64
		for _, f := range frames {
			used += f
		}
		if used != FramesUsed(rungs) {
			t.Errorf("%s: members trained %d frames, FramesUsed says %d", set.name, used, FramesUsed(rungs))
		}
		lead := 0 // the member ahead at every rung
		for k := range 8 {
			if quality(set.configs[k])+set.offsets[k] > quality(set.configs[lead])+set.offsets[lead] {
				lead = k
			}
		}
		if !slices.Equal(alive, []int{lead}) {
			t.Errorf("%s: %v won, want member %d", set.name, alive, lead)
		}
	}
}
