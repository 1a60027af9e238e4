package ppo

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/envs"
	_ "github.com/hyperctl/hyperctl/envs/all"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// trace is what a trainer's iterations and evaluations produced, compared
// bit for bit.
type trace struct {
	rewards, returns, evals []float64
	lengths, evalLengths    []int
	losses                  []float64
}

func (a trace) equal(b trace) bool {
	eq := func(x, y []float64) bool {
		return slices.EqualFunc(x, y, func(p, q float64) bool { return math.Float64bits(p) == math.Float64bits(q) })
	}
	return eq(a.rewards, b.rewards) && eq(a.returns, b.returns) && eq(a.evals, b.evals) && eq(a.losses, b.losses) &&
		slices.Equal(a.lengths, b.lengths) && slices.Equal(a.evalLengths, b.evalLengths)
}

// drive runs iterations with the schedule's hyperparameters and evaluates
// after the ones listed in evalAfter.
func drive(t *testing.T, tr *Trainer, from, to int, evalAfter map[int]bool) trace {
	t.Helper()
	ctx := context.Background()
	var out trace
	for it := from; it < to; it++ {
		h := tr.Config().Hyper
		h.BatchSize = 48 + 16*(it%3)                        // a different batch each iteration: episodes straddle boundaries differently
		h.MinibatchSize = min(h.MinibatchSize, h.BatchSize) // Hyper's rule; the same minibatches as the trainer's old clamp
		h.LR = ppoconfig.AnnealedLR(h.LR, it, to)
		st, err := tr.Iterate(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		out.rewards = append(out.rewards, st.Reward)
		out.returns = append(out.returns, st.Returns...)
		out.lengths = append(out.lengths, st.Lengths...)
		out.losses = append(out.losses, st.Update.PolicyLoss, st.Update.ValueLoss)
		if evalAfter[it] {
			es, err := tr.Evaluate(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			out.evals = append(out.evals, es.Returns...)
			out.evalLengths = append(out.evalLengths, es.Lengths...)
		}
	}
	return out
}

// TestSnapshotExactAllEnvs: for each environment, a trainer
// snapshotted in the middle of its training episodes and after an
// evaluation, restored into a newly built trainer, continues bit-identically
// with the uninterrupted one: the same rewards, finished episodes,
// evaluation returns and losses, and the same parameters at the end. Before
// the environments' states were in the snapshot, the resumed trainer
// started fresh episodes and diverged at once.
func TestSnapshotExactAllEnvs(t *testing.T) {
	cfg := ppoconfig.DefaultConfig()
	cfg.Hidden = []int{16}
	cfg.NumEnvs = 2
	cfg.MinibatchSize = 32
	cfg.Epochs = 1
	cfg.Threads = 1
	cfg.EvalEpisodes = 2
	evalAfter := map[int]bool{1: true, 3: true, 5: true}
	for _, name := range []string{"halfcheetah", "bipedalwalker", "pusher", "inverteddoublependulum", "reacher", "ant", "humanoid"} {
		t.Run(name, func(t *testing.T) {
			a := newToyTrainer(t, name, cfg, 11)
			drive(t, a, 0, 3, evalAfter)
			snap, err := a.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			if a.rawObs == nil || a.evalEnv == nil {
				t.Fatal("the snapshot was not taken mid-run with an evaluation environment")
			}
			want := drive(t, a, 3, 6, evalAfter)

			b := newToyTrainer(t, name, cfg, 11)
			if err := b.Restore(snap); err != nil {
				t.Fatal(err)
			}
			got := drive(t, b, 3, 6, evalAfter)
			if !got.equal(want) {
				t.Fatalf("resumed trainer differs from the uninterrupted one:\n got %+v\nwant %+v", got, want)
			}
			if len(want.returns)+len(want.evals) == 0 {
				t.Fatal("nothing finished: the comparison is empty")
			}
			if !slices.Equal(paramsOf(t, a), paramsOf(t, b)) || a.Frames() != b.Frames() || a.Iteration() != b.Iteration() {
				t.Fatal("parameters or counters differ at the end")
			}
			// The snapshot is a function of the state: the two trainers'
			// snapshots are now byte-identical.
			sa, err1 := a.Snapshot()
			sb, err2 := b.Snapshot()
			if err1 != nil || err2 != nil || !slices.Equal(sa, sb) {
				t.Fatalf("final snapshots differ (%v, %v)", err1, err2)
			}
		})
	}
}

// TestSnapshotBeforeFirstIteration: a snapshot of a trainer that has not
// iterated restores to one whose first iteration equals a fresh trainer's.
func TestSnapshotBeforeFirstIteration(t *testing.T) {
	cfg := toyConfig()
	a := newToyTrainer(t, "ppotest-target", cfg, 4)
	snap, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	b := newToyTrainer(t, "ppotest-target", cfg, 4)
	if _, err := b.Iterate(context.Background(), cfg.Hyper); err != nil {
		t.Fatal(err)
	}
	if err := b.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if !drive(t, a, 0, 2, nil).equal(drive(t, b, 0, 2, nil)) {
		t.Fatal("restored unstarted trainer differs from a fresh one")
	}
}

// TestRestoreRefusesEveryCorruption: every single-byte change and every
// truncation of a snapshot is refused with an error wrapping ErrSnapshot,
// and the trainer is unchanged (it then continues like an untouched twin).
func TestRestoreRefusesEveryCorruption(t *testing.T) {
	cfg := toyExactConfig()
	a := newToyTrainer(t, "ppotest-det", cfg, 7)
	drive(t, a, 0, 1, map[int]bool{0: true})
	snap, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	b := newToyTrainer(t, "ppotest-det", cfg, 7)
	if err := b.Restore(snap); err != nil {
		t.Fatal(err)
	}
	step := max(1, len(snap)/997)
	tried := 0
	for i := 0; i < len(snap); i += step {
		bad := slices.Clone(snap)
		bad[i] ^= 0x5a
		if err := b.Restore(bad); err == nil {
			t.Fatalf("byte %d changed: accepted", i)
		}
		if err := b.Restore(snap[:i]); err == nil {
			t.Fatalf("truncated to %d bytes: accepted", i)
		}
		tried++
	}
	if b.broken != nil || !drive(t, a, 1, 3, nil).equal(drive(t, b, 1, 3, nil)) {
		t.Fatal("refused snapshots changed the trainer")
	}
	t.Logf("%d byte changes and %d truncations of a %d-byte snapshot: all refused", tried, tried, len(snap))
}

// TestSnapshotNeedsStateSaver: an environment that cannot save its state
// makes Snapshot fail with an error naming it (an inexact checkpoint is
// never written).
func TestSnapshotNeedsStateSaver(t *testing.T) {
	envs.MustRegister(envs.Spec{ID: "PPOTestNoState-v0", Name: "ppotest-nostate", Observation: envs.Box{Low: []float64{-1, -1}, High: []float64{1, 1}},
		Action: envs.Box{Low: []float64{-2, -2}, High: []float64{2, 2}}, MaxEpisodeSteps: 10},
		func() (envs.Env, error) { return &noStateEnv{targetEnv{random: true}}, nil })
	tr := newToyTrainer(t, "ppotest-nostate", toyConfig(), 1)
	if _, err := tr.Snapshot(); err == nil || !containsAll(err.Error(), "training environments", "StateSaver") {
		t.Fatalf("snapshot with a stateless env: %v", err)
	}
}

// noStateEnv hides targetEnv's StateSaver methods.
type noStateEnv struct{ e targetEnv }

func (n *noStateEnv) Spec() envs.Spec {
	s, _ := envs.Lookup("ppotest-nostate")
	return s
}
func (n *noStateEnv) Reset(seed int64) ([]float64, error) { return n.e.Reset(seed) }
func (n *noStateEnv) Step(a []float64) (envs.Transition, error) {
	if err := envs.CheckAction(n.Spec(), a); err != nil {
		return envs.Transition{}, err
	}
	return n.e.Step(a)
}
func (n *noStateEnv) Close() error { return n.e.Close() }

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}
