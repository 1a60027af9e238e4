package goucb

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
	"github.com/hyperctl/hyperctl/controller"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed+1)) }

// The driver-level contract of every method (methodtest): snapshots in
// Phase I, mid-period, at the Phase I/II boundary and in Phase II, for the
// paper's algorithm and the discounted variant; bad observations in both
// phases.
func TestContract(t *testing.T) {
	t.Run("Registered", func(t *testing.T) { methodtest.Registered(t, Name) })
	t.Run("DeterministicGivenSeed", func(t *testing.T) {
		methodtest.Deterministic(t, Name, func() controller.Settings { s := DefaultSettings(); s.Rounds = 30; return &s }, methodtest.Valley, 120)
	})
	for _, gamma := range []float64{1, 0.95} {
		t.Run(fmt.Sprintf("SnapshotRestoreContinues/discount=%v", gamma), func(t *testing.T) {
			set := func() controller.Settings {
				s := DefaultSettings()
				s.Rounds, s.Discount = 25, gamma // Phase I: 5 periods = 25 iterations
				return &s
			}
			methodtest.SnapshotRestore(t, methodtest.Snapshot{Name: Name, Settings: set, Cuts: []int{3, 25, 26, 37, 103}, OtherSpace: true})
		})
	}
	t.Run("NonFiniteObservationRejected", func(t *testing.T) {
		methodtest.NonFiniteRejected(t, methodtest.NonFinite{
			Name:     Name,
			Settings: func() controller.Settings { s := DefaultSettings(); s.Rounds = 16; return &s }, // Phase I: 4 rounds
			Gain:     func(_ int, u []float64) float64 { return u[1] },
			At:       []int{7, 40},
			Check: func(t *testing.T, iters int, c *controller.Controller) {
				if (iters > 30) != c.Method().(*Method).Phase2() {
					t.Fatalf("after %d iterations: Phase2 = %v", iters, c.Method().(*Method).Phase2())
				}
			},
		})
	})
	t.Run("UseBeforeInit", func(t *testing.T) {
		if _, err := (&Settings{}).New(); err == nil {
			t.Fatal("zero settings accepted")
		}
		s := DefaultSettings()
		methodtest.UseBeforeInit(t, &s)
	})
}

// Each bad field is rejected with an error naming its TOML key, and New
// refuses it too.
func TestSettingsValidateNamesField(t *testing.T) {
	mod := func(f func(*Settings)) controller.Settings { s := DefaultSettings(); f(&s); return &s }
	methodtest.RejectsFields(t, []methodtest.FieldCase{
		{Field: "hidden", Settings: mod(func(s *Settings) { s.Hidden = 0 })},
		{Field: "input_scale", Settings: mod(func(s *Settings) { s.InputScale = math.NaN() })},
		{Field: "rounds", Settings: mod(func(s *Settings) { s.Rounds = -1 })},
		{Field: "explore", Settings: mod(func(s *Settings) { s.Explore = -2 })},
		{Field: "rounds", Settings: mod(func(s *Settings) { s.Rounds = MaxRounds + 1 })},
		{Field: "explore", Settings: mod(func(s *Settings) { s.Explore = MaxRounds + 1 })},
		{Field: "hidden", Settings: mod(func(s *Settings) { s.Hidden = 1001 })},
		{Field: "lambda", Settings: mod(func(s *Settings) { s.Lambda = -1 })},
		{Field: "lambda", Settings: mod(func(s *Settings) { s.Lambda = math.Inf(1) })},
		{Field: "beta", Settings: mod(func(s *Settings) { s.Beta = "huge" })},
		{Field: "beta_scale", Settings: mod(func(s *Settings) { s.BetaScale = 0 })},
		{Field: "sigma", Settings: mod(func(s *Settings) { s.Sigma = -1 })},
		{Field: "delta", Settings: mod(func(s *Settings) { s.Delta = 1 })},
		{Field: "weight_bound", Settings: mod(func(s *Settings) { s.WeightBound = math.NaN() })},
		{Field: "f_bound", Settings: mod(func(s *Settings) { s.FBound = 0 })},
		{Field: "discount", Settings: mod(func(s *Settings) { s.Discount = 0 })},
		{Field: "discount", Settings: mod(func(s *Settings) { s.Discount = 1.5 })},
		{Field: "weight_decay", Settings: mod(func(s *Settings) { s.WeightDecay = -1e-3 })},
		{Field: "fit_restarts", Settings: mod(func(s *Settings) { s.FitRestarts = 0 })},
		{Field: "fit_iterations", Settings: mod(func(s *Settings) { s.FitIterations = 0 })},
		{Field: "candidates", Settings: mod(func(s *Settings) { s.Candidates = 0 })},
		{Field: "starts", Settings: mod(func(s *Settings) { s.Starts = s.Candidates + 1 })},
		{Field: "ascent_steps", Settings: mod(func(s *Settings) { s.AscentSteps = -1 })},
	})
}

