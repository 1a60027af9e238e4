package deltabo

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/hyperctl/hyperctl/controller"
)

// synthRecords is a source run of n iterations at uniform random
// configurations (in each parameter's scale) with objective
// f(u) + noise·N(0, 1).
func synthRecords(space controller.Space, f func(u []float64) float64, n int, noise float64, seed uint64) []Record {
	rng := rand.New(rand.NewPCG(seed, 77))
	d := space.Dim()
	u := make([]float64, d)
	out := make([]Record, 0, n)
	for it := range n {
		cfg := map[string]float64{}
		for i := range d {
			u[i] = rng.Float64()
			cfg[space.Param(i).Name] = space.FromUnit(i, u[i])
		}
		for i := range d {
			u[i] = space.ToUnit(i, cfg[space.Param(i).Name])
		}
		out = append(out, Record{Run: 0, Iteration: it, Time: float64(it), Config: cfg, Objective: f(u) + noise*rng.NormFloat64()})
	}
	return out
}

func paperF(u []float64) float64 {
	return 1 - sq(u[0]-0.3) - sq(u[1]-0.5) - 2*sq(u[2]-0.8) - sq(u[3]-0.6)
}

// withSource returns default settings (fewer candidates, for speed) with a
// synthetic source of 150 records of paperF.
func withSource(t testing.TB, space controller.Space) *Settings {
	s := DefaultSettings()
	s.Candidates = 64
	s.Records = synthRecords(space, paperF, 150, 0.1, 1)
	return &s
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
	if e.Summary == "" {
		t.Error("no summary")
	}
}

// Each bad field is rejected with an error naming its TOML key.
func TestValidateNamesField(t *testing.T) {
	mod := func(f func(*Settings)) *Settings { s := DefaultSettings(); f(&s); return &s }
	for _, c := range []struct {
		field string
		s     *Settings
	}{
		{"objective", mod(func(s *Settings) { s.Objective = "loss" })},
		{"objective", mod(func(s *Settings) { s.Objective = "" })},
		{"progress", mod(func(s *Settings) { s.Progress = "epochs" })},
		{"kernel", mod(func(s *Settings) { s.Kernel = "cubic" })},
		{"delta_kernel", mod(func(s *Settings) { s.DeltaKernel = "linear" })},
		{"source_block", mod(func(s *Settings) { s.SourceBlock = 0 })},
		{"max_source", mod(func(s *Settings) { s.MaxSource = 1 })},
		{"window", mod(func(s *Settings) { s.Window = 1 })},
		{"delta", mod(func(s *Settings) { s.Delta = 1 })},
		{"delta", mod(func(s *Settings) { s.Delta = math.NaN() })},
		{"grid", mod(func(s *Settings) { s.Grid = 1 })},
		{"beta_scale", mod(func(s *Settings) { s.BetaScale = 0 })},
		{"beta_scale", mod(func(s *Settings) { s.BetaScale = math.Inf(1) })},
		{"restarts", mod(func(s *Settings) { s.Restarts = -1 })},
		{"restart_every", mod(func(s *Settings) { s.RestartEvery = 0 })},
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

// Settings decode strictly from TOML by their tags; Records is not a key.
func TestSettingsTOML(t *testing.T) {
	var s Settings
	md, err := toml.Decode(`transfer_from = "runs/source"
objective = "reward"
progress = "time"
source_block = 3
max_source = 100
kernel = "se"
delta_kernel = "matern52"
window = 50
delta = 0.05
grid = 20
beta_scale = 0.2
restarts = 0
restart_every = 3
candidates = 64`, &s)
	if err != nil {
		t.Fatal(err)
	}
	if u := md.Undecoded(); len(u) != 0 {
		t.Errorf("undecoded keys %v", u)
	}
	want := Settings{TransferFrom: "runs/source", Objective: "reward", Progress: "time", SourceBlock: 3, MaxSource: 100, Kernel: "se",
		DeltaKernel: "matern52", Window: 50, Delta: 0.05, Grid: 20, BetaScale: 0.2, Restarts: 0, RestartEvery: 3, Candidates: 64}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("decoded %+v, want %+v", s, want)
	}
	var sb strings.Builder
	if err := toml.NewEncoder(&sb).Encode(want); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(sb.String()), "records") {
		t.Errorf("encoded settings mention records:\n%s", sb.String())
	}
}

