package box2d

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/envs/rng"
)

// The exact-resume tests over every environment, Vec included, are in
// envs/all (snapshot_test.go). The tests here cover the walker's replay:
// that the broad-phase base it records is needed, that a replay which does
// not reproduce the recorded state is refused, and the error paths.

// walkTrace steps w with k random actions from g, resetting (NoSeed) when
// an episode ends or reaches limit steps (*ep counts the episode's steps),
// and returns every observation, reward and flag as bits.
func walkTrace(t *testing.T, w *Walker, g *rng.Generator, k, limit int, ep *int) string {
	t.Helper()
	var b strings.Builder
	a := make([]float64, 4)
	for i := 0; i < k; i++ {
		for j := range a {
			a[j] = g.Uniform(-1, 1)
		}
		tr, err := w.Step(a)
		if err != nil {
			t.Fatal(err)
		}
		*ep++
		for _, x := range append(tr.Obs, tr.Reward) {
			fmt.Fprintf(&b, "%016x ", math.Float64bits(x))
		}
		fmt.Fprintf(&b, "%v\n", tr.Terminated)
		if tr.Terminated || *ep == limit {
			*ep = 0
			if _, err := w.Reset(envs.NoSeed); err != nil {
				t.Fatal(err)
			}
		}
	}
	return b.String()
}

// TestReplayNeedsTheWorldBase: after a few episodes in one world, a replay
// of the current episode in a new world continues exactly only if the
// recorded broad-phase state is put in first; without it (or with only
// part of it) the replay is refused by the check, because the proxy ids,
// hence the contact order, differ.
func TestReplayNeedsTheWorldBase(t *testing.T) {
	w := newWalker(t)
	if _, err := w.Reset(3); err != nil {
		t.Fatal(err)
	}
	g := rng.New(8)
	ep := 0
	walkTrace(t, w, g, 250, 60, &ep) // several resets and a mid-episode stop
	if ep == 0 {
		t.Fatal("the snapshot should fall mid-episode")
	}
	state, err := w.SaveState()
	if err != nil {
		t.Fatal(err)
	}
	want, err := w.check()
	if err != nil {
		t.Fatal(err)
	}
	fresh := newWalker(t).world
	cases := []struct {
		name   string
		edit   func(b *worldBase)
		exact  bool
		reason string
	}{
		{"recorded base", func(*worldBase) {}, true, ""},
		{"new world's base", func(b *worldBase) {
			var nb worldBase
			if err := nb.capture(fresh); err != nil {
				t.Fatal(err)
			}
			*b = nb
		}, false, "all of it"},
		{"new world's free list", func(b *worldBase) {
			var nb worldBase
			if err := nb.capture(fresh); err != nil {
				t.Fatal(err)
			}
			b.nodeCapacity, b.freeList = nb.nodeCapacity, nb.freeList
		}, false, "the tree's free list"},
		{"free list reversed", func(b *worldBase) {
			for i, j := 0, len(b.freeList)-1; i < j; i, j = i+1, j-1 {
				b.freeList[i], b.freeList[j] = b.freeList[j], b.freeList[i]
			}
		}, false, "the free-list order"},
	}
	for _, c := range cases {
		base := w.base
		base.freeList = append([]int64(nil), w.base.freeList...)
		base.moveBuffer = append([]int64(nil), w.base.moveBuffer...)
		c.edit(&base)
		r, err := New()
		if err != nil {
			t.Fatal(err)
		}
		if err := r.replay(&w.resetGen, &base, w.actions); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := r.check()
		if err != nil {
			t.Fatal(err)
		}
		d := want.diff(&got)
		if c.name == "new world's base" {
			// The current episode replays the same observations; what
			// differs is the world the next episodes start from.
			r.ready = true
			gw, gr := *g, *g
			ew, er := ep, ep
			w2 := newWalker(t)
			if err := w2.LoadState(state); err != nil {
				t.Fatal(err)
			}
			if walkTrace(t, r, &gr, 150, 60, &er) == walkTrace(t, w2, &gw, 150, 60, &ew) {
				t.Fatalf("%s: the continuation across the next reset is the same without the base", c.name)
			}
		}
		if c.exact && d != "" {
			t.Fatalf("%s: the replay is not exact: %s", c.name, d)
		}
		if !c.exact && d == "" {
			t.Fatalf("%s: the replay is exact without %s; the base would not need it", c.name, c.reason)
		}
		t.Logf("%s: %q", c.name, d)
	}
	// And through LoadState: the check refuses a replay that is not exact
	// (here: one recorded action changed, the check values left as they
	// were), leaving the walker as it was.
	target := newWalker(t)
	if _, err := target.Reset(5); err != nil {
		t.Fatal(err)
	}
	before, err := target.SaveState()
	if err != nil {
		t.Fatal(err)
	}
	orig := w.actions[0]
	w.actions[0] = -orig + 0.5
	tampered, err := w.SaveState()
	w.actions[0] = orig
	if err != nil {
		t.Fatal(err)
	}
	err = target.LoadState(tampered)
	if err == nil || !strings.Contains(err.Error(), "does not reproduce") {
		t.Fatalf("a state with a changed action: %v, want the replay check to refuse it", err)
	}
	t.Logf("tampered action: %v", err)
	after, err := target.SaveState()
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Fatal("a refused LoadState changed the walker")
	}
	// The genuine state restores and continues exactly.
	if err := target.LoadState(state); err != nil {
		t.Fatal(err)
	}
	gw, gt := *g, *g
	ew, et := ep, ep
	if walkTrace(t, target, &gt, 150, 60, &et) != walkTrace(t, w, &gw, 150, 60, &ew) {
		t.Fatal("the restored walker does not continue exactly")
	}
}

// TestWalkerStateErrors: a closed walker, a broken one and damaged payloads.
func TestWalkerStateErrors(t *testing.T) {
	w := newWalker(t)
	if _, err := w.Reset(1); err != nil {
		t.Fatal(err)
	}
	walkTrace(t, w, rng.New(1), 20, 1000, new(int))
	state, err := w.SaveState()
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(state); n++ {
		if err := newWalker(t).LoadState(state[:n]); err == nil {
			t.Fatalf("a state truncated to %d of %d bytes was accepted", n, len(state))
		}
	}
	// A broken walker (Box2D failure) saves as "not ready": restored, it
	// needs Reset, and its Reset matches the broken one's.
	b := newWalker(t)
	if _, err := b.Reset(2); err != nil {
		t.Fatal(err)
	}
	b.hull.M_linearVelocity.X = math.NaN()
	if _, err := b.Step([]float64{0, 0, 0, 0}); err == nil {
		t.Fatal("NaN hull: want an error")
	}
	bs, err := b.SaveState()
	if err != nil {
		t.Fatal(err)
	}
	r := newWalker(t)
	if err := r.LoadState(bs); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Step([]float64{0, 0, 0, 0}); err == nil {
		t.Fatal("Step on a restored broken walker: want an error until Reset")
	}
	ob, err := b.Reset(envs.NoSeed)
	if err != nil {
		t.Fatal(err)
	}
	or, err := r.Reset(envs.NoSeed)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ob {
		if ob[i] != or[i] {
			t.Fatalf("reset after restoring a broken walker: obs[%d] = %v, want %v", i, or[i], ob[i])
		}
	}
	c := newWalker(t)
	c.Close()
	if _, err := c.SaveState(); !errors.Is(err, envs.ErrClosed) {
		t.Fatalf("SaveState after Close: %v", err)
	}
	if err := c.LoadState(state); !errors.Is(err, envs.ErrClosed) {
		t.Fatalf("LoadState after Close: %v", err)
	}
}
