package hyperband

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
	"github.com/hyperctl/hyperctl/controller"
)

// Each bad field is rejected with an error naming its TOML key.
func TestSettingsValidateNamesField(t *testing.T) {
	methodtest.RejectsFields(t, []methodtest.FieldCase{
		{Field: "r", Settings: &Settings{R: 0, Eta: 3}},
		{Field: "eta", Settings: &Settings{R: 18, Eta: 1}},
	})
}

// Settings decode from TOML by their tags (strictly: every key is known).
func TestSettingsTOML(t *testing.T) {
	methodtest.DecodesTOML(t, "r = 81\neta = 3", &Settings{}, &Settings{R: 81, Eta: 3})
}

// Li et al. (2017), Table 1: R = 81, η = 3.
func TestBracketsMatchLiEtAl(t *testing.T) {
	want := []struct {
		s int
		n []int
		r []float64
	}{
		{4, []int{81, 27, 9, 3, 1}, []float64{1, 3, 9, 27, 81}},
		{3, []int{34, 11, 3, 1}, []float64{3, 9, 27, 81}},
		{2, []int{15, 5, 1}, []float64{9, 27, 81}},
		{1, []int{8, 2}, []float64{27, 81}},
		{0, []int{5}, []float64{81}},
	}
	got := Brackets(81, 3)
	if len(got) != len(want) {
		t.Fatalf("%d brackets, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.S != w.s || !slices.Equal(g.N, w.n) || !slices.Equal(g.R, w.r) {
			t.Errorf("bracket s=%d: n=%v r=%v, want s=%d n=%v r=%v", g.S, g.N, g.R, w.s, w.n, w.r)
		}
		for j, r := range w.r {
			if g.Periods[j] != int(r) {
				t.Errorf("bracket s=%d rung %d: %d periods, want %v", g.S, j, g.Periods[j], r)
			}
		}
	}
}

func TestBracketsEdgeCases(t *testing.T) {
	// R = 1: a single bracket of one configuration for one period.
	b := Brackets(1, 3)
	if len(b) != 1 || b[0].S != 0 || !slices.Equal(b[0].N, []int{1}) || b[0].Periods[0] != 1 {
		t.Errorf("R=1: %+v", b)
	}
	// R = 18 (the default): s_max = 2, r = 2, 6, 18 periods.
	b = Brackets(18, 3)
	if len(b) != 3 || !slices.Equal(b[0].N, []int{9, 3, 1}) || !slices.Equal(b[0].Periods, []int{2, 6, 18}) ||
		!slices.Equal(b[1].N, []int{5, 1}) || !slices.Equal(b[2].N, []int{3}) {
		t.Errorf("R=18: %+v", b)
	}
	total := 0
	for _, br := range b {
		for i := range br.N {
			total += br.N[i] * br.Periods[i]
		}
	}
	if total != 156 {
		t.Errorf("R=18 uses %d periods, want 156", total)
	}
	// Non-power R: r_i rounds to whole periods, at least 1.
	for _, br := range Brackets(10, 3) {
		for i, p := range br.Periods {
			if p < 1 || math.Abs(float64(p)-br.R[i]) > 0.5 {
				t.Errorf("R=10 s=%d: r=%v -> %d periods", br.S, br.R[i], p)
			}
		}
	}
	if Brackets(0, 3) != nil || Brackets(5, 1) != nil {
		t.Error("invalid R or eta gave brackets")
	}
}

// Through the driver with R = 9, η = 3 and a decision interval of 2
// iterations: each configuration runs r_i consecutive periods, the top 1/η
// by objective survive (best first), and the best configuration seen is kept
// once the brackets (78 periods) are spent.
func TestHyperBandSchedule(t *testing.T) {
	space := methodtest.UnitSpace(t, 1)
	c := methodtest.Build(t, Name, &Settings{R: 9, Eta: 3}, space, 2, 11)
	// Noise-free objective: the configuration's value, so ranks are known.
	f := methodtest.NewFeedback(space, func(_ int, u []float64) float64 { return u[0] }, 0, 1)
	const periods = 78 + 6
	cfgs := f.Run(t, c, 0, 2*periods)
	P := make([]float64, periods)
	for p := range periods {
		if cfgs[2*p][0] != cfgs[2*p+1][0] {
			t.Fatalf("period %d: configuration changed inside the period", p)
		}
		P[p] = cfgs[2*p][0]
	}
	top := func(v []float64, k int) []float64 {
		s := slices.Clone(v)
		slices.SortFunc(s, func(a, b float64) int { return cmp.Compare(b, a) })
		return s[:k]
	}
	repeat := func(v []float64, k int) []float64 {
		var out []float64
		for _, x := range v {
			for range k {
				out = append(out, x)
			}
		}
		return out
	}
	check := func(name string, from int, want []float64) {
		t.Helper()
		if got := P[from : from+len(want)]; !slices.Equal(got, want) {
			t.Errorf("%s (periods %d..%d): got %v, want %v", name, from, from+len(want)-1, got, want)
		}
	}
	// Bracket s = 2: 9 configurations × 1 period, top 3 × 3, top 1 × 9.
	r0 := P[0:9]
	if len(slices.Compact(slices.Sorted(slices.Values(r0)))) != 9 {
		t.Fatalf("bracket 2 rung 0 repeats configurations: %v", r0)
	}
	check("bracket 2 rung 1", 9, repeat(top(r0, 3), 3))
	check("bracket 2 rung 2", 18, repeat(top(r0, 1), 9))
	// Bracket s = 1: 5 new configurations × 3 periods, top 1 × 9.
	var b1 []float64
	for i := range 5 {
		b1 = append(b1, P[27+3*i])
	}
	check("bracket 1 rung 0", 27, repeat(b1, 3))
	check("bracket 1 rung 1", 42, repeat(top(b1, 1), 9))
	// Bracket s = 0: 3 new configurations × 9 periods.
	b0 := []float64{P[51], P[60], P[69]}
	check("bracket 0", 51, repeat(b0, 9))
	// Then the best configuration seen stays.
	all := append(append(slices.Clone(r0), b1...), b0...)
	check("after the budget", 78, repeat(top(all, 1), periods-78))
	if !c.Method().(*HyperBand).Done() {
		t.Error("not done after 78 periods")
	}
}

// HyperBand never emits a NaN and tolerates a run with no observed
// objective (it then keeps the last configuration run).
func TestHyperBandNoObservations(t *testing.T) {
	space := methodtest.PaperSpace(t)
	m, err := (&Settings{R: 3, Eta: 3}).New()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Init(space, rand.New(rand.NewPCG(1, 2))); err != nil {
		t.Fatal(err)
	}
	dst := make(controller.Config, 4)
	for i := range 50 {
		if err := m.Suggest(dst); err != nil {
			t.Fatal(err)
		}
		if err := space.Validate(dst); err != nil {
			t.Fatalf("decision %d: %v", i, err)
		}
	}
	if !m.(*HyperBand).Done() {
		t.Error("not done after 50 decisions with R = 3")
	}
}
