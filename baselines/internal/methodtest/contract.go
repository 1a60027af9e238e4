package methodtest

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/kalman"
)

// Gain is a synthetic per-iteration reward gain at iteration it and unit
// configuration u (see Feedback).
type Gain = func(it int, u []float64) float64

// Valley peaks at u₁ = 0.3, u₃ = 0.6 (two of the paper's four
// hyperparameters matter).
func Valley(_ int, u []float64) float64 { return 1 - Sq(u[1]-0.3) - Sq(u[3]-0.6) }

// PaperGain is smooth over all four of the paper's hyperparameters, with
// its maximum 1 at (0.3, 0.5, 0.8, 0.6).
func PaperGain(_ int, u []float64) float64 {
	return 1 - Sq(u[0]-0.3) - Sq(u[1]-0.5) - 2*Sq(u[2]-0.8) - Sq(u[3]-0.6)
}

// wavy is the snapshot runs' gain.
func wavy(_ int, u []float64) float64 { return math.Sin(3*u[0]) + u[2] - 0.5*u[3] }

// settingsOf returns set's settings, nil (the defaults) when set is nil.
func settingsOf(set func() controller.Settings) controller.Settings {
	if set == nil {
		return nil
	}
	return set()
}

// Contract runs the checks every method passes through the driver on the
// registered method name with its default settings: Registered,
// Deterministic (Valley, 120 iterations), SnapshotRestore (with another
// space's state refused when otherSpace), NonFiniteRejected and
// UseBeforeInit. Methods whose runs need settings call the checks one by
// one.
func Contract(t *testing.T, name string, otherSpace bool) {
	t.Run("Registered", func(t *testing.T) { Registered(t, name) })
	t.Run("DeterministicGivenSeed", func(t *testing.T) { Deterministic(t, name, nil, Valley, 120) })
	t.Run("SnapshotRestoreContinues", func(t *testing.T) { SnapshotRestore(t, Snapshot{Name: name, OtherSpace: otherSpace}) })
	t.Run("NonFiniteObservationRejected", func(t *testing.T) { NonFiniteRejected(t, NonFinite{Name: name}) })
	t.Run("UseBeforeInit", func(t *testing.T) {
		e, err := controller.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		UseBeforeInit(t, e.Defaults())
	})
}

// Maximum is a run on a stationary test function F over D unit parameters
// for Budget rounds.
type Maximum struct {
	Name   string
	D      int
	F      Gain
	Budget int
}

// Bimodal are the runs on Bumps1D for 30 rounds and on Bumps2D for 60.
var Bimodal = []Maximum{{"1-D", 1, Bumps1D, 30}, {"2-D", 2, Bumps2D, 60}}

// RunUnit runs the registered method name with settings set (nil: the
// defaults) over d unit parameters for iters iterations of gain with noise
// sd 0.05, at decision interval 1 and seed seed (of the driver and the
// noise), and returns the driver and the configurations used.
func RunUnit(t testing.TB, name string, set controller.Settings, d int, gain Gain, iters int, seed uint64) (*controller.Controller, []controller.Config) {
	t.Helper()
	space := UnitSpace(t, d)
	ctl := Build(t, name, set, space, 1, seed)
	return ctl, NewFeedback(space, gain, 0.05, seed).Run(t, ctl, 0, iters)
}

// Registered checks that name is registered with a summary, and that its
// defaults are valid and accepted by New; it returns the defaults.
func Registered(t *testing.T, name string) controller.Settings {
	t.Helper()
	e, err := controller.Lookup(name)
	if err != nil {
		t.Fatalf("%s not registered (have %s)", name, strings.Join(controller.Names(), ","))
	}
	s := e.Defaults()
	if err := s.Validate(); err != nil {
		t.Errorf("%s: defaults invalid: %v", name, err)
	}
	if _, err := s.New(); err != nil {
		t.Errorf("%s: New: %v", name, err)
	}
	if e.Summary == "" {
		t.Errorf("%s: no summary", name)
	}
	return s
}

// FieldCase is settings with one invalid field, the TOML key Field.
type FieldCase struct {
	Field    string
	Settings controller.Settings
}

