package controller_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/hyperctl/hyperctl/controller"
)

// fakeMethod records the driver's calls. Its suggestions are drawn from the
// driver's rng, its state is the number of calls.
type fakeMethod struct {
	rng         *rand.Rand
	space       controller.Space
	suggests    []int // driver iteration at each Suggest (from observations seen)
	obs         []controller.Observation
	observed    int
	failNext    bool
	badConfig   bool
	rejectState bool
}

func (f *fakeMethod) Init(s controller.Space, r *rand.Rand) error { f.space, f.rng = s, r; return nil }

func (f *fakeMethod) Suggest(dst controller.Config) error {
	f.suggests = append(f.suggests, f.observed)
	for i := range dst {
		dst[i] = f.space.FromUnit(i, f.rng.Float64())
	}
	if f.badConfig {
		dst[0] = f.space.Param(0).High + 1
	}
	return nil
}

func (f *fakeMethod) Observe(o controller.Observation) error {
	if f.failNext {
		f.failNext = false
		return errors.New("refused")
	}
	o.Config = append(controller.Config(nil), o.Config...)
	f.obs = append(f.obs, o)
	f.observed++
	return nil
}

func (f *fakeMethod) MarshalBinary() ([]byte, error) {
	return binary.AppendUvarint(nil, uint64(f.observed)), nil
}

func (f *fakeMethod) UnmarshalBinary(b []byte) error {
	if f.rejectState && len(b) > 0 && b[0] != 0 {
		return errors.New("fake: state rejected")
	}
	v, n := binary.Uvarint(b)
	if n <= 0 || n != len(b) {
		return errors.New("fake: bad state")
	}
	f.observed = int(v)
	return nil
}

