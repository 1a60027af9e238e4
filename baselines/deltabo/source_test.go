package deltabo

import (
	"math"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/controller"
)

// fixtureRecords are the records `hyperctl train` reads from a finished run
// of n iterations (experiment/run, ReadTransfer): rows
// 1…n−1 (iteration 0 has no objective under delta), wall time 1.5·(it+1),
// the configuration cfg(it) and the objective obj(it).
func fixtureRecords(run, n int, cfg func(it int) (batch, clip, lambda, lr float64), obj func(it int) float64) []Record {
	var out []Record
	for it := 1; it < n; it++ {
		b, c, l, lr := cfg(it)
		out = append(out, Record{Run: run, Iteration: it, Time: 1.5 * float64(it+1), Objective: obj(it),
			Config: map[string]float64{"batch_size": b, "clip": c, "gae_lambda": l, "lr": lr}})
	}
	return out
}

// periodic configurations: a new one every 5 iterations.
func periodic(it int) (float64, float64, float64, float64) {
	k := float64(it / 5)
	return 1000 + 500*math.Mod(k, 10), 0.1 + 0.04*math.Mod(k, 10), 0.9 + 0.01*math.Mod(k, 10), 1e-5 * math.Pow(100, math.Mod(k, 7)/6)
}

// sourcePoints: blocks of same-configuration iterations, at most 5 long,
// with progress = first iteration / largest iteration, from the records of
// two finished runs (of 12 and 7 iterations).
func TestSourcePointsFixtures(t *testing.T) {
	obj := func(it int) float64 { return float64(it) / 10 }
	recs := append(fixtureRecords(0, 12, periodic, obj), fixtureRecords(1, 7, periodic, obj)...)
	x, y, scale, dropped, err := sourcePoints(recs, paperSpace(t), progressIteration, 5)
	if err != nil {
		t.Fatal(err)
	}
	// seed0: iterations 1–4 (config 0), 5–9 (config 1), 10–11 (config 2);
	// seed1: 1–4, 5–6.
	if len(y) != 5 || scale != 11 || dropped != 0 {
		t.Fatalf("%d points, scale %v, dropped %d; want 5, 11, 0", len(y), scale, dropped)
	}
	wantY := []float64{(0.1 + 0.2 + 0.3 + 0.4) / 4, (0.5 + 0.6 + 0.7 + 0.8 + 0.9) / 5, (1.0 + 1.1) / 2, 0.25, 0.55}
	wantP := []float64{1.0 / 11, 5.0 / 11, 10.0 / 11, 1.0 / 11, 5.0 / 11}
	for i := range y {
		if math.Abs(y[i]-wantY[i]) > 1e-12 || math.Abs(x[i*5]-wantP[i]) > 1e-12 {
			t.Errorf("point %d: progress %.4f objective %.4f, want %.4f %.4f", i, x[i*5], y[i], wantP[i], wantY[i])
		}
	}
	// Blocks of at most 2: more points.
	_, y2, _, _, _ := sourcePoints(recs, paperSpace(t), progressNone, 2)
	if len(y2) != 2+3+1+2+1 {
		t.Errorf("block 2: %d points, want 9", len(y2))
	}
	// A space with a narrower clip range drops the records outside it.
	narrow, _ := controller.NewSpace(
		controller.Param{Name: "batch_size", Low: 1000, High: 6000, Integer: true},
		controller.Param{Name: "clip", Low: 0.1, High: 0.12},
		controller.Param{Name: "gae_lambda", Low: 0.9, High: 1.0},
		controller.Param{Name: "lr", Low: 1e-5, High: 1e-3, Scale: controller.Log},
	)
	_, y3, _, dropped3, err := sourcePoints(recs, narrow, progressNone, 5)
	if err != nil || len(y3) != 2 || dropped3 != 17-8 {
		t.Errorf("narrow space: %d points, %d dropped, err %v; want 2, 9, nil", len(y3), dropped3, err)
	}
	// Time progress: the block's start time over the largest time.
	xt, _, st, _, _ := sourcePoints(recs, paperSpace(t), progressTime, 5)
	if st != 18 || math.Abs(xt[0]-0) > 1e-12 || math.Abs(xt[5]-1.5*5/18) > 1e-12 {
		t.Errorf("time progress: scale %v, first %v, second %v; want 18, 0, %v", st, xt[0], xt[5], 1.5*5/18)
	}
}

// Without a source, building DeltaBO fails with an error about
// transfer_from; with transfer_from but no records read, it says so.
func TestNoSource(t *testing.T) {
	_, err := controller.Build(Name, nil, paperSpace(t), controller.Options{Interval: 5, Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "transfer_from") {
		t.Errorf("build without a source: %v, want an error about transfer_from", err)
	}
	s := DefaultSettings()
	s.SetTransferFrom("/runs/src", controller.Delta)
	_, err = controller.Build(Name, &s, paperSpace(t), controller.Options{Interval: 5, Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "/runs/src") || !strings.Contains(err.Error(), "not read") {
		t.Errorf("build with transfer_from and no records: %v, want an error naming the folder", err)
	}
}

// A controller built from the records of three finished runs fits g and
// runs.
func TestTransferFromRecords(t *testing.T) {
	obj := func(it int) float64 {
		_, c, _, _ := periodic(it)
		return 1 - 10*(c-0.3)*(c-0.3)
	}
	set := DefaultSettings()
	for s := range 3 {
		set.Records = append(set.Records, fixtureRecords(s, 100, periodic, obj)...)
	}
	space := paperSpace(t)
	ctl, err := controller.Build(Name, &set, space, controller.Options{Interval: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := ctl.Method().(*DeltaBO)
	// 3 runs × 99 iterations with an objective, in blocks of 5 = 20 each.
	if m.SourcePoints() != 60 || m.st.SrcRuns != 3 || m.st.Scale != 99 {
		t.Errorf("source: %d points from %d runs, progress scale %v; want 60, 3, 99", m.SourcePoints(), m.st.SrcRuns, m.st.Scale)
	}
	f := newFeedback(space, func(_ int, u []float64) float64 { return 1 - sq(u[1]-0.5) }, 0.05, 1)
	f.Run(t, ctl, 0, 30)
	if m.Failures() != 0 {
		t.Errorf("%d failed δ fits", m.Failures())
	}
}