// RejectsFields checks that each case's Validate error starts with its
// field's TOML key and that New refuses it.
func RejectsFields(t *testing.T, cases []FieldCase) {
	t.Helper()
	for _, c := range cases {
		err := c.Settings.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), c.Field+":") {
			t.Errorf("field %s: got error %v, want one starting with %q", c.Field, err, c.Field+":")
		}
		if _, err := c.Settings.New(); err == nil {
			t.Errorf("field %s: New accepted invalid settings", c.Field)
		}
	}
}

// TOML joins key = value lines into a TOML text.
func TOML(lines ...string) string { return strings.Join(lines, "\n") }

// DecodesTOML checks that text decodes strictly (every key known) into dst
// as want, and that the result is valid.
func DecodesTOML(t *testing.T, text string, dst, want controller.Settings) {
	t.Helper()
	md, err := toml.Decode(text, dst)
	if err != nil {
		t.Fatal(err)
	}
	if u := md.Undecoded(); len(u) != 0 {
		t.Errorf("undecoded keys %v", u)
	}
	if !reflect.DeepEqual(dst, want) {
		t.Errorf("decoded %+v, want %+v", dst, want)
	}
	if err := dst.Validate(); err != nil {
		t.Error(err)
	}
}

// Deterministic checks that a method gives identical configuration
// sequences for the same seed and different ones for different seeds:
// iters iterations of gain (noise sd 0.1) over the paper's space at
// decision interval 5, seeds 42, 42 and 43. set nil means the defaults.
func Deterministic(t *testing.T, name string, set func() controller.Settings, gain Gain, iters int) {
	t.Helper()
	space := PaperSpace(t)
	seq := func(seed uint64) []controller.Config {
		return NewFeedback(space, gain, 0.1, 9).Run(t, Build(t, name, settingsOf(set), space, 5, seed), 0, iters)
	}
	a, b, c := seq(42), seq(42), seq(43)
	if !SameConfigs(a, b) {
		t.Fatal("same seed, different configuration sequences")
	}
	if SameConfigs(a, c) {
		t.Fatal("different seeds, identical configuration sequences")
	}
}

// Snapshot configures SnapshotRestore.
type Snapshot struct {
	Name     string
	Settings func() controller.Settings // of every run (nil: the defaults)
	// Restore are the settings of the driver a snapshot is restored into
	// (nil: Settings); the state must win over them.
	Restore func() controller.Settings
	Total   int   // iterations of a run (0: 150)
	Cuts    []int // iterations at which a run is snapshotted (nil: 1, 37, 60, 103)
	// Pending is a cut at which a Suggest is pending when the snapshot is
	// taken; 0: a separate run is cut at 50 with a Suggest pending.
	Pending int
	// Restored, when set, checks the restored driver b against the
	// original a after each restore.
	Restored func(t *testing.T, cut int, a, b *controller.Controller)
	// OtherSpace: the state of a run over two unit parameters must be
	// refused; OtherSettings returns that run's settings (nil: defaults).
	OtherSpace    bool
	OtherSettings func(space controller.Space) controller.Settings
}

