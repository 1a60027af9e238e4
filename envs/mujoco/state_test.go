package mujoco

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/envs/rng"
)

// The exact-resume tests over every environment, Vec included, are in
// envs/all (snapshot_test.go). The tests here show which held arrays each
// MuJoCo environment actually needs, i.e. that the resume test has teeth.

// stateTrace steps e with k random actions from g, resetting (NoSeed) when
// an episode terminates or reaches limit steps (*epStep counts the steps of
// the current episode), and returns everything it saw, floats as bits.
func stateTrace(t *testing.T, e mjEnv, g *rng.Generator, k, limit int, epStep *int) string {
	t.Helper()
	var b strings.Builder
	spec := e.Spec()
	a := make([]float64, spec.Action.Dim())
	put := func(tag string, xs ...float64) {
		b.WriteString(tag)
		for _, x := range xs {
			fmt.Fprintf(&b, " %016x", math.Float64bits(x))
		}
		b.WriteByte('\n')
	}
	for i := 0; i < k; i++ {
		for j := range a {
			a[j] = g.Uniform(spec.Action.Low[j], spec.Action.High[j])
		}
		tr, err := e.Step(a)
		if err != nil {
			t.Fatal(err)
		}
		*epStep++
		put("obs", tr.Obs...)
		put("reward", tr.Reward)
		put("info", tr.Info.Values...)
		fmt.Fprintf(&b, "term %v\n", tr.Terminated)
		if tr.Terminated || *epStep == limit {
			*epStep = 0
			o, err := e.Reset(envs.NoSeed)
			if err != nil {
				t.Fatal(err)
			}
			put("reset", o...)
		}
	}
	return b.String()
}

// TestRestoreArraysThatMatter restores a mid-run state into an environment
// that ran another trajectory, leaving out one held mjData array at a time
// (it keeps the target's own values), or calling mj_forward after the
// restore, and reports which of these change the continuation. The full
// restore must be exact; the arrays the package documentation names as
// needed must change it when left out.
//
// The solver warm start only acts on the first substep after the restore,
// and only if constraints are active then and the solver's result depends
// on its starting point, so its loss shows late: HalfCheetah runs a whole
// 1000-step episode here (snapshot at step 500) to show it.
func TestRestoreArraysThatMatter(t *testing.T) {
	type config struct{ before, after, limit int }
	configs := map[string]config{
		"ant":                    {63, 130, 40},
		"halfcheetah":            {500, 400, 1000},
		"humanoid":               {63, 130, 40},
		"inverteddoublependulum": {63, 130, 40},
		"pusher":                 {63, 130, 40},
		"reacher":                {63, 130, 40},
		"hopper":                 {63, 130, 40},
		"walker2d":               {63, 130, 40},
		"swimmer":                {63, 130, 40},
		"invertedpendulum":       {63, 130, 40},
	}
	// needed[env] are the ablations that must change the continuation.
	needed := map[string][]string{
		"ant":                    {"qpos", "qvel", "xpos", "forward"},
		"humanoid":               {"qpos", "qvel", "xipos", "forward"},
		"halfcheetah":            {"qpos", "qvel", "qacc_warmstart"},
		"inverteddoublependulum": {"qpos", "qvel"},
		"pusher":                 {"qpos", "qvel", "xpos", "forward"},
		"reacher":                {"qpos", "qvel", "xpos", "forward"},
		"hopper":                 {"qpos", "qvel"},
		"walker2d":               {"qpos", "qvel"},
		"swimmer":                {"qpos", "qvel"},
		"invertedpendulum":       {"qpos", "qvel"},
	}
	var table []string
	for _, c := range constructors {
		t.Run(c.name, func(t *testing.T) {
			before, after, limit := configs[c.name].before, configs[c.name].after, configs[c.name].limit
			a := newEnv(t, c.name)
			ablations := append([]string{"none", "forward"}, StateArrayNames()...)
			ablations = append(ablations, heldOf(a)...)
			if _, err := a.Reset(3); err != nil {
				t.Fatal(err)
			}
			g := rng.New(5)
			epA := 0
			stateTrace(t, a, g, before, limit, &epA)
			snap, err := a.(envs.StateSaver).SaveState()
			if err != nil {
				t.Fatal(err)
			}
			gAfter := *g
			epSnap := epA
			want := stateTrace(t, a, g, after, limit, &epA)

			var changed []string
			for _, abl := range ablations {
				b := newEnv(t, c.name)
				if _, err := b.Reset(11); err != nil {
					t.Fatal(err)
				}
				epB := 0
				stateTrace(t, b, rng.New(99), 97, limit, &epB)
				var keep []float64
				for _, arr := range b.Data().stateArrays(heldOf(b)) {
					if arr.name == abl {
						keep = append(keep, arr.vals...)
					}
				}
				if err := b.(envs.StateSaver).LoadState(snap); err != nil {
					t.Fatal(err)
				}
				for _, arr := range b.Data().stateArrays(heldOf(b)) {
					if arr.name == abl {
						copy(arr.vals, keep)
					}
				}
				if abl == "forward" {
					if err := b.Data().Forward(); err != nil {
						t.Fatal(err)
					}
				}
				gb := gAfter
				ep := epSnap
				got := stateTrace(t, b, &gb, after, limit, &ep)
				if abl == "none" {
					if got != want {
						t.Fatal("the full restore does not continue exactly")
					}
					continue
				}
				if got != want {
					changed = append(changed, abl)
				}
			}
			table = append(table, fmt.Sprintf("%s: %v", c.name, changed))
			for _, n := range needed[c.name] {
				if !contains(changed, n) {
					t.Errorf("leaving out %q did not change the continuation; the test would not catch its loss", n)
				}
			}
		})
	}
	sort.Strings(table)
	t.Logf("ablations that change the continuation (the restore holds them all):\n  %s", strings.Join(table, "\n  "))
}

