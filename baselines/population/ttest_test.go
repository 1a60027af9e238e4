package population

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mathext"
)

// twoSidedEvenDF is the two-sided p-value of Student's t with an even
// number of degrees of freedom ν, in closed form (Abramowitz and Stegun
// 26.7.3): P(|T| < t) = sin θ · Σ_{k<ν/2} a_k cos^{2k} θ with
// θ = atan(t/√ν), a_0 = 1, a_k = a_{k−1}(2k−1)/(2k). It shares no code
// with gonum's distuv.
func twoSidedEvenDF(t float64, nu int) float64 {
	sin := math.Abs(t) / math.Sqrt(float64(nu)+t*t)
	cos2 := float64(nu) / (float64(nu) + t*t)
	sum, a, c := 0.0, 1.0, 1.0
	for k := range nu / 2 {
		if k > 0 {
			a *= float64(2*k-1) / float64(2*k)
			c *= cos2
		}
		sum += a * c
	}
	return 1 - sin*sum
}

// twoSidedIncBeta is the two-sided p-value of Student's t with ν degrees
// of freedom through the regularized incomplete beta function:
// P(|T| > t) = I_{ν/(ν+t²)}(ν/2, 1/2).
func twoSidedIncBeta(t, nu float64) float64 {
	return mathext.RegIncBeta(nu/2, 0.5, nu/(nu+t*t))
}

