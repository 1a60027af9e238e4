package neuralbo

import (
	"bytes"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/hyperctl/hyperctl/controller"
)

// small is the default settings with fewer candidates, to keep the
// driver-level tests fast.
func small() *Settings {
	s := DefaultSettings()
	s.Candidates = 64
	return &s
}

// wideBumps is a smooth bimodal function on [0, 1]: the global mode at 0.7
// (f ≈ 1.002) and a second mode of height ≈ 0.5 at 0.2, both of width 0.15.
func wideBumps(_ int, u []float64) float64 {
	return math.Exp(-sq(u[0]-0.7)/(2*0.15*0.15)) + 0.5*math.Exp(-sq(u[0]-0.2)/(2*0.15*0.15))
}

// NeuralBO (default settings, decision interval 1, noise sd 0.05) finds the
// maximum of wideBumps: within a budget of 40 rounds it samples a point
// within 0.01 of the maximum, and the median regret of its last 10 rounds
// is <= 0.1 (the second mode has regret 0.5), for each of 5 seeds.
func TestFindsMaximum1D(t *testing.T) {
	const budget = 40
	fmax := wideBumps(0, []float64{0.7})
	for seed := uint64(1); seed <= 5; seed++ {
		space := unitSpace(t, 1)
		ctl := build(t, nil, space, 1, seed)
		cfgs := newFeedback(space, wideBumps, 0.05, seed).Run(t, ctl, 0, budget)
		best := 0.0
		var last []float64
		for i, c := range cfgs {
			v := wideBumps(0, c)
			best = math.Max(best, v)
			if i >= budget-10 {
				last = append(last, fmax-v)
			}
		}
		slices.Sort(last)
		median := (last[4] + last[5]) / 2
		t.Logf("seed %d: best f %.3f, last-10 median regret %.3f, last %.3f", seed, best, median, cfgs[len(cfgs)-1][0])
		if best < fmax-0.01 || median > 0.1 {
			t.Errorf("seed %d: best f %.3f (want >= %.3f), last-10 median regret %.3f (want <= 0.1)", seed, best, fmax-0.01, median)
		}
	}
}

func TestRegisteredAndDefaults(t *testing.T) {
	e, err := controller.Lookup(Name)
	if err != nil {
		t.Fatal(err)
	}
	s := e.Defaults()
	if err := s.Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	if _, err := s.New(); err != nil {
		t.Fatal(err)
	}
	want := Settings{Width: 100, Lambda: 0.01, Nu: 1, LR: 0.001, Epochs: 50, Batch: 50, WarmStart: true, Candidates: 256}
	if !reflect.DeepEqual(*s.(*Settings), want) {
		t.Errorf("defaults %+v, want %+v", *s.(*Settings), want)
	}
}

// Each bad field is rejected with an error naming its TOML key.
func TestValidateNamesField(t *testing.T) {
	mod := func(f func(*Settings)) *Settings { s := DefaultSettings(); f(&s); return &s }
	for _, c := range []struct {
		field string
		s     *Settings
	}{
		{"width", mod(func(s *Settings) { s.Width = 0 })},
		{"lambda", mod(func(s *Settings) { s.Lambda = 0 })},
		{"lambda", mod(func(s *Settings) { s.Lambda = math.NaN() })},
		{"nu", mod(func(s *Settings) { s.Nu = -1 })},
		{"nu", mod(func(s *Settings) { s.Nu = math.Inf(1) })},
		{"lr", mod(func(s *Settings) { s.LR = 0 })},
		{"epochs", mod(func(s *Settings) { s.Epochs = -1 })},
		{"batch", mod(func(s *Settings) { s.Batch = 0 })},
		{"candidates", mod(func(s *Settings) { s.Candidates = 0 })},
	} {
		err := c.s.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), c.field+":") {
			t.Errorf("field %s: got %v, want an error starting with %q", c.field, err, c.field+":")
		}
		if _, err := c.s.New(); err == nil {
			t.Errorf("field %s: New accepted invalid settings", c.field)
		}
	}
}