// Settings decode from TOML by their tags, strictly.
func TestSettingsTOML(t *testing.T) {
	text := `hidden = 10
input_scale = 2.0
rounds = 50
explore = 4
lambda = 3.0
beta = "paper"
beta_scale = 0.5
sigma = 0.2
delta = 0.05
weight_bound = 0.7
f_bound = 2.0
phase1_in_sigma = false
discount = 0.9
weight_decay = 0.01
fit_restarts = 2
fit_iterations = 50
candidates = 32
starts = 2
ascent_steps = 10`
	want := Settings{Hidden: 10, InputScale: 2, Rounds: 50, Explore: 4, Lambda: 3, Beta: "paper", BetaScale: 0.5, Sigma: 0.2,
		Delta: 0.05, WeightBound: 0.7, FBound: 2, Phase1InSigma: false, Discount: 0.9, WeightDecay: 0.01, FitRestarts: 2,
		FitIterations: 50, Candidates: 32, Starts: 2, AscentSteps: 10}
	methodtest.DecodesTOML(t, text, &Settings{}, &want)
}

// T, n and λ: the setting, else the run's decisions (WithRun), else
// DefaultRounds; n = ⌈√T⌉, λ = √T log²T.
func TestRoundsExploreLambda(t *testing.T) {
	s := DefaultSettings()
	if got := s.ExploreRounds(); got != 15 { // ⌈√200⌉
		t.Errorf("default n = %d, want 15", got)
	}
	r := s.WithRun(1000, 3, 320).(*Settings)
	if r.Rounds != 334 || s.Rounds != 0 {
		t.Errorf("WithRun(1000, 3): rounds %d (original %d), want 334 (0)", r.Rounds, s.Rounds)
	}
	if got, want := r.RegLambda(), math.Sqrt(334)*methodtest.Sq(math.Log(334)); math.Abs(got-want) > 1e-9*want {
		t.Errorf("λ = %v, want %v", got, want)
	}
	if got := r.ExploreRounds(); got != 19 {
		t.Errorf("n = %d, want ⌈√334⌉ = 19", got)
	}
	s.Rounds, s.Lambda, s.Explore = 50, 7, 3
	if r := s.WithRun(1000, 1, 0).(*Settings); r.Rounds != 50 || r.RegLambda() != 7 || r.ExploreRounds() != 3 {
		t.Errorf("explicit settings overridden: %+v", r)
	}
	s.Rounds, s.Lambda = 2, 0
	if got := s.RegLambda(); got != 1 {
		t.Errorf("λ for T = 2 is %v, want the floor 1", got)
	}
}

// ∇_w f and ∇_u f of the network agree with central finite differences.
func TestNetworkGradients(t *testing.T) {
	rng := newRand(3)
	for _, c := range []struct{ in, hidden int }{{1, 25}, {3, 7}, {4, 25}} {
		n := network{in: c.in, hidden: c.hidden, scale: 5}
		w := make([]float64, n.dim())
		n.initWeights(rng, w)
		for i := range w {
			w[i] *= 2 // leave the near-linear regime of the initialisation
		}
		x := make([]float64, c.in)
		for j := range x {
			x[j] = rng.Float64()
		}
		gw, gx := make([]float64, n.dim()), make([]float64, c.in)
		n.eval(w, x, gw, gx)
		const eps = 1e-6
		check := func(what string, i int, v []float64, an float64) {
			old := v[i]
			v[i] = old + eps
			fp := n.eval(w, x, nil, nil)
			v[i] = old - eps
			fm := n.eval(w, x, nil, nil)
			v[i] = old
			fd := (fp - fm) / (2 * eps)
			if math.Abs(fd-an) > 1e-6*(1+math.Abs(fd)) {
				t.Errorf("h=%d H=%d: ∂f/∂%s[%d] = %v, finite difference %v", c.in, c.hidden, what, i, an, fd)
			}
		}
		for i := range w {
			check("w", i, w, gw[i])
		}
		for j := range x {
			check("u", j, x, gx[j])
		}
	}
}

