package hypercontroller_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/controller/hypercontroller"
	"github.com/hyperctl/hyperctl/kalman"
)

// twoParams is the space of the driver tests: lr (log scale) and an
// integer batch size.
func twoParams(t testing.TB) controller.Space {
	t.Helper()
	lr := controller.Param{Name: "lr", Low: 1e-5, High: 1e-3, Scale: controller.Log}
	sp, err := controller.NewSpace(lr, controller.Param{Name: "batch", Low: 1000, High: 6000, Integer: true})
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func hcSettings(d, s int) *hypercontroller.Settings {
	set := hypercontroller.DefaultSettings()
	set.D, set.S = d, s
	return &set
}

func TestHyperControllerSettings(t *testing.T) {
	e, err := controller.Lookup("HyperController")
	if err != nil {
		t.Fatal(err)
	}
	def := e.Defaults().(*hypercontroller.Settings)
	if *def != (hypercontroller.Settings{D: 10, S: 1, Lambda: 1, Bonus: 0}) {
		t.Fatalf("defaults %+v, want the paper's d=10 s=1 λ=1 and no bonus", *def)
	}
	cases := []struct {
		field string
		edit  func(*hypercontroller.Settings)
	}{
		{"d", func(s *hypercontroller.Settings) { s.D = 1 }},
		{"d", func(s *hypercontroller.Settings) { s.D = -3 }},
		{"d", func(s *hypercontroller.Settings) { s.D = 2_000_000_000 }}, // once an out-of-memory crash (issue 20)
		{"s", func(s *hypercontroller.Settings) { s.S = 0 }},
		{"s", func(s *hypercontroller.Settings) { s.S = hypercontroller.MaxS + 1 }},
		{"s", func(s *hypercontroller.Settings) { s.D, s.S = 1000, 8 }}, // 1000^8 contexts overflow the key space
		{"s", func(s *hypercontroller.Settings) { s.D, s.S = 100, 25 }}, // 100^25 contexts overflow the key space
		{"lambda", func(s *hypercontroller.Settings) { s.Lambda = 0 }},
		{"lambda", func(s *hypercontroller.Settings) { s.Lambda = -1 }},
		{"lambda", func(s *hypercontroller.Settings) { s.Lambda = math.NaN() }},
		{"lambda", func(s *hypercontroller.Settings) { s.Lambda = math.Inf(1) }},
		{"bonus", func(s *hypercontroller.Settings) { s.Bonus = -0.1 }},
		{"bonus", func(s *hypercontroller.Settings) { s.Bonus = math.NaN() }},
	}
	for _, c := range cases {
		set := hypercontroller.DefaultSettings()
		c.edit(&set)
		err := set.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), c.field+":") {
			t.Errorf("%+v: error %v, want one starting %q", set, err, c.field+":")
		}
		if _, err := controller.Build(hypercontroller.Name, &set, twoParams(t), controller.Options{}); err == nil || !strings.Contains(err.Error(), c.field+":") {
			t.Errorf("Build with %+v: error %v", set, err)
		}
		if _, err := set.New(); err == nil {
			t.Errorf("New with %+v succeeded", set)
		}
	}
}

