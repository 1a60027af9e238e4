package gpucb

import (
	"fmt"
	"math"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
	"github.com/hyperctl/hyperctl/controller"
)

// Settings decode from TOML by their tags (strictly: every key is known).
func TestSettingsTOML(t *testing.T) {
	want := Settings{}
	want.Kernel, want.Window, want.Delta, want.Grid, want.BetaScale = "se", 50, 0.05, 20, 0.2
	want.Restarts, want.RestartEvery, want.Candidates, want.Refine = 0, 3, 64, 2
	methodtest.DecodesTOML(t, methodtest.TOML(`kernel = "se"`, "window = 50", "delta = 0.05", "grid = 20", "beta_scale = 0.2",
		"restarts = 0", "restart_every = 3", "candidates = 64", "refine = 2"), &Settings{}, &want)
}

// GP-UCB (default settings, decision interval 1, noise sd 0.05) finds the
// maximum of a stationary bimodal function: within the budget (30 rounds in
// 1-D, 60 in 2-D) it samples a point with f ≥ 0.95, and the median regret
// of its last 10 rounds is ≤ 0.05 (the second mode has regret 0.5 in 1-D,
// 0.4 in 2-D; single exploratory rounds are expected), for each of 5 seeds.
func TestFindsMaximum(t *testing.T) {
	for _, c := range methodtest.Bimodal {
		t.Run(c.Name, func(t *testing.T) {
			for seed := uint64(1); seed <= 5; seed++ {
				_, cfgs := methodtest.RunUnit(t, Name, nil, c.D, c.F, c.Budget, seed)
				med, best := methodtest.LastMedian(cfgs, c.F)
				t.Logf("seed %d: best f %.3f, last-10 median regret %.3f, last %v", seed, best, 1-med, cfgs[len(cfgs)-1])
				if best < 0.95 || 1-med > 0.05 {
					t.Errorf("seed %d: best f %.3f (want >= 0.95), last-10 median regret %.3f (want <= 0.05)", seed, best, 1-med)
				}
			}
		})
	}
}

// Degenerate data never crashes GP-UCB, never yields an invalid or NaN
// configuration (the driver validates every suggestion), and never makes a
// fit fail.
func TestDegenerateData(t *testing.T) {
	for _, c := range append(methodtest.Degenerate(t, 100), methodtest.ZeroElapsed(t)) {
		t.Run(c.Name, func(t *testing.T) {
			if f := c.Run(t, Name, nil, 5).Method().(*GPUCB).Failures(); f != 0 {
				t.Errorf("%d failed fits", f)
			}
		})
	}
}

// Each bad field is rejected with an error naming its TOML key.
func TestSettingsValidateNamesField(t *testing.T) {
	mod := func(f func(*Settings)) controller.Settings { s := DefaultSettings(); f(&s); return &s }
	methodtest.RejectsFields(t, []methodtest.FieldCase{
		// One field per settings block (each block's fields: gploop's tests).
		{Field: "kernel", Settings: mod(func(s *Settings) { s.Kernel = "cubic" })},
		{Field: "beta_scale", Settings: mod(func(s *Settings) { s.BetaScale = math.Inf(1) })},
		{Field: "restart_every", Settings: mod(func(s *Settings) { s.RestartEvery = 0 })},
		{Field: "refine", Settings: mod(func(s *Settings) { s.Refine = s.Candidates + 1 })},
	})
}

// BenchmarkDecision times one decision (Suggest) holding n data points (one
// per decision period) over the paper's space.
func BenchmarkDecision(b *testing.B) {
	space := methodtest.PaperSpace(b)
	for _, n := range []int{10, 50, 100, 200, 300, 400} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			m := methodtest.Decision(b, methodtest.Build(b, Name, nil, space, 1, 1), n)
			b.ReportMetric(float64(len(m.(*GPUCB).st.Y)), "points")
		})
	}
}
