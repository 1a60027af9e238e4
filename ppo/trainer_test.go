package ppo

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

func toyConfig() ppoconfig.Config {
	c := ppoconfig.DefaultConfig()
	c.Hidden = []int{32, 32}
	c.NumEnvs = 4
	c.BatchSize = 512
	c.MinibatchSize = 64
	c.Threads = 1
	return c
}

func newToyTrainer(t *testing.T, env string, cfg ppoconfig.Config, seed int64) *Trainer {
	t.Helper()
	tr, err := New(env, cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// TestTrainingImproves trains on the target-tracking toy environment for 12
// iterations of 512 frames and requires the mean training reward and the
// deterministic evaluation return to rise clearly: the initial policy
// (μ ≈ 0, σ = 1) scores about −1.7 per step, a tracking one up to 1.
func TestTrainingImproves(t *testing.T) {
	cfg := toyConfig()
	cfg.AnnealLR = false
	cfg.LR = 3e-3
	tr := newToyTrainer(t, "ppotest-target", cfg, 1)
	ctx := context.Background()
	ev0, err := tr.Evaluate(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	var first, last IterStats
	for it := 0; it < 12; it++ {
		st, err := tr.Iterate(ctx, cfg.Hyper)
		if err != nil {
			t.Fatal(err)
		}
		if it == 0 {
			first = st
		}
		last = st
		if st.Frames != 512 || st.TotalFrames != int64(512*(it+1)) || st.Iteration != it || st.Update.Rejected {
			t.Fatalf("iteration %d: frames %d total %d index %d rejected %v", it, st.Frames, st.TotalFrames, st.Iteration, st.Update.Rejected)
		}
		// 128 steps per copy: 12 or 13 finished 10-step episodes per copy.
		if len(st.Returns) < 48 || len(st.Returns) > 52 {
			t.Fatalf("iteration %d: %d finished episodes, want 48 to 52", it, len(st.Returns))
		}
	}
	ev1, err := tr.Evaluate(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("reward per step %.3f -> %.3f; episode return %.2f -> %.2f; eval %.2f -> %.2f; KL %.4f clipfrac %.3f ev %.3f",
		first.Reward, last.Reward, mean(first.Returns), mean(last.Returns), ev0.Mean, ev1.Mean, last.Update.ApproxKL, last.Update.ClipFrac, last.Update.ExplainedVar)
	if !(last.Reward > first.Reward+1.0) || !(ev1.Mean > ev0.Mean+5) || !(mean(last.Returns) > mean(first.Returns)+10) {
		t.Fatalf("no clear improvement: reward %.3f -> %.3f, eval %.2f -> %.2f", first.Reward, last.Reward, ev0.Mean, ev1.Mean)
	}
	if ev1.Lengths[0] != 10 || len(ev1.Returns) != 5 {
		t.Fatalf("evaluation episodes %v, want 5 of 10 steps", ev1.Lengths)
	}
}

func paramsOf(t *testing.T, tr *Trainer) []float32 {
	t.Helper()
	th, _, _, err := tr.ln.state()
	if err != nil {
		t.Fatal(err)
	}
	return th
}

// TestCheckpointExactContinuation: a trainer snapshotted after 2 iterations
// and restored into a fresh trainer continues exactly as the original: after
// 2 more iterations θ, Adam's moments, the normalisers, counters and the
// reported rewards are bit-identical. (ppotest-det makes the data equal: its
// episodes are deterministic and end exactly at iteration boundaries.)
func TestCheckpointExactContinuation(t *testing.T) {
	cfg := toyExactConfig()
	ctx := context.Background()
	a := newToyTrainer(t, "ppotest-det", cfg, 7)
	for i := 0; i < 2; i++ {
		if _, err := a.Iterate(ctx, cfg.Hyper); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	b := newToyTrainer(t, "ppotest-det", cfg, 7)
	if err := b.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if b.Iteration() != 2 || b.Frames() != 64 {
		t.Fatalf("restored counters: iteration %d frames %d", b.Iteration(), b.Frames())
	}
	for i := 0; i < 2; i++ {
		c := cfg
		c.LR = ppoconfig.AnnealedLR(cfg.LR, 2+i, 10)
		sa, err := a.Iterate(ctx, c.Hyper)
		if err != nil {
			t.Fatal(err)
		}
		sb, err := b.Iterate(ctx, c.Hyper)
		if err != nil {
			t.Fatal(err)
		}
		if sa.Reward != sb.Reward || sa.Update.PolicyLoss != sb.Update.PolicyLoss || !slices.Equal(sa.Returns, sb.Returns) {
			t.Fatalf("iteration %d differs: reward %v vs %v, policy loss %v vs %v", 2+i, sa.Reward, sb.Reward, sa.Update.PolicyLoss, sb.Update.PolicyLoss)
		}
	}
	ta, ma, va, _ := a.ln.state()
	tb, mb, vb, _ := b.ln.state()
	for i := range ta {
		if math.Float32bits(ta[i]) != math.Float32bits(tb[i]) || math.Float32bits(ma[i]) != math.Float32bits(mb[i]) || math.Float32bits(va[i]) != math.Float32bits(vb[i]) {
			t.Fatalf("parameter %d differs after resuming: θ %v vs %v", i, ta[i], tb[i])
		}
	}
	if a.ln.step != b.ln.step || !slices.Equal(a.obsRMS.Mean, b.obsRMS.Mean) || a.rew.RMS.Var[0] != b.rew.RMS.Var[0] || a.Frames() != b.Frames() {
		t.Fatal("optimiser step, normalisers or counters differ after resuming")
	}
	// Sanity: the continuation is not trivially equal to the snapshot.
	if slices.Equal(ta, paramsOfSnap(t, snap)) {
		t.Fatal("parameters did not change after the snapshot")
	}
}

func paramsOfSnap(t *testing.T, b []byte) []float32 {
	t.Helper()
	tr := newToyTrainer(t, "ppotest-det", toyExactConfig(), 7)
	c, err := tr.decodeSnapshot(b)
	if err != nil {
		t.Fatal(err)
	}
	return c.theta
}

// toyExactConfig is TestCheckpointExactContinuation's configuration.
func toyExactConfig() ppoconfig.Config {
	cfg := toyConfig()
	cfg.NumEnvs = 2
	cfg.BatchSize = 32 // 16 steps per copy = 2 episodes of 8
	cfg.MinibatchSize = 8
	return cfg
}

// TestRestoreRejectsMismatches: a checkpoint of another environment, of
// other networks or a corrupted one is refused and leaves the trainer as it
// was.
func TestRestoreRejectsMismatches(t *testing.T) {
	cfg := toyConfig()
	cfg.BatchSize = 64
	ctx := context.Background()
	a := newToyTrainer(t, "ppotest-target", cfg, 1)
	if _, err := a.Iterate(ctx, cfg.Hyper); err != nil {
		t.Fatal(err)
	}
	before := paramsOf(t, a)
	other := cfg
	other.Hidden = []int{16}
	b := newToyTrainer(t, "ppotest-target", other, 1)
	sb, _ := b.Snapshot()
	c := newToyTrainer(t, "ppotest-det", cfg, 1)
	sc, _ := c.Snapshot()
	d := newToyTrainer(t, "ppotest-target", cfg, 2)
	sd, _ := d.Snapshot()
	for _, tc := range []struct {
		name string
		snap []byte
		want string
	}{
		{"other networks", sb, "hidden"},
		{"other environment", sc, "PPOTestDet-v0"},
		{"other seed", sd, "seed"},
		{"corrupted", []byte("not a checkpoint"), "restore"},
	} {
		if err := a.Restore(tc.snap); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
	if !slices.Equal(before, paramsOf(t, a)) || a.Iteration() != 1 {
		t.Fatal("a refused checkpoint changed the trainer")
	}
	if _, err := a.Iterate(ctx, cfg.Hyper); err != nil {
		t.Fatalf("iterate after refused restores: %v", err)
	}
}

// TestRestoreAcrossThreads: threads is a machine setting; a checkpoint
// restores into a trainer built with another thread count (a run resumed
// with another --threads).
func TestRestoreAcrossThreads(t *testing.T) {
	cfg := toyConfig()
	cfg.BatchSize = 64
	a := newToyTrainer(t, "ppotest-target", cfg, 1)
	if _, err := a.Iterate(context.Background(), cfg.Hyper); err != nil {
		t.Fatal(err)
	}
	snap, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	other := cfg
	other.Threads = 2
	b := newToyTrainer(t, "ppotest-target", other, 1)
	if err := b.Restore(snap); err != nil {
		t.Fatalf("restore with threads 2: %v", err)
	}
	if !slices.Equal(paramsOf(t, a), paramsOf(t, b)) || b.Iteration() != 1 {
		t.Fatal("restored trainer differs")
	}
}

// TestLearningRateChangeReachesUpdate: from one snapshot, an iteration with
// lr 1e-3 moves θ about 10 times as far as one with lr 1e-4 on the same data.
func TestLearningRateChangeReachesUpdate(t *testing.T) {
	cfg := toyConfig()
	cfg.BatchSize = 128
	cfg.Epochs = 1
	ctx := context.Background()
	tr := newToyTrainer(t, "ppotest-target", cfg, 3)
	snap, err := tr.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	theta0 := paramsOf(t, tr)
	var moved []float64
	for _, lr := range []float64{1e-4, 1e-3} {
		if err := tr.Restore(snap); err != nil {
			t.Fatal(err)
		}
		c := cfg
		c.LR = lr
		st, err := tr.Iterate(ctx, c.Hyper)
		if err != nil {
			t.Fatal(err)
		}
		if st.LR != lr {
			t.Fatalf("stats report lr %v, want %v", st.LR, lr)
		}
		var d float64
		for i, v := range paramsOf(t, tr) {
			d += math.Abs(float64(v - theta0[i]))
		}
		moved = append(moved, d)
	}
	if r := moved[1] / moved[0]; r < 7 || r > 13 {
		t.Fatalf("θ moved %.4g (lr 1e-4) and %.4g (lr 1e-3): ratio %.2f, want about 10", moved[0], moved[1], r)
	}
}

// TestIterateValidation: bad hyperparameters are refused by name. (The
// structural settings are no longer Iterate's input: it takes a Hyper.)
func TestIterateValidation(t *testing.T) {
	cfg := toyConfig()
	tr := newToyTrainer(t, "ppotest-target", cfg, 1)
	ctx := context.Background()
	for _, tc := range []struct {
		mut  func(c *ppoconfig.Config)
		want string
	}{
		{func(c *ppoconfig.Config) { c.Clip = math.NaN() }, "ppo.clip"},
		{func(c *ppoconfig.Config) { c.BatchSize = 0 }, "ppo.batch_size"},
	} {
		c := cfg
		c.Hidden = slices.Clone(cfg.Hidden)
		tc.mut(&c)
		if _, err := tr.Iterate(ctx, c.Hyper); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want one naming %s", err, tc.want)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := tr.Iterate(cctx, cfg.Hyper); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
	if tr.Iteration() != 0 {
		t.Fatal("a refused iteration counted")
	}
	if _, err := New("no-such-env", cfg, 0); err == nil || !strings.Contains(err.Error(), "unknown environment") {
		t.Errorf("unknown env: %v", err)
	}
	if _, err := New("ppotest-target", cfg, -1); err == nil || !strings.Contains(err.Error(), "seed") {
		t.Errorf("negative seed: %v", err)
	}
}

// TestPoisonedOptimizerRejectedInTrainer: with a NaN planted in Adam's
// second moment every update would make θ NaN; the trainer rejects each
// one, keeps θ, counts the events and keeps iterating. Restoring a clean
// checkpoint then trains normally again.
func TestPoisonedOptimizerRejectedInTrainer(t *testing.T) {
	cfg := toyConfig()
	cfg.BatchSize = 64
	ctx := context.Background()
	tr := newToyTrainer(t, "ppotest-target", cfg, 4)
	clean, err := tr.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	th, m, v, err := tr.ln.state()
	if err != nil {
		t.Fatal(err)
	}
	v[3] = float32(math.NaN())
	if err := tr.ln.setState(th, m, v, 0); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		st, err := tr.Iterate(ctx, cfg.Hyper)
		if err != nil {
			t.Fatal(err)
		}
		if !st.Update.Rejected || tr.Rejected() != i+1 {
			t.Fatalf("iteration %d: rejected %v (total %d)", i, st.Update.Rejected, tr.Rejected())
		}
		if !slices.Equal(paramsOf(t, tr), th) {
			t.Fatal("θ changed by a rejected update")
		}
	}
	if tr.Iteration() != 2 {
		t.Fatalf("iteration %d, want 2 (rejected updates still count as iterations)", tr.Iteration())
	}
	if err := tr.Restore(clean); err != nil {
		t.Fatal(err)
	}
	st, err := tr.Iterate(ctx, cfg.Hyper)
	if err != nil || st.Update.Rejected || slices.Equal(paramsOf(t, tr), th) {
		t.Fatalf("after restoring a clean checkpoint: %v rejected %v", err, st.Update.Rejected)
	}
}

// TestNoTensorLeak: the live tensor count is the same after many
// iterations, evaluations and snapshot/restore cycles, with batch sizes
// that change every iteration.
func TestNoTensorLeak(t *testing.T) {
	cfg := toyConfig()
	ctx := context.Background()
	tr := newToyTrainer(t, "ppotest-target", cfg, 5)
	base := tr.ln.s.live
	rng := rand.New(rand.NewPCG(9, 9))
	for i := 0; i < 6; i++ {
		c := cfg
		c.BatchSize = 64 + rng.IntN(300)
		c.Clip = 0.1 + 0.4*rng.Float64()
		c.GAELambda = 0.9 + 0.1*rng.Float64()
		c.LR = 1e-5 + 1e-3*rng.Float64()
		st, err := tr.Iterate(ctx, c.Hyper)
		if err != nil {
			t.Fatal(err)
		}
		if want := (c.BatchSize + 3) / 4 * 4; st.Frames != want {
			t.Fatalf("frames %d for batch_size %d, want %d", st.Frames, c.BatchSize, want)
		}
		if _, err := tr.Evaluate(ctx, 1); err != nil {
			t.Fatal(err)
		}
		snap, err := tr.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Restore(snap); err != nil {
			t.Fatal(err)
		}
	}
	if tr.ln.s.live != base {
		t.Fatalf("live tensors %d -> %d", base, tr.ln.s.live)
	}
}

// fixedMethod is a controller.Method that walks through a list of configs.
type fixedMethod struct {
	configs [][]float64
	k       int
	seen    []controller.Observation
}

func (f *fixedMethod) Init(controller.Space, *rand.Rand) error { return nil }
func (f *fixedMethod) Suggest(dst controller.Config) error {
	copy(dst, f.configs[f.k%len(f.configs)])
	f.k++
	return nil
}
func (f *fixedMethod) Observe(o controller.Observation) error {
	f.seen = append(f.seen, o)
	return nil
}
func (f *fixedMethod) MarshalBinary() ([]byte, error) { return []byte{byte(f.k)}, nil }
func (f *fixedMethod) UnmarshalBinary(b []byte) error { f.k = int(b[0]); return nil }

// TestRunWithController: the controller's suggestions reach each iteration
// (batch size and lr here; clip and λ stay at the base config), the lr is
// not annealed while tuned, rewards flow back as the objective, and
// evaluations happen on schedule.
func TestRunWithController(t *testing.T) {
	cfg := toyConfig()
	cfg.Epochs = 2
	space, err := controller.NewSpace(
		controller.Param{Name: "batch_size", Low: 32, High: 400, Integer: true},
		controller.Param{Name: "lr", Low: 1e-5, High: 1e-3},
	)
	if err != nil {
		t.Fatal(err)
	}
	m := &fixedMethod{configs: [][]float64{{100, 1e-4}, {300, 5e-4}}}
	ctl, err := controller.New("fixed-test", m, space, controller.Options{Interval: 2})
	if err != nil {
		t.Fatal(err)
	}
	tr := newToyTrainer(t, "ppotest-target", cfg, 6)
	var reps []Report
	err = Run(context.Background(), tr, ctl, ppoconfig.RunOptions{Iterations: 5, EvalEvery: 2}, func(r Report) error {
		reps = append(reps, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	wantBatch := []int{100, 100, 300, 300, 100}
	wantLR := []float64{1e-4, 1e-4, 5e-4, 5e-4, 1e-4}
	for i, r := range reps {
		if r.Stats.BatchSize != wantBatch[i] || r.Stats.LR != wantLR[i] || r.Stats.Clip != cfg.Clip || r.Stats.GAELambda != cfg.GAELambda {
			t.Errorf("iteration %d ran with batch %d lr %g clip %g λ %g", i, r.Stats.BatchSize, r.Stats.LR, r.Stats.Clip, r.Stats.GAELambda)
		}
		if wantEval := i == 1 || i == 3 || i == 4; (r.Eval != nil) != wantEval {
			t.Errorf("iteration %d: evaluated %v, want %v", i, r.Eval != nil, wantEval)
		}
	}
	if len(m.seen) != 4 || ctl.Iteration() != 5 {
		t.Fatalf("controller saw %d observations, is at iteration %d", len(m.seen), ctl.Iteration())
	}
	if got, want := m.seen[0].Objective, reps[1].Stats.Reward-reps[0].Stats.Reward; math.Abs(got-want) > 1e-12 {
		t.Fatalf("objective %v, want R_1 − R_0 = %v", got, want)
	}
	// Resuming with a controller at another iteration is refused.
	if err := Run(context.Background(), tr, ctl, ppoconfig.RunOptions{Iterations: 7}, nil); err != nil {
		t.Fatal(err)
	}
	tr2 := newToyTrainer(t, "ppotest-target", cfg, 6)
	if err := Run(context.Background(), tr2, ctl, ppoconfig.RunOptions{Iterations: 9}, nil); err == nil || !strings.Contains(err.Error(), "iteration") {
		t.Fatalf("mismatched controller: %v", err)
	}
}

// TestRunFrameBudget: with a frame budget Run stops after the first
// iteration that reaches it (before the iteration cap), evaluates that last
// iteration, anneals lr over the budget's frames, and does nothing when
// resumed at the budget.
func TestRunFrameBudget(t *testing.T) {
	cfg := toyConfig()
	cfg.BatchSize = 100 // 4 copies × 25 steps
	cfg.Epochs = 1
	tr := newToyTrainer(t, "ppotest-target", cfg, 4)
	opts := ppoconfig.RunOptions{Iterations: 10, EvalEvery: 3, Frames: 350}
	var reps []Report
	if err := Run(context.Background(), tr, nil, opts, func(r Report) error {
		reps = append(reps, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(reps) != 4 || tr.Frames() != 400 || tr.Iteration() != 4 {
		t.Fatalf("%d iterations, %d frames; want 4 iterations, 400 frames", len(reps), tr.Frames())
	}
	for i, r := range reps {
		// Linear over the 350 frames, floored at one iteration's share (the
		// last iteration starts at 300 frames: 1 − 300/350 < 100/350).
		if want := cfg.LR * math.Max(1-float64(100*i)/350, 100.0/350); math.Abs(r.Stats.LR-want) > 1e-15 {
			t.Errorf("iteration %d: lr %v, want %v", i, r.Stats.LR, want)
		}
		if wantEval := i == 2 || i == 3; (r.Eval != nil) != wantEval {
			t.Errorf("iteration %d: evaluated %v, want %v", i, r.Eval != nil, wantEval)
		}
	}
	n := 0
	if err := Run(context.Background(), tr, nil, opts, func(Report) error { n++; return nil }); err != nil || n != 0 {
		t.Fatalf("resumed at the budget: %d iterations (%v), want none", n, err)
	}
	if err := Run(context.Background(), tr, nil, ppoconfig.RunOptions{Iterations: 10, Frames: -1}, nil); err == nil || !strings.Contains(err.Error(), "frames") {
		t.Fatalf("negative budget: %v", err)
	}
}

// TestHyperKeysReachUpdate: every per-iteration key is read from the Hyper
// of the iteration. From one snapshot, an iteration with one key changed
// gives other parameters than the base iteration; epochs and
// minibatch_size set the number of gradient steps exactly, target_kl stops
// the epochs, and lr × lr_scale is the step size (lr 1e-4 × 10 trains
// exactly as lr 1e-3 × 1).
func TestHyperKeysReachUpdate(t *testing.T) {
	cfg := toyConfig()
	cfg.BatchSize = 128
	cfg.Epochs = 2
	cfg.MinibatchSize = 32
	cfg.EntropyCoef = 0.01
	ctx := context.Background()
	tr := newToyTrainer(t, "ppotest-target", cfg, 5)
	// One iteration first, so the critic and the normalisers are not at
	// their initial state (γ, the value coefficient and the clip matter).
	if _, err := tr.Iterate(ctx, cfg.Hyper); err != nil {
		t.Fatal(err)
	}
	snap, err := tr.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	run := func(h ppoconfig.Hyper) ([]float32, IterStats) {
		t.Helper()
		if err := tr.Restore(snap); err != nil {
			t.Fatal(err)
		}
		st, err := tr.Iterate(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		return paramsOf(t, tr), st
	}
	base, bst := run(cfg.Hyper)
	if bst.Update.Minibatches != 2*4 {
		t.Fatalf("base: %d gradient steps, want 2 epochs × 4 minibatches", bst.Update.Minibatches)
	}
	for _, tc := range []struct {
		key   string
		mut   func(h *ppoconfig.Hyper)
		steps int // gradient steps expected (0: not checked)
	}{
		{"gamma", func(h *ppoconfig.Hyper) { h.Gamma = 0.9 }, 0},
		{"entropy_coef", func(h *ppoconfig.Hyper) { h.EntropyCoef = 0.1 }, 0},
		{"value_coef", func(h *ppoconfig.Hyper) { h.ValueCoef = 2 }, 0},
		{"max_grad_norm", func(h *ppoconfig.Hyper) { h.MaxGradNorm = 0.01 }, 0},
		{"gae_lambda", func(h *ppoconfig.Hyper) { h.GAELambda = 0.5 }, 0},
		{"clip", func(h *ppoconfig.Hyper) { h.Clip = 0.01 }, 0},
		{"lr_scale", func(h *ppoconfig.Hyper) { h.LRScale = 3 }, 0},
		{"epochs", func(h *ppoconfig.Hyper) { h.Epochs = 3 }, 3 * 4},
		{"minibatch_size", func(h *ppoconfig.Hyper) { h.MinibatchSize = 50 }, 2 * 3}, // 50, 50, 28
		{"target_kl", func(h *ppoconfig.Hyper) { h.TargetKL = 1e-12 }, 4},            // stops after the first epoch
	} {
		h := cfg.Hyper
		tc.mut(&h)
		p, st := run(h)
		if slices.Equal(p, base) {
			t.Errorf("%s: the update ignored the change", tc.key)
		}
		if tc.steps != 0 && st.Update.Minibatches != tc.steps {
			t.Errorf("%s: %d gradient steps, want %d", tc.key, st.Update.Minibatches, tc.steps)
		}
	}
	a, b := cfg.Hyper, cfg.Hyper
	a.LR, a.LRScale = 1e-4, 10
	b.LR, b.LRScale = 1e-4*10, 1
	pa, _ := run(a)
	pb, _ := run(b)
	if !slices.Equal(pa, pb) {
		t.Fatal("lr 1e-4 × lr_scale 10 trains differently from lr 1e-3")
	}
	h := cfg.Hyper
	h.MinibatchSize = 129
	if _, err := tr.Iterate(ctx, h); err == nil || !strings.Contains(err.Error(), "ppo.minibatch_size") {
		t.Fatalf("minibatch above the batch: %v", err)
	}
}

// TestBootstrapTruncatedSwitch: with bootstrap_truncated the time-limit ends
// of the toy environment stay truncations (bootstrapped from the final
// observation's value); without it they are treated as terminations, as in
// CleanRL, and the advantages differ.
func TestBootstrapTruncatedSwitch(t *testing.T) {
	var advs [][]float64
	for _, boot := range []bool{true, false} {
		cfg := toyConfig()
		cfg.BatchSize = 40 // 10 steps per copy: every copy truncates at its last step
		cfg.MinibatchSize = 40
		cfg.BootstrapTruncated = boot
		tr := newToyTrainer(t, "ppotest-target", cfg, 8)
		if _, err := tr.Iterate(context.Background(), cfg.Hyper); err != nil {
			t.Fatal(err)
		}
		b := &tr.buf
		var nTrunc, nTerm int
		for i := range b.term {
			if b.trunc[i] {
				nTrunc++
			}
			if b.term[i] {
				nTerm++
			}
		}
		if nTrunc != 4 {
			t.Fatalf("bootstrap %v: %d truncations, want 4", boot, nTrunc)
		}
		if wantTerm := map[bool]int{true: 0, false: 4}[boot]; nTerm != wantTerm {
			t.Fatalf("bootstrap %v: %d terminations in the GAE input, want %d", boot, nTerm, wantTerm)
		}
		advs = append(advs, slices.Clone(b.adv[:40]))
	}
	if slices.Equal(advs[0][36:], advs[1][36:]) {
		t.Fatal("the last step's advantages do not depend on bootstrapping")
	}
}

// cancelAfter is a context whose Err reports Canceled from its n-th call
// on: it cancels Run at a chosen check, deterministically.
type cancelAfter struct {
	context.Context
	n, calls int
}

func (c *cancelAfter) Err() error {
	c.calls++
	if c.calls >= c.n {
		return context.Canceled
	}
	return nil
}

// TestRunCancelledDuringEvaluation: a cancellation that arrives while an
// iteration is evaluated (Run's third check: loop, Iterate, Evaluate)
// still completes the evaluation and reports the iteration, so every
// iteration the trainer ran reaches the callback (a checkpoint written on
// cancellation then loses no row).
func TestRunCancelledDuringEvaluation(t *testing.T) {
	cfg := toyConfig()
	cfg.BatchSize = 64
	tr := newToyTrainer(t, "ppotest-target", cfg, 2)
	ctx := &cancelAfter{Context: context.Background(), n: 3}
	var reps []Report
	err := Run(ctx, tr, nil, ppoconfig.RunOptions{Iterations: 3, EvalEvery: 1}, func(r Report) error {
		reps = append(reps, r)
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v, want context.Canceled", err)
	}
	if tr.Iteration() != 1 || len(reps) != 1 || reps[0].Eval == nil {
		t.Fatalf("trainer at iteration %d, %d reports (evaluated: %v); want 1 reported and evaluated iteration", tr.Iteration(), len(reps), len(reps) == 1 && reps[0].Eval != nil)
	}
}

// TestThreadsBoundHere: a threads setting beyond MaxThreadsPerCPU × the
// machine's CPUs is refused, naming the key.
func TestThreadsBoundHere(t *testing.T) {
	for _, tc := range []struct {
		threads, cpus int
		want          string // "" = accepted
	}{
		{0, 2, ""}, {8, 2, ""}, {9, 2, "ppo.threads: want at most 4 × this machine's 2 CPUs = 8 (0: automatic), got 9"}, {1000, 64, "= 256"},
	} {
		err := checkThreadsHere(tc.threads, tc.cpus)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%d threads on %d CPUs: %v, want %q", tc.threads, tc.cpus, err, tc.want)
		}
	}
}
