package kalman

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/controller/hypercontroller"
)

func TestBanditConfigValidate(t *testing.T) {
	cases := []struct {
		field string
		edit  func(*BanditConfig)
	}{
		{"h", func(c *BanditConfig) { c.H = 0 }},
		{"h", func(c *BanditConfig) { c.H = 9 }},
		{"basis", func(c *BanditConfig) { c.Basis = 0 }},
		{"lengthscale", func(c *BanditConfig) { c.Lengthscale = 0 }},
		{"rho", func(c *BanditConfig) { c.Rho = 1 }},
		{"rho", func(c *BanditConfig) { c.Rho = math.NaN() }},
		{"interaction", func(c *BanditConfig) { c.Interaction = -1 }},
		{"noise", func(c *BanditConfig) { c.Noise = math.Inf(1) }},
		{"fine", func(c *BanditConfig) { c.Fine = 1 }},
	}
	for _, c := range cases {
		cfg := DefaultBanditConfig(2)
		c.edit(&cfg)
		if err := cfg.Validate(); err == nil || !strings.HasPrefix(err.Error(), c.field+":") {
			t.Errorf("%+v: error %v, want one naming %q", cfg, err, c.field)
		}
	}
	if err := DefaultBanditConfig(4).Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestBanditValueAndArgmax checks ψ_t(ζ) = ⟨c(ζ), w_t⟩, that the dynamic
// programme finds the brute-force maximum over all d^h grid configurations
// (with and without interactions), and that ψ*_t is at least every grid
// value.
func TestBanditValueAndArgmax(t *testing.T) {
	for _, inter := range []float64{0, 0.7} {
		cfg := DefaultBanditConfig(3)
		cfg.Interaction = inter
		cfg.Basis = 5
		b, err := NewBandit(cfg, 20, 9)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(b.W(0)); got != cfg.StateDim() {
			t.Fatalf("state dim %d, want %d", got, cfg.StateDim())
		}
		rng := rand.New(rand.NewPCG(1, 2))
		c := make([]float64, cfg.StateDim())
		for range 50 {
			tt := rng.IntN(20)
			z := []float64{rng.Float64(), rng.Float64(), rng.Float64()}
			b.Features(z, c)
			if v, want := b.Value(tt, z), dot(c, b.W(tt)); math.Abs(v-want) > 1e-12 {
				t.Fatalf("Value %g, ⟨c, w⟩ %g", v, want)
			}
			if v := b.Value(tt, z); v > b.Optimum(tt)+1e-9 {
				t.Fatalf("random point beats the optimum: %g > %g", v, b.Optimum(tt))
			}
		}
		const d = 6
		ga, err := NewGridArgmax(cfg, d)
		if err != nil {
			t.Fatal(err)
		}
		for tt := range 20 {
			idx, got := ga.Argmax(b.W(tt), nil)
			best := math.Inf(-1)
			z := make([]float64, 3)
			for a := range d * d * d {
				z[0], z[1], z[2] = float64(a%d)/(d-1), float64(a/d%d)/(d-1), float64(a/d/d)/(d-1)
				best = math.Max(best, b.Value(tt, z))
			}
			for i, j := range idx {
				z[i] = float64(j) / (d - 1)
			}
			if math.Abs(got-best) > 1e-12 || math.Abs(b.Value(tt, z)-best) > 1e-12 {
				t.Fatalf("interaction %g t %d: DP max %g at %v (value %g), brute force %g", inter, tt, got, idx, b.Value(tt, z), best)
			}
			if best > b.Optimum(tt)+1e-9 {
				t.Fatalf("grid maximum %g above ψ* %g", best, b.Optimum(tt))
			}
		}
	}
}

func TestBanditDeterministic(t *testing.T) {
	a, err := NewBandit(DefaultBanditConfig(2), 50, 5)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewBandit(DefaultBanditConfig(2), 50, 5)
	c, _ := NewBandit(DefaultBanditConfig(2), 50, 6)
	z := []float64{0.3, 0.8}
	same, diff := true, false
	for tt := range 50 {
		same = same && a.Observe(tt, z) == b.Observe(tt, z) && a.Optimum(tt) == b.Optimum(tt)
		diff = diff || a.Observe(tt, z) != c.Observe(tt, z)
	}
	if !same || !diff {
		t.Fatalf("same seed identical: %v, other seed differs: %v", same, diff)
	}
}

// TestReferences checks the reference policies on one bandit: the grid
// optimum's regret never decreases and is the smallest of any grid policy
// at every round, and the Kalman oracle and the best fixed configuration
// beat random.
func TestReferences(t *testing.T) {
	b, err := NewBandit(DefaultBanditConfig(2), 400, 3)
	if err != nil {
		t.Fatal(err)
	}
	refs, err := RunReferences(b, 10, 3)
	if err != nil {
		t.Fatal(err)
	}
	g := refs[RefGridOptimum]
	for tt := range g {
		prev := 0.0
		if tt > 0 {
			prev = g[tt-1]
		}
		if g[tt] < prev-1e-12 {
			t.Fatalf("grid optimum has negative regret at t=%d", tt)
		}
		for _, n := range []string{RefRandom, RefOracle, RefBestFixed} {
			p, step := refs[n], refs[n][tt]
			if tt > 0 {
				step -= p[tt-1]
			}
			if step < g[tt]-prev-1e-12 {
				t.Fatalf("%s beats the per-round grid optimum at t=%d", n, tt)
			}
		}
	}
	last := len(g) - 1
	if !(refs[RefOracle][last] < refs[RefRandom][last] && refs[RefBestFixed][last] < refs[RefRandom][last]) {
		t.Errorf("R_n: oracle %.1f, best fixed %.1f, random %.1f; want both below random", refs[RefOracle][last], refs[RefBestFixed][last], refs[RefRandom][last])
	}
}

func TestApplySettings(t *testing.T) {
	e, err := controller.Lookup(hypercontroller.Name)
	if err != nil {
		t.Fatal(err)
	}
	s := e.Defaults()
	if err := ApplySettings(s, 7, 2); err != nil {
		t.Fatal(err)
	}
	hs := s.(*hypercontroller.Settings)
	if hs.D != 7 || hs.S != 2 || hs.Lambda != 1 {
		t.Fatalf("settings after ApplySettings: %+v", *hs)
	}
	if err := ApplySettings(e.Defaults(), 1, 1); err == nil || !strings.Contains(err.Error(), "d:") {
		t.Fatalf("d = 1 accepted or error does not name d: %v", err)
	}
}

func TestRunRegretOutputs(t *testing.T) {
	cfg := RegretConfig{Bandit: DefaultBanditConfig(2), N: 60, D: 5, S: 1, Interval: 1, Seeds: 2, Seed: 1, Controllers: []string{hypercontroller.Name}}
	bad := cfg
	bad.Controllers = []string{"nosuch"}
	if _, err := RunRegret(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Fatalf("unknown controller: %v", err)
	}
	r, err := RunRegret(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Curves) != 5 {
		t.Fatalf("%d curves, want hypercontroller + 4 references", len(r.Curves))
	}
	for _, c := range r.Curves {
		if len(c.Runs) != 2 || len(c.Runs[0]) != 60 {
			t.Fatalf("%s: %d runs", c.Name, len(c.Runs))
		}
	}
	// The same seed gives the same regret path.
	r2, err := RunRegret(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Curves[0].Runs[1][59] != r2.Curves[0].Runs[1][59] {
		t.Fatal("regret benchmark is not deterministic")
	}
	var buf bytes.Buffer
	if err := r.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(buf.String(), "\n"); lines != 1+5*60 {
		t.Fatalf("CSV has %d lines, want %d", lines, 1+5*60)
	}
	if !strings.Contains(r.Table(), "| hypercontroller |") {
		t.Fatal("table lacks the controller row")
	}
	png := filepath.Join(t.TempDir(), "r.png")
	if err := r.Plot(png, "test"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RunRegret(ctx, cfg); err == nil {
		t.Fatal("cancelled context ignored")
	}
	pts, err := RunSweep(context.Background(), cfg, []int{3, 5}, []int{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 2*2+2*4 {
		t.Fatalf("%d sweep points, want 12", len(pts))
	}
	if err := PlotSweep(filepath.Join(t.TempDir(), "s.png"), "test", pts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(SweepTable(pts), "d=5") {
		t.Fatal("sweep table lacks d=5")
	}
}
