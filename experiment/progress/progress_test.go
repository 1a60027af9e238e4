package progress

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/configs/rundir"
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
	p := &Train{total: 488}
	p.recent = w
	f := p.fields(rundir.Progress{Iteration: 12, WallS: 1.6384}, 24576, 15000, 12.0/488, -1.0842, true)
	if got := Fit(f, 1000); !strings.Contains(got, "it 12/488 [--------------------] 2% | ETA 1m5s | frames 24576 | 15000 f/s | ep_rew_mean 99.5 (100 ep) | eval - | reward/step -1.084") {
		t.Fatalf("line: %q", got)
	}
}

// TestFitLine: the line fits the width it is given, dropping fields in the
// stated order (fitSteps), and keeps the run's position at any width.
func TestFitLine(t *testing.T) {
	iters := Fields{Pos: "it 123/488", Done: 123.0 / 488, ETA: "ETA 12m34s", Aside: "frames 251904", FPS: "1520 f/s",
		Rew: "ep_rew_mean -1234.5", RewN: " (100 ep)", Eval: "eval 2345.6", Reward: "reward/step -1.234"}
	budget := iters
	budget.Pos, budget.Aside, budget.Done = "frames 251904/1000000", "it 123", 0.251904
	for _, c := range []struct {
		name    string
		f       Fields
		width   int
		want    string
		without []string
	}{
		{"wide: everything", iters, 200, "it 123/488 [#####---------------] 25% | ETA 12m34s | frames 251904 | 1520 f/s | ep_rew_mean -1234.5 (100 ep) | eval 2345.6 | reward/step -1.234", nil},
		{"120 columns", iters, 119, "it 123/488 [#####---------------] 25% | ETA 12m34s | frames 251904 | 1520 f/s | ep_rew_mean -1234.5 | eval 2345.6", []string{"reward/step", "(100 ep)"}},
		{"100 columns", iters, 99, "it 123/488 25% | ETA 12m34s | frames 251904 | 1520 f/s | ep_rew_mean -1234.5 | eval 2345.6", []string{"[", "reward/step"}},
		{"80 columns", iters, 79, "it 123/488 25% | ETA 12m34s | frames 251904 | ep_rew_mean -1234.5 | eval 2345.6", []string{"f/s", "["}},
		{"80 columns, frame budget", budget, 79, "frames 251904/1000000 25% | ETA 12m34s | ep_rew_mean -1234.5 | eval 2345.6", []string{"it 123"}},
		{"60 columns", iters, 59, "it 123/488 25% | ETA 12m34s | ep_rew_mean -1234.5", []string{"eval"}},
		{"40 columns", iters, 39, "it 123/488 25% | ETA 12m34s", []string{"ep_rew_mean"}},
		{"20 columns", iters, 19, "it 123/488 25%", []string{"ETA"}},
		{"12 columns", iters, 11, "it 123/488", []string{"%"}},
		{"too narrow for the position", iters, 5, "it 12", nil},
		{"before any progress", Fields{Pos: "it 0/488", Done: math.NaN(), ETA: "ETA -", Aside: "frames 0", FPS: "- f/s", Rew: "ep_rew_mean -", Eval: "eval -", Reward: "reward/step -"}, 79,
			"it 0/488 | ETA - | frames 0 | - f/s | ep_rew_mean - | eval - | reward/step -", nil},
	} {
		got := Fit(c.f, c.width)
		if got != c.want || len([]rune(got)) > c.width {
			t.Errorf("%s: %q (%d columns), want %q", c.name, got, len([]rune(got)), c.want)
		}
		for _, w := range c.without {
			if strings.Contains(got, w) {
				t.Errorf("%s: %q has %q", c.name, got, w)
			}
		}
	}
}

// TestStatusLine: every update starts at the line's start (\r) and blanks
// what is left of a longer previous line, within the width; the end is
// one newline.
func TestStatusLine(t *testing.T) {
	var b strings.Builder
	width := 80
	s := &Line{w: &b, width: func() int { return width }}
	long := Fields{Pos: "it 1/9", Done: 0.1, ETA: "ETA 1s", Aside: "frames 100", FPS: "9 f/s", Rew: "ep_rew_mean -5.0", RewN: " (3 ep)", Eval: "eval -", Reward: "reward/step 0.100"}
	s.Show(long)
	first := b.String()
	short := long
	short.Pos, short.RewN = "it 2/9", ""
	width = 30 // the terminal narrowed
	s.Show(short)
	s.End()
	out := b.String()
	if !strings.HasPrefix(first, "\r") || strings.Count(out, "\r") != 2 || !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 {
		t.Fatalf("output %q", out)
	}
	second := strings.TrimSuffix(out[len(first):], "\n")
	if n := len([]rune(second)) - 1; n != 29 {
		t.Fatalf("second update %q: %d columns, want 29 (the narrowed width less one, padded)", second, n)
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
		p := NewTrain(&buf, zerolog.New(&buf), false) // not a terminal
		p.Start(0, 1000, 0, c.budget)
		p.Iteration(rundir.Progress{Iteration: 2, WallS: 1}, ppo.Report{Eval: &ppo.EvalStats{}, Stats: ppo.IterStats{TotalFrames: 4096}})
		if got := buf.String(); !strings.Contains(got, c.want) || strings.Contains(got, c.without) {
			t.Errorf("%s: log %s, want %s and no %s", c.name, got, c.want, c.without)
		}
	}
}