// The same seed gives the same configuration sequence; another seed a
// different one.
func TestDeterministicGivenSeed(t *testing.T) {
	space := paperSpace(t)
	gain := func(_ int, u []float64) float64 { return paperF(u) }
	seq := func(seed uint64) []controller.Config {
		return newFeedback(space, gain, 0.1, 9).Run(t, build(t, withSource(t, space), space, 5, seed), 0, 100)
	}
	a, b, c := seq(42), seq(42), seq(43)
	if !sameConfigs(a, b) {
		t.Fatal("same seed, different configuration sequences")
	}
	if sameConfigs(a, c) {
		t.Fatal("different seeds, identical configuration sequences")
	}
}

// Snapshot at several points (mid-period, at a decision, with a pending
// Suggest), restore into a freshly built driver (controller.Build +
// Restore), continue: identical to an uninterrupted run. The restored
// source GP predicts bit-identically.
func TestSnapshotRestoreContinues(t *testing.T) {
	space := paperSpace(t)
	gain := func(_ int, u []float64) float64 { return math.Sin(3*u[0]) + u[2] - 0.5*u[3] }
	const total = 120
	for _, prog := range []string{progressIteration, progressTime, progressNone} {
		set := withSource(t, space)
		set.Progress = prog
		ref := newFeedback(space, gain, 0.2, 5).Run(t, build(t, set, space, 5, 7), 0, total)
		for _, cut := range []int{1, 37, 60, 103} {
			f := newFeedback(space, gain, 0.2, 5)
			a := build(t, set, space, 5, 7)
			got := f.Run(t, a, 0, cut)
			if cut == 60 {
				if _, err := a.Suggest(); err != nil {
					t.Fatal(err)
				}
			}
			snap, err := a.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			// A different source at build time: the state's source wins.
			other := *set
			other.Records = synthRecords(space, func(u []float64) float64 { return -paperF(u) }, 80, 0.3, 9)
			b := build(t, &other, space, 5, 7)
			if err := b.Restore(snap); err != nil {
				t.Fatalf("%s cut %d: restore: %v", prog, cut, err)
			}
			ma, mb := a.Method().(*DeltaBO), b.Method().(*DeltaBO)
			xs := []float64{0.5, 0.1, 0.2, 0.3, 0.4}[:ma.st.Cols]
			m1, v1, m2, v2 := make([]float64, 1), make([]float64, 1), make([]float64, 1), make([]float64, 1)
			if err := ma.source(xs, m1, v1); err != nil {
				t.Fatal(err)
			}
			if err := mb.source(xs, m2, v2); err != nil {
				t.Fatal(err)
			}
			if m1[0] != m2[0] || v1[0] != v2[0] {
				t.Fatalf("%s cut %d: restored source GP predicts (%v, %v), original (%v, %v)", prog, cut, m2[0], v2[0], m1[0], v1[0])
			}
			got = append(got, f.Run(t, b, cut, total)...)
			if !sameConfigs(ref, got) {
				t.Fatalf("%s cut %d: restored run diverges from the uninterrupted one", prog, cut)
			}
		}
	}
	// Garbage and mismatched states are errors and change nothing.
	c := build(t, withSource(t, space), space, 5, 7)
	newFeedback(space, gain, 0.2, 5).Run(t, c, 0, 20)
	m := c.Method()
	before, _ := m.MarshalBinary()
	if err := m.UnmarshalBinary([]byte("not a state")); err == nil {
		t.Error("UnmarshalBinary accepted garbage")
	}
	s2 := unitSpace(t, 2)
	o := DefaultSettings()
	o.Records = synthRecords(s2, func(u []float64) float64 { return u[0] }, 30, 0.1, 2)
	other := build(t, &o, s2, 5, 7)
	newFeedback(s2, func(_ int, u []float64) float64 { return u[0] }, 0.1, 1).Run(t, other, 0, 20)
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
	c := build(t, withSource(t, space), space, 5, 3)
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
		{Iteration: 23, Config: cfg, Objective: 1, Elapsed: math.NaN()},
		{Iteration: -1, Config: cfg, Objective: 1},
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
	// Non-finite source records are refused at Init.
	s := DefaultSettings()
	s.Records = synthRecords(space, paperF, 20, 0.1, 1)
	s.Records[3].Objective = math.NaN()
	if _, err := controller.Build(Name, &s, space, controller.Options{Seed: 1}); err == nil || !strings.Contains(err.Error(), "finite") {
		t.Errorf("a NaN source objective: %v", err)
	}
	s.Records = synthRecords(space, paperF, 20, 0.1, 1)
	delete(s.Records[5].Config, "clip")
	if _, err := controller.Build(Name, &s, space, controller.Options{Seed: 1}); err == nil || !strings.Contains(err.Error(), "clip") {
		t.Errorf("a source record without clip: %v", err)
	}
}