// SnapshotRestore snapshots runs (gain sin(3u₀) + u₂ − 0.5u₃, noise sd 0.2,
// the paper's space, interval 5, seed 7) at several points, restores each
// into a freshly built driver and continues: the configurations must be
// those of a run that never stopped. Then garbage (and another space's
// state, with OtherSpace) must be refused and leave the method unchanged.
func SnapshotRestore(t *testing.T, s Snapshot) {
	t.Helper()
	space := PaperSpace(t)
	total, cuts := s.Total, s.Cuts
	if total == 0 {
		total = 150
	}
	if cuts == nil {
		cuts = []int{1, 37, 60, 103}
	}
	restore := s.Restore
	if restore == nil {
		restore = s.Settings
	}
	build := func(set func() controller.Settings) *controller.Controller {
		return Build(t, s.Name, settingsOf(set), space, 5, 7)
	}
	ref := NewFeedback(space, wavy, 0.2, 5).Run(t, build(s.Settings), 0, total)
	cutAt := func(cut int, pending bool) {
		t.Helper()
		f := NewFeedback(space, wavy, 0.2, 5)
		a := build(s.Settings)
		got := f.Run(t, a, 0, cut)
		if pending {
			if _, err := a.Suggest(); err != nil {
				t.Fatal(err)
			}
		}
		snap, err := a.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		b := build(restore)
		if err := b.Restore(snap); err != nil {
			t.Fatalf("cut %d: restore: %v", cut, err)
		}
		if s.Restored != nil {
			s.Restored(t, cut, a, b)
		}
		got = append(got, f.Run(t, b, cut, total)...)
		if !SameConfigs(ref, got) {
			t.Fatalf("cut %d (pending Suggest: %v): restored run diverges from the uninterrupted one", cut, pending)
		}
	}
	for _, cut := range cuts {
		cutAt(cut, cut == s.Pending)
	}
	if s.Pending == 0 {
		cutAt(50, true)
	}
	// Refused states change nothing.
	c := build(s.Settings)
	NewFeedback(space, wavy, 0.2, 5).Run(t, c, 0, 20)
	m := c.Method()
	before, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.UnmarshalBinary([]byte("not a state")); err == nil {
		t.Error("UnmarshalBinary accepted garbage")
	}
	if s.OtherSpace {
		s2 := UnitSpace(t, 2)
		var set controller.Settings
		if s.OtherSettings != nil {
			set = s.OtherSettings(s2)
		}
		other := Build(t, s.Name, set, s2, 5, 7)
		NewFeedback(s2, func(_ int, u []float64) float64 { return u[0] }, 0.1, 1).Run(t, other, 0, 20)
		ob, err := other.Method().MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if err := m.UnmarshalBinary(ob); err == nil {
			t.Error("UnmarshalBinary accepted a state of another space")
		}
	}
	if after, _ := m.MarshalBinary(); !bytes.Equal(before, after) {
		t.Error("a refused state changed the method")
	}
}

// NonFinite configures NonFiniteRejected.
type NonFinite struct {
	Name     string
	Settings func() controller.Settings // nil: the defaults
	Gain     Gain                       // nil: a constant 1
	At       []int                      // iterations run before the checks (nil: 23)
	// Check, when set, runs after the iterations, before the checks.
	Check func(t *testing.T, iters int, c *controller.Controller)
}

