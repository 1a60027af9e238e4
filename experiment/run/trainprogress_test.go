package run

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/progress"
	"github.com/hyperctl/hyperctl/ppo"
)

// TestRecentReturns: the mean of the last 100 episodes, as SB3's
// ep_rew_mean, and the bar's text naming it and the per-step reward apart.
func TestRecentReturns(t *testing.T) {
	var w recentReturns
	if _, k := w.mean(); k != 0 {
		t.Fatalf("empty: %d episodes", k)
	}
	for i := range 150 {
		w.add([]float64{float64(i)})
	}
	m, k := w.mean()
	if k != 100 || math.Abs(m-99.5) > 1e-12 { // episodes 50..149
		t.Fatalf("mean %v over %d, want 99.5 over 100", m, k)
	}
	p := &TrainProgress{total: 488}
	p.recent = w
	f := p.fields(rundir.Progress{Iteration: 12, WallS: 1.6384}, 24576, 15000, 12.0/488, -1.0842, true)
	if got := progress.Fit(f, 1000); !strings.Contains(got, "it 12/488 [--------------------] 2% | ETA 1m5s | frames 24576 | 15000 f/s | ep_rew_mean 99.5 (100 ep) | eval - | reward/step -1.084") {
		t.Fatalf("line: %q", got)
	}
}

// TestProgressLog: in a pipe, a run with a frame budget logs the frames
// done of the budget, and not the iteration cap, which would mislead; a
// run without one logs the iterations of the cap.
func TestProgressLog(t *testing.T) {
	for _, c := range []struct {
		name    string
		budget  int64
		want    string
		without string
	}{
		{"frame budget", 3000, `"iteration":2,"frames":4096,"frame_budget":3000,`, `"of"`},
		{"iterations", 0, `"iteration":2,"of":1000,"frames":4096,`, `"frame_budget"`},
	} {
		var buf bytes.Buffer
		p := NewTrainProgress(&buf, zerolog.New(&buf), false) // not a terminal
		p.Start(0, 1000, 0, c.budget)
		p.Iteration(rundir.Progress{Iteration: 2, WallS: 1}, ppo.Report{Eval: &ppo.EvalStats{}, Stats: ppo.IterStats{TotalFrames: 4096}})
		if got := buf.String(); !strings.Contains(got, c.want) || strings.Contains(got, c.without) {
			t.Errorf("%s: log %s, want %s and no %s", c.name, got, c.want, c.without)
		}
	}
}