// The regression oracle fits a network it can represent: data from a
// random network of the same shape are fitted to a small loss.
func TestOracleFitsRealizableData(t *testing.T) {
	rng := newRand(5)
	n := network{in: 2, hidden: 5, scale: 5}
	truth := make([]float64, n.dim())
	n.initWeights(rng, truth)
	const pts = 40
	x, y := make([]float64, 2*pts), make([]float64, pts)
	var ss float64
	for j := range pts {
		x[2*j], x[2*j+1] = rng.Float64(), rng.Float64()
		y[j] = n.eval(truth, x[2*j:2*j+2], nil, nil)
		ss += y[j] * y[j]
	}
	res := n.fit(x, y, 0, 5, 500, rng)
	// Relative residual sum of squares.
	if rel := 2 * res.Loss / ss; rel > 1e-4 || math.IsNaN(rel) {
		t.Errorf("oracle residual %.2e of the data's sum of squares, want <= 1e-4", rel)
	}
}

// The Euclidean projection onto {w : (w−c)ᵀΣ(w−c) ≤ β}: points inside are
// unchanged; points outside land on the boundary, satisfy the KKT
// condition z − p = µΣ(p − c) with µ ≥ 0, and are at least as close to z as
// any of 2000 random feasible points.
func TestEllipsoidProjection(t *testing.T) {
	rng := newRand(11)
	const d = 6
	for trial := range 5 {
		// Σ = BBᵀ + 0.1 I, condition number up to ~10³.
		b := mat.NewDense(d, d, nil)
		for i := range d {
			for j := range d {
				b.Set(i, j, rng.NormFloat64()*math.Pow(3, float64(i-3)))
			}
		}
		var s mat.Dense
		s.Mul(b, b.T())
		sigma := make([]float64, d*d)
		for i := range d {
			for j := range d {
				sigma[i*d+j] = s.At(i, j)
				if i == j {
					sigma[i*d+j] += 0.1
				}
			}
		}
		c := make([]float64, d)
		for i := range c {
			c[i] = rng.NormFloat64()
		}
		beta := 0.5 + rng.Float64()
		el, err := newEllipsoid(sigma, d, c, beta, 0.1)
		if err != nil {
			t.Fatal(err)
		}
		quad := func(w []float64) float64 {
			var q float64
			for i := range d {
				for j := range d {
					q += (w[i] - c[i]) * sigma[i*d+j] * (w[j] - c[j])
				}
			}
			return q
		}
		// A random boundary point, scaled inside and outside.
		for _, f := range []float64{0.5, 0.999, 1.5, 4, 100} {
			z := make([]float64, d)
			for i := range z {
				z[i] = rng.NormFloat64()
			}
			var zz []float64
			q := quad(addTo(c, z, 1))
			for i := range z {
				z[i] *= f * math.Sqrt(beta/q)
			}
			zz = addTo(c, z, 1)
			p := make([]float64, d)
			inside := el.project(p, zz)
			if f < 1 {
				if !inside || !slices.Equal(p, zz) {
					t.Errorf("trial %d: point inside (scale %v) moved", trial, f)
				}
				continue
			}
			if inside {
				t.Fatalf("trial %d: point outside (scale %v) reported inside", trial, f)
			}
			if qp := quad(p); qp > beta*(1+1e-9) || qp < beta*(1-1e-6) {
				t.Errorf("trial %d scale %v: ‖p − c‖²_Σ = %v, want β = %v", trial, f, qp, beta)
			}
			if got := el.norm2(p); math.Abs(got-quad(p)) > 1e-9*beta {
				t.Errorf("norm2 = %v, direct %v", got, quad(p))
			}
			// KKT: z − p parallel to Σ(p − c), same direction.
			r := addTo(zz, p, -1)
			sp := make([]float64, d)
			for i := range d {
				for j := range d {
					sp[i] += sigma[i*d+j] * (p[j] - c[j])
				}
			}
			mu := dot(r, sp) / dot(sp, sp)
			if mu < 0 {
				t.Errorf("trial %d scale %v: µ = %v < 0", trial, f, mu)
			}
			for i := range d {
				if math.Abs(r[i]-mu*sp[i]) > 1e-6*(norm(r)+1e-12) {
					t.Errorf("trial %d scale %v: z − p not along Σ(p − c) at %d: %v vs %v", trial, f, i, r[i], mu*sp[i])
					break
				}
			}
			// No random feasible point is closer.
			dp := norm(r)
			for range 2000 {
				v := make([]float64, d)
				for i := range v {
					v[i] = rng.NormFloat64()
				}
				qv := quad(addTo(c, v, 1))
				sc := math.Sqrt(beta/qv) * math.Pow(rng.Float64(), 1.0/d)
				for i := range v {
					v[i] = c[i] + v[i]*sc
				}
				if dd := norm(addTo(zz, v, -1)); dd < dp-1e-9 {
					t.Fatalf("trial %d scale %v: feasible point at distance %v beats the projection's %v", trial, f, dd, dp)
				}
			}
		}
	}
}

