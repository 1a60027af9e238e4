package policy_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/hyperctl/hyperctl/internal/ground/statecodec"
	"github.com/hyperctl/hyperctl/ppo/policy"
	"github.com/hyperctl/hyperctl/ppo/policy/policytest"
)

func at(it int) *policy.Policy {
	p := policytest.Random(uint64(it), "Reacher-v4", 10, 2, []int{8}, "tanh")
	p.Meta.Iteration = it
	return p
}

func bestOf(t *testing.T, dir string) (int, float64) {
	t.Helper()
	p, err := policy.Load(dir, policy.Best)
	if err != nil {
		t.Fatal(err)
	}
	return p.Meta.Iteration, *p.Meta.EvalReturn
}

func TestKeeperBestAndFinal(t *testing.T) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "checkpoint")
	k, err := policy.OpenKeeper(dir, ck, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct {
		it      int
		ret     float64
		improve bool
	}{{10, 5, true}, {20, 3, false}, {30, math.NaN(), false}, {40, 7, true}, {50, 7, false}} {
		got, err := k.Evaluated(at(e.it), e.ret)
		if err != nil {
			t.Fatal(err)
		}
		if got != e.improve {
			t.Fatalf("iteration %d return %v: improved = %v, want %v", e.it, e.ret, got, e.improve)
		}
		f, err := policy.Load(dir, policy.Final)
		if err != nil || f.Meta.Iteration != e.it {
			t.Fatalf("final after iteration %d: %v, %v", e.it, f, err)
		}
		if e.it == 20 {
			if err := k.Checkpoint(ck); err != nil { // checkpoint at 20: best is iteration 10
				t.Fatal(err)
			}
		}
	}
	if it, r := bestOf(t, dir); it != 40 || r != 7 {
		t.Fatalf("best = iteration %d return %v, want 40 and 7", it, r)
	}

	// Killed after 50, resumed from the checkpoint at 20: best goes back
	// to iteration 10's.
	k2, err := policy.OpenKeeper(dir, ck, 20)
	if err != nil {
		t.Fatal(err)
	}
	if it, r := bestOf(t, dir); it != 10 || r != 5 {
		t.Fatalf("best after resuming at 20 = iteration %d return %v, want 10 and 5", it, r)
	}
	if r, ok := k2.BestReturn(); !ok || r != 5 {
		t.Fatalf("BestReturn = %v %v", r, ok)
	}
	if imp, _ := k2.Evaluated(at(30), 6); !imp {
		t.Fatal("6 did not beat the restored 5")
	}

	// Resumed from a start with no checkpoint: the later best is removed.
	k3, err := policy.OpenKeeper(dir, filepath.Join(dir, "none"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if policy.Exists(dir, policy.Best) {
		t.Fatal("a best from after the resume point was kept")
	}
	if _, ok := k3.BestReturn(); ok {
		t.Fatal("BestReturn reports a removed best")
	}
}

// TestKeeperBoundary: a checkpoint written after iteration index 19 (20
// completed, resumedAt = 20) covers the best of iteration 19; one of
// iteration 20 is later and is removed on resume; version 1 sidecars,
// which counted iterations completed, read in the one numbering.
func TestKeeperBoundary(t *testing.T) {
	for _, tc := range []struct {
		it   int
		kept bool
	}{{19, true}, {20, false}} {
		dir := t.TempDir()
		k, err := policy.OpenKeeper(dir, filepath.Join(dir, "checkpoint"), 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := k.Evaluated(at(tc.it), 1); err != nil {
			t.Fatal(err)
		}
		if _, err := policy.OpenKeeper(dir, filepath.Join(dir, "none"), 20); err != nil {
			t.Fatal(err)
		}
		if policy.Exists(dir, policy.Best) != tc.kept {
			t.Fatalf("best of iteration %d after resuming at 20: kept %v, want %v", tc.it, !tc.kept, tc.kept)
		}
	}
	dir := t.TempDir()
	if err := at(7).Save(dir, policy.Best); err != nil {
		t.Fatal(err)
	}
	_, meta := policy.Paths(dir, policy.Best)
	b, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	body, _, err := statecodec.OpenJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	// As a version 1 sidecar was written: unsealed.
	body = bytes.Replace(body, []byte(`"format_version": 3`), []byte(`"format_version": 1`), 1)
	if err := os.WriteFile(meta, append(body, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := policy.Load(dir, policy.Best); err != nil || p.Meta.Iteration != 6 {
		t.Fatalf("version 1 sidecar: %v, %v", p, err)
	}
}

// TestKeeperTornBest: a kill between the two files of a Best's save leaves
// the new weights beside the old sidecar; resuming treats that Best as one
// from after the checkpoint: the checkpoint's copy comes back, or, with
// none, the Best is removed.
func TestKeeperTornBest(t *testing.T) {
	for _, tc := range []struct {
		name     string
		withCopy bool
	}{{"checkpoint copy", true}, {"no copy", false}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ck := filepath.Join(dir, "checkpoint")
			k, err := policy.OpenKeeper(dir, ck, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := k.Evaluated(at(10), 5); err != nil {
				t.Fatal(err)
			}
			if tc.withCopy {
				if err := k.Checkpoint(ck); err != nil { // checkpoint at 20
					t.Fatal(err)
				}
			}
			// The save of iteration 40's Best, killed after its weights.
			other := t.TempDir()
			if err := at(40).Save(other, policy.Best); err != nil {
				t.Fatal(err)
			}
			src, _ := policy.Paths(other, policy.Best)
			dst, _ := policy.Paths(dir, policy.Best)
			b, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := policy.Load(dir, policy.Best); !errors.Is(err, policy.ErrTorn) {
				t.Fatalf("the set-up pair is not torn: %v", err)
			}
			k2, err := policy.OpenKeeper(dir, ck, 20)
			if err != nil {
				t.Fatalf("resume over a torn Best: %v", err)
			}
			if !tc.withCopy {
				if policy.Exists(dir, policy.Best) {
					t.Fatal("a torn Best was kept without a checkpoint copy")
				}
				if _, ok := k2.BestReturn(); ok {
					t.Fatal("BestReturn reports a removed best")
				}
				return
			}
			if it, r := bestOf(t, dir); it != 10 || r != 5 {
				t.Fatalf("best after resuming = iteration %d return %v, want the checkpoint's 10 and 5", it, r)
			}
		})
	}
}