// feed runs one Method directly: round t is observed under config
// grid[seq[t]] with objective xs[t].
func feed(t *testing.T, m controller.Method, grid []float64, seq []int, xs []float64) {
	t.Helper()
	for r, a := range seq {
		if err := m.Observe(controller.Observation{Iteration: r, Config: controller.Config{grid[a]}, Objective: xs[r]}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRidgeAgainstGonum replays a random value sequence and objective
// stream, then checks every predictor against a direct gonum solve of
// (λI + ZZᵀ)Ĝ = ZXᵀ (eqs. 9–10), where Z and X collect, for each (context,
// value), the rounds t ≥ s with a_t = value and (a_{t−s}, …, a_{t−1}) =
// context: the keying of Algorithm 1, lines 23–27. With Intercept the
// regressor is (Ξ, 1).
func TestRidgeAgainstGonum(t *testing.T) {
	for _, c := range []struct {
		s         int
		intercept bool
	}{{1, false}, {2, false}, {3, false}, {1, true}, {2, true}} {
		s := c.s
		t.Run(fmt.Sprintf("s=%d/intercept=%t", s, c.intercept), func(t *testing.T) {
			const d, n, lambda = 3, 400, 0.7
			set := hypercontroller.Settings{D: d, S: s, Lambda: lambda, Intercept: c.intercept}
			p := s
			if c.intercept {
				p++
			}
			hc, err := hypercontroller.New(set)
			if err != nil {
				t.Fatal(err)
			}
			sp, _ := controller.NewSpace(controller.Param{Name: "x", Low: 0, High: 1})
			if err := hc.Init(sp, rand.New(rand.NewPCG(1, 2))); err != nil {
				t.Fatal(err)
			}
			grid, _ := sp.Grid(0, d)
			rng := rand.New(rand.NewPCG(5, 6))
			seq := make([]int, n)
			xs := make([]float64, n)
			for i := range seq {
				seq[i] = rng.IntN(d)
				xs[i] = rng.NormFloat64() + 0.3*float64(seq[i])
			}
			feed(t, hc, grid, seq, xs)
			type key struct{ ctx, a string }
			zs := map[key][][]float64{}
			ys := map[key][]float64{}
			for r := s; r < n; r++ {
				k := key{fmt.Sprint(seq[r-s : r]), fmt.Sprint(seq[r])}
				z := append([]float64(nil), xs[r-s:r]...)
				if c.intercept {
					z = append(z, 1)
				}
				zs[k] = append(zs[k], z)
				ys[k] = append(ys[k], xs[r])
			}
			checked := 0
			for k, z := range zs {
				v := mat.NewSymDense(p, nil)
				for i := range p {
					v.SetSym(i, i, lambda)
				}
				rhs := mat.NewVecDense(p, nil)
				for j, row := range z {
					zv := mat.NewVecDense(p, append([]float64(nil), row...))
					v.SymRankOne(v, 1, zv)
					rhs.AddScaledVec(rhs, ys[k][j], zv)
				}
				var want mat.VecDense
				if err := want.SolveVec(v, rhs); err != nil {
					t.Fatal(err)
				}
				var ctx []int
				var a int
				fmt.Sscan(strings.Trim(k.a, "[]"), &a)
				for _, f := range strings.Fields(strings.Trim(k.ctx, "[]")) {
					var c int
					fmt.Sscan(f, &c)
					ctx = append(ctx, c)
				}
				g, cnt, ok := hc.Predictor(0, ctx, a)
				if !ok || cnt != len(z) {
					t.Fatalf("context %v value %d: ok=%v count %d, want %d", ctx, a, ok, cnt, len(z))
				}
				if len(g) != p {
					t.Fatalf("context %v value %d: Ĝ has %d entries, want %d", ctx, a, len(g), p)
				}
				for i := range p {
					if math.Abs(g[i]-want.AtVec(i)) > 1e-10*(1+math.Abs(want.AtVec(i))) {
						t.Fatalf("context %v value %d: Ĝ %v, gonum %v", ctx, a, g, mat.Formatted(want.T()))
					}
				}
				checked++
			}
			if checked != hc.Models() {
				t.Fatalf("checked %d predictors, the controller allocated %d", checked, hc.Models())
			}
			if hc.Rounds() != n {
				t.Fatalf("rounds %d, want %d", hc.Rounds(), n)
			}
		})
	}
}

// TestGreedyRuleAndTies checks eq. 15 on a state built by hand: value 3 has
// learned Ĝ > 0 under context 3, the others are untrained (Ĝ = 0). After a
// positive X the argmax is 3; after a negative X, 3 scores below the
// untrained values, which tie at 0 and must be chosen uniformly at random.
// Before round s every value is equally likely too.
func TestGreedyRuleAndTies(t *testing.T) {
	const d = 5
	sp, _ := controller.NewSpace(controller.Param{Name: "x", Low: 0, High: 1})
	grid, _ := sp.Grid(0, d)
	counts := make([]int, d)
	firstCounts := make([]int, d)
	const trials = 2000
	for seed := range uint64(trials) {
		hc, _ := hypercontroller.New(*hcSettings(d, 1))
		if err := hc.Init(sp, rand.New(rand.NewPCG(seed, 1))); err != nil {
			t.Fatal(err)
		}
		dst := controller.Config{0}
		if err := hc.Suggest(dst); err != nil { // round 0 < s: uniform
			t.Fatal(err)
		}
		firstCounts[int(math.Round(dst[0]*(d-1)))]++
		feed(t, hc, grid, []int{3, 3, 3, 3}, []float64{1, 1, 1, 1})
		if err := hc.Suggest(dst); err != nil {
			t.Fatal(err)
		}
		if dst[0] != grid[3] {
			t.Fatalf("after X > 0 the greedy choice is %g, want %g", dst[0], grid[3])
		}
		feed(t, hc, grid, []int{3}, []float64{-1})
		if err := hc.Suggest(dst); err != nil {
			t.Fatal(err)
		}
		counts[int(math.Round(dst[0]*(d-1)))]++
	}
	if counts[3] != 0 {
		t.Fatalf("value 3 (negative predicted objective) chosen %d times", counts[3])
	}
	check := func(name string, c []int, k int) {
		// Each of k tied values: binomial(trials, 1/k); allow 5 s.d.
		p := 1 / float64(k)
		sd := math.Sqrt(trials * p * (1 - p))
		for a, n := range c {
			if name == "ties" && a == 3 {
				continue
			}
			if math.Abs(float64(n)-trials*p) > 5*sd {
				t.Errorf("%s: value %d chosen %d times of %d, want %g ± %g", name, a, n, trials, trials*p, 5*sd)
			}
		}
	}
	check("ties", counts, d-1)
	check("before s", firstCounts, d)
}

// TestBonus checks the optional exploration index Ĝᵀ Ξ + b‖Ξ‖_{V⁻¹}: with a
// large b the untrained values (width ‖Ξ‖/√λ) beat the well-trained value 3
// (width ≈ ‖Ξ‖/√(λ + n)), which the greedy rule (b = 0) picks.
func TestBonus(t *testing.T) {
	sp, _ := controller.NewSpace(controller.Param{Name: "x", Low: 0, High: 1})
	grid, _ := sp.Grid(0, 5)
	for _, c := range []struct {
		bonus float64
		s     int
		want3 bool
	}{{0, 1, true}, {10, 1, false}, {0, 2, true}, {10, 2, false}} {
		set := hcSettings(5, c.s)
		set.Bonus = c.bonus
		hc, _ := hypercontroller.New(*set)
		if err := hc.Init(sp, rand.New(rand.NewPCG(1, 1))); err != nil {
			t.Fatal(err)
		}
		seq := make([]int, 50)
		xs := make([]float64, 50)
		for i := range seq {
			seq[i], xs[i] = 3, 1
		}
		feed(t, hc, grid, seq, xs)
		dst := controller.Config{0}
		if err := hc.Suggest(dst); err != nil {
			t.Fatal(err)
		}
		if got3 := dst[0] == grid[3]; got3 != c.want3 {
			t.Errorf("bonus %g s %d: chose %g", c.bonus, c.s, dst[0])
		}
	}
}

// run drives a HyperController through the driver on a deterministic
// reward stream and returns the configurations.
func run(t testing.TB, ctl *controller.Controller, from, to int, rewards func(it int, cfg controller.Config) float64) []controller.Config {
	t.Helper()
	var out []controller.Config
	for it := from; it < to; it++ {
		cfg, err := ctl.Suggest()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, append(controller.Config(nil), cfg...))
		if err := ctl.Observe(controller.Result{Reward: rewards(it, cfg)}); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// toyRewards is a reward whose increments depend on the configuration and
// on a seeded noise stream indexed by iteration.
func toyRewards(it int, cfg controller.Config) float64 {
	r := rand.New(rand.NewPCG(uint64(it), 99))
	return float64(it)*0.01 - math.Abs(math.Log10(cfg[0])+4) + cfg[1]/6000 + 0.3*r.NormFloat64()
}

func buildHC(t testing.TB, set *hypercontroller.Settings, o controller.Options) *controller.Controller {
	t.Helper()
	ctl, err := controller.Build(hypercontroller.Name, set, twoParams(t), o)
	if err != nil {
		t.Fatal(err)
	}
	return ctl
}

func TestDeterminism(t *testing.T) {
	o := controller.Options{Interval: 5, Seed: 11}
	a := run(t, buildHC(t, hcSettings(10, 1), o), 0, 300, toyRewards)
	b := run(t, buildHC(t, hcSettings(10, 1), o), 0, 300, toyRewards)
	o.Seed = 12
	c := run(t, buildHC(t, hcSettings(10, 1), o), 0, 300, toyRewards)
	same, differ := true, false
	for i := range a {
		same = same && slices.Equal(a[i], b[i])
		differ = differ || !slices.Equal(a[i], c[i])
	}
	if !same {
		t.Fatal("same seed gave different configurations")
	}
	if !differ {
		t.Fatal("different seeds gave identical runs")
	}
}

// TestSnapshotContinuation stops a run at several points (including between
// Suggest and Observe, and mid-interval), restores into a fresh controller,
// and checks that the continuation is identical to never stopping: the
// same configurations and the same final snapshot.
func TestSnapshotContinuation(t *testing.T) {
	for _, s := range []int{1, 3} {
		for _, stop := range []int{0, 1, 2, 137, 140} {
			for _, pending := range []bool{false, true} {
				o := controller.Options{Interval: 5, Seed: 7}
				ref := buildHC(t, hcSettings(10, s), o)
				want := run(t, ref, 0, 300, toyRewards)
				wantSnap, err := ref.Snapshot()
				if err != nil {
					t.Fatal(err)
				}

				first := buildHC(t, hcSettings(10, s), o)
				got := run(t, first, 0, stop, toyRewards)
				if pending {
					if _, err := first.Suggest(); err != nil {
						t.Fatal(err)
					}
				}
				snap, err := first.Snapshot()
				if err != nil {
					t.Fatal(err)
				}
				second := buildHC(t, hcSettings(10, s), o)
				if err := second.Restore(snap); err != nil {
					t.Fatal(err)
				}
				got = append(got, run(t, second, stop, 300, toyRewards)...)
				for i := range want {
					if !slices.Equal(want[i], got[i]) {
						t.Fatalf("s=%d stop=%d pending=%v: iteration %d: %v, never-stopped %v", s, stop, pending, i, got[i], want[i])
					}
				}
				gotSnap, err := second.Snapshot()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(gotSnap, wantSnap) {
					t.Fatalf("s=%d stop=%d pending=%v: final snapshots differ", s, stop, pending)
				}
			}
		}
	}
	// With an intercept too.
	icpt := hcSettings(10, 1)
	icpt.Intercept = true
	o := controller.Options{Interval: 5, Seed: 9}
	ref := buildHC(t, icpt, o)
	want := run(t, ref, 0, 200, toyRewards)
	first := buildHC(t, icpt, o)
	got := run(t, first, 0, 77, toyRewards)
	snap0, err := first.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	second := buildHC(t, icpt, o)
	if err := second.Restore(snap0); err != nil {
		t.Fatal(err)
	}
	got = append(got, run(t, second, 77, 200, toyRewards)...)
	for i := range want {
		if !slices.Equal(want[i], got[i]) {
			t.Fatalf("intercept: iteration %d: %v, never-stopped %v", i, got[i], want[i])
		}
	}
	// A state with an intercept is refused by a controller without one.
	plain := buildHC(t, hcSettings(10, 1), o)
	if err := plain.Restore(snap0); err == nil || !strings.Contains(err.Error(), "intercept=true") {
		t.Fatalf("restore across intercept settings: %v", err)
	}

	// A snapshot of other settings is refused and changes nothing.
	a := buildHC(t, hcSettings(10, 1), controller.Options{Interval: 5})
	run(t, a, 0, 20, toyRewards)
	snap, _ := a.Snapshot()
	b := buildHC(t, hcSettings(8, 1), controller.Options{Interval: 5})
	run(t, b, 0, 10, toyRewards)
	before, _ := b.Snapshot()
	if err := b.Restore(snap); err == nil || !strings.Contains(err.Error(), "d=10") {
		t.Fatalf("restore across settings: %v", err)
	}
	after, _ := b.Snapshot()
	if !bytes.Equal(before, after) {
		t.Fatal("refused restore changed the state")
	}
}

// TestBadObjective checks that non-finite objectives, and finite ones
// beyond the bounds (controller.MaxReward, MaxObjective), are errors that
// leave the state unchanged, both through the driver and on the method
// directly, and that the run goes on with the largest accepted ones.
func TestBadObjective(t *testing.T) {
	ctl := buildHC(t, hcSettings(10, 2), controller.Options{Interval: 1, Objective: controller.Reward, Seed: 3})
	run(t, ctl, 0, 50, toyRewards)
	if _, err := ctl.Suggest(); err != nil {
		t.Fatal(err)
	}
	before, _ := ctl.Snapshot()
	for _, r := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if err := ctl.Observe(controller.Result{Reward: r}); err == nil {
			t.Fatalf("reward %v accepted", r)
		}
		after, _ := ctl.Snapshot()
		if !bytes.Equal(before, after) {
			t.Fatalf("reward %v changed the state", r)
		}
	}
	// A reward beyond ±controller.MaxReward is refused by the driver, an
	// objective beyond ±MaxObjective by the method: errors that leave the
	// state unchanged, after which the run goes on. (A 1e160 that entered Ξ
	// used to make every later update overflow, wedging the run.)
	for _, r := range []float64{1e160, 1e200, -math.MaxFloat64} {
		if err := ctl.Observe(controller.Result{Reward: r}); err == nil || !strings.Contains(err.Error(), "MaxReward") {
			t.Fatalf("reward %g: %v", r, err)
		}
		if after, _ := ctl.Snapshot(); !bytes.Equal(before, after) {
			t.Fatalf("reward %g changed the state", r)
		}
	}
	hc := ctl.Method().(*hypercontroller.HyperController)
	mb, _ := hc.MarshalBinary()
	for _, o := range []controller.Observation{
		{Config: controller.Config{1e-4, 2000}, Objective: math.NaN()},
		{Config: controller.Config{1e-4}, Objective: 1},
		{Config: controller.Config{math.NaN(), 2000}, Objective: 1},
		{Config: controller.Config{1e-4, 2000}, Objective: math.Nextafter(hypercontroller.MaxObjective, math.Inf(1))},
		{Config: controller.Config{1e-4, 2000}, Objective: -1e160},
	} {
		if err := hc.Observe(o); err == nil {
			t.Fatalf("observation %+v accepted", o)
		}
		ma, _ := hc.MarshalBinary()
		if !bytes.Equal(mb, ma) {
			t.Fatalf("observation %+v changed the method state", o)
		}
	}
	// The largest accepted objectives back to back (Ξ = (1e120, 1e120): V
	// is numerically singular, λ lost against ΞΞᵀ), then ordinary ones:
	// every update succeeds and the state round-trips.
	dst := make(controller.Config, 2)
	for k, x := range []float64{hypercontroller.MaxObjective, hypercontroller.MaxObjective, -hypercontroller.MaxObjective, 1, 2, 1e8, 1e8, 1e8, hypercontroller.MaxObjective, 0.5} {
		if err := hc.Suggest(dst); err != nil {
			t.Fatal(err)
		}
		if err := hc.Observe(controller.Observation{Iteration: 60 + k, Config: dst, Objective: x}); err != nil {
			t.Fatalf("objective %g after the largest ones: %v", x, err)
		}
	}
	state, err := hc.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	fresh := buildHC(t, hcSettings(10, 2), controller.Options{Interval: 1, Objective: controller.Reward, Seed: 3}).Method()
	if err := fresh.UnmarshalBinary(state); err != nil {
		t.Fatalf("restore after the largest objectives: %v", err)
	}
	if err := hc.UnmarshalBinary([]byte("junk")); err == nil {
		t.Fatal("junk state accepted")
	}
}

// TestLazyContexts runs d = 100, s = 3 (10^6 contexts and 10^8 predictors
// per hyperparameter if allocated up front) and checks that only visited
// contexts are allocated.
func TestLazyContexts(t *testing.T) {
	sp := benchSpace(t, 4)
	ctl, err := controller.Build(hypercontroller.Name, hcSettings(100, 3), sp, controller.Options{Interval: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	run(t, ctl, 0, 500, func(it int, cfg controller.Config) float64 { return math.Sin(float64(it)) + cfg[0] })
	hc := ctl.Method().(*hypercontroller.HyperController)
	// Delta objective: 499 rounds, models updated from round s = 3 on.
	if hc.Rounds() != 499 || hc.Models() > 4*496 || hc.Contexts() > 4*496 || hc.Models() == 0 {
		t.Fatalf("rounds %d, contexts %d, models %d", hc.Rounds(), hc.Contexts(), hc.Models())
	}
}

// TestIntervalLearnsEveryRound checks the documented mapping of rounds onto
// the decision interval: with Interval = 5 the method is consulted every 5
// iterations but every observed iteration updates one predictor per
// hyperparameter.
func TestIntervalLearnsEveryRound(t *testing.T) {
	ctl := buildHC(t, hcSettings(10, 1), controller.Options{Interval: 5, Seed: 2})
	run(t, ctl, 0, 101, toyRewards)
	hc := ctl.Method().(*hypercontroller.HyperController)
	if hc.Rounds() != 100 {
		t.Fatalf("rounds %d, want 100 (Delta hides iteration 0)", hc.Rounds())
	}
	total := 0
	for i := range 2 {
		for c := range 10 {
			for a := range 10 {
				if _, n, ok := hc.Predictor(i, []int{c}, a); ok {
					total += n
				}
			}
		}
	}
	if total != 2*99 {
		t.Fatalf("predictors fitted on %d (hyperparameter, round) pairs, want 2×99", total)
	}
}

// TestRegretBelowRandom runs HyperController (the paper's defaults, d = 10,
// s = 1, Interval = 1) on LGDS bandits with h = 2 for n = 300 rounds over 20
// seeds: a near-stationary one (ρ = 0.999: ψ barely moves over the run) and
// a slowly drifting one (ρ = 0.99). Its mean cumulative regret must be
// below 0.85 of uniform random choice on the same grid, and below random's
// on at least 16 of the 20 seeds.
func TestRegretBelowRandom(t *testing.T) {
	for _, c := range []struct {
		name string
		rho  float64
	}{{"stationary", 0.999}, {"drifting", 0.99}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := kalman.RegretConfig{Bandit: kalman.DefaultBanditConfig(2), N: 300, D: 10, S: 1, Interval: 1, Seeds: 20, Seed: 1000,
				Controllers: []string{hypercontroller.Name}}
			cfg.Bandit.Rho = c.rho
			res, err := kalman.RunRegret(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			rows := res.Summary()
			hc, rnd := rows[0], rows[1]
			if hc.Name != hypercontroller.Name || rnd.Name != kalman.RefRandom {
				t.Fatalf("rows %v", rows)
			}
			t.Logf("R_n: hypercontroller %.1f ± %.1f, random %.1f ± %.1f (ratio %.3f), below random on %d/20 seeds",
				hc.Final, hc.SE, rnd.Final, rnd.SE, hc.VsRandom, hc.BelowRandom)
			if hc.VsRandom >= 0.85 || hc.BelowRandom < 16 {
				t.Errorf("HyperController's regret is not clearly below random: ratio %.3f, %d/20 seeds", hc.VsRandom, hc.BelowRandom)
			}
		})
	}
}

// TestInterceptLearnsMeans runs HyperController on a stream with no temporal
// structure: X_t = μ(a_t) + noise, μ rising linearly over the grid from −0.5
// to 0.5. Algorithm 1's predictor Ĝᵀ Ξ has no constant term, so its score
// flips sign with the last X and it cannot settle on the best value; with
// Intercept it learns μ per value. Over 10 seeds × 2000 rounds the mean
// objective of the last 1000 rounds must be higher with the intercept,
// on at least 9 of the 10 seeds.
func TestInterceptLearnsMeans(t *testing.T) {
	const d, rounds, seeds = 10, 2000, 10
	sp, _ := controller.NewSpace(controller.Param{Name: "x", Low: 0, High: 1})
	mean := func(intercept bool, seed uint64) float64 {
		set := hcSettings(d, 1)
		set.Intercept = intercept
		set.Bonus = 0.5 // some exploration, so that greedy ties do not decide alone
		hc, err := hypercontroller.New(*set)
		if err != nil {
			t.Fatal(err)
		}
		if err := hc.Init(sp, rand.New(rand.NewPCG(seed, 1))); err != nil {
			t.Fatal(err)
		}
		noise := rand.New(rand.NewPCG(seed, 2))
		cfg := controller.Config{0}
		var tail float64
		for r := range rounds {
			if err := hc.Suggest(cfg); err != nil {
				t.Fatal(err)
			}
			a := int(math.Round(cfg[0] * (d - 1)))
			x := -0.5 + float64(a)/(d-1) + 0.5*noise.NormFloat64()
			if err := hc.Observe(controller.Observation{Iteration: r, Config: cfg, Objective: x}); err != nil {
				t.Fatal(err)
			}
			if r >= rounds/2 {
				tail += x
			}
		}
		return tail / (rounds / 2)
	}
	wins := 0
	var with, without float64
	for seed := range uint64(seeds) {
		a, b := mean(true, seed), mean(false, seed)
		with += a / seeds
		without += b / seeds
		if a > b {
			wins++
		}
	}
	t.Logf("mean objective of the last %d rounds: intercept %.3f, Algorithm 1 %.3f (best value 0.5); intercept higher on %d/%d seeds", rounds/2, with, without, wins, seeds)
	if wins < 9 {
		t.Fatalf("intercept better on %d/%d seeds, want >= 9 (means %.3f vs %.3f)", wins, seeds, with, without)
	}
}
