package envs_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/envs/rng"
)

// counterEnv is a deterministic toy environment for the Vec tests.
// Observation: [start, t], where start = Integers(0, 1000) is drawn from the
// env's generator at each reset and t counts the episode's steps.
// Reward: action[0] + t. It terminates when t reaches termAt (0: never).
// Injected faults: action[0] == failAction makes Step fail (state unchanged),
// t == nanAt makes Step return a NaN observation, t == panicAt panics.
type counterEnv struct {
	spec    envs.Spec
	termAt  int
	nanAt   int
	panicAt int
	work    int // extra arithmetic per step, for the parallel benchmark

	g      *rng.Generator
	start  float64
	t      int
	obs    []float64
	closed int
	sink   float64
}

const failAction = -999

var errToy = errors.New("toy failure")

func counterSpec(maxSteps int) envs.Spec {
	return envs.Spec{
		ID: "Counter-v0", Name: "counter",
		Observation:     envs.Box{Low: []float64{0, 0}, High: []float64{1000, 1e9}},
		Action:          envs.Box{Low: []float64{-1e9}, High: []float64{1e9}},
		MaxEpisodeSteps: maxSteps,
	}
}

func newCounter(termAt int) *counterEnv {
	return &counterEnv{spec: counterSpec(0), termAt: termAt, obs: make([]float64, 2)}
}

func (e *counterEnv) Spec() envs.Spec { return e.spec }

func (e *counterEnv) Reset(seed int64) ([]float64, error) {
	if e.closed > 0 {
		return nil, envs.ErrClosed
	}
	if seed >= 0 {
		e.g = rng.New(uint64(seed))
	} else if e.g == nil {
		e.g = rng.New(0)
	}
	e.start = float64(e.g.Integers(0, 1000))
	e.t = 0
	e.obs[0], e.obs[1] = e.start, 0
	return e.obs, nil
}

func (e *counterEnv) Step(action []float64) (envs.Transition, error) {
	if e.closed > 0 {
		return envs.Transition{}, envs.ErrClosed
	}
	if err := envs.CheckAction(e.spec, action); err != nil {
		return envs.Transition{}, err
	}
	if action[0] == failAction {
		return envs.Transition{}, errToy
	}
	e.t++
	if e.t == e.panicAt {
		panic("toy panic")
	}
	for k := 0; k < e.work; k++ {
		e.sink += math.Sqrt(float64(k) + e.sink*1e-9)
	}
	e.obs[0], e.obs[1] = e.start, float64(e.t)
	if e.t == e.nanAt {
		e.obs[1] = math.NaN()
	}
	return envs.Transition{
		Obs:        e.obs,
		Reward:     action[0] + float64(e.t),
		Terminated: e.termAt > 0 && e.t >= e.termAt,
	}, nil
}

func (e *counterEnv) Close() error {
	e.closed++
	if e.closed > 1 {
		return envs.ErrClosed
	}
	return nil
}

// starts returns the first k episode start values of a counter env seeded
// with seed (what its successive resets draw).
func starts(seed int64, k int) []float64 {
	g := rng.New(uint64(seed))
	out := make([]float64, k)
	for i := range out {
		out[i] = float64(g.Integers(0, 1000))
	}
	return out
}

func row(x []float64, i, dim int) []float64 { return x[i*dim : (i+1)*dim] }

