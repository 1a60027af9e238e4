package bilevel

import (
	"math"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
	"github.com/hyperctl/hyperctl/controller"
)

func build(t testing.TB, set controller.Settings, space controller.Space, interval int, seed uint64) *controller.Controller {
	t.Helper()
	return methodtest.Build(t, Name, set, space, interval, seed)
}

// Each bad field is rejected with an error naming its TOML key, by
// Validate, New and RecommendInterval.
func TestSettingsValidateNamesField(t *testing.T) {
	mod := func(f func(*Settings)) *Settings { s := DefaultSettings(); f(&s); return &s }
	cases := []methodtest.FieldCase{
		// The shared blocks: one field each (their fields: gploop's tests).
		{Field: "window", Settings: mod(func(s *Settings) { s.Window = 1 })},
		{Field: "b", Settings: mod(func(s *Settings) { s.B = 0 })},
		{Field: "sigma", Settings: mod(func(s *Settings) { s.Sigma = math.NaN() })},
		{Field: "delta", Settings: mod(func(s *Settings) { s.Delta = 1 })},
		{Field: "lipschitz", Settings: mod(func(s *Settings) { s.Lipschitz = -1 })},
		{Field: "loss_bound", Settings: mod(func(s *Settings) { s.LossBound = math.Inf(1) })},
		{Field: "phi_scale", Settings: mod(func(s *Settings) { s.PhiScale = 0 })},
		{Field: "steps_per_iteration", Settings: mod(func(s *Settings) { s.StepsPerIteration = -1 })},
		{Field: "steps_per_iteration", Settings: mod(func(s *Settings) { s.StepsPerIteration = 1<<30 + 1 })},
		{Field: "horizon", Settings: mod(func(s *Settings) { s.Horizon = "concave" })},
		{Field: "horizon_scale", Settings: mod(func(s *Settings) { s.HorizonScale = -2 })},
		{Field: "restart_every", Settings: mod(func(s *Settings) { s.RestartEvery = 0 })},
		{Field: "refine", Settings: mod(func(s *Settings) { s.Refine = s.Candidates + 1 })},
	}
	methodtest.RejectsFields(t, cases)
	for _, c := range cases {
		if _, err := c.Settings.(*Settings).RecommendInterval(1000, 320); err == nil {
			t.Errorf("field %s: RecommendInterval accepted invalid settings", c.Field)
		}
	}
}

func TestSettingsTOML(t *testing.T) {
	want := Settings{B: 2, Sigma: 0.5, Delta: 0.05, Lipschitz: 0.5, LossBound: 2, PhiScale: 0.1,
		StepsPerIteration: 320, Horizon: "pl", HorizonScale: 2}
	want.Kernel, want.Window = "se", 50
	want.Restarts, want.RestartEvery, want.Candidates, want.Refine = 0, 3, 64, 2
	methodtest.DecodesTOML(t, methodtest.TOML(`kernel = "se"`, "window = 50", "b = 2.0", "sigma = 0.5", "delta = 0.05",
		"lipschitz = 0.5", "loss_bound = 2.0", "phi_scale = 0.1", "steps_per_iteration = 320", `horizon = "pl"`,
		"horizon_scale = 2.0", "restarts = 0", "restart_every = 3", "candidates = 64", "refine = 2"), &Settings{}, &want)
}

// φ(N) and β_t against hand computation of Theorem 1's expression and
// Theorem 4's schedule.
func TestPhiBeta(t *testing.T) {
	// N = 320, K = M = 1, δ = 0.1, constant 1.
	l := math.Log(10)
	want := math.Log(320)*l + math.Sqrt(l) + math.Sqrt(math.Log(20)) + math.Pow(math.Log(3200), 1.5)
	if got := Phi(320, 1, 1, 0.1, 1); math.Abs(got-want) > 1e-12*want {
		t.Errorf("Phi(320) = %v, want %v", got, want)
	}
	if got := Phi(320, 1, 1, 0.1, 0.5); math.Abs(got-0.5*want) > 1e-12*want {
		t.Errorf("Phi scaled = %v, want %v", got, 0.5*want)
	}
	// K enters squared, M linearly; N = 1 drops the log N term.
	if got, w := Phi(1, 3, 2, 0.1, 1), 2*math.Sqrt(l)+2*math.Sqrt(math.Log(20))+math.Pow(l, 1.5); math.Abs(got-w) > 1e-12 {
		t.Errorf("Phi(1, K=3, M=2) = %v, want %v", got, w)
	}
	s := DefaultSettings()
	s.B, s.Sigma = 2, 0.5
	phi := Phi(640, 1, 1, 0.1, DefaultPhiScale)
	if got, w := s.Beta(7, 640), math.Sqrt(4+7*phi*phi/(0.25*640)); math.Abs(got-w) > 1e-12*w {
		t.Errorf("Beta(7, 640) = %v, want %v", got, w)
	}
	// β grows with t, falls with N at fixed t/N ratio's numerator, and
	// tends to B as N → ∞ at fixed t.
	if !(s.Beta(10, 100) > s.Beta(5, 100)) || !(s.Beta(10, 1e6) < s.Beta(10, 100)) {
		t.Error("β_t not increasing in t or not decreasing in N")
	}
	if b := s.Beta(10, 1e15); math.Abs(b-2) > 1e-3 {
		t.Errorf("β_10 at N = 1e15 is %v, want → B = 2", b)
	}
}

