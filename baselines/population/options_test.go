package population

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/pb2"
)

// Each bad setting is refused with an error naming its field.
func TestSettingsValidateNamesField(t *testing.T) {
	pbt := DefaultSettings(PBT)
	with := func(s Settings, f func(*Settings)) Settings { f(&s); return s }
	for _, c := range []struct {
		name  string
		s     Settings
		field string
	}{
		{"method", with(pbt, func(s *Settings) { s.Method = "ga" }), "method"},
		{"first exploit", with(pbt, func(s *Settings) { s.FirstExploit = -1 }), "first exploit"},
		{"selection", with(pbt, func(s *Settings) { s.Selection = "tournament" }), "selection"},
		{"episodes without t-test", with(pbt, func(s *Settings) { s.TTestEpisodes = 10 }), "t-test episodes"},
		{"t-test episodes", with(pbt.WithTTest(), func(s *Settings) { s.TTestEpisodes = 1 }), "t-test episodes"},
		{"t-test level", with(pbt.WithTTest(), func(s *Settings) { s.TTestLevel = 1 }), "t-test level"},
		{"t-test for MF-PBT", DefaultSettings(MFPBT).WithTTest(), "selection"},
		{"t-test for random search", DefaultSettings(RandomSearch).WithTTest(), "selection"},
		{"MF-PBT quantile", with(DefaultSettings(MFPBT), func(s *Settings) { s.Quantile = 0.2 }), "quantile"},
		{"MF-PBT frequencies", with(DefaultSettings(MFPBT), func(s *Settings) { s.Frequencies = []int{10, 10} }), "frequencies"},
		{"MF-PBT period 0", with(DefaultSettings(MFPBT), func(s *Settings) { s.Frequencies = []int{0, 10} }), "frequencies"},
		{"frequencies for PBT", with(pbt, func(s *Settings) { s.Frequencies = []int{1, 10} }), "frequencies"},
		{"halving eta", with(DefaultSettings(Halving), func(s *Settings) { s.Eta = 1 }), "eta"},
		{"halving min frames", with(DefaultSettings(Halving), func(s *Settings) { s.MinFrames = 0 }), "min frames"},
		{"eta for PBT", with(pbt, func(s *Settings) { s.Eta = 3 }), "eta"},
		{"t-test for halving", DefaultSettings(Halving).WithTTest(), "selection"},
	} {
		err := c.s.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), c.field+":") {
			t.Errorf("%s: error %v, want one starting %q", c.name, err, c.field+":")
		}
	}
	for _, s := range []Settings{DefaultSettings(PBT), DefaultSettings(PB2), DefaultSettings(MFPBT), DefaultSettings(RandomSearch),
		DefaultSettings(PBT).WithTTest(), DefaultSettings(PB2).WithTTest(), with(pbt, func(s *Settings) { s.FirstExploit = 400_000; s.Selection = SelectTruncation })} {
		if err := s.Validate(); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
}

func TestValidateSize(t *testing.T) {
	for _, c := range []struct {
		s  Settings
		n  int
		ok bool
	}{
		{DefaultSettings(PBT), 3, true},
		{DefaultSettings(MFPBT), 8, true},
		{DefaultSettings(MFPBT), 16, true},
		{DefaultSettings(MFPBT), 4, false},
		{DefaultSettings(MFPBT), 12, false},
	} {
		if err := c.s.ValidateSize(c.n); (err == nil) != c.ok {
			t.Errorf("%s with %d members: %v, want ok %v", c.s.Method, c.n, err, c.ok)
		}
	}
}

// Step refuses successive halving, which promotes instead of stepping.
func TestStepRefusesHalving(t *testing.T) {
	space := testSpace(t)
	in := Input{Settings: DefaultSettings(Halving), Space: space, Seed: 4, Members: members(space, []float64{3, 9, 1, 4}, 0)}
	if _, err := Step(in); err == nil || !strings.Contains(err.Error(), "Promote") {
		t.Errorf("Step of halving: %v, want an error naming Promote", err)
	}
}

