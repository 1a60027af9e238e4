package baselines

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
	"github.com/hyperctl/hyperctl/controller"
)

var allMethods = []string{"gpucb", "pb2", "hyperband", "random", "randomstart"}

// paperSpace is the HyperController paper's four hyperparameters and bounds.
// The shared test harness (baselines/internal/methodtest).

func paperSpace(t testing.TB) controller.Space       { return methodtest.PaperSpace(t) }
func unitSpace(t testing.TB, d int) controller.Space { return methodtest.UnitSpace(t, d) }
func sameConfigs(a, b []controller.Config) bool      { return methodtest.SameConfigs(a, b) }

func build(t testing.TB, name string, set controller.Settings, space controller.Space, interval int, seed uint64) *controller.Controller {
	t.Helper()
	return methodtest.Build(t, name, set, space, interval, seed)
}

func newFeedback(space controller.Space, gain func(int, []float64) float64, noise float64, seed uint64) *methodtest.Feedback {
	return methodtest.NewFeedback(space, gain, noise, seed)
}

func TestRegistered(t *testing.T) {
	names := strings.Join(controller.Names(), ",")
	for _, n := range allMethods {
		e, err := controller.Lookup(n)
		if err != nil {
			t.Fatalf("%s not registered (have %s)", n, names)
		}
		s := e.Defaults()
		if err := s.Validate(); err != nil {
			t.Errorf("%s: defaults invalid: %v", n, err)
		}
		if _, err := s.New(); err != nil {
			t.Errorf("%s: New: %v", n, err)
		}
		if e.Summary == "" {
			t.Errorf("%s: no summary", n)
		}
	}
}

// Each bad field is rejected with an error naming its TOML key.
func TestSettingsValidateNamesField(t *testing.T) {
	gpucb := func(f func(*GPUCBSettings)) controller.Settings { s := DefaultGPUCBSettings(); f(&s); return &s }
	pb2 := func(f func(*PB2Settings)) controller.Settings { s := DefaultPB2Settings(); f(&s); return &s }
	hb := func(f func(*HyperBandSettings)) controller.Settings {
		s := DefaultHyperBandSettings()
		f(&s)
		return &s
	}
	cases := []struct {
		field string
		s     controller.Settings
	}{
		{"kernel", gpucb(func(s *GPUCBSettings) { s.Kernel = "cubic" })},
		{"window", gpucb(func(s *GPUCBSettings) { s.Window = 1 })},
		{"delta", gpucb(func(s *GPUCBSettings) { s.Delta = 1 })},
		{"delta", gpucb(func(s *GPUCBSettings) { s.Delta = math.NaN() })},
		{"grid", gpucb(func(s *GPUCBSettings) { s.Grid = 1 })},
		{"beta_scale", gpucb(func(s *GPUCBSettings) { s.BetaScale = 0 })},
		{"beta_scale", gpucb(func(s *GPUCBSettings) { s.BetaScale = math.Inf(1) })},
		{"restarts", gpucb(func(s *GPUCBSettings) { s.Restarts = -1 })},
		{"restart_every", gpucb(func(s *GPUCBSettings) { s.RestartEvery = 0 })},
		{"candidates", gpucb(func(s *GPUCBSettings) { s.Candidates = 0 })},
		{"refine", gpucb(func(s *GPUCBSettings) { s.Refine = s.Candidates + 1 })},
		{"time", pb2(func(s *PB2Settings) { s.Time = "epochs" })},
		{"window_min", pb2(func(s *PB2Settings) { s.WindowMin = 1 })},
		{"window_step", pb2(func(s *PB2Settings) { s.WindowStep = 0 })},
		{"window_max", pb2(func(s *PB2Settings) { s.WindowMax = s.WindowMin - 1 })},
		{"epsilon", pb2(func(s *PB2Settings) { s.Epsilon = 0.7 })},
		{"c1", pb2(func(s *PB2Settings) { s.C1 = -1 })},
		{"c2", pb2(func(s *PB2Settings) { s.C2 = 0 })},
		{"clip", pb2(func(s *PB2Settings) { s.Clip = math.NaN() })},
		{"restarts", pb2(func(s *PB2Settings) { s.Restarts = 101 })},
		{"restart_every", pb2(func(s *PB2Settings) { s.RestartEvery = -2 })},
		{"candidates", pb2(func(s *PB2Settings) { s.Candidates = -3 })},
		{"refine", pb2(func(s *PB2Settings) { s.Refine = -1 })},
		{"r", hb(func(s *HyperBandSettings) { s.R = 0 })},
		{"eta", hb(func(s *HyperBandSettings) { s.Eta = 1 })},
	}
	for _, c := range cases {
		err := c.s.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), c.field+":") {
			t.Errorf("field %s: got error %v, want one starting with %q", c.field, err, c.field+":")
		}
		if _, err := c.s.New(); err == nil {
			t.Errorf("field %s: New accepted invalid settings", c.field)
		}
	}
}