// heldOf lists the mjData arrays e's snapshots hold beyond the common ones.
func heldOf(e mjEnv) []string {
	names := e.(interface{ stateArrayNames() []string }).stateArrayNames()
	return names[len(StateArrayNames()):]
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestLoadStateErrors: a state of another environment, a closed
// environment and damaged payloads are errors that leave the state as it
// was.
func TestLoadStateErrors(t *testing.T) {
	hc, re := newEnv(t, "halfcheetah"), newEnv(t, "reacher")
	for _, e := range []mjEnv{hc, re} {
		if _, err := e.Reset(1); err != nil {
			t.Fatal(err)
		}
	}
	hcState, err := hc.(envs.StateSaver).SaveState()
	if err != nil {
		t.Fatal(err)
	}
	reState, err := re.(envs.StateSaver).SaveState()
	if err != nil {
		t.Fatal(err)
	}
	err = re.(envs.StateSaver).LoadState(hcState)
	if err == nil || !errors.Is(err, envs.ErrSnapshot) || !strings.Contains(err.Error(), "HalfCheetah-v4") {
		t.Fatalf("Reacher loading a HalfCheetah state: %v, want an ErrSnapshot naming HalfCheetah-v4", err)
	}
	// Every truncation is refused (the payload has no checksum of its own;
	// envs.Restore's envelope adds it).
	for n := 0; n < len(reState); n++ {
		if err := re.(envs.StateSaver).LoadState(reState[:n]); err == nil {
			t.Fatalf("a state truncated to %d of %d bytes was accepted", n, len(reState))
		}
	}
	after, err := re.(envs.StateSaver).SaveState()
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(reState) {
		t.Fatal("refused loads changed the state")
	}
	closed := newEnv(t, "reacher")
	closed.Close()
	if _, err := closed.(envs.StateSaver).SaveState(); !errors.Is(err, envs.ErrClosed) {
		t.Fatalf("SaveState after Close: %v, want ErrClosed", err)
	}
	if err := closed.(envs.StateSaver).LoadState(reState); !errors.Is(err, envs.ErrClosed) {
		t.Fatalf("LoadState after Close: %v, want ErrClosed", err)
	}
}

// TestRestoreAfterInstability: the instability count and message survive
// a restore, and an environment restored right after an unstable step
// continues exactly.
func TestRestoreAfterInstability(t *testing.T) {
	a, b := newEnv(t, "halfcheetah"), newEnv(t, "halfcheetah")
	if _, err := a.Reset(0); err != nil {
		t.Fatal(err)
	}
	a.Data().Qvel()[0] = math.NaN()
	tr, err := a.Step(make([]float64, 6))
	if err != nil || !tr.Terminated {
		t.Fatalf("NaN step: %v, terminated %v; want a terminated step", err, tr.Terminated)
	}
	snap, err := a.(envs.StateSaver).SaveState()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.(envs.StateSaver).LoadState(snap); err != nil {
		t.Fatal(err)
	}
	na, ea := a.Instabilities()
	nb, eb := b.Instabilities()
	if na != 1 || nb != na || eb == nil || eb.Error() != ea.Error() {
		t.Fatalf("instabilities after restore: %d %v, want %d %v", nb, eb, na, ea)
	}
	ga, gb := rng.New(1), rng.New(1)
	epA, epB := 0, 0
	if got, want := stateTrace(t, b, gb, 30, 20, &epB), stateTrace(t, a, ga, 30, 20, &epA); got != want {
		t.Fatal("continuation after an unstable step differs")
	}
}