// NonFiniteRejected runs a method (the paper's space, interval 5, seed 3,
// noise sd 0.5), then offers it observations with a non-finite or
// malformed field: each must be an error that leaves the state unchanged.
// A destination of the wrong length and, through the driver, a NaN reward
// must be refused too.
func NonFiniteRejected(t *testing.T, n NonFinite) {
	t.Helper()
	space := PaperSpace(t)
	gain, at := n.Gain, n.At
	if gain == nil {
		gain = func(int, []float64) float64 { return 1 }
	}
	if at == nil {
		at = []int{23}
	}
	for _, iters := range at {
		c := Build(t, n.Name, settingsOf(n.Settings), space, 5, 3)
		NewFeedback(space, gain, 0.5, 2).Run(t, c, 0, iters)
		if n.Check != nil {
			n.Check(t, iters, c)
		}
		m := c.Method()
		before, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		cfg := controller.Config{3000, 0.2, 0.95, 1e-4}
		for _, bad := range []controller.Observation{
			{Iteration: iters, Config: cfg, Objective: math.NaN()},
			{Iteration: iters, Config: cfg, Objective: math.Inf(1)},
			{Iteration: iters, Config: cfg, Objective: math.Inf(-1)},
			{Iteration: iters, Config: cfg, Objective: 1, Reward: math.NaN()},
			{Iteration: iters, Config: cfg, Objective: 1, PrevReward: math.NaN()},
			{Iteration: iters, Config: cfg, Objective: 1, Time: math.Inf(1)},
			{Iteration: iters, Config: cfg, Objective: 1, Elapsed: math.NaN()},
			{Iteration: iters, Config: cfg, Objective: 1, Elapsed: math.Inf(1)},
			{Iteration: -1, Config: cfg, Objective: 1},
			{Iteration: iters, Config: controller.Config{math.NaN(), 0.2, 0.95, 1e-4}, Objective: 1},
			{Iteration: iters, Config: controller.Config{3000}, Objective: 1},
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
		if _, err := c.Suggest(); err != nil {
			t.Fatal(err)
		}
		if err := c.Observe(controller.Result{Reward: math.NaN()}); err == nil {
			t.Error("driver accepted a NaN reward")
		}
	}
}

// UseBeforeInit checks that a method built from set and not Init-ed
// returns errors instead of panicking, and that Init refuses a nil rng.
func UseBeforeInit(t *testing.T, set controller.Settings) {
	t.Helper()
	m, err := set.New()
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
	if err := m.Init(UnitSpace(t, 1), nil); err == nil {
		t.Error("Init with a nil rng succeeded")
	}
}

// DataCase is a run on degenerate data.
type DataCase struct {
	Name  string
	Space controller.Space
	Gain  Gain
	Noise float64
	Iters int
	// Elapsed is each iteration's wall time (see Feedback.Elapsed).
	Elapsed time.Duration
}

// ZeroElapsed is a run whose iterations take no time (the per-second
// objectives and PB2's time input see zero spans).
func ZeroElapsed(t testing.TB) DataCase {
	smooth := func(_ int, u []float64) float64 { return 1 - Sq(u[0]-0.4) }
	return DataCase{Name: "zero elapsed time", Space: PaperSpace(t), Gain: smooth, Noise: 0.1, Iters: 60, Elapsed: -1}
}

// Degenerate returns the degenerate-data runs every model-based method
// must survive, iters iterations each (the single-data-point run: 10): an
// all-equal and a zero objective, duplicate inputs (a two-valued integer
// parameter) with a smooth and a constant objective, a single data point,
// and objectives of scale 1e-12 and 1e12.
func Degenerate(t testing.TB, iters int) []DataCase {
	smooth := func(_ int, u []float64) float64 { return 1 - Sq(u[0]-0.4) }
	scaled := func(s float64) Gain {
		return func(it int, u []float64) float64 { return s * smooth(it, u) }
	}
	return []DataCase{
		{"all-equal objective", UnitSpace(t, 2), func(int, []float64) float64 { return 1 }, 0, iters, 0},
		{"zero objective", UnitSpace(t, 2), func(int, []float64) float64 { return 0 }, 0, iters, 0},
		{"duplicate inputs (two-valued integer)", IntSpace(t), smooth, 0.1, iters, 0},
		{"duplicates, constant objective", IntSpace(t), func(int, []float64) float64 { return 3 }, 0, iters, 0},
		{"single data point", PaperSpace(t), smooth, 0.1, 10, 0},
		{"objective scale 1e-12", PaperSpace(t), scaled(1e-12), 1e-13, iters, 0},
		{"objective scale 1e12", PaperSpace(t), scaled(1e12), 1e11, iters, 0},
	}
}

// Run runs the case through a driver of the method (seed 3; feedback seed
// 4) and returns the driver.
func (c DataCase) Run(t testing.TB, name string, set controller.Settings, interval int) *controller.Controller {
	t.Helper()
	ctl := Build(t, name, set, c.Space, interval, 3)
	f := NewFeedback(c.Space, c.Gain, c.Noise, 4)
	f.Elapsed = c.Elapsed
	f.Run(t, ctl, 0, c.Iters)
	return ctl
}

// LastMedian returns the median of f over the last 10 configurations and
// the best f over all of them.
func LastMedian(cfgs []controller.Config, f Gain) (median, best float64) {
	best = math.Inf(-1)
	var last []float64
	for i, cfg := range cfgs {
		v := f(0, cfg)
		best = math.Max(best, v)
		if i >= len(cfgs)-10 {
			last = append(last, v)
		}
	}
	slices.Sort(last)
	return (last[4] + last[5]) / 2, best
}

// Decision times one decision (Suggest) of the method of ctl after n
// decision periods of PaperGain (noise sd 0.3): run ctl at interval 1, so
// that the Suggest of iteration n+1 sees n points. The state is restored
// (untimed) before every timed Suggest, so each op sees the same data. It
// returns the method.
func Decision(b *testing.B, ctl *controller.Controller, n int) controller.Method {
	b.Helper()
	space := ctl.Space()
	f := NewFeedback(space, PaperGain, 0.3, 1)
	for it := range n + 1 {
		f.Step(b, ctl, it)
	}
	m := ctl.Method()
	state, err := m.MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	dst := make(controller.Config, space.Dim())
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		if err := m.UnmarshalBinary(state); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := m.Suggest(dst); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	return m
}

// Regret runs the method on the LGDS regret benchmark (see RegretLGDS) for
// each b.N and reports R_n's mean over the seeds and its standard error.
func Regret(b *testing.B, name string, settings controller.Settings, h, n, interval, seeds int) {
	b.Helper()
	RegretOn(b, name, settings, kalman.DefaultBanditConfig(h), n, interval, seeds)
}

// RegretOn is Regret on the bandit cfg (see RegretBandit). It also logs
// R_n per seed (visible with -v), for per-seed comparisons, and returns
// them.
func RegretOn(b *testing.B, name string, settings controller.Settings, cfg kalman.BanditConfig, n, interval, seeds int) []float64 {
	b.Helper()
	var rn []float64
	for range b.N {
		rn = RegretBandit(b, name, settings, cfg, n, interval, seeds)
	}
	mean, se := kalman.MeanSE(rn)
	b.Logf("R_n per seed 1..%d: %.1f", seeds, rn)
	b.ReportMetric(mean, "R_n")
	b.ReportMetric(se, "R_n_se")
	return rn
}

// ExtremeSpace is the widest space NewSpace accepts, one parameter per
// edge: a linear span of math.MaxFloat64, a span of the smallest denormal,
// a log scale from the smallest denormal to math.MaxFloat64, and an integer
// parameter over ±2⁵³.
func ExtremeSpace(t testing.TB) controller.Space {
	t.Helper()
	s, err := controller.NewSpace(
		controller.Param{Name: "wide", Low: -math.MaxFloat64 / 2, High: math.MaxFloat64 / 2},
		controller.Param{Name: "tiny", Low: 0, High: math.SmallestNonzeroFloat64},
		controller.Param{Name: "logwide", Low: math.SmallestNonzeroFloat64, High: math.MaxFloat64, Scale: controller.Log},
		controller.Param{Name: "int", Low: -(1 << 53), High: 1 << 53, Integer: true},
	)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ExtremeRewards returns n rewards drawn with seed from the edges of what
// the driver accepts: ±controller.MaxReward, large and tiny magnitudes,
// denormals, zeros, exact repeats of the previous reward and ordinary
// values.
func ExtremeRewards(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 4242))
	sign := func() float64 {
		if rng.IntN(2) == 0 {
			return -1
		}
		return 1
	}
	out := make([]float64, n)
	for i := range out {
		var r float64
		switch rng.IntN(9) {
		case 0:
			r = sign() * controller.MaxReward
		case 1:
			r = sign() * controller.MaxReward * rng.Float64()
		case 2:
			r = sign() * math.Pow(10, 300*rng.Float64()-300) * controller.MaxReward / 1e100
		case 3:
			r = sign() * math.SmallestNonzeroFloat64
		case 4:
			r = 0
		case 5:
			if i > 0 {
				r = out[i-1]
			}
		case 6:
			r = sign() * 1e8 * (1 + rng.Float64())
		default:
			r = 10 * rng.NormFloat64()
		}
		out[i] = r
	}
	return out
}