func addTo(a, b []float64, s float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] + s*b[i]
	}
	return out
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// Phase II's incremental updates solve eq. (4): after a sequence of
// points, ŵ_t zeroes the gradient of
//
//	λ/2‖w − ŵ₀‖² + ½ Σ_i γ^{t−1−i} ((w − ŵ_i)ᵀg_i + f_i − y_i)²,
//
// Σ_t⁻¹ is the inverse of λI + Σ_i γ^{t−1−i} g_i g_iᵀ (Sherman–Morrison for
// γ = 1, Cholesky for γ < 1), for both the paper's sums and the discounted
// variant.
func TestClosedFormUpdate(t *testing.T) {
	for _, gamma := range []float64{1, 0.9} {
		s := DefaultSettings()
		s.Hidden, s.Rounds, s.Explore, s.Discount, s.Phase1InSigma = 6, 30, 5, gamma, false
		mm, err := s.New()
		if err != nil {
			t.Fatal(err)
		}
		m := mm.(*Method)
		space := methodtest.UnitSpace(t, 2)
		if err := m.Init(space, newRand(1)); err != nil {
			t.Fatal(err)
		}
		rng := newRand(2)
		for range 5 {
			m.st.X1 = append(m.st.X1, rng.Float64(), rng.Float64())
			m.st.Y1 = append(m.st.Y1, rng.NormFloat64())
		}
		m.startPhase2()
		lambda := m.set.RegLambda()
		dw := m.net.dim()
		type rec struct {
			g        []float64
			wi       []float64
			f, y     float64
			discount float64
		}
		var recs []rec
		for k := range 12 {
			x := []float64{rng.Float64(), rng.Float64()}
			y := rng.NormFloat64()
			g := make([]float64, dw)
			f := m.net.eval(m.st.W, x, g, nil)
			recs = append(recs, rec{g: g, wi: append([]float64(nil), m.st.W...), f: f, y: y})
			m.update(x, y)
			_ = k
		}
		// Gradient of eq. (4) at ŵ_t.
		grad := make([]float64, dw)
		full := make([]float64, dw*dw)
		for i := range dw {
			grad[i] = lambda * (m.st.W[i] - m.st.W0[i])
			full[i*dw+i] = lambda
		}
		for i, r := range recs {
			wgt := math.Pow(gamma, float64(len(recs)-1-i))
			res := r.f - r.y
			for j := range dw {
				res += (m.st.W[j] - r.wi[j]) * r.g[j]
			}
			for j := range dw {
				grad[j] += wgt * res * r.g[j]
				for k := range dw {
					full[j*dw+k] += wgt * r.g[j] * r.g[k]
				}
			}
		}
		if n := norm(grad); n > 1e-8*(1+norm(m.st.W)) {
			t.Errorf("γ = %v: ‖∇ eq. (4)‖ at ŵ_t = %v, want ≈ 0", gamma, n)
		}
		// Σ_t Σ_t⁻¹ = I.
		for i := range dw {
			for j := range dw {
				var v float64
				for k := range dw {
					v += full[i*dw+k] * m.st.SigmaInv[k*dw+j]
				}
				want := 0.0
				if i == j {
					want = 1
				}
				if math.Abs(v-want) > 1e-9 {
					t.Fatalf("γ = %v: (Σ Σ⁻¹)[%d][%d] = %v, want %v", gamma, i, j, v, want)
				}
			}
		}
	}
}

