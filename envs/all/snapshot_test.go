package all

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/envs/rng"
)

// The exact-resume tests: for every registered environment, run with random
// actions, snapshot, continue while recording everything; then restore the
// snapshot into a newly made environment (or Vec) and replay the same
// actions: every observation, reward, flag, info value, final observation
// and episode statistic must be bit-identical.

// envCase is one environment with a short time limit so that bounded runs
// cross several episode ends (Reacher keeps its registered 50 steps).
type envCase struct {
	name  string
	limit int
}

var envCases = []envCase{
	{"halfcheetah", 40},
	{"inverteddoublependulum", 40}, // also terminates early under random actions
	{"pusher", 40},
	{"reacher", 50}, // the registered limit
	{"bipedalwalker", 40},
	// Appended, so that the existing corpus seeds keep their index (the
	// fuzz corpora name a case by its index).
	{"hopper", 40},
	{"walker2d", 40},
	{"swimmer", 40},
	{"invertedpendulum", 40},
	{"ant", 40},
	{"humanoid", 40}, // also terminates early (it falls)
}

func TestEveryEnvironmentIsCovered(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range envCases {
		covered[c.name] = true
	}
	for _, s := range envs.List() {
		if !covered[s.Name] {
			t.Errorf("environment %s has no exact-resume case", s.Name)
		}
	}
}

// makeEnv builds the registered environment under a TimeLimit of limit
// steps (a separate instance each call).
func makeEnv(t testing.TB, name string, limit int) envs.Env {
	t.Helper()
	e, err := envs.Make(name)
	if err != nil {
		t.Fatal(err)
	}
	tl, ok := e.(*envs.TimeLimit)
	if !ok {
		t.Fatalf("Make(%s) returned %T, want *envs.TimeLimit", name, e)
	}
	if limit == tl.Spec().MaxEpisodeSteps {
		return tl
	}
	return envs.NewTimeLimit(tl.Unwrap(), limit)
}

// actions returns k uniform random actions within spec's bounds, seeded.
func actions(spec envs.Spec, seed uint64, k int) [][]float64 {
	g := rng.New(seed)
	d := spec.Action.Dim()
	out := make([][]float64, k)
	for i := range out {
		out[i] = make([]float64, d)
		for j := range out[i] {
			out[i][j] = g.Uniform(spec.Action.Low[j], spec.Action.High[j])
		}
	}
	return out
}

// trace records a run as text: every float as its bits, flags, info.
type trace struct {
	b        strings.Builder
	episodes int // episode ends seen
}

func (tr *trace) floats(tag string, xs []float64) {
	tr.b.WriteString(tag)
	for _, x := range xs {
		fmt.Fprintf(&tr.b, " %016x", math.Float64bits(x))
	}
	tr.b.WriteByte('\n')
}

func (tr *trace) step(t envs.Transition) {
	tr.floats("obs", t.Obs)
	tr.floats("reward", []float64{t.Reward})
	fmt.Fprintf(&tr.b, "term %v trunc %v info %v\n", t.Terminated, t.Truncated, t.Info.Keys)
	tr.floats("info", t.Info.Values)
	if t.Terminated || t.Truncated {
		tr.episodes++
	}
}

// run steps e with acts, resetting with NoSeed when an episode ends (as a
// Vec's autoreset does), and records everything in tr (if not nil). It
// returns whether the last step ended an episode (so the env was reset).
func run(t testing.TB, e envs.Env, acts [][]float64, tr *trace) bool {
	t.Helper()
	ended := false
	for i, a := range acts {
		st, err := e.Step(a)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if tr != nil {
			tr.step(st)
		}
		ended = st.Terminated || st.Truncated
		if ended {
			o, err := e.Reset(envs.NoSeed)
			if err != nil {
				t.Fatalf("reset after step %d: %v", i, err)
			}
			if tr != nil {
				tr.floats("reset", o)
			}
		}
	}
	return ended
}

// firstDiff returns the first differing line of two traces.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n  want %s\n  got  %s", i, la[i], lb[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(la), len(lb))
}