// The five methods give identical configuration sequences for the same
// seed and different ones for different seeds.
func TestDeterministicGivenSeed(t *testing.T) {
	space := paperSpace(t)
	gain := func(it int, u []float64) float64 { return 1 - (u[1]-0.3)*(u[1]-0.3) - (u[3]-0.6)*(u[3]-0.6) }
	for _, name := range allMethods {
		t.Run(name, func(t *testing.T) {
			seq := func(seed uint64) []controller.Config {
				c := build(t, name, nil, space, 5, seed)
				return newFeedback(space, gain, 0.1, 9).Run(t, c, 0, 120)
			}
			a, b, c := seq(42), seq(42), seq(43)
			if !sameConfigs(a, b) {
				t.Fatal("same seed, different configuration sequences")
			}
			if sameConfigs(a, c) {
				t.Fatal("different seeds, identical configuration sequences")
			}
		})
	}
}

// Snapshot at several points (mid-period, at a decision boundary, with a
// pending Suggest), restore into a freshly built driver, continue: the
// configurations are identical to a run that never stopped.
func TestSnapshotRestoreContinues(t *testing.T) {
	space := paperSpace(t)
	gain := func(it int, u []float64) float64 { return math.Sin(3*u[0]) + u[2] - 0.5*u[3] }
	const total = 150
	for _, name := range allMethods {
		t.Run(name, func(t *testing.T) {
			ref := newFeedback(space, gain, 0.2, 5).Run(t, build(t, name, nil, space, 5, 7), 0, total)
			for _, cut := range []int{1, 37, 60, 103} {
				f := newFeedback(space, gain, 0.2, 5)
				a := build(t, name, nil, space, 5, 7)
				got := f.Run(t, a, 0, cut)
				snap, err := a.Snapshot()
				if err != nil {
					t.Fatal(err)
				}
				b := build(t, name, nil, space, 5, 7)
				if err := b.Restore(snap); err != nil {
					t.Fatalf("cut %d: restore: %v", cut, err)
				}
				got = append(got, f.Run(t, b, cut, total)...)
				if !sameConfigs(ref, got) {
					t.Fatalf("cut %d: restored run diverges from the uninterrupted one", cut)
				}
			}
			// A snapshot taken with a Suggest pending restores too.
			f := newFeedback(space, gain, 0.2, 5)
			a := build(t, name, nil, space, 5, 7)
			got := f.Run(t, a, 0, 50)
			if _, err := a.Suggest(); err != nil {
				t.Fatal(err)
			}
			snap, err := a.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			b := build(t, name, nil, space, 5, 7)
			if err := b.Restore(snap); err != nil {
				t.Fatal(err)
			}
			got = append(got, f.Run(t, b, 50, total)...)
			if !sameConfigs(ref, got) {
				t.Fatal("restore with a pending Suggest diverges")
			}
			// Garbage is an error and leaves the method usable.
			if err := b.Method().UnmarshalBinary([]byte("not a state")); err == nil {
				t.Error("UnmarshalBinary accepted garbage")
			}
		})
	}
}

// NaN and Inf objectives are errors and leave the method's state unchanged.
func TestNonFiniteObservationRejected(t *testing.T) {
	space := paperSpace(t)
	for _, name := range allMethods {
		t.Run(name, func(t *testing.T) {
			c := build(t, name, nil, space, 5, 3)
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
		})
	}
}

// A method used before Init returns an error instead of panicking.
func TestUseBeforeInit(t *testing.T) {
	for _, name := range allMethods {
		e, _ := controller.Lookup(name)
		m, err := e.Defaults().New()
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Suggest(make(controller.Config, 1)); err == nil {
			t.Errorf("%s: Suggest before Init succeeded", name)
		}
		if err := m.Observe(controller.Observation{}); err == nil {
			t.Errorf("%s: Observe before Init succeeded", name)
		}
		if err := m.Init(unitSpace(t, 1), nil); err == nil {
			t.Errorf("%s: Init with a nil rng succeeded", name)
		}
	}
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed+1)) }

// Settings decode from TOML by their tags (strictly: every key is known).
func TestSettingsTOML(t *testing.T) {
	cases := []struct {
		name string
		text string
		set  controller.Settings
		want controller.Settings
	}{
		{"gpucb", `kernel = "se"
window = 50
delta = 0.05
grid = 20
beta_scale = 0.2
restarts = 0
restart_every = 3
candidates = 64
refine = 2`, &GPUCBSettings{}, &GPUCBSettings{Kernel: "se", Window: 50, Delta: 0.05, Grid: 20, BetaScale: 0.2, Restarts: 0, RestartEvery: 3, Candidates: 64, Refine: 2}},
		{"pb2", `time = "seconds"
window_min = 100
window_step = 5
window_max = 400
epsilon = 0.2
c1 = 0.3
c2 = 0.5
clip = 3.0
restarts = 2
restart_every = 1
candidates = 128
refine = 4`, &PB2Settings{}, &PB2Settings{Time: "seconds", WindowMin: 100, WindowStep: 5, WindowMax: 400, Epsilon: 0.2, C1: 0.3, C2: 0.5, Clip: 3, Restarts: 2, RestartEvery: 1, Candidates: 128, Refine: 4}},
		{"hyperband", "r = 81\neta = 3", &HyperBandSettings{}, &HyperBandSettings{R: 81, Eta: 3}},
	}
	for _, c := range cases {
		md, err := toml.Decode(c.text, c.set)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if u := md.Undecoded(); len(u) != 0 {
			t.Errorf("%s: undecoded keys %v", c.name, u)
		}
		if !reflect.DeepEqual(c.set, c.want) {
			t.Errorf("%s: decoded %+v, want %+v", c.name, c.set, c.want)
		}
		if err := c.set.Validate(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