// Extremes configures ExtremesRoundTrip.
type Extremes struct {
	Name string
	// Settings returns the settings of a run over space (nil: the
	// defaults).
	Settings func(space controller.Space) controller.Settings
	Iters    int // iterations per run (0: 30)
}

// ExtremesRoundTrip drives a method, through the driver at interval 1, over
// ExtremeSpace and PaperSpace with ExtremeRewards, under the Delta objective
// and DeltaPerSecond with zero elapsed times (the largest objectives the
// driver makes, 2e109). It checks what the service relies on:
//   - every Suggest succeeds;
//   - an Observe the method refuses (it may, to keep its state finite)
//     leaves the controller's snapshot unchanged, and the session goes on:
//     an ordinary reward (1) is accepted instead;
//   - after every iteration the snapshot restores into a freshly built
//     driver, and a driver restored at a few cuts continues with exactly
//     the uninterrupted run's configurations.
func ExtremesRoundTrip(t *testing.T, e Extremes) {
	t.Helper()
	iters := e.Iters
	if iters == 0 {
		iters = 30
	}
	for si, space := range []controller.Space{ExtremeSpace(t), PaperSpace(t)} {
		for _, obj := range []controller.Objective{controller.Delta, controller.DeltaPerSecond} {
			name := fmt.Sprintf("space=%d/objective=%s", si, obj)
			var set controller.Settings
			build := func() *controller.Controller {
				if e.Settings != nil {
					set = e.Settings(space)
				}
				c, err := controller.Build(e.Name, set, space, controller.Options{Interval: 1, Objective: obj, Seed: uint64(11 + si)})
				if err != nil {
					t.Fatalf("%s: build %s: %v", name, e.Name, err)
				}
				return c
			}
			elapsed := 10 * time.Millisecond
			if obj == controller.DeltaPerSecond {
				elapsed = 0
			}
			ref := build()
			var (
				used  []float64 // the rewards applied, refused ones replaced
				cfgs  []controller.Config
				snaps = map[int][]byte{}
			)
			cuts := []int{1, iters / 3, iters / 2, iters - 1}
			for it, r := range ExtremeRewards(iters, uint64(100*si)+uint64(obj)) {
				cfg, err := ref.Suggest()
				if err != nil {
					t.Fatalf("%s: iteration %d: suggest: %v", name, it, err)
				}
				cfgs = append(cfgs, slices.Clone(cfg))
				before, err := ref.Snapshot()
				if err != nil {
					t.Fatalf("%s: iteration %d: snapshot: %v", name, it, err)
				}
				if err := ref.Observe(controller.Result{Reward: r, Elapsed: elapsed, Frames: 1000}); err != nil {
					after, _ := ref.Snapshot()
					if !bytes.Equal(before, after) {
						t.Fatalf("%s: iteration %d: the refused reward %g changed the state (%v)", name, it, r, err)
					}
					refused := r
					r = 1
					if err := ref.Observe(controller.Result{Reward: r, Elapsed: elapsed, Frames: 1000}); err != nil {
						t.Fatalf("%s: iteration %d: after the refused reward %g, an ordinary reward (1) is refused too: the session is wedged: %v", name, it, refused, err)
					}
				}
				used = append(used, r)
				snap, err := ref.Snapshot()
				if err != nil {
					t.Fatalf("%s: iteration %d: snapshot: %v", name, it, err)
				}
				if err := build().Restore(snap); err != nil {
					t.Fatalf("%s: iteration %d (reward %g): the snapshot does not restore: %v", name, it, r, err)
				}
				if slices.Contains(cuts, it+1) {
					snaps[it+1] = snap
				}
			}
			for cut, snap := range snaps {
				c := build()
				if err := c.Restore(snap); err != nil {
					t.Fatal(err)
				}
				for it := cut; it < iters; it++ {
					cfg, err := c.Suggest()
					if err != nil {
						t.Fatalf("%s: restored at %d, iteration %d: suggest: %v", name, cut, it, err)
					}
					if !slices.Equal(cfg, cfgs[it]) {
						t.Fatalf("%s: restored at %d, iteration %d: suggests %v, the uninterrupted run %v", name, cut, it, cfg, cfgs[it])
					}
					if err := c.Observe(controller.Result{Reward: used[it], Elapsed: elapsed, Frames: 1000}); err != nil {
						t.Fatalf("%s: restored at %d, iteration %d: %v", name, cut, it, err)
					}
				}
			}
		}
	}
}