// TestEnvSnapshotExactResume: per environment and snapshot point (right
// after the first Reset, mid-episode, right after an autoreset), restoring
// into a fresh environment and into one that ran another trajectory
// continues bit-identically, across further episode ends.
func TestEnvSnapshotExactResume(t *testing.T) {
	const after = 130 // steps recorded after the snapshot
	for _, c := range envCases {
		t.Run(c.name, func(t *testing.T) {
			spec := makeEnv(t, c.name, c.limit).Spec()
			acts := actions(spec, 7, 400)
			// Snapshot points: 0 = right after Reset; a mid-episode step;
			// the first step that ended an episode (autoreset just done).
			orig := makeEnv(t, c.name, c.limit)
			defer orig.Close()
			if _, err := orig.Reset(3); err != nil {
				t.Fatal(err)
			}
			autoreset := -1
			for i, a := range acts[:200] {
				st, err := orig.Step(a)
				if err != nil {
					t.Fatal(err)
				}
				if st.Terminated || st.Truncated {
					if autoreset < 0 && i+1 > c.limit/2 {
						autoreset = i + 1
					}
					if _, err := orig.Reset(envs.NoSeed); err != nil {
						t.Fatal(err)
					}
				}
			}
			if autoreset < 0 {
				t.Fatal("no episode ended in 200 steps")
			}
			points := []struct {
				name string
				n    int
			}{{"after reset", 0}, {"mid-episode", c.limit + c.limit/2 + 3}, {"after autoreset", autoreset}}
			for _, p := range points {
				t.Run(p.name, func(t *testing.T) {
					a := makeEnv(t, c.name, c.limit)
					defer a.Close()
					if _, err := a.Reset(3); err != nil {
						t.Fatal(err)
					}
					if ended := run(t, a, acts[:p.n], nil); p.name == "after autoreset" && !ended {
						t.Fatalf("step %d did not end an episode", p.n)
					}
					snap, err := envs.Snapshot(a)
					if err != nil {
						t.Fatal(err)
					}
					var want trace
					run(t, a, acts[p.n:p.n+after], &want)
					if want.episodes == 0 {
						t.Fatalf("no episode ended in the %d steps after the snapshot", after)
					}
					for _, target := range []string{"fresh", "used"} {
						b := makeEnv(t, c.name, c.limit)
						defer b.Close()
						if target == "used" {
							// Another trajectory first: its mjData arrays and
							// Box2D world history differ from a fresh one's.
							if _, err := b.Reset(11); err != nil {
								t.Fatal(err)
							}
							run(t, b, actions(spec, 99, 97), nil)
						}
						if err := envs.Restore(b, snap); err != nil {
							t.Fatalf("%s: restore: %v", target, err)
						}
						var got trace
						run(t, b, acts[p.n:p.n+after], &got)
						if got.b.String() != want.b.String() {
							t.Fatalf("%s target: continuation differs from the uninterrupted run at %s", target, firstDiff(want.b.String(), got.b.String()))
						}
					}
					t.Logf("snapshot at step %d: %d bytes, %d episode ends in the %d steps after", p.n, len(snap), want.episodes, after)
				})
			}
		})
	}
}

// TestEnvSnapshotBeforeReset: a snapshot of a never-reset environment
// restores to one whose first Reset(seed) and steps match a fresh one's; a
// snapshot restored twice gives the same continuation twice.
func TestEnvSnapshotBeforeReset(t *testing.T) {
	for _, c := range envCases {
		t.Run(c.name, func(t *testing.T) {
			a := makeEnv(t, c.name, c.limit)
			defer a.Close()
			snap, err := envs.Snapshot(a)
			if err != nil {
				t.Fatal(err)
			}
			acts := actions(a.Spec(), 5, 60)
			traceOf := func(e envs.Env) string {
				var tr trace
				o, err := e.Reset(envs.NoSeed)
				if err != nil {
					t.Fatal(err)
				}
				tr.floats("reset", o)
				run(t, e, acts, &tr)
				return tr.b.String()
			}
			want := traceOf(a)
			b := makeEnv(t, c.name, c.limit)
			defer b.Close()
			if _, err := b.Reset(8); err != nil {
				t.Fatal(err)
			}
			run(t, b, acts[:45], nil)
			if _, err := b.Step(acts[0]); err != nil {
				t.Fatal(err)
			}
			for k := 0; k < 2; k++ {
				if err := envs.Restore(b, snap); err != nil {
					t.Fatal(err)
				}
				if got := traceOf(b); got != want {
					t.Fatalf("restore %d of a never-reset snapshot: %s", k, firstDiff(want, got))
				}
			}
			// Stepping a restored never-reset environment is the same error.
			if err := envs.Restore(b, snap); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Step(acts[0]); err == nil {
				t.Fatal("Step after restoring a never-reset snapshot: want an error (Reset first)")
			}
		})
	}
}