func TestVecAutoresetFinalObsEpisodes(t *testing.T) {
	// env 0 terminates at t=3; env 1 is truncated by its TimeLimit at t=4;
	// env 2 terminates and is truncated at t=5.
	e0, e1, e2 := newCounter(3), newCounter(0), newCounter(5)
	list := []envs.Env{e0, envs.NewTimeLimit(e1, 4), envs.NewTimeLimit(e2, 5)}
	const seed = 100
	v, err := envs.NewVecFrom(list, seed, envs.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	obs, err := v.Reset()
	if err != nil {
		t.Fatal(err)
	}
	s0, s1, s2 := starts(seed, 3), starts(seed+1, 3), starts(seed+2, 3)
	if want := []float64{s0[0], 0, s1[0], 0, s2[0], 0}; !reflect.DeepEqual(obs, want) {
		t.Fatalf("Reset obs = %v, want %v (env i seeded with seed+i)", obs, want)
	}

	type want struct {
		obs, final, rew []float64
		term, trunc     []bool
		eps             []envs.Episode
	}
	// Actions are 1 for every env, so reward = 1 + t and a k-step episode
	// returns k + k(k+1)/2.
	steps := []want{
		{obs: []float64{s0[0], 1, s1[0], 1, s2[0], 1}, final: []float64{s0[0], 1, s1[0], 1, s2[0], 1},
			rew: []float64{2, 2, 2}, term: []bool{false, false, false}, trunc: []bool{false, false, false}},
		{obs: []float64{s0[0], 2, s1[0], 2, s2[0], 2}, final: []float64{s0[0], 2, s1[0], 2, s2[0], 2},
			rew: []float64{3, 3, 3}, term: []bool{false, false, false}, trunc: []bool{false, false, false}},
		{obs: []float64{s0[1], 0, s1[0], 3, s2[0], 3}, final: []float64{s0[0], 3, s1[0], 3, s2[0], 3},
			rew: []float64{4, 4, 4}, term: []bool{true, false, false}, trunc: []bool{false, false, false},
			eps: []envs.Episode{{Env: 0, Return: 9, Length: 3, Terminated: true}}},
		{obs: []float64{s0[1], 1, s1[1], 0, s2[0], 4}, final: []float64{s0[1], 1, s1[0], 4, s2[0], 4},
			rew: []float64{2, 5, 5}, term: []bool{false, false, false}, trunc: []bool{false, true, false},
			eps: []envs.Episode{{Env: 1, Return: 14, Length: 4, Truncated: true}}},
		{obs: []float64{s0[1], 2, s1[1], 1, s2[1], 0}, final: []float64{s0[1], 2, s1[1], 1, s2[0], 5},
			rew: []float64{3, 2, 6}, term: []bool{false, false, true}, trunc: []bool{false, false, true},
			eps: []envs.Episode{{Env: 2, Return: 20, Length: 5, Terminated: true, Truncated: true}}},
		{obs: []float64{s0[2], 0, s1[1], 2, s2[1], 1}, final: []float64{s0[1], 3, s1[1], 2, s2[1], 1},
			rew: []float64{4, 3, 2}, term: []bool{true, false, false}, trunc: []bool{false, false, false},
			eps: []envs.Episode{{Env: 0, Return: 9, Length: 3, Terminated: true}}},
	}
	for k, w := range steps {
		st, err := v.Step([]float64{1, 1, 1})
		if err != nil {
			t.Fatalf("step %d: %v", k+1, err)
		}
		got := want{obs: st.Obs, final: st.FinalObs, rew: st.Rewards, term: st.Terminated, trunc: st.Truncated, eps: st.Episodes}
		if len(got.eps) == 0 {
			got.eps = nil
		}
		if !reflect.DeepEqual(got, w) {
			t.Fatalf("step %d:\n got %+v\nwant %+v", k+1, got, w)
		}
	}
}

// runVec steps a fresh Vec of n counter envs (varied termination and time
// limits) for the given number of steps with seeded pseudo-random actions and
// returns a transcript of every output. Copy i does i*work extra arithmetic
// per step, so the copies take unequal times and workers claim each other's
// copies.
func runVec(t *testing.T, n, workers int, seed int64, steps int, work int, opts ...envs.VecOption) []string {
	t.Helper()
	list := make([]envs.Env, n)
	for i := range list {
		e := newCounter(3 + i%5)
		e.work = i * work
		list[i] = envs.NewTimeLimit(e, 4+i%3)
	}
	v, err := envs.NewVecFrom(list, seed, append([]envs.VecOption{envs.WithWorkers(workers)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.Workers() != min(workers, n) {
		t.Fatalf("Workers() = %d, want %d", v.Workers(), min(workers, n))
	}
	obs, err := v.Reset()
	if err != nil {
		t.Fatal(err)
	}
	out := []string{fmt.Sprint(obs)}
	g := rng.New(7)
	act := make([]float64, n)
	for k := 0; k < steps; k++ {
		for i := range act {
			act[i] = g.Uniform(-1, 1)
		}
		st, err := v.Step(act)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(st.Obs, st.FinalObs, st.Rewards, st.Terminated, st.Truncated, st.Episodes))
	}
	return out
}

// TestVecParallelEqualsSerial: the transcript does not depend on the number
// of workers, on whether they spin or block between Steps, nor on which
// worker steps which copy (unequal work per copy makes workers claim copies
// from each other's chunks).
func TestVecParallelEqualsSerial(t *testing.T) {
	for _, work := range []int{0, 300} {
		serial := runVec(t, 7, 1, 3, 200, work)
		for _, w := range []int{2, 3, 7, 100} {
			for _, spin := range []time.Duration{envs.DefaultSpin, 0, time.Microsecond, -1} {
				if got := runVec(t, 7, w, 3, 200, work, envs.WithSpin(spin)); !reflect.DeepEqual(got, serial) {
					t.Errorf("work=%d workers=%d spin=%v: transcript differs from serial", work, w, spin)
				}
			}
		}
	}
}

func TestVecDeterminism(t *testing.T) {
	a, b := runVec(t, 5, 2, 42, 30, 0), runVec(t, 5, 2, 42, 30, 0)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed gave different transcripts")
	}
	if c := runVec(t, 5, 2, 43, 30, 0); reflect.DeepEqual(a, c) {
		t.Fatal("seeds 42 and 43 gave identical transcripts")
	}
}

// TestVecLaterResetContinuesStreams: only the first Reset seeds; a second
// Reset draws each env's next start from its own stream.
func TestVecLaterResetContinuesStreams(t *testing.T) {
	v, err := envs.NewVecFrom([]envs.Env{newCounter(0), newCounter(0)}, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for k := 0; k < 2; k++ {
		obs, err := v.Reset()
		if err != nil {
			t.Fatal(err)
		}
		if want := []float64{starts(8, 2)[k], 0, starts(9, 2)[k], 0}; !reflect.DeepEqual(obs, want) {
			t.Fatalf("Reset %d obs = %v, want %v", k+1, obs, want)
		}
	}
}

func TestVecErrors(t *testing.T) {
	// build returns a reset Vec over 4 counter envs; mod may change them and
	// returns the list to run (nil: the counters themselves).
	build := func(t *testing.T, mod func(es []*counterEnv) []envs.Env) (*envs.Vec, []*counterEnv) {
		t.Helper()
		es := []*counterEnv{newCounter(0), newCounter(0), newCounter(0), newCounter(0)}
		var list []envs.Env
		if mod != nil {
			list = mod(es)
		}
		if list == nil {
			for _, e := range es {
				list = append(list, e)
			}
		}
		v, err := envs.NewVecFrom(list, 0, envs.WithWorkers(2))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { v.Close() })
		if _, err := v.Reset(); err != nil {
			t.Fatal(err)
		}
		return v, es
	}
	ones := []float64{1, 1, 1, 1}

	t.Run("bad input leaves state unchanged", func(t *testing.T) {
		v, es := build(t, nil)
		for _, c := range []struct {
			name    string
			actions []float64
			msg     string
		}{
			{"short", []float64{1, 1, 1}, "actions has 3 values, want 4"},
			{"NaN", []float64{1, 1, math.NaN(), 1}, "actions[2] (env 2, action[0]) is NaN"},
			{"Inf", []float64{math.Inf(-1), 1, 1, 1}, "actions[0] (env 0, action[0]) is -Inf"},
		} {
			_, err := v.Step(c.actions)
			if err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.msg)
			}
		}
		for i, e := range es {
			if e.t != 0 {
				t.Errorf("env %d stepped %d times after rejected input", i, e.t)
			}
		}
		if _, err := v.Step(ones); err != nil {
			t.Errorf("Step after rejected input: %v", err)
		}
	})

	faults := []struct {
		name    string
		mod     func(es []*counterEnv) []envs.Env
		actions []float64
		msg     string
		is      error
	}{
		{"env step error", nil, []float64{1, 1, failAction, 1}, "env 2: step: toy failure", errToy},
		{"two env errors", nil, []float64{failAction, 1, 1, failAction},
			"env 0: step: toy failure\nenv 3: step: toy failure", errToy},
		{"NaN observation", func(es []*counterEnv) []envs.Env { es[1].nanAt = 1; return nil }, ones,
			"env 1: step returned observation[1] = NaN", nil},
		{"panic", func(es []*counterEnv) []envs.Env { es[3].panicAt = 1; return nil }, ones,
			"env 3: panic: toy panic", nil},
		{"autoreset error", func(es []*counterEnv) []envs.Env {
			es[2].termAt = 1
			return []envs.Env{es[0], es[1], &failingReset{es[2]}, es[3]}
		}, ones, "env 2: autoreset: reset refused", envs.ErrClosed},
	}
	for _, c := range faults {
		t.Run(c.name, func(t *testing.T) {
			v, _ := build(t, c.mod)
			_, err := v.Step(c.actions)
			if err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("error %v, want it to contain %q", err, c.msg)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("errors.Is(err, %v) = false", c.is)
			}
			if _, err := v.Step(ones); err == nil || !strings.Contains(err.Error(), "call Reset") {
				t.Errorf("Step after a failed Step: error %v, want a request to Reset", err)
			}
		})
	}
}