// The default settings of PBT and PB2 are what they were: the new fields
// are zero, so a population.json written before them is unchanged.
func TestDefaultSettingsUnchanged(t *testing.T) {
	for _, m := range []string{PBT, PB2} {
		want := Settings{Method: m, Quantile: 0.25, ResampleProbability: 0.25, PB2: pb2.DefaultSettings()}
		got := DefaultSettings(m)
		if got.FirstExploit != 0 || got.Selection != "" || got.TTestEpisodes != 0 || got.TTestLevel != 0 || got.Frequencies != nil ||
			got.Method != want.Method || got.Quantile != want.Quantile || got.ResampleProbability != want.ResampleProbability || got.PB2 != want.PB2 {
			t.Errorf("%s: %+v, want %+v", m, got, want)
		}
	}
}

// Before FirstExploit nobody moves; from it on, a step decides as without
// the option.
func TestStepFirstExploit(t *testing.T) {
	space := testSpace(t)
	for _, method := range []string{PBT, PB2} {
		for _, c := range []struct {
			first   int64
			gen     int
			exploit bool
		}{
			{0, 0, true},         // off
			{400_000, 2, false},  // the members are at 3000 frames
			{3000, 2, true},      // reached exactly
			{3001, 2, false},     // one frame short
			{400_000, 399, true}, // at 400,000 frames
			{1_000_000, 399, false},
		} {
			in := Input{Settings: DefaultSettings(method), Space: space, Seed: 4, Generation: c.gen,
				Members: members(space, []float64{3, 9, 1, 4, 8, 2, 7, 5}, c.gen)}
			plain, err := Step(in)
			if err != nil {
				t.Fatal(err)
			}
			in.Settings.FirstExploit = c.first
			got, err := Step(in)
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range got {
				switch {
				case c.exploit && (d.Donor != plain[i].Donor || !slices.Equal(d.Config, plain[i].Config)):
					t.Errorf("%s, first exploit %d, generation %d: member %d decided %+v, without the option %+v", method, c.first, c.gen, i, d, plain[i])
				case !c.exploit && (d.Donor != -1 || d.From != -1 || !slices.Equal(d.Config, in.Members[i].Config) || d.Ops != nil):
					t.Errorf("%s, first exploit %d, generation %d: member %d decided %+v before the first exploit", method, c.first, c.gen, i, d)
				}
			}
		}
	}
}

// Under t-test selection a step copies exactly the donors TTestSelection
// draws with the step's generator, explores them as PBT does, and orders
// the copies with CopyOrder.
func TestStepTTest(t *testing.T) {
	space := testSpace(t)
	around := func(m float64) []float64 {
		return []float64{m - 1, m + 1, m, m - 2, m + 2, m, m + 1, m - 1, m, m}
	}
	in := Input{Settings: DefaultSettings(PBT).WithTTest(), Space: space, Seed: 2, Generation: 5,
		Members: members(space, []float64{100, 80, 60, 40, 20, 0}, 5)}
	var returns [][]float64
	for i := range in.Members {
		in.Members[i].Returns = around(in.Members[i].After)
		returns = append(returns, in.Members[i].Returns)
	}
	got, err := Step(in)
	if err != nil {
		t.Fatal(err)
	}
	want, err := TTestSelection(returns, DefaultTTestEpisodes, DefaultTTestLevel, StepRNG(in.Seed, in.Generation))
	if err != nil {
		t.Fatal(err)
	}
	copied := 0
	donors := make([]int, len(got))
	for i, d := range got {
		donors[i] = d.Donor
		if d.Donor != want[i] || d.From != want[i] {
			t.Errorf("member %d copies %d (configuration from %d), want %d", i, d.Donor, d.From, want[i])
		}
		if d.Donor >= 0 {
			copied++
			if len(d.Ops) != space.Dim() || space.Validate(d.Config) != nil {
				t.Errorf("member %d: ops %v, configuration %v", i, d.Ops, d.Config)
			}
		}
	}
	if copied == 0 {
		t.Fatalf("no member copied: %v", donors)
	}
	if _, err := CopyOrder(donors); err != nil {
		t.Error(err)
	}
	in.Members[2].Returns = []float64{1, math.NaN()}
	if _, err := Step(in); err == nil || !strings.Contains(err.Error(), "member 2") {
		t.Errorf("a NaN return: %v", err)
	}
}