// vecTrace records a Vec run: every output of every Step.
func vecTrace(t testing.TB, v *envs.Vec, acts [][]float64, tr *trace) {
	t.Helper()
	for i, a := range acts {
		vs, err := v.Step(a)
		if err != nil {
			t.Fatalf("vec step %d: %v", i, err)
		}
		if tr == nil {
			continue
		}
		tr.floats("obs", vs.Obs)
		tr.floats("final", vs.FinalObs)
		tr.floats("rewards", vs.Rewards)
		fmt.Fprintf(&tr.b, "term %v trunc %v\n", vs.Terminated, vs.Truncated)
		for _, ep := range vs.Episodes {
			fmt.Fprintf(&tr.b, "episode env %d len %d term %v trunc %v return %016x\n",
				ep.Env, ep.Length, ep.Terminated, ep.Truncated, math.Float64bits(ep.Return))
			tr.episodes++
		}
	}
}

func newVec(t testing.TB, c envCase, n, workers int, seed int64) *envs.Vec {
	t.Helper()
	list := make([]envs.Env, n)
	for i := range list {
		list[i] = makeEnv(t, c.name, c.limit)
	}
	v, err := envs.NewVecFrom(list, seed, envs.WithWorkers(workers))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func vecActions(spec envs.Spec, n int, seed uint64, k int) [][]float64 {
	rows := actions(spec, seed, k*n)
	out := make([][]float64, k)
	for i := range out {
		for e := 0; e < n; e++ {
			out[i] = append(out[i], rows[i*n+e]...)
		}
	}
	return out
}

// TestVecSnapshotExactResume: a Vec of 3 copies stepped by 3 workers is
// snapshotted mid-run (after autoresets) and restored into a new Vec with 1
// worker and into one with 2 workers that ran another trajectory; both
// continue bit-identically, episode statistics included. The current
// observations are restored too (Obs).
func TestVecSnapshotExactResume(t *testing.T) {
	const n, before, after = 3, 67, 90
	for _, c := range envCases {
		t.Run(c.name, func(t *testing.T) {
			a := newVec(t, c, n, n, 21)
			defer a.Close()
			spec := a.Spec()
			acts := vecActions(spec, n, 4, before+after)
			if _, err := a.Reset(); err != nil {
				t.Fatal(err)
			}
			var pre trace
			vecTrace(t, a, acts[:before], &pre)
			if pre.episodes == 0 {
				t.Fatalf("no episode ended in the %d steps before the snapshot", before)
			}
			snap, err := a.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			obs := append([]float64(nil), a.Obs()...)
			var want trace
			vecTrace(t, a, acts[before:], &want)
			if want.episodes == 0 {
				t.Fatalf("no episode ended in the %d steps after the snapshot", after)
			}
			for _, target := range []struct {
				name    string
				workers int
				used    bool
			}{{"fresh, 1 worker", 1, false}, {"used, 2 workers", 2, true}} {
				b := newVec(t, c, n, target.workers, 500)
				defer b.Close()
				if target.used {
					if _, err := b.Reset(); err != nil {
						t.Fatal(err)
					}
					vecTrace(t, b, vecActions(spec, n, 77, 55), nil)
				}
				if err := b.Restore(snap); err != nil {
					t.Fatalf("%s: %v", target.name, err)
				}
				for k, x := range b.Obs() {
					if math.Float64bits(x) != math.Float64bits(obs[k]) {
						t.Fatalf("%s: restored Obs()[%d] = %v, want %v", target.name, k, x, obs[k])
					}
				}
				var got trace
				vecTrace(t, b, acts[before:], &got)
				if got.b.String() != want.b.String() {
					t.Fatalf("%s: continuation differs at %s", target.name, firstDiff(want.b.String(), got.b.String()))
				}
			}
			t.Logf("%d copies: snapshot %d bytes; %d episode ends before, %d after", n, len(snap), pre.episodes, want.episodes)
		})
	}
}

// TestVecSnapshotBeforeReset: a never-reset Vec restores to one whose
// first Reset uses the snapshot's seed.
func TestVecSnapshotBeforeReset(t *testing.T) {
	c := envCases[0]
	a := newVec(t, c, 2, 2, 40)
	defer a.Close()
	snap, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	b := newVec(t, c, 2, 1, 3)
	defer b.Close()
	if err := b.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Step(make([]float64, 2*a.Spec().Action.Dim())); err == nil {
		t.Fatal("Step on a restored never-reset Vec: want an error")
	}
	oa, err := a.Reset()
	if err != nil {
		t.Fatal(err)
	}
	ob, err := b.Reset()
	if err != nil {
		t.Fatal(err)
	}
	for k := range oa {
		if math.Float64bits(oa[k]) != math.Float64bits(ob[k]) {
			t.Fatalf("first Reset after restore: obs[%d] = %v, want %v (seed 40)", k, ob[k], oa[k])
		}
	}
}

// TestSnapshotMismatch: a snapshot of another environment, another number
// of copies, another kind or time limit is refused with an error naming
// both sides, and leaves the target unchanged.
func TestSnapshotMismatch(t *testing.T) {
	hc := makeEnv(t, "halfcheetah", 40)
	defer hc.Close()
	if _, err := hc.Reset(1); err != nil {
		t.Fatal(err)
	}
	hcSnap, err := envs.Snapshot(hc)
	if err != nil {
		t.Fatal(err)
	}
	re := makeEnv(t, "reacher", 50)
	defer re.Close()
	if _, err := re.Reset(1); err != nil {
		t.Fatal(err)
	}
	v2 := newVec(t, envCases[0], 2, 1, 0)
	defer v2.Close()
	if _, err := v2.Reset(); err != nil {
		t.Fatal(err)
	}
	v2Snap, err := v2.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	v3 := newVec(t, envCases[0], 3, 1, 0)
	defer v3.Close()
	vr := newVec(t, envCases[3], 2, 1, 0)
	defer vr.Close()
	hc60 := makeEnv(t, "halfcheetah", 60)
	defer hc60.Close()

	cases := []struct {
		name    string
		restore func() error
		want    []string
	}{
		{"env into another env", func() error { return envs.Restore(re, hcSnap) }, []string{"HalfCheetah-v4", "Reacher-v4"}},
		{"vec into another vec size", func() error { return v3.Restore(v2Snap) }, []string{"2 copies", "has 3"}},
		{"vec into another env vec", func() error { return vr.Restore(v2Snap) }, []string{"HalfCheetah-v4", "Reacher-v4"}},
		{"env snapshot into a vec", func() error { return v2.Restore(hcSnap) }, []string{"single-environment", "vector-environment"}},
		{"vec snapshot into an env", func() error { return envs.Restore(hc, v2Snap) }, []string{"vector-environment", "single-environment"}},
		{"another time limit", func() error { return envs.Restore(hc60, hcSnap) }, []string{"40", "60"}},
		{"not a snapshot", func() error { return envs.Restore(hc, []byte("hello, this is not a snapshot at all")) }, []string{"not an environment snapshot"}},
		{"empty", func() error { return envs.Restore(hc, nil) }, []string{"0 bytes"}},
	}
	reObs := append([]float64(nil), mustStep(t, makeTwin(t, "reacher", 50, 1)).Obs...)
	for _, c := range cases {
		err := c.restore()
		if err == nil {
			t.Fatalf("%s: want an error", c.name)
		}
		if !errors.Is(err, envs.ErrSnapshot) {
			t.Errorf("%s: %v does not wrap envs.ErrSnapshot", c.name, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", c.name, err, w)
			}
		}
		t.Logf("%s: %v", c.name, err)
	}
	// The refused restores left the Reacher as it was.
	got := mustStep(t, re).Obs
	for k := range got {
		if got[k] != reObs[k] {
			t.Fatalf("the Reacher changed after refused restores: obs[%d] = %v, twin %v", k, got[k], reObs[k])
		}
	}
}

func makeTwin(t testing.TB, name string, limit int, seed int64) envs.Env {
	e := makeEnv(t, name, limit)
	t.Cleanup(func() { e.Close() })
	if _, err := e.Reset(seed); err != nil {
		t.Fatal(err)
	}
	return e
}

func mustStep(t testing.TB, e envs.Env) envs.Transition {
	t.Helper()
	st, err := e.Step(make([]float64, e.Spec().Action.Dim()))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestSnapshotCorruption: every single-byte change and every truncation of
// an environment snapshot and of a Vec snapshot is refused with an error
// (no panic), and a refused restore leaves the target usable and
// unchanged.
func TestSnapshotCorruption(t *testing.T) {
	for _, c := range envCases {
		t.Run(c.name, func(t *testing.T) {
			a := makeEnv(t, c.name, c.limit)
			defer a.Close()
			if _, err := a.Reset(2); err != nil {
				t.Fatal(err)
			}
			run(t, a, actions(a.Spec(), 1, 25), nil)
			snap, err := envs.Snapshot(a)
			if err != nil {
				t.Fatal(err)
			}
			v := newVec(t, c, 2, 2, 9)
			defer v.Close()
			if _, err := v.Reset(); err != nil {
				t.Fatal(err)
			}
			vecTrace(t, v, vecActions(a.Spec(), 2, 3, 12), nil)
			vsnap, err := v.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			b := makeEnv(t, c.name, c.limit)
			defer b.Close()
			if _, err := b.Reset(2); err != nil {
				t.Fatal(err)
			}
			vb := newVec(t, c, 2, 1, 9)
			defer vb.Close()
			if _, err := vb.Reset(); err != nil {
				t.Fatal(err)
			}
			try := func(what string, bad []byte) {
				if err := envs.Restore(b, bad); err == nil {
					t.Fatalf("env snapshot, %s: restored without an error", what)
				}
				if err := vb.Restore(bad); err == nil {
					t.Fatalf("vec snapshot, %s: restored without an error", what)
				}
			}
			for _, s := range []struct {
				name string
				b    []byte
			}{{"env", snap}, {"vec", vsnap}} {
				// Every byte position (strided for long snapshots) with
				// two kinds of change, every truncation length (strided).
				stride := 1 + len(s.b)/3000
				for i := 0; i < len(s.b); i += stride {
					for _, x := range []byte{0x01, 0xff} {
						bad := bytes.Clone(s.b)
						bad[i] ^= x
						try(fmt.Sprintf("%s byte %d ^ %#x", s.name, i, x), bad)
					}
				}
				for n := 0; n < len(s.b); n += stride {
					try(fmt.Sprintf("%s truncated to %d bytes", s.name, n), s.b[:n])
				}
				try(s.name+" with a trailing byte", append(bytes.Clone(s.b), 0))
			}
			// The targets are unchanged and still work: b continues like a
			// twin that was never offered bad bytes.
			twin := makeTwin(t, c.name, c.limit, 2)
			if got, want := mustStep(t, b), mustStep(t, twin); fmt.Sprint(got.Obs) != fmt.Sprint(want.Obs) {
				t.Fatalf("after refused restores the env's step differs from its twin's")
			}
			if err := envs.Restore(b, snap); err != nil {
				t.Fatalf("the intact snapshot is refused after the corrupt ones: %v", err)
			}
			if err := vb.Restore(vsnap); err != nil {
				t.Fatalf("the intact vec snapshot is refused after the corrupt ones: %v", err)
			}
			t.Logf("env snapshot %d bytes, vec snapshot %d bytes", len(snap), len(vsnap))
		})
	}
}

// TestWalkerSnapshotLateInEpisode: BipedalWalker's restore replays the
// episode, so it is tested late in a full-length episode too: snapshot at
// step 1500 of the registered 1600-step limit (walkerStand keeps it up),
// then continue across the truncation and into the next episode.
func TestWalkerSnapshotLateInEpisode(t *testing.T) {
	const at, after = 1500, 220
	a := makeEnv(t, "bipedalwalker", 1600)
	defer a.Close()
	if _, err := a.Reset(0); err != nil {
		t.Fatal(err)
	}
	acts := make([][]float64, at+after)
	for i := range acts {
		acts[i] = walkerStand
	}
	copy(acts[1600:], actions(a.Spec(), 3, len(acts)-1600))
	if run(t, a, acts[:at], nil) {
		t.Fatal("the episode ended before the snapshot")
	}
	snap, err := envs.Snapshot(a)
	if err != nil {
		t.Fatal(err)
	}
	var want trace
	run(t, a, acts[at:], &want)
	if want.episodes == 0 || !strings.Contains(want.b.String(), "trunc true") {
		t.Fatal("the continuation did not cross the time limit")
	}
	b := makeEnv(t, "bipedalwalker", 1600)
	defer b.Close()
	if err := envs.Restore(b, snap); err != nil {
		t.Fatal(err)
	}
	var got trace
	run(t, b, acts[at:], &got)
	if got.b.String() != want.b.String() {
		t.Fatalf("continuation differs at %s", firstDiff(want.b.String(), got.b.String()))
	}
	t.Logf("snapshot at step %d: %d bytes", at, len(snap))
}

// childEnv names the snapshot directory when the test binary runs as the
// child of TestSnapshotAcrossProcesses.
const childEnv = "HYPERCTL_SNAPSHOT_CHILD_DIR"

// TestSnapshotAcrossProcesses: Vec snapshots of every environment, written
// to files, are restored by another process (this test binary run again)
// whose continuation is bit-identical to the writer's.
func TestSnapshotAcrossProcesses(t *testing.T) {
	const n, before, after = 2, 57, 60
	if dir := os.Getenv(childEnv); dir != "" {
		// Child: restore each snapshot into a new Vec and write its trace.
		for _, c := range envCases {
			snap, err := os.ReadFile(filepath.Join(dir, c.name+".snap"))
			if err != nil {
				t.Fatal(err)
			}
			v := newVec(t, c, n, 1, 0)
			if err := v.Restore(snap); err != nil {
				t.Fatal(err)
			}
			var got trace
			vecTrace(t, v, vecActions(v.Spec(), n, 6, before+after)[before:], &got)
			v.Close()
			if err := os.WriteFile(filepath.Join(dir, c.name+".child"), []byte(got.b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	dir := t.TempDir()
	want := map[string]string{}
	for _, c := range envCases {
		v := newVec(t, c, n, 2, 13)
		if _, err := v.Reset(); err != nil {
			t.Fatal(err)
		}
		acts := vecActions(v.Spec(), n, 6, before+after)
		vecTrace(t, v, acts[:before], nil)
		snap, err := v.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.name+".snap"), snap, 0o644); err != nil {
			t.Fatal(err)
		}
		var tr trace
		vecTrace(t, v, acts[before:], &tr)
		want[c.name] = tr.b.String()
		v.Close()
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSnapshotAcrossProcesses$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child process: %v\n%s", err, out)
	}
	for _, c := range envCases {
		got, err := os.ReadFile(filepath.Join(dir, c.name+".child"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want[c.name] {
			t.Fatalf("%s: the other process's continuation differs at %s", c.name, firstDiff(want[c.name], string(got)))
		}
	}
}