// Settings decode strictly from TOML by their tags.
func TestSettingsTOML(t *testing.T) {
	var s Settings
	md, err := toml.Decode(`width = 500
lambda = 0.1
nu = 10.0
lr = 0.01
epochs = 5
batch = 8
warm_start = true
candidates = 32`, &s)
	if err != nil {
		t.Fatal(err)
	}
	if u := md.Undecoded(); len(u) != 0 {
		t.Errorf("undecoded keys %v", u)
	}
	want := Settings{Width: 500, Lambda: 0.1, Nu: 10, LR: 0.01, Epochs: 5, Batch: 8, WarmStart: true, Candidates: 32}
	if s != want {
		t.Errorf("decoded %+v, want %+v", s, want)
	}
}

var paperGain = func(_ int, u []float64) float64 {
	return 1 - sq(u[0]-0.3) - sq(u[1]-0.5) - 2*sq(u[2]-0.8) - sq(u[3]-0.6)
}

// The same seed gives the same configuration sequence; another seed a
// different one. Both retraining modes.
func TestDeterministicGivenSeed(t *testing.T) {
	space := paperSpace(t)
	for _, warm := range []bool{false, true} {
		seq := func(seed uint64) []controller.Config {
			s := small()
			s.WarmStart = warm
			return newFeedback(space, paperGain, 0.1, 9).Run(t, build(t, s, space, 5, seed), 0, 100)
		}
		a, b, c := seq(42), seq(42), seq(43)
		if !sameConfigs(a, b) {
			t.Fatalf("warm_start=%v: same seed, different sequences", warm)
		}
		if sameConfigs(a, c) {
			t.Fatalf("warm_start=%v: different seeds, identical sequences", warm)
		}
	}
}

// Snapshot at several points (mid-period, at a decision, with a pending
// Suggest), restore into a freshly built driver (controller.Build +
// Restore), continue: the configurations equal an uninterrupted run's, and
// the rebuilt U⁻¹ equals the original bit for bit.
func TestSnapshotRestoreContinues(t *testing.T) {
	space := paperSpace(t)
	gain := func(_ int, u []float64) float64 { return math.Sin(3*u[0]) + u[2] - 0.5*u[3] }
	const total = 120
	for _, warm := range []bool{false, true} {
		s := small()
		s.WarmStart = warm
		ref := newFeedback(space, gain, 0.2, 5).Run(t, build(t, s, space, 5, 7), 0, total)
		for _, cut := range []int{1, 37, 60, 103} {
			f := newFeedback(space, gain, 0.2, 5)
			a := build(t, s, space, 5, 7)
			got := f.Run(t, a, 0, cut)
			pending := cut == 60
			if pending {
				if _, err := a.Suggest(); err != nil {
					t.Fatal(err)
				}
			}
			snap, err := a.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			b := build(t, s, space, 5, 7)
			if err := b.Restore(snap); err != nil {
				t.Fatalf("cut %d: restore: %v", cut, err)
			}
			ma, mb := a.Method().(*NeuralBO), b.Method().(*NeuralBO)
			if !slices.Equal(ma.inv.a, mb.inv.a) {
				t.Fatalf("cut %d: rebuilt U⁻¹ differs from the original", cut)
			}
			got = append(got, f.Run(t, b, cut, total)...)
			if !sameConfigs(ref, got) {
				t.Fatalf("warm_start=%v cut %d: restored run diverges from the uninterrupted one", warm, cut)
			}
		}
	}
	// Garbage and mismatched states are errors and leave the method usable.
	c := build(t, small(), space, 5, 7)
	newFeedback(space, gain, 0.2, 5).Run(t, c, 0, 20)
	m := c.Method()
	before, _ := m.MarshalBinary()
	if err := m.UnmarshalBinary([]byte("not a state")); err == nil {
		t.Error("UnmarshalBinary accepted garbage")
	}
	other := build(t, small(), unitSpace(t, 2), 5, 7)
	newFeedback(unitSpace(t, 2), wideBumps, 0.1, 1).Run(t, other, 0, 20)
	ob, _ := other.Method().MarshalBinary()
	if err := m.UnmarshalBinary(ob); err == nil {
		t.Error("UnmarshalBinary accepted a state of another space")
	}
	after, _ := m.MarshalBinary()
	if !bytes.Equal(before, after) {
		t.Error("a failed UnmarshalBinary changed the state")
	}
}