// failingReset wraps a counter env so that resets after the first fail with
// ErrClosed (to test autoreset error propagation).
type failingReset struct{ *counterEnv }

func (f *failingReset) Reset(seed int64) ([]float64, error) {
	if f.g != nil {
		return nil, fmt.Errorf("reset refused: %w", envs.ErrClosed)
	}
	return f.counterEnv.Reset(seed)
}

func TestVecRecoversAfterReset(t *testing.T) {
	e := newCounter(0)
	v, err := envs.NewVecFrom([]envs.Env{newCounter(0), e}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if _, err := v.Step([]float64{1, 1}); err == nil || !strings.Contains(err.Error(), "call Reset before Step") {
		t.Fatalf("Step before Reset: error %v", err)
	}
	if _, err := v.Reset(); err != nil {
		t.Fatal(err)
	}
	e.nanAt = 2
	if _, err := v.Step([]float64{1, 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Step([]float64{1, 1}); err == nil {
		t.Fatal("NaN observation not reported")
	}
	e.nanAt = 0
	obs, err := v.Reset()
	if err != nil {
		t.Fatal(err)
	}
	if obs[1] != 0 || obs[3] != 0 {
		t.Fatalf("obs after Reset = %v, want t = 0 for both", obs)
	}
	st, err := v.Step([]float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	if st.Rewards[0] != 2 || st.Rewards[1] != 2 {
		t.Errorf("rewards after recovery = %v, want [2 2] (fresh episodes)", st.Rewards)
	}
}

func TestVecClose(t *testing.T) {
	es := []*counterEnv{newCounter(0), newCounter(0), newCounter(0)}
	v, err := envs.NewVecFrom([]envs.Env{es[0], es[1], es[2]}, 0, envs.WithWorkers(3))
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	if _, err := v.Reset(); err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err != nil {
		t.Fatalf("first Close: %v", err)
	}
	if err := v.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	for i, e := range es {
		if e.closed != 1 {
			t.Errorf("env %d closed %d times, want 1", i, e.closed)
		}
	}
	if after := runtime.NumGoroutine(); after > before-2 {
		t.Errorf("goroutines %d before Close, %d after; want the 2 workers gone", before, after)
	}
	if _, err := v.Step([]float64{1, 1, 1}); !errors.Is(err, envs.ErrClosed) {
		t.Errorf("Step after Close: %v, want ErrClosed", err)
	}
	if _, err := v.Reset(); !errors.Is(err, envs.ErrClosed) {
		t.Errorf("Reset after Close: %v, want ErrClosed", err)
	}
}

func TestVecCloseReportsEnvErrors(t *testing.T) {
	e := newCounter(0)
	e.closed = 1 // a second Close of this env fails
	v, err := envs.NewVecFrom([]envs.Env{newCounter(0), e}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err == nil || !strings.Contains(err.Error(), "env 1:") || !errors.Is(err, envs.ErrClosed) {
		t.Fatalf("Close error %v, want env 1's ErrClosed", err)
	}
	if err := v.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestNewVecFromValidation(t *testing.T) {
	wide := newCounter(0)
	wide.spec.Observation = envs.Box{Low: make([]float64, 3), High: make([]float64, 3)}
	cases := []struct {
		name string
		list []envs.Env
		seed int64
		msg  string
	}{
		{"empty", nil, 0, "no environments"},
		{"nil env", []envs.Env{newCounter(0), nil}, 0, "env 1 is nil"},
		{"mismatched sizes", []envs.Env{newCounter(0), wide}, 0, "env 1 (Counter-v0) has observation/action sizes 3/1"},
		{"negative seed", []envs.Env{newCounter(0)}, -1, "seed = -1, want >= 0"},
		{"seed overflow", []envs.Env{newCounter(0), newCounter(0)}, math.MaxInt64, "overflows"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := envs.NewVecFrom(c.list, c.seed)
			if err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("error %v, want it to contain %q", err, c.msg)
			}
		})
	}
}

var registerCounter sync.Once

// counterName registers the counter env (TimeLimit 6, terminating at 4) once.
func counterName(t testing.TB) string {
	registerCounter.Do(func() {
		spec := counterSpec(6)
		spec.ID, spec.Name = "VecTestCounter-v0", "vectestcounter"
		envs.MustRegister(spec, func() (envs.Env, error) {
			e := newCounter(0)
			e.spec = spec
			return e, nil
		})
	})
	return "vectestcounter"
}

func TestNewVecByName(t *testing.T) {
	name := counterName(t)
	v, err := envs.NewVec(name, 3, 20)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.NumEnvs() != 3 || v.Spec().ID != "VecTestCounter-v0" {
		t.Fatalf("NumEnvs %d, Spec %q", v.NumEnvs(), v.Spec().ID)
	}
	obs, err := v.Reset()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if got, want := obs[2*i], starts(20+int64(i), 1)[0]; got != want {
			t.Errorf("env %d start %v, want %v (seeded 20+%d)", i, got, want, i)
		}
	}
	// Make applies the registered TimeLimit (6 steps).
	for k := 1; k <= 6; k++ {
		st, err := v.Step([]float64{0, 0, 0})
		if err != nil {
			t.Fatal(err)
		}
		if k < 6 && len(st.Episodes) != 0 || k == 6 && (len(st.Episodes) != 3 || !st.Truncated[0] || st.Terminated[0]) {
			t.Fatalf("step %d: episodes %+v truncated %v", k, st.Episodes, st.Truncated)
		}
	}
	for _, c := range []struct {
		name string
		n    int
		seed int64
		msg  string
	}{
		{"no-such-env", 2, 0, "unknown environment"},
		{name, 0, 0, "n = 0, want at least 1"},
		{name, 2, -5, "seed = -5"},
	} {
		if _, err := envs.NewVec(c.name, c.n, c.seed); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("NewVec(%q, %d, %d): error %v, want %q", c.name, c.n, c.seed, err, c.msg)
		}
	}
}

func TestVecStepDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	list := make([]envs.Env, 6)
	for i := range list {
		list[i] = envs.NewTimeLimit(newCounter(3+i), 5)
	}
	v, err := envs.NewVecFrom(list, 0, envs.WithWorkers(3))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if _, err := v.Reset(); err != nil {
		t.Fatal(err)
	}
	act := []float64{1, 1, 1, 1, 1, 1}
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := v.Step(act); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Step allocates %.1f times per call, want 0", allocs)
	}
}