// MF-PBT's step applies MFPBTMoves: the example of TestMFPBTMoves at step
// 9, where both halves evolve.
func TestStepMFPBT(t *testing.T) {
	space := testSpace(t)
	in := Input{Settings: DefaultSettings(MFPBT), Space: space, Seed: 1, Generation: 9,
		Members: members(space, []float64{5, 1, 9, 3, 8, 2, 7, 4}, 9)}
	got, err := Step(in)
	if err != nil {
		t.Fatal(err)
	}
	cfg := func(k int) []float64 { return in.Members[k].Config }
	for i, w := range []struct {
		donor, from int
		op          string // "" keeps, "copy", or "*" (perturbed)
	}{{-1, -1, ""}, {2, 2, "*"}, {-1, -1, ""}, {4, 4, "copy"}, {-1, -1, ""}, {4, 4, "*"}, {-1, -1, ""}, {2, 4, "copy"}} {
		d := got[i]
		if d.Donor != w.donor || d.From != w.from {
			t.Errorf("member %d: weights from %d, configuration from %d; want %d, %d", i, d.Donor, d.From, w.donor, w.from)
			continue
		}
		switch w.op {
		case "":
			if d.Ops != nil || !slices.Equal(d.Config, cfg(i)) {
				t.Errorf("member %d kept its weights but not its configuration: %+v", i, d)
			}
		case "copy":
			if !slices.Equal(d.Config, cfg(w.from)) || !slices.Equal(d.Ops, []string{"copy", "copy", "copy"}) {
				t.Errorf("member %d: %v (%v), want member %d's configuration %v copied", i, d.Config, d.Ops, w.from, cfg(w.from))
			}
		case "*":
			for k, op := range d.Ops {
				if op != "*0.8" && op != "*1.25" {
					t.Errorf("member %d key %d: op %q, want MF-PBT's *0.8 or *1.25", i, k, op)
				}
			}
		}
	}
	in.Members = in.Members[:6]
	if _, err := Step(in); err == nil || !strings.Contains(err.Error(), "size") {
		t.Errorf("6 members for 2 sub-populations: %v", err)
	}
}

// Random search never exploits.
func TestStepRandomSearch(t *testing.T) {
	space := testSpace(t)
	in := Input{Settings: DefaultSettings(RandomSearch), Space: space, Seed: 1, Generation: 3,
		Members: members(space, []float64{5, 1, 9, 3}, 3)}
	got, err := Step(in)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range got {
		if d.Donor != -1 || !slices.Equal(d.Config, in.Members[i].Config) {
			t.Errorf("member %d: %+v", i, d)
		}
	}
}

func TestCopyOrder(t *testing.T) {
	for _, c := range []struct {
		name  string
		donor []int
		want  []int
		ok    bool
	}{
		{"none", []int{-1, -1, -1}, nil, true},
		{"truncation: member order", []int{2, -1, -1, 2, -1}, []int{0, 3}, true},
		// 0 copies 1, which copies 2: 0 reads 1 before 1 is overwritten.
		{"chain", []int{1, 2, -1}, []int{0, 1}, true},
		// 2 copies 0 and 3 copies 2, 0 copies 1: 3 first (nobody reads 3),
		// then 2 (its reader 3 is done), then 0 (its reader 2 is done).
		{"longer chain", []int{1, -1, 0, 2}, []int{3, 2, 0}, true},
		{"cycle", []int{1, 0}, nil, false},
		{"self", []int{0}, nil, false},
		{"out of range", []int{3, -1}, nil, false},
	} {
		got, err := CopyOrder(c.donor)
		if (err == nil) != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("%s: CopyOrder(%v) = %v, %v; want %v (ok %v)", c.name, c.donor, got, err, c.want, c.ok)
		}
	}
}
