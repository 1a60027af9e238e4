package ppo

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/kladaptive"
	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// TestGaussianKL: the analytic KL against values computed by hand.
func TestGaussianKL(t *testing.T) {
	for _, c := range []struct {
		name        string
		oldMu, mu   []float32
		oldStd, std []float64
		want        float64
	}{
		// log(2/1 + 1e-5) + (1 + (0 − 1)²)/(2·4) − ½
		//   = ln 2 + ln(1 + 5e-6) − 0.25, ln(1 + x) ≈ x − x²/2 + x³/3
		{"one dimension", []float32{0}, []float32{1}, []float64{1}, []float64{2}, math.Ln2 + (5e-6 - 1.25e-11 + 125e-18/3) - 0.25},
		// the first dimension plus log(0.5/0.5 + 1e-5) + (0.25 + 0)/(2·0.25) − ½
		{"two dimensions", []float32{0, 0.5}, []float32{1, 0.5}, []float64{1, 0.5}, []float64{2, 0.5}, math.Ln2 + (5e-6 - 1.25e-11 + 125e-18/3) - 0.25 + (1e-5 - 5e-11 + 1e-15/3)},
		// identical policies: d·ln(1 + 1e-5), rsl_rl's epsilon, not 0
		{"identical", []float32{0.3, -1, 2}, []float32{0.3, -1, 2}, []float64{0.7, 1, 3}, []float64{0.7, 1, 3}, 3 * (1e-5 - 5e-11 + 1e-15/3)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := gaussianKL(c.oldMu, c.mu, c.oldStd, c.std); math.Abs(got-c.want) > 1e-15 {
				t.Fatalf("KL = %.17g, want %.17g", got, c.want)
			}
		})
	}
}

// klController is a kladaptive driver over lr in [lr_min, lr_max],
// starting from start.
func klController(t *testing.T, set kladaptive.Settings, start float64) *controller.Controller {
	t.Helper()
	sp, err := controller.NewSpace(set.Space())
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := controller.Build(kladaptive.Name, &set, sp, controller.Options{Interval: 5, Seed: 1, Start: controller.Config{start}})
	if err != nil {
		t.Fatal(err)
	}
	return ctl
}

// klConfig is a small config on the toy environment whose updates move the
// policy enough to push the KL above 2 × desired_kl.
func klConfig() ppoconfig.Config {
	cfg := toyConfig()
	cfg.BatchSize = 256
	cfg.Epochs = 4
	cfg.LR = 3e-3
	return cfg
}

