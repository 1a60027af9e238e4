package pb2

import (
	"fmt"
	"math"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
	"github.com/hyperctl/hyperctl/controller"
)

// Each bad field is rejected with an error naming its TOML key.
func TestSettingsValidateNamesField(t *testing.T) {
	mod := func(f func(*Settings)) controller.Settings { s := DefaultSettings(); f(&s); return &s }
	methodtest.RejectsFields(t, []methodtest.FieldCase{
		{Field: "time", Settings: mod(func(s *Settings) { s.Time = "epochs" })},
		{Field: "window_min", Settings: mod(func(s *Settings) { s.WindowMin = 1 })},
		{Field: "window_step", Settings: mod(func(s *Settings) { s.WindowStep = 0 })},
		{Field: "window_max", Settings: mod(func(s *Settings) { s.WindowMax = s.WindowMin - 1 })},
		{Field: "epsilon", Settings: mod(func(s *Settings) { s.Epsilon = 0.7 })},
		{Field: "c1", Settings: mod(func(s *Settings) { s.C1 = -1 })},
		{Field: "c2", Settings: mod(func(s *Settings) { s.C2 = 0 })},
		{Field: "clip", Settings: mod(func(s *Settings) { s.Clip = math.NaN() })},
		// One field per shared block (their fields: gploop's tests).
		{Field: "restarts", Settings: mod(func(s *Settings) { s.Restarts = 101 })},
		{Field: "candidates", Settings: mod(func(s *Settings) { s.Candidates = -3 })},
	})
}

// Settings decode from TOML by their tags (strictly: every key is known).
func TestSettingsTOML(t *testing.T) {
	want := Settings{Time: "seconds", WindowMin: 100, WindowStep: 5, WindowMax: 400, Epsilon: 0.2, C1: 0.3, C2: 0.5, Clip: 3}
	want.Restarts, want.RestartEvery, want.Candidates, want.Refine = 2, 1, 128, 4
	methodtest.DecodesTOML(t, methodtest.TOML(`time = "seconds"`, "window_min = 100", "window_step = 5", "window_max = 400", "epsilon = 0.2",
		"c1 = 0.3", "c2 = 0.5", "clip = 3.0", "restarts = 2", "restart_every = 1",
		"candidates = 128", "refine = 4"), &Settings{}, &want)
}

// PB2 adapts when the best region moves: the optimum of the per-iteration
// reward gain jumps from u = 0.2 to u = 0.8 at iteration 300 (decision
// interval 5, noise sd 0.05). For each of 3 seeds: in iterations 200-300
// at least 60% of PB2's decisions are within 0.15 of 0.2; within 50
// iterations of the jump it chooses within 0.15 of 0.8; and in iterations
// 320-600 at least 60% of its decisions are within 0.15 of 0.8 (the rest
// is UCB exploration).
func TestAdaptsToMovingOptimum(t *testing.T) {
	moving := func(it int, u []float64) float64 {
		c := 0.2
		if it >= 300 {
			c = 0.8
		}
		return math.Exp(-methodtest.Sq(u[0]-c) / (2 * 0.1 * 0.1))
	}
	const interval = 5
	for seed := uint64(1); seed <= 3; seed++ {
		space := methodtest.UnitSpace(t, 1)
		ctl := methodtest.Build(t, Name, nil, space, interval, seed)
		cfgs := methodtest.NewFeedback(space, moving, 0.05, seed).Run(t, ctl, 0, 600)
		near := func(it int, c float64) bool { return math.Abs(cfgs[it][0]-c) <= 0.15 }
		frac := func(from, to int, c float64) float64 {
			n, k := 0, 0
			for it := from; it < to; it += interval {
				n++
				if near(it, c) {
					k++
				}
			}
			return float64(k) / float64(n)
		}
		first := -1
		for it := 300; it < 600 && first < 0; it += interval {
			if near(it, 0.8) {
				first = it
			}
		}
		before, after := frac(200, 300, 0.2), frac(320, 600, 0.8)
		t.Logf("seed %d: near 0.2 in iterations 200-300: %.2f; first near 0.8 at %d; near 0.8 in 320-600: %.2f", seed, before, first, after)
		if before < 0.6 || after < 0.6 || first < 0 || first > 350 {
			t.Errorf("seed %d: %.2f near 0.2 before the jump, first near 0.8 at iteration %d, %.2f near 0.8 after; want >= 0.6, <= 350, >= 0.6", seed, before, first, after)
		}
	}
}

// Degenerate data never crashes PB2 (default settings, the seconds time
// input, and a small window), never yields an invalid or NaN configuration
// (the driver validates every suggestion), and never makes a fit fail.
func TestDegenerateData(t *testing.T) {
	seconds := DefaultSettings()
	seconds.Time = "seconds"
	small := DefaultSettings()
	small.WindowMin, small.WindowMax, small.WindowStep = 4, 12, 3
	for _, c := range append(methodtest.Degenerate(t, 100), methodtest.ZeroElapsed(t)) {
		for i, s := range []Settings{DefaultSettings(), seconds, small} {
			t.Run(fmt.Sprintf("%s/%d", c.Name, i), func(t *testing.T) {
				if f := c.Run(t, Name, &s, 5).Method().(*PB2).Failures(); f != 0 {
					t.Errorf("%d failed fits", f)
				}
			})
		}
	}
}

// PB2's window follows select_length: all rows below WindowMin, else the
// best-likelihood length among WindowMin, WindowMin+WindowStep, … ≤ rows.
func TestWindowRule(t *testing.T) {
	s := DefaultSettings()
	s.WindowMin, s.WindowStep, s.WindowMax = 6, 3, 20
	space := methodtest.UnitSpace(t, 1)
	ctl := methodtest.Build(t, Name, &s, space, 1, 1)
	f := methodtest.NewFeedback(space, methodtest.Bumps1D, 0.05, 1)
	for it := range 40 {
		f.Step(t, ctl, it)
		m := ctl.Method().(*PB2)
		rows := m.Rows()
		w := m.Window()
		if it == 0 {
			continue
		}
		// The decision at iteration it saw the rows closed before it.
		switch {
		case rows > s.WindowMax:
			t.Fatalf("iteration %d: %d rows stored, max %d", it, rows, s.WindowMax)
		case rows < s.WindowMin && w != rows:
			t.Errorf("iteration %d: %d rows, window %d, want all", it, rows, w)
		case rows >= s.WindowMin && (w < s.WindowMin || w > rows || (w-s.WindowMin)%s.WindowStep != 0):
			t.Errorf("iteration %d: %d rows, window %d not in {%d, %d+%d k} ≤ rows", it, rows, w, s.WindowMin, s.WindowMin, s.WindowStep)
		}
	}
}

// PB2's β by hand.
func TestBeta(t *testing.T) {
	if got, want := Beta(100, 0.2, 0.4), 0.2+math.Log(40); math.Abs(got-want) > 1e-12 {
		t.Errorf("Beta(100) = %v, want %v", got, want)
	}
	if got := Beta(1, 0.2, 0.4); got != 0.2 {
		t.Errorf("Beta(1) = %v, want 0.2 (log term clipped at 0)", got)
	}
}

// BenchmarkDecision times one decision (Suggest) holding n data points (one
// per decision period) over the paper's space; "points" is the window the
// GP used.
func BenchmarkDecision(b *testing.B) {
	space := methodtest.PaperSpace(b)
	for _, n := range []int{10, 50, 100, 200, 300, 400} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			m := methodtest.Decision(b, methodtest.Build(b, Name, nil, space, 1, 1), n)
			b.ReportMetric(float64(m.(*PB2).Window()), "points")
		})
	}
}