// BenchmarkVecStep measures Step on 8 counter envs: "overhead" does almost
// nothing per env step (the Vec's own cost), "work" runs a serial chain of
// 5000 square roots per env step (roughly 50-90 µs on this machine kind, the
// scale of a few MuJoCo steps) so the workers' parallel speedup shows.
// Reports env steps per second.
func BenchmarkVecStep(b *testing.B) {
	for _, c := range []struct {
		name string
		work int
	}{{"overhead", 0}, {"work", 5000}} {
		for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
			b.Run(fmt.Sprintf("%s/workers=%d", c.name, workers), func(b *testing.B) {
				const n = 8
				list := make([]envs.Env, n)
				for i := range list {
					e := newCounter(0)
					e.work = c.work
					list[i] = envs.NewTimeLimit(e, 1000)
				}
				v, err := envs.NewVecFrom(list, 0, envs.WithWorkers(workers))
				if err != nil {
					b.Fatal(err)
				}
				defer v.Close()
				if _, err := v.Reset(); err != nil {
					b.Fatal(err)
				}
				act := make([]float64, n)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := v.Step(act); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "envsteps/s")
			})
		}
	}
}

// TestCapEpisodes: under CapEpisodes(n) Make truncates an episode after
// the fewer of n and the registered limit's steps; the restore function
// brings the cap before it back.
func TestCapEpisodes(t *testing.T) {
	name := counterName(t) // registered limit: 6 steps
	for _, c := range []struct {
		cap, want int
	}{{0, 6}, {-1, 6}, {3, 3}, {6, 6}, {10, 6}, {1, 1}} {
		t.Run(fmt.Sprint(c.cap), func(t *testing.T) {
			restore := envs.CapEpisodes(c.cap)
			defer restore()
			e, err := envs.Make(name)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if _, err := e.Reset(0); err != nil {
				t.Fatal(err)
			}
			steps := 0
			for done := false; !done && steps < 100; {
				tr, err := e.Step([]float64{0})
				if err != nil {
					t.Fatal(err)
				}
				steps++
				done = tr.Truncated || tr.Terminated
			}
			if steps != c.want {
				t.Errorf("CapEpisodes(%d): an episode of %d steps, want %d", c.cap, steps, c.want)
			}
		})
	}
	outer := envs.CapEpisodes(2)
	envs.CapEpisodes(4)()
	e, err := envs.Make(name)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	outer()
	if tl, ok := e.(*envs.TimeLimit); !ok {
		t.Fatalf("Make returned %T, want a *envs.TimeLimit", e)
	} else if _, err := tl.Reset(0); err != nil {
		t.Fatal(err)
	} else if tr, _ := tl.Step([]float64{0}); tr.Truncated {
		t.Fatal("truncated after one step")
	} else if tr, _ := tl.Step([]float64{0}); !tr.Truncated {
		t.Fatal("restoring the inner cap lost the outer one (2 steps)")
	}
}