// Degenerate data — in the source, the target, or both — never crashes,
// never yields an invalid or NaN configuration (the driver validates every
// suggestion) and never makes a δ fit fail.
func TestDegenerateData(t *testing.T) {
	intSpace, err := controller.NewSpace(controller.Param{Name: "n", Low: 1, High: 2, Integer: true})
	if err != nil {
		t.Fatal(err)
	}
	smooth := func(u []float64) float64 { return 1 - sq(u[0]-0.4) }
	scaled := func(s float64) func([]float64) float64 { return func(u []float64) float64 { return s * smooth(u) } }
	constant := func(v float64) func([]float64) float64 { return func([]float64) float64 { return v } }
	for _, c := range []struct {
		name         string
		space        controller.Space
		src, tgt     func([]float64) float64
		sNoise, tNse float64
		nSrc, iters  int
	}{
		{"constant source and target", unitSpace(t, 2), constant(1), constant(1), 0, 0, 50, 60},
		{"zero source and target", unitSpace(t, 2), constant(0), constant(0), 0, 0, 50, 60},
		{"duplicate inputs (two-valued integer)", intSpace, smooth, smooth, 0.1, 0.1, 50, 60},
		{"duplicates, constant", intSpace, constant(3), constant(3), 0, 0, 50, 60},
		{"single source record, single target point", paperSpace(t), smooth, smooth, 0.1, 0.1, 1, 10},
		{"scale 1e-12", paperSpace(t), scaled(1e-12), scaled(1e-12), 1e-13, 1e-13, 50, 60},
		{"scale 1e12", paperSpace(t), scaled(1e12), scaled(1e12), 1e11, 1e11, 50, 60},
		{"source 1e12, target 1e-12", paperSpace(t), scaled(1e12), scaled(1e-12), 1e11, 1e-13, 50, 60},
		{"source 1e-12, target 1e12", paperSpace(t), scaled(1e-12), scaled(1e12), 1e-13, 1e11, 50, 60},
	} {
		for _, prog := range []string{progressIteration, progressNone} {
			s := DefaultSettings()
			s.Candidates = 32
			s.Progress = prog
			s.Records = synthRecords(c.space, c.src, c.nSrc, c.sNoise, 4)
			ctl := build(t, &s, c.space, 5, 3)
			tgt := c.tgt
			newFeedback(c.space, func(_ int, u []float64) float64 { return tgt(u) }, c.tNse, 4).Run(t, ctl, 0, c.iters)
			if f := ctl.Method().(*DeltaBO).Failures(); f != 0 {
				t.Errorf("%s (%s): %d failed δ fits", c.name, prog, f)
			}
		}
	}
}

// A method used before Init returns errors instead of panicking.
func TestUseBeforeInit(t *testing.T) {
	m, err := withSource(t, paperSpace(t)).New()
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

// Beta is GP-UCB's Theorem 1 value.
func TestBeta(t *testing.T) {
	got := Beta(3, 4, 10, 0.1, 1)
	want := 2 * math.Log(math.Pow(10, 4)*9*math.Pi*math.Pi/(6*0.1))
	if math.Abs(got-want) > 1e-12*want {
		t.Errorf("Beta = %v, want %v", got, want)
	}
}