// The inner-horizon rule: k = √(c·I/S) (N ≍ T) or ∛(c·I²/S) (N ≍ T²),
// rounded into [1, I].
func TestHorizon(t *testing.T) {
	cases := []struct {
		iters, steps int
		horizon      string
		c            float64
		k, rounds    int
	}{
		{1000, 320, Convex, 1, 2, 500},  // √3.125 = 1.77
		{1000, 320, PL, 1, 15, 67},      // ∛3125 = 14.6
		{1000, 1, Convex, 1, 32, 32},    // √1000 = 31.6
		{1000, 1, PL, 1, 100, 10},       // ∛10⁶
		{1000, 1, Convex, 4, 63, 16},    // √4000 = 63.2
		{1000, 320, "PL ", 8, 29, 35},   // ∛25000 = 29.2; case and spaces ignored
		{1, 320, PL, 1, 1, 1},           // clamped to 1
		{10, 1, PL, 1000, 10, 1},        // clamped to the budget
		{200, 320, Convex, 1, 1, 200},   // √0.625 rounds to 1
		{5000, 320, Convex, 1, 4, 1250}, // √15.6 = 3.95
	}
	for _, c := range cases {
		k, r, err := Horizon(c.iters, c.steps, c.horizon, c.c)
		if err != nil || k != c.k || r != c.rounds {
			t.Errorf("Horizon(%d, %d, %q, %v) = %d, %d, %v; want %d, %d", c.iters, c.steps, c.horizon, c.c, k, r, err, c.k, c.rounds)
		}
		// The chosen k is the best integer for the rule's balance.
		if k > 1 && k < c.iters {
			gap := func(k int) float64 {
				T := float64(c.iters) / float64(k)
				N := float64(k * c.steps)
				if strings.TrimSpace(strings.ToLower(c.horizon)) == PL {
					return math.Abs(math.Log(N / (c.c * T * T)))
				}
				return math.Abs(math.Log(N / (c.c * T)))
			}
			if gap(k) > gap(k-1)+1e-12 && gap(k) > gap(k+1)+1e-12 {
				t.Errorf("Horizon(%d, %d, %q): k = %d is not a local best balance", c.iters, c.steps, c.horizon, k)
			}
		}
	}
	for _, bad := range []struct {
		i, s int
		h    string
		c    float64
	}{{0, 1, Convex, 1}, {10, 0, Convex, 1}, {10, 1, "linear", 1}, {10, 1, PL, 0}, {10, 1, PL, math.NaN()}} {
		if _, _, err := Horizon(bad.i, bad.s, bad.h, bad.c); err == nil {
			t.Errorf("Horizon(%d, %d, %q, %v) accepted", bad.i, bad.s, bad.h, bad.c)
		}
	}
	// RecommendInterval uses the run's steps unless the setting fixes them.
	s := DefaultSettings()
	if k, err := s.RecommendInterval(1000, 320); err != nil || k != 2 {
		t.Errorf("RecommendInterval(1000, 320) = %d, %v; want 2", k, err)
	}
	s.Horizon = PL
	if k, _ := s.RecommendInterval(1000, 320); k != 15 {
		t.Errorf("pl: RecommendInterval(1000, 320) = %d, want 15", k)
	}
	if k, _ := s.RecommendInterval(1000, 0); k != 100 {
		t.Errorf("pl, no steps: RecommendInterval(1000, 0) = %d, want 100", k)
	}
	s.StepsPerIteration = 1
	if k, _ := s.RecommendInterval(1000, 320); k != 100 {
		t.Errorf("steps_per_iteration = 1 overrides the run: got %d, want 100", k)
	}
	// WithRun fills steps_per_iteration only when it is 0.
	s.StepsPerIteration = 0
	if r := s.WithRun(1000, 5, 320).(*Settings); r.StepsPerIteration != 320 || s.StepsPerIteration != 0 {
		t.Errorf("WithRun: steps %d (original %d), want 320 (0)", r.StepsPerIteration, s.StepsPerIteration)
	}
	s.StepsPerIteration = 7
	if r := s.WithRun(1000, 5, 320).(*Settings); r.StepsPerIteration != 7 {
		t.Errorf("WithRun overrode an explicit steps_per_iteration: %d", r.StepsPerIteration)
	}
}