func TestWelch(t *testing.T) {
	for _, c := range []struct {
		name     string
		x, y     []float64
		t, df, p float64
	}{
		// Means 3 and 8, both variances 2.5, n = 5: T = −5/√(0.5+0.5) = −5,
		// DF = 1/(0.25/4 + 0.25/4) = 8; P by the even-ν closed form,
		// 1 − (5/√33)(1 + c²/2 + 3c⁴/8 + 5c⁶/16), c² = 8/33: 0.0010528.
		{"equal variances", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, -5, 8, twoSidedEvenDF(5, 8)},
		// Means 13 and 2; variances 20/3 and 1; s²/n = 5/3 and 1/3:
		// T = 11/√2, DF = 4/((5/3)²/3 + (1/3)²/2) = 216/53.
		{"unequal variances", []float64{10, 12, 14, 16}, []float64{1, 2, 3}, 11 / math.Sqrt2, 216.0 / 53, twoSidedIncBeta(11/math.Sqrt2, 216.0/53)},
		// x has no variance: T = −1/√(1/3) = −√3, DF = n_y − 1 = 2, and
		// for ν = 2, P = 1 − |t|/√(2+t²) = 1 − √(3/5).
		{"one variance zero", []float64{1, 1, 1}, []float64{1, 2, 3}, -math.Sqrt(3), 2, 1 - math.Sqrt(0.6)},
		{"no variance, means differ", []float64{1, 1}, []float64{2, 2}, math.Inf(-1), math.NaN(), 0},
		{"no variance, means agree", []float64{4, 4}, []float64{4, 4, 4}, 0, math.NaN(), 1},
	} {
		r, err := Welch(c.x, c.y)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		same := func(a, b float64) bool {
			return (math.IsNaN(a) && math.IsNaN(b)) || a == b || math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b))
		}
		if !same(r.T, c.t) || !same(r.DF, c.df) || !same(r.P, c.p) {
			t.Errorf("%s: T = %v, DF = %v, P = %v; want %v, %v, %v", c.name, r.T, r.DF, r.P, c.t, c.df, c.p)
		}
	}
	if p := twoSidedEvenDF(5, 8); math.Abs(p-0.0010528) > 1e-7 {
		t.Errorf("the closed form gives %v for t = 5, ν = 8; tables: 0.0010528", p)
	}
	for _, c := range []struct {
		name string
		x, y []float64
	}{
		{"short x", []float64{1}, []float64{1, 2}},
		{"short y", []float64{1, 2}, nil},
		{"NaN", []float64{1, math.NaN()}, []float64{1, 2}},
		{"Inf", []float64{1, 2}, []float64{math.Inf(1), 2}},
	} {
		if _, err := Welch(c.x, c.y); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func TestSignificantlyBetter(t *testing.T) {
	low := []float64{10, 11, 9, 10, 12, 8, 10, 11, 9, 10}
	high := []float64{20, 21, 19, 20, 22, 18, 20, 21, 19, 20}
	noisy := []float64{-40, 60, -30, 70, -20, 50, -10, 60, 0, 40} // mean 18, sd ≈ 43
	for _, c := range []struct {
		name          string
		member, donor []float64
		episodes      int
		level         float64
		want          bool
		wantErr       bool
		hand          string
	}{
		{"clearly better", low, high, 10, 0.05, true, false, "variances 4/3: T = 10/√(2·(4/3)/10) ≈ 19.4"},
		{"worse", high, low, 10, 0.05, false, false, "the donor's mean is lower"},
		{"better but noisy", low, noisy, 10, 0.05, false, false, "variance 15960/9: T = 8/√(177.3+0.13) ≈ 0.60"},
		{"equal", low, low, 10, 0.05, false, false, "T = 0"},
		// The member's three old returns of 1000 are not among its last
		// 10, so they do not count.
		{"only the last episodes", append([]float64{1000, 1000, 1000}, low...), high, 10, 0.05, true, false, "as clearly better"},
		{"too few returns", []float64{1}, high, 10, 0.05, false, false, "one return: no test"},
		{"NaN", []float64{1, math.NaN()}, high, 10, 0.05, false, true, ""},
	} {
		got, err := SignificantlyBetter(c.member, c.donor, c.episodes, c.level)
		if (err != nil) != c.wantErr || got != c.want {
			t.Errorf("%s (%s): %v, %v; want %v (error %v)", c.name, c.hand, got, err, c.want, c.wantErr)
		}
	}
}

// Member 0 is best, 1 middle, 2 worst, each with small noise: 0 never
// copies, 1 copies exactly when it draws 0, 2 copies whichever it draws;
// a member with one return neither copies nor is copied.
func TestTTestSelection(t *testing.T) {
	around := func(m float64) []float64 {
		return []float64{m - 1, m + 1, m, m - 2, m + 2, m, m + 1, m - 1, m, m}
	}
	returns := [][]float64{around(100), around(50), around(0), {500}}
	seen := map[[2]int]bool{}
	for seed := range uint64(40) {
		donor, err := TTestSelection(returns, 10, 0.05, rand.New(rand.NewPCG(seed, 3)))
		if err != nil {
			t.Fatal(err)
		}
		// The draws, made the same way: member i draws IntN(3) and skips
		// itself.
		draws := rand.New(rand.NewPCG(seed, 3))
		for i := range 4 {
			j := draws.IntN(3)
			if j >= i {
				j++
			}
			want := -1
			if j < i && i < 3 {
				want = j // a better member with enough returns
			}
			if donor[i] != want {
				t.Fatalf("seed %d: member %d drew %d and copies %d; want %d (donors %v)", seed, i, j, donor[i], want, donor)
			}
			seen[[2]int{i, donor[i]}] = true
		}
	}
	for _, pair := range [][2]int{{1, 0}, {1, -1}, {2, 0}, {2, 1}} {
		if !seen[pair] {
			t.Errorf("over 40 seeds member %d never had donor %d", pair[0], pair[1])
		}
	}
	if d, _ := TTestSelection([][]float64{around(1)}, 10, 0.05, rand.New(rand.NewPCG(1, 1))); !slices.Equal(d, []int{-1}) {
		t.Errorf("one member: %v", d)
	}
	if _, err := TTestSelection([][]float64{around(1), {1, math.Inf(1)}}, 10, 0.05, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("an infinite return was accepted")
	}
}