func twoParams(t testing.TB) controller.Space {
	t.Helper()
	sp, err := controller.NewSpace(
		controller.Param{Name: "lr", Low: 1e-5, High: 1e-3, Scale: controller.Log},
		controller.Param{Name: "batch", Low: 1000, High: 6000, Integer: true},
	)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func TestDriverInterval(t *testing.T) {
	for _, k := range []int{1, 3, 5} {
		f := &fakeMethod{}
		ctl, err := controller.New("fake", f, twoParams(t), controller.Options{Interval: k, Objective: controller.Reward, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		var prev controller.Config
		for it := range 23 {
			cfg, err := ctl.Suggest()
			if err != nil {
				t.Fatal(err)
			}
			again, _ := ctl.Suggest() // a repeated Suggest returns the same configuration
			if !equal(cfg, again) {
				t.Fatal("second Suggest before Observe changed the configuration")
			}
			if it%k != 0 && !equal(cfg, prev) {
				t.Fatalf("interval %d: configuration changed at iteration %d", k, it)
			}
			prev = append(controller.Config(nil), cfg...)
			if err := ctl.Observe(controller.Result{Reward: float64(it)}); err != nil {
				t.Fatal(err)
			}
		}
		// Decisions at iterations 0, k, 2k, …; with the Reward objective
		// every iteration is observed, so the method had seen exactly
		// that many observations at each decision.
		want := 0
		for i, s := range f.suggests {
			if s != want {
				t.Fatalf("interval %d: decision %d after %d observations, want %d", k, i, s, want)
			}
			want += k
		}
		if len(f.suggests) != (23+k-1)/k || len(f.obs) != 23 {
			t.Fatalf("interval %d: %d decisions, %d observations", k, len(f.suggests), len(f.obs))
		}
	}
}

func equal(a, b controller.Config) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDriverObjectives(t *testing.T) {
	rewards := []float64{1, 3, 2, 7}
	elapsed := []time.Duration{time.Second, 2 * time.Second, 500 * time.Millisecond, time.Second}
	frames := []int{1000, 4000, 500, 2000}
	cases := []struct {
		obj   controller.Objective
		name  string
		first int // first iteration shown to the method
		want  []float64
	}{
		{controller.Delta, "delta", 1, []float64{2, -1, 5}},
		{controller.Reward, "reward", 0, []float64{1, 3, 2, 7}},
		{controller.DeltaPerSecond, "delta_per_second", 1, []float64{1, -2, 5}},
		// (R_t − R_{t−1}) per 1000 frames of iteration t.
		{controller.DeltaPerKFrame, "delta_per_kframe", 1, []float64{0.5, -2, 2.5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, err := controller.ParseObjective(c.name); err != nil || got != c.obj || got.String() != c.name {
				t.Fatalf("ParseObjective(%q) = %v, %v", c.name, got, err)
			}
			f := &fakeMethod{}
			ctl, err := controller.New("fake", f, twoParams(t), controller.Options{Interval: 2, Objective: c.obj})
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range rewards {
				if _, err := ctl.Suggest(); err != nil {
					t.Fatal(err)
				}
				if err := ctl.Observe(controller.Result{Reward: r, Elapsed: elapsed[i], Frames: frames[i]}); err != nil {
					t.Fatal(err)
				}
			}
			if len(f.obs) != len(c.want) {
				t.Fatalf("%d observations, want %d", len(f.obs), len(c.want))
			}
			tm := 0.0
			for i := range c.first {
				tm += elapsed[i].Seconds()
			}
			for i, o := range f.obs {
				it := c.first + i
				tm += elapsed[it].Seconds()
				prev := rewards[it]
				if it > 0 {
					prev = rewards[it-1]
				}
				if o.Iteration != it || o.Objective != c.want[i] || o.Reward != rewards[it] || o.PrevReward != prev || math.Abs(o.Time-tm) > 1e-12 {
					t.Fatalf("observation %d: %+v, want iteration %d objective %g time %g", i, o, it, c.want[i], tm)
				}
			}
		})
	}
	if _, err := controller.ParseObjective("loss"); err == nil {
		t.Fatal("unknown objective parsed")
	}
	// delta_per_kframe needs the frames: a result without them is refused
	// and leaves the state unchanged.
	ctl, err := controller.New("fake", &fakeMethod{}, twoParams(t), controller.Options{Objective: controller.DeltaPerKFrame})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ctl.Suggest(); err != nil {
		t.Fatal(err)
	}
	if err := ctl.Observe(controller.Result{Reward: 1}); err == nil || !strings.Contains(err.Error(), "delta_per_kframe needs the iteration's frames") || ctl.Iteration() != 0 {
		t.Fatalf("no frames: %v, iteration %d", err, ctl.Iteration())
	}
	if err := ctl.Observe(controller.Result{Reward: 1, Frames: 2048}); err != nil {
		t.Fatal(err)
	}
}

func TestDriverErrors(t *testing.T) {
	f := &fakeMethod{}
	ctl, err := controller.New("fake", f, twoParams(t), controller.Options{Interval: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctl.Observe(controller.Result{Reward: 1}); err == nil || !strings.Contains(err.Error(), "without a preceding Suggest") {
		t.Fatalf("Observe without Suggest: %v", err)
	}
	if _, err := ctl.Suggest(); err != nil {
		t.Fatal(err)
	}
	if err := ctl.Observe(controller.Result{Reward: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := ctl.Suggest(); err != nil {
		t.Fatal(err)
	}
	before, _ := ctl.Snapshot()
	for _, r := range []controller.Result{
		{Reward: math.NaN()}, {Reward: math.Inf(1)}, {Reward: 1, Elapsed: -time.Second},
		{Reward: 1e160}, {Reward: -1e200}, {Reward: math.MaxFloat64}, {Reward: math.Nextafter(controller.MaxReward, math.Inf(1))},
	} {
		if err := ctl.Observe(r); err == nil {
			t.Fatalf("result %+v accepted", r)
		}
	}
	f.failNext = true
	if err := ctl.Observe(controller.Result{Reward: 2}); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("method error not returned: %v", err)
	}
	after, _ := ctl.Snapshot()
	if !bytes.Equal(before, after) || ctl.Iteration() != 1 {
		t.Fatal("rejected observations changed the driver state")
	}
	if err := ctl.Observe(controller.Result{Reward: 2}); err != nil {
		t.Fatalf("valid observation after rejected ones: %v", err)
	}

	// Invalid options.
	for _, o := range []controller.Options{{Interval: -1}, {Objective: 7}} {
		if _, err := controller.New("fake", &fakeMethod{}, twoParams(t), o); err == nil {
			t.Fatalf("options %+v accepted", o)
		}
	}
	if _, err := controller.New("fake", nil, twoParams(t), controller.Options{}); err == nil {
		t.Fatal("nil method accepted")
	}
	if _, err := controller.New("fake", &fakeMethod{}, controller.Space{}, controller.Options{}); err == nil {
		t.Fatal("empty space accepted")
	}
	// A method suggesting out of bounds is caught.
	bad, _ := controller.New("fake", &fakeMethod{badConfig: true}, twoParams(t), controller.Options{})
	if _, err := bad.Suggest(); err == nil || !strings.Contains(err.Error(), "lr") {
		t.Fatalf("out-of-bounds suggestion: %v", err)
	}
}

func TestDriverRestoreWrongSnapshot(t *testing.T) {
	build := func(name string, sp controller.Space, o controller.Options) *controller.Controller {
		c, err := controller.New(name, &fakeMethod{}, sp, o)
		if err != nil {
			t.Fatal(err)
		}
		for it := range 7 {
			if _, err := c.Suggest(); err != nil {
				t.Fatal(err)
			}
			if err := c.Observe(controller.Result{Reward: float64(it * it)}); err != nil {
				t.Fatal(err)
			}
		}
		return c
	}
	opts := controller.Options{Interval: 2, Seed: 3}
	ctl := build("fake", twoParams(t), opts)
	other, _ := controller.NewSpace(controller.Param{Name: "clip", Low: 0.1, High: 0.5}, controller.Param{Name: "lambda", Low: 0.9, High: 1})
	one, _ := controller.NewSpace(controller.Param{Name: "lr", Low: 1e-5, High: 1e-3})
	snap := func(c *controller.Controller) []byte {
		b, err := c.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	good := snap(ctl)
	cases := map[string][]byte{
		"garbage":        []byte("not a snapshot"),
		"empty":          nil,
		"truncated":      good[:len(good)/2],
		"other method":   snap(build("other", twoParams(t), opts)),
		"other space":    snap(build("fake", other, opts)),
		"other dim":      snap(build("fake", one, opts)),
		"other interval": snap(build("fake", twoParams(t), controller.Options{Interval: 3, Seed: 3})),
		"other obj":      snap(build("fake", twoParams(t), controller.Options{Interval: 2, Objective: controller.Reward, Seed: 3})),
	}
	fresh := build("fake", twoParams(t), opts)
	if _, err := fresh.Suggest(); err != nil {
		t.Fatal(err)
	}
	before := snap(fresh)
	for name, b := range cases {
		if err := fresh.Restore(b); err == nil {
			t.Errorf("%s: restore accepted", name)
		}
		if !bytes.Equal(snap(fresh), before) {
			t.Fatalf("%s: failed restore changed the state", name)
		}
	}
	// A method that rejects the state leaves everything unchanged too.
	rej, _ := controller.New("fake", &fakeMethod{rejectState: true}, twoParams(t), opts)
	rb := snap(rej)
	if err := rej.Restore(good); err == nil || !strings.Contains(err.Error(), "restore method") {
		t.Fatalf("method rejection: %v", err)
	}
	if !bytes.Equal(snap(rej), rb) {
		t.Fatal("failed method restore changed the state")
	}
	// Restoring a valid snapshot reproduces it exactly.
	c2, _ := controller.New("fake", &fakeMethod{}, twoParams(t), opts)
	if err := c2.Restore(good); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(snap(c2), good) || c2.Iteration() != 7 {
		t.Fatal("restored snapshot differs")
	}
}

// TestCurrent: Current is the configuration in force and never consults
// the method. After iterations = k·interval (25 = 5·5, as in the reference
// runs) it is the configuration the last iteration ran with, while a
// further Suggest would be a new decision.
func TestCurrent(t *testing.T) {
	f := &fakeMethod{}
	ctl, err := controller.New("fake", f, twoParams(t), controller.Options{Interval: 5, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := ctl.Current(); ok || c != nil {
		t.Fatalf("Current before the first Suggest: %v, %v", c, ok)
	}
	var last controller.Config
	for it := range 25 {
		cfg, err := ctl.Suggest()
		if err != nil {
			t.Fatal(err)
		}
		last = append(controller.Config(nil), cfg...)
		if err := ctl.Observe(controller.Result{Reward: float64(it % 3)}); err != nil {
			t.Fatal(err)
		}
	}
	decisions := len(f.suggests)
	cur, ok := ctl.Current()
	if !ok || !equal(cur, last) {
		t.Fatalf("Current = %v, %v; want the last iteration's %v", cur, ok, last)
	}
	if len(f.suggests) != decisions || decisions != 5 {
		t.Fatalf("Current consulted the method: %d decisions, want 5", len(f.suggests))
	}
	cur[0] = -1 // a copy: the driver's state is not changed through it
	if again, _ := ctl.Current(); !equal(again, last) {
		t.Fatal("Current returned the driver's own slice")
	}
	next, err := ctl.Suggest() // iteration 25: a decision point
	if err != nil {
		t.Fatal(err)
	}
	if len(f.suggests) != 6 || equal(next, last) {
		t.Fatalf("the Suggest at iteration 25 made %d decisions, config %v (last %v)", len(f.suggests), next, last)
	}
}

// TestObjectiveText: objectives and scales decode from their config names
// (TextUnmarshaler, as the TOML decoder uses them) and encode back; bad
// names are refused with the valid ones.
func TestObjectiveText(t *testing.T) {
	for _, o := range []controller.Objective{controller.Delta, controller.Reward, controller.DeltaPerSecond, controller.DeltaPerKFrame} {
		b, err := o.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var got controller.Objective
		if err := got.UnmarshalText(b); err != nil || got != o {
			t.Fatalf("%s: round trip %v, %v", o, got, err)
		}
	}
	var o controller.Objective
	if err := o.UnmarshalText([]byte("loss")); err == nil || !strings.Contains(err.Error(), "delta, reward, delta_per_second, delta_per_kframe") {
		t.Fatalf("unknown objective: %v", err)
	}
	if _, err := controller.Objective(9).MarshalText(); err == nil {
		t.Fatal("objective 9 encoded")
	}
	for _, s := range []controller.Scale{controller.Linear, controller.Log} {
		b, _ := s.MarshalText()
		var got controller.Scale
		if err := got.UnmarshalText(b); err != nil || got != s {
			t.Fatalf("%s: round trip %v, %v", s, got, err)
		}
	}
	var s controller.Scale
	if err := s.UnmarshalText([]byte("cubic")); err == nil || !strings.Contains(err.Error(), "log") {
		t.Fatalf("unknown scale: %v", err)
	}
	// Value is undefined at the first iteration for the delta objectives.
	for _, c := range []struct {
		o        controller.Objective
		havePrev bool
		x        float64
		ok       bool
	}{
		{controller.Delta, false, 0, false},
		{controller.Delta, true, 2, true},
		{controller.Reward, false, 3, true},
		{controller.DeltaPerSecond, false, 0, false},
		{controller.DeltaPerSecond, true, 4, true},
		{controller.DeltaPerKFrame, false, 0, false},
		{controller.DeltaPerKFrame, true, 0.5, true},
	} {
		r := controller.Result{Reward: 3, Elapsed: 500 * time.Millisecond, Frames: 4000}
		if x, ok := c.o.Value(r, 1, c.havePrev); x != c.x || ok != c.ok {
			t.Errorf("%s.Value(%+v, 1, %v) = %v, %v; want %v, %v", c.o, r, c.havePrev, x, ok, c.x, c.ok)
		}
	}
	if x, ok := controller.DeltaPerKFrame.Value(controller.Result{Reward: 3}, 1, true); ok || x != 0 {
		t.Errorf("delta_per_kframe without frames: %v, %v; want undefined", x, ok)
	}
}

// A reward beyond ±MaxReward is refused also at the first iteration, whose
// objective no method sees (it would become R_{t−1} of every later one);
// the run then goes on, and the bound itself is accepted.
func TestDriverRewardBound(t *testing.T) {
	for _, first := range []float64{1e200, -1e160} {
		f := &fakeMethod{}
		ctl, err := controller.New("fake", f, twoParams(t), controller.Options{Interval: 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ctl.Suggest(); err != nil {
			t.Fatal(err)
		}
		if err := ctl.Observe(controller.Result{Reward: first}); err == nil || !strings.Contains(err.Error(), "MaxReward") {
			t.Fatalf("first reward %g: %v", first, err)
		}
		for it, r := range []float64{2, controller.MaxReward, -controller.MaxReward, 3} {
			if _, err := ctl.Suggest(); err != nil {
				t.Fatal(err)
			}
			if err := ctl.Observe(controller.Result{Reward: r}); err != nil {
				t.Fatalf("reward %g at iteration %d after a refused %g: %v", r, it, first, err)
			}
		}
		for _, o := range f.obs {
			if math.IsInf(o.Objective, 0) || math.Abs(o.Objective) > 2*controller.MaxReward {
				t.Errorf("objective %g", o.Objective)
			}
		}
	}
}

// TestPrevious: Previous is the last observed reward, in both observation
// modes, survives Snapshot and Restore, and a refused Observe leaves it
// unchanged.
func TestPrevious(t *testing.T) {
	for _, perInterval := range []bool{false, true} {
		f := &fakeMethod{}
		opts := controller.Options{Interval: 2, Seed: 1, PerInterval: perInterval}
		ctl, err := controller.New("fake", f, twoParams(t), opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := ctl.Previous(); ok {
			t.Fatalf("perInterval %v: Previous before the first Observe has a value", perInterval)
		}
		for it, r := range []float64{1.5, -2, 4} {
			if _, err := ctl.Suggest(); err != nil {
				t.Fatal(err)
			}
			if err := ctl.Observe(controller.Result{Reward: r}); err != nil {
				t.Fatal(err)
			}
			if got, ok := ctl.Previous(); !ok || got != r {
				t.Fatalf("perInterval %v, iteration %d: Previous = %v, %v; want %v", perInterval, it, got, ok, r)
			}
		}
		snap, err := ctl.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		back, err := controller.New("fake", &fakeMethod{}, twoParams(t), opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := back.Restore(snap); err != nil {
			t.Fatal(err)
		}
		if got, ok := back.Previous(); !ok || got != 4 {
			t.Fatalf("perInterval %v: restored Previous = %v, %v; want 4", perInterval, got, ok)
		}
		if _, err := back.Suggest(); err != nil {
			t.Fatal(err)
		}
		if err := back.Observe(controller.Result{Reward: math.NaN()}); err == nil {
			t.Fatalf("perInterval %v: a NaN reward was accepted", perInterval)
		}
		if got, _ := back.Previous(); got != 4 {
			t.Fatalf("perInterval %v: a refused Observe changed Previous to %v", perInterval, got)
		}
	}
}