// GO-UCB finds the maximum of smooth bimodal functions (maximum 1) within
// a stated budget of rounds (decision interval 1, noise sd 0.05, T = the
// budget, default settings otherwise): in 1-D (bumps of width 0.08 at 0.7
// and of height 0.5 at 0.2) with T = 40 — Phase I is 7 rounds — the median
// value of the last 10 rounds is ≥ 0.9 for at least 4 of 5 seeds; in 2-D
// (a broad bump of width 0.25, a second of height 0.4) with T = 150 —
// Phase I is 13 rounds — for at least 3 of 5. The seeds that miss stay on
// the second mode or on a shoulder: GO-UCB's Phase II learns only through
// one linearised rank-one update per round.
func TestFindsMaximum(t *testing.T) {
	for _, c := range []struct {
		methodtest.Maximum
		need int // seeds that must reach the maximum
	}{{methodtest.Maximum{Name: "1-D", D: 1, F: methodtest.Bumps1D, Budget: 40}, 4}, {methodtest.Maximum{Name: "2-D", D: 2, F: methodtest.Broad2D, Budget: 150}, 3}} {
		t.Run(c.Name, func(t *testing.T) {
			ok := 0
			for seed := uint64(1); seed <= 5; seed++ {
				s := DefaultSettings()
				s.Rounds = c.Budget
				ctl, cfgs := methodtest.RunUnit(t, Name, &s, c.D, c.F, c.Budget+1, seed)
				var last []float64
				for _, cfg := range cfgs[len(cfgs)-10:] {
					last = append(last, c.F(0, cfg))
				}
				slices.Sort(last)
				med := (last[4] + last[5]) / 2
				m := ctl.Method().(*Method)
				t.Logf("seed %d: last-10 median f %.3f, β %.1f, %d failures", seed, med, m.LastBeta(), m.Failures())
				if m.Failures() != 0 {
					t.Errorf("seed %d: %d failed decisions", seed, m.Failures())
				}
				if med >= 0.9 {
					ok++
				}
			}
			if ok < c.need {
				t.Errorf("%d of 5 seeds reached the maximum (last-10 median f >= 0.9), want >= %d", ok, c.need)
			}
		})
	}
}

// Degenerate data never crashes GO-UCB, never yields an invalid or NaN
// configuration (the driver validates every suggestion; the feedback
// helper fails the test on one), and never makes a decision fall back.
func TestDegenerateData(t *testing.T) {
	discounted := DefaultSettings()
	discounted.Discount = 0.9
	paper := DefaultSettings()
	paper.Beta = BetaPaper
	jump := methodtest.DataCase{Name: "constant, then a jump of 1e12", Space: methodtest.UnitSpace(t, 1), Iters: 120,
		Gain: func(it int, _ []float64) float64 {
			if it >= 50 {
				return 1e12
			}
			return 1
		}}
	for _, c := range append(methodtest.Degenerate(t, 80), jump) {
		for _, m := range []struct {
			name string
			set  Settings
		}{{"default", DefaultSettings()}, {"discount", discounted}, {"paper-beta", paper}} {
			t.Run(c.Name+"/"+m.name, func(t *testing.T) {
				set := m.set
				set.Rounds = 40 // Phase II from round 8 (iteration 14)
				mm := c.Run(t, Name, &set, 2).Method().(*Method)
				if c.Iters > 20 && !mm.Phase2() {
					t.Error("Phase II never started")
				}
				if mm.Failures() != 0 {
					t.Errorf("%d failed decisions", mm.Failures())
				}
				for _, v := range mm.Estimate() {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("non-finite estimate %v", v)
					}
				}
			})
		}
	}
}

// A network whose weight count exceeds MaxWeights for the space is refused
// at Init with an error naming hidden and the largest width that fits.
func TestInitBoundsNetworkSize(t *testing.T) {
	s := DefaultSettings()
	s.Hidden = 1000 // 1000·(4+2)+1 weights over the paper's four hyperparameters
	_, err := controller.Build(Name, &s, methodtest.PaperSpace(t), controller.Options{Interval: 1, Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "hidden: 1000 units over 4 hyperparameters give 6001 weights") || !strings.Contains(err.Error(), "want hidden <= 341") {
		t.Fatalf("oversized network: %v", err)
	}
	s.Hidden = 341
	if _, err := controller.Build(Name, &s, methodtest.PaperSpace(t), controller.Options{Interval: 1, Seed: 1}); err != nil {
		t.Fatalf("largest network that fits: %v", err)
	}
}