// runKL trains iterations from..to-1 under ctl and returns each
// iteration's logged lr (the lr its update ended with) and its losses.
func runKL(t *testing.T, tr *Trainer, ctl *controller.Controller, to int) (lrs, losses []float64) {
	t.Helper()
	err := Run(context.Background(), tr, ctl, ppoconfig.RunOptions{Iterations: to}, func(r Report) error {
		lrs = append(lrs, r.Stats.LR)
		losses = append(losses, r.Stats.Reward, r.Stats.Update.PolicyLoss, r.Stats.Update.ValueLoss)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lrs, losses
}

// TestKLAdaptiveChangesLR: in a short run the rule moves the lr, within
// its bounds, the lr logged per iteration is the one in force for the next
// (the driver's configuration), and both measures train.
func TestKLAdaptiveChangesLR(t *testing.T) {
	for _, measure := range []string{kladaptive.MeasureMinibatch, kladaptive.MeasureEpoch} {
		t.Run(measure, func(t *testing.T) {
			set := kladaptive.DefaultSettings()
			set.Measure = measure
			cfg := klConfig()
			ctl := klController(t, set, cfg.LR)
			tr := newToyTrainer(t, "ppotest-target", cfg, 3)
			lrs, _ := runKL(t, tr, ctl, 6)
			t.Logf("lr per iteration: %v", lrs)
			moved := false
			for _, lr := range lrs {
				if lr < set.LRMin || lr > set.LRMax {
					t.Fatalf("lr %g outside [%g, %g]", lr, set.LRMin, set.LRMax)
				}
				moved = moved || lr != cfg.LR
			}
			if !moved {
				t.Fatalf("the lr never moved from %g", cfg.LR)
			}
			if cur, ok := ctl.Current(); !ok || cur[0] != lrs[len(lrs)-1] {
				t.Fatalf("lr in force %v, last logged %g", cur, lrs[len(lrs)-1])
			}
		})
	}
}

// recordingRule is kladaptive's rule, recording every measurement.
type recordingRule struct {
	controller.LRRule
	lr, kl []float64 // the lr in force and the KL of each NextLR call
}

func (r *recordingRule) NextLR(lr, kl float64) float64 {
	r.lr, r.kl = append(r.lr, lr), append(r.kl, kl)
	return r.LRRule.NextLR(lr, kl)
}

// TestKLAdaptiveMeasurements: the trainer measures the KL once per
// minibatch (per epoch with measure = "epoch") and applies the rule's lr
// in sequence; the first measurement of every update, before any step,
// is the KL of the collecting policy from itself, d·ln(1 + 1e-5), which
// shows that the old μ and σ are the collecting policy's and the current
// ones are taken before the step; with a KL target no update reaches the
// lr rises to lr_max, and with one every update exceeds it falls to
// lr_min.
func TestKLAdaptiveMeasurements(t *testing.T) {
	cfg := klConfig()
	perUpdate := cfg.Epochs * cfg.BatchSize / cfg.MinibatchSize
	self := 2 * math.Log1p(1e-5) // the toy environment's 2 action dimensions
	for _, c := range []struct {
		name    string
		measure string
		desired float64
		start   float64
		calls   int     // NextLR calls in 2 iterations
		final   float64 // the lr after the first update (0: not checked)
	}{
		{"per minibatch", kladaptive.MeasureMinibatch, 0.01, 3e-3, 2 * perUpdate, 0},
		{"per epoch", kladaptive.MeasureEpoch, 0.01, 3e-3, 2 * cfg.Epochs, 0},
		{"rises to lr_max", kladaptive.MeasureMinibatch, 10, 1e-4, 2 * perUpdate, math.Min(1e-2, 1e-4*math.Pow(1.5, float64(perUpdate)))},
		{"falls to lr_min", kladaptive.MeasureMinibatch, 1e-12, 1e-3, 2 * perUpdate, 1e-5},
	} {
		t.Run(c.name, func(t *testing.T) {
			set := kladaptive.DefaultSettings()
			set.Measure, set.DesiredKL, set.InitialLR = c.measure, c.desired, c.start
			m, err := set.New()
			if err != nil {
				t.Fatal(err)
			}
			rec := &recordingRule{LRRule: m.(controller.LRRule)}
			sp, _ := controller.NewSpace(set.Space())
			ctl, err := controller.New(kladaptive.Name, rec, sp, controller.Options{})
			if err != nil {
				t.Fatal(err)
			}
			tr := newToyTrainer(t, "ppotest-target", cfg, 5)
			lrs, _ := runKL(t, tr, ctl, 2)
			if len(rec.kl) != c.calls {
				t.Fatalf("%d measurements in 2 iterations, want %d", len(rec.kl), c.calls)
			}
			per := c.calls / 2
			for k := range rec.kl {
				want := m.(controller.LRRule).NextLR(rec.lr[k], rec.kl[k])
				next := lrs[k/per] // the last measurement's lr is the iteration's
				if k+1 < len(rec.lr) && (k+1)%per != 0 {
					next = rec.lr[k+1]
				}
				if next != want {
					t.Fatalf("measurement %d: lr %g, KL %g: next lr %g, want %g", k, rec.lr[k], rec.kl[k], next, want)
				}
			}
			if c.measure == kladaptive.MeasureMinibatch {
				for _, k := range []int{0, per} {
					if math.Abs(rec.kl[k]-self) > 1e-9 {
						t.Fatalf("update %d: first KL %.12g, want the collecting policy's own %.12g", k/per, rec.kl[k], self)
					}
				}
			}
			if c.final != 0 && math.Abs(lrs[0]-c.final) > 1e-12*c.final {
				t.Fatalf("lr after one update %.17g, want %.17g (%d minibatches)", lrs[0], c.final, perUpdate)
			}
		})
	}
}

// TestKLAdaptiveResumeExact: a run snapshotted after 3 iterations (trainer
// and controller) and restored into fresh ones continues exactly as the
// uninterrupted run: the same lr at every iteration, the same rewards and
// losses, the same parameters. A fresh controller in place of the restored
// one (the lr not restored) diverges, so the lr is part of what the
// snapshot restores.
func TestKLAdaptiveResumeExact(t *testing.T) {
	cfg := klConfig()
	set := kladaptive.DefaultSettings()
	a := newToyTrainer(t, "ppotest-target", cfg, 9)
	ctlA := klController(t, set, cfg.LR)
	lrs0, _ := runKL(t, a, ctlA, 3)
	snapT, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	snapC, err := ctlA.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	wantLR, wantLoss := runKL(t, a, ctlA, 6)

	b := newToyTrainer(t, "ppotest-target", cfg, 9)
	if err := b.Restore(snapT); err != nil {
		t.Fatal(err)
	}
	ctlB := klController(t, set, cfg.LR)
	if err := ctlB.Restore(snapC); err != nil {
		t.Fatal(err)
	}
	gotLR, gotLoss := runKL(t, b, ctlB, 6)
	bits := func(x, y []float64) bool {
		return slices.EqualFunc(x, y, func(p, q float64) bool { return math.Float64bits(p) == math.Float64bits(q) })
	}
	if !bits(gotLR, wantLR) || !bits(gotLoss, wantLoss) {
		t.Fatalf("resumed run differs:\n got lr %v\nwant lr %v", gotLR, wantLR)
	}
	if !slices.Equal(paramsOf(t, a), paramsOf(t, b)) {
		t.Fatal("parameters differ at the end")
	}
	if lrs0[2] == cfg.LR {
		t.Fatalf("the lr had not moved by the snapshot (%v): the test shows nothing", lrs0)
	}

	c := newToyTrainer(t, "ppotest-target", cfg, 9)
	if err := c.Restore(snapT); err != nil {
		t.Fatal(err)
	}
	fresh := klController(t, set, cfg.LR)
	for range 3 { // at the trainer's iteration, with the start lr in force
		if _, err := fresh.Suggest(); err != nil {
			t.Fatal(err)
		}
		if err := fresh.Observe(controller.Result{Reward: 0}); err != nil {
			t.Fatal(err)
		}
	}
	freshLR, _ := runKL(t, c, fresh, 6)
	if bits(freshLR, wantLR) {
		t.Fatal("a controller without the snapshot's lr continued identically: the test cannot tell a lost lr")
	}
}
