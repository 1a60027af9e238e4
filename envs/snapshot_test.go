package envs_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/envs/rng"
)

// The exact-resume tests over the real environments are in envs/all; these
// cover the envelope, TimeLimit and the Vec layer's error paths with the
// toy counter environment.

// savingCounter is a counterEnv with a StateSaver: its generator, start and
// step count. failLoad makes LoadState fail (to test partial restores).
type savingCounter struct {
	*counterEnv
	failLoad bool
}

func (e *savingCounter) SaveState() ([]byte, error) {
	if e.g == nil {
		return []byte{0}, nil
	}
	g, err := e.g.MarshalBinary()
	if err != nil {
		return nil, err
	}
	b := append([]byte{1}, g...)
	b = binary.LittleEndian.AppendUint64(b, uint64(e.start))
	return binary.LittleEndian.AppendUint64(b, uint64(e.t)), nil
}

func (e *savingCounter) LoadState(b []byte) error {
	if e.failLoad {
		return errors.New("injected load failure")
	}
	if len(b) == 1 && b[0] == 0 {
		e.g = nil
		return nil
	}
	if len(b) != 1+38+16 || b[0] != 1 {
		return fmt.Errorf("%w: bad counter state", envs.ErrSnapshot)
	}
	g := new(rng.Generator)
	if err := g.UnmarshalBinary(b[1:39]); err != nil {
		return err
	}
	e.g = g
	e.start = float64(binary.LittleEndian.Uint64(b[39:]))
	e.t = int(binary.LittleEndian.Uint64(b[47:]))
	e.obs[0], e.obs[1] = e.start, float64(e.t)
	return nil
}

func savingVec(t *testing.T, n, limit int) (*envs.Vec, []*savingCounter) {
	t.Helper()
	var list []envs.Env
	var raw []*savingCounter
	for i := 0; i < n; i++ {
		c := &savingCounter{counterEnv: newCounter(0)}
		raw = append(raw, c)
		list = append(list, envs.NewTimeLimit(c, limit))
	}
	v, err := envs.NewVecFrom(list, 10, envs.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v, raw
}

func stepVec(t *testing.T, v *envs.Vec, k int) string {
	t.Helper()
	var b strings.Builder
	a := make([]float64, v.NumEnvs())
	for i := 0; i < k; i++ {
		for j := range a {
			a[j] = float64(i + j)
		}
		vs, err := v.Step(a)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%v %v %v %v %v %v\n", vs.Obs, vs.FinalObs, vs.Rewards, vs.Terminated, vs.Truncated, vs.Episodes)
	}
	return b.String()
}

// TestVecSnapshotLayer: the vector layer (observations, running episode
// statistics, autoreset, time limits) continues exactly after a restore
// into a new Vec.
func TestVecSnapshotLayer(t *testing.T) {
	a, _ := savingVec(t, 3, 4)
	if _, err := a.Reset(); err != nil {
		t.Fatal(err)
	}
	stepVec(t, a, 6)
	snap, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	want := stepVec(t, a, 9)
	b, _ := savingVec(t, 3, 4)
	if err := b.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if got := stepVec(t, b, 9); got != want {
		t.Fatalf("continuation differs:\n got %s\nwant %s", got, want)
	}
}

// TestVecSnapshotErrors: closed, failed, non-saving and partially failing
// Vecs.
func TestVecSnapshotErrors(t *testing.T) {
	a, _ := savingVec(t, 2, 4)
	if _, err := a.Reset(); err != nil {
		t.Fatal(err)
	}
	snap, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}

	// A Vec whose Step failed cannot be snapshotted until Reset.
	f, raw := savingVec(t, 2, 4)
	if _, err := f.Reset(); err != nil {
		t.Fatal(err)
	}
	raw[1].nanAt = 1
	if _, err := f.Step([]float64{0, 0}); err == nil {
		t.Fatal("want the NaN step to fail")
	}
	if _, err := f.Snapshot(); err == nil || !strings.Contains(err.Error(), "call Reset first") {
		t.Fatalf("Snapshot after a failed Step: %v", err)
	}
	// Restoring re-arms it.
	if err := f.Restore(snap); err != nil {
		t.Fatal(err)
	}
	raw[1].nanAt = 0
	if _, err := f.Step([]float64{0, 0}); err != nil {
		t.Fatalf("Step after restoring a failed Vec: %v", err)
	}

	// A copy failing to load after others did: named, and the Vec needs
	// Reset.
	p, praw := savingVec(t, 2, 4)
	praw[1].failLoad = true
	err = p.Restore(snap)
	if err == nil || !strings.Contains(err.Error(), "env 1") || !strings.Contains(err.Error(), "needs Reset") {
		t.Fatalf("partial restore: %v", err)
	}
	if _, err := p.Step([]float64{0, 0}); err == nil {
		t.Fatal("Step after a partial restore: want an error until Reset")
	}

	// Copies that cannot be saved.
	plain, err := envs.NewVecFrom([]envs.Env{newCounter(0), newCounter(0)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := plain.Snapshot(); err == nil || !strings.Contains(err.Error(), "StateSaver") {
		t.Fatalf("Snapshot of a non-saving Vec: %v", err)
	}
	if err := plain.Restore(snap); err == nil || !strings.Contains(err.Error(), "StateSaver") {
		t.Fatalf("Restore into a non-saving Vec: %v", err)
	}
	if _, err := envs.Snapshot(newCounter(0)); err == nil {
		t.Fatal("Snapshot of a non-saving env: want an error")
	}
	if _, err := envs.Snapshot(envs.NewTimeLimit(newCounter(0), 3)); err == nil {
		t.Fatal("Snapshot of a TimeLimit over a non-saving env: want an error")
	}

	// Closed.
	c, _ := savingVec(t, 2, 4)
	c.Close()
	if _, err := c.Snapshot(); !errors.Is(err, envs.ErrClosed) {
		t.Fatalf("Snapshot after Close: %v", err)
	}
	if err := c.Restore(snap); !errors.Is(err, envs.ErrClosed) {
		t.Fatalf("Restore after Close: %v", err)
	}
}

// TestTimeLimitSnapshot: the step counter is held, so truncation comes at
// the same step after a restore.
func TestTimeLimitSnapshot(t *testing.T) {
	a := envs.NewTimeLimit(&savingCounter{counterEnv: newCounter(0)}, 5)
	if _, err := a.Reset(1); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := a.Step([]float64{0}); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := envs.Snapshot(a)
	if err != nil {
		t.Fatal(err)
	}
	b := envs.NewTimeLimit(&savingCounter{counterEnv: newCounter(0)}, 5)
	if err := envs.Restore(b, snap); err != nil {
		t.Fatal(err)
	}
	if b.Steps() != 3 {
		t.Fatalf("restored step counter %d, want 3", b.Steps())
	}
	for i := 4; i <= 5; i++ {
		tr, err := b.Step([]float64{0})
		if err != nil {
			t.Fatal(err)
		}
		if tr.Truncated != (i == 5) {
			t.Fatalf("step %d: truncated %v", i, tr.Truncated)
		}
	}
}