// Each decision uses β_t of its round with N = the last period's
// iterations × steps_per_iteration, multiplying σ directly.
func TestDecisionUsesSchedule(t *testing.T) {
	space := methodtest.UnitSpace(t, 2)
	s := DefaultSettings()
	s.StepsPerIteration = 10
	ctl := build(t, &s, space, 5, 1)
	f := methodtest.NewFeedback(space, methodtest.Broad2D, 0.05, 1)
	for it := range 40 {
		f.Step(t, ctl, it)
		m := ctl.Method().(*Method)
		round := it/5 + 1
		// Round 2's data point has 4 iterations: under the delta objective
		// iteration 0 has no predecessor and is not shown to the method.
		if it%5 != 0 || round <= 2 {
			continue
		}
		if got, want := m.InnerSteps(), 50.0; got != want {
			t.Fatalf("iteration %d: N = %v, want 5 iterations × 10 steps", it, got)
		}
		if got, want := m.LastBeta(), s.Beta(round, 50); got != want {
			t.Fatalf("iteration %d (round %d): β = %v, want %v", it, round, got, want)
		}
	}
}

// With the default O(·) constant of φ (phi_scale 0.05: β_t ≈ 1.25 at t = 5
// and 2.8 at t = 60 for N = 1, below GP-UCB's √β_t), bilevel finds the
// maximum of the bimodal test functions (decision interval 1, noise sd
// 0.05): within 30 rounds in 1-D, 60 in 2-D, it samples a point with
// f ≥ 0.95 and the median regret of its last 10 rounds is ≤ 0.05, for each
// of 5 seeds in 1-D and at least 4 of 5 in 2-D. With the theory's constant
// 1 (β_60 ≈ 52) the same runs keep exploring: the last-10 median regret
// exceeds 0.05 on at least 3 of 5 seeds in 2-D.
func TestFindsMaximum(t *testing.T) {
	for _, c := range methodtest.Bimodal {
		t.Run(c.Name, func(t *testing.T) {
			explorers, misses := 0, 0
			for _, scale := range []float64{DefaultPhiScale, TheoryPhiScale} {
				for seed := uint64(1); seed <= 5; seed++ {
					s := DefaultSettings()
					s.PhiScale = scale
					ctl, cfgs := methodtest.RunUnit(t, Name, &s, c.D, c.F, c.Budget, seed)
					med, best := methodtest.LastMedian(cfgs, c.F)
					median := 1 - med
					m := ctl.Method().(*Method)
					t.Logf("phi_scale %v seed %d: best f %.3f, last-10 median regret %.3f, β %.2f", scale, seed, best, median, m.LastBeta())
					if m.Failures() != 0 {
						t.Errorf("%d failed fits", m.Failures())
					}
					if scale < 1 && (best < 0.95 || median > 0.05) {
						misses++
						t.Logf("phi_scale %v seed %d misses: best f %.3f (want >= 0.95), last-10 median regret %.3f (want <= 0.05)", scale, seed, best, median)
					}
					if scale == 1 && median > 0.05 {
						explorers++
					}
				}
			}
			if allowed := c.D - 1; misses > allowed {
				t.Errorf("phi_scale %v: %d of 5 seeds missed the maximum, want <= %d", DefaultPhiScale, misses, allowed)
			}
			if c.D == 2 && explorers < 3 {
				t.Errorf("the theory's constants: %d of 5 seeds still exploring at the end, want >= 3", explorers)
			}
		})
	}
}

// Degenerate data never crashes the method, never yields an invalid or
// NaN configuration, and never makes a fit fail.
func TestDegenerateData(t *testing.T) {
	for _, c := range methodtest.Degenerate(t, 100) {
		t.Run(c.Name, func(t *testing.T) {
			m := c.Run(t, Name, nil, 5).Method().(*Method)
			if m.Failures() != 0 {
				t.Errorf("%d failed fits", m.Failures())
			}
			if b := m.LastBeta(); c.Iters > 10 && (math.IsNaN(b) || !(b > 0)) {
				t.Errorf("β = %v", b)
			}
		})
	}
}