// NaN and Inf observations are errors and leave the state unchanged.
func TestNonFiniteObservationRejected(t *testing.T) {
	space := paperSpace(t)
	c := build(t, small(), space, 5, 3)
	newFeedback(space, func(int, []float64) float64 { return 1 }, 0.5, 2).Run(t, c, 0, 23)
	m := c.Method()
	before, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	cfg := controller.Config{3000, 0.2, 0.95, 1e-4}
	for _, bad := range []controller.Observation{
		{Iteration: 23, Config: cfg, Objective: math.NaN()},
		{Iteration: 23, Config: cfg, Objective: math.Inf(1)},
		{Iteration: 23, Config: cfg, Objective: math.Inf(-1)},
		{Iteration: 23, Config: cfg, Objective: 1, Reward: math.NaN()},
		{Iteration: 23, Config: cfg, Objective: 1, Time: math.Inf(1)},
		{Iteration: 23, Config: controller.Config{math.NaN(), 0.2, 0.95, 1e-4}, Objective: 1},
		{Iteration: 23, Config: controller.Config{3000}, Objective: 1},
	} {
		if err := m.Observe(bad); err == nil {
			t.Errorf("Observe(%+v) accepted", bad)
		}
		after, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(before, after) {
			t.Fatalf("state changed after a rejected observation %+v", bad)
		}
	}
	if err := m.Suggest(make(controller.Config, 2)); err == nil {
		t.Error("Suggest accepted a destination of the wrong length")
	}
	// Through the driver too.
	if _, err := c.Suggest(); err != nil {
		t.Fatal(err)
	}
	if err := c.Observe(controller.Result{Reward: math.NaN()}); err == nil {
		t.Error("driver accepted a NaN reward")
	}
}

// Degenerate data never crashes and never yields an invalid or NaN
// configuration (the driver validates every suggestion); the trained
// network stays finite.
func TestDegenerateData(t *testing.T) {
	intSpace, err := controller.NewSpace(controller.Param{Name: "n", Low: 1, High: 2, Integer: true})
	if err != nil {
		t.Fatal(err)
	}
	smooth := func(_ int, u []float64) float64 { return 1 - sq(u[0]-0.4) }
	scaled := func(s float64) func(int, []float64) float64 {
		return func(it int, u []float64) float64 { return s * smooth(it, u) }
	}
	for _, c := range []struct {
		name  string
		space controller.Space
		gain  func(int, []float64) float64
		noise float64
		iters int
	}{
		{"all-equal objective", unitSpace(t, 2), func(int, []float64) float64 { return 1 }, 0, 60},
		{"zero objective", unitSpace(t, 2), func(int, []float64) float64 { return 0 }, 0, 60},
		{"duplicate inputs (two-valued integer)", intSpace, smooth, 0.1, 60},
		{"duplicates, constant objective", intSpace, func(int, []float64) float64 { return 3 }, 0, 60},
		{"single data point", paperSpace(t), smooth, 0.1, 10},
		{"objective scale 1e-12", paperSpace(t), scaled(1e-12), 1e-13, 60},
		{"objective scale 1e12", paperSpace(t), scaled(1e12), 1e11, 60},
	} {
		for _, warm := range []bool{false, true} {
			s := small()
			s.WarmStart = warm
			ctl := build(t, s, c.space, 5, 3)
			newFeedback(c.space, c.gain, c.noise, 4).Run(t, ctl, 0, c.iters)
			m := ctl.Method().(*NeuralBO)
			for _, v := range m.st.Theta {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%s (warm %v): non-finite network parameter", c.name, warm)
				}
			}
		}
	}
}

// A method used before Init returns errors instead of panicking.
func TestUseBeforeInit(t *testing.T) {
	m, err := small().New()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Suggest(make(controller.Config, 1)); err == nil {
		t.Error("Suggest before Init succeeded")
	}
	if err := m.Observe(controller.Observation{}); err == nil {
		t.Error("Observe before Init succeeded")
	}
	if err := m.UnmarshalBinary(nil); err == nil {
		t.Error("UnmarshalBinary before Init succeeded")
	}
	if err := m.Init(unitSpace(t, 1), nil); err == nil {
		t.Error("Init with a nil rng succeeded")
	}
}
