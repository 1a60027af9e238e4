package population

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/pb2"
	"github.com/hyperctl/hyperctl/controller"
)

func testSpace(t *testing.T) controller.Space {
	t.Helper()
	s, err := controller.NewSpace(
		controller.Param{Name: "lr", Low: 1e-5, High: 1e-3, Scale: controller.Log},
		controller.Param{Name: "clip", Low: 0.1, High: 0.5},
		controller.Param{Name: "batch_size", Low: 1000, High: 6000, Integer: true},
	)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestQuantileSize(t *testing.T) {
	for _, c := range []struct{ n, want int }{{1, 0}, {2, 1}, {3, 1}, {4, 1}, {5, 2}, {8, 2}, {9, 3}, {16, 4}} {
		if got := QuantileSize(c.n, 0.25); got != c.want {
			t.Errorf("QuantileSize(%d, 0.25) = %d, want %d", c.n, got, c.want)
		}
	}
	if got := QuantileSize(3, 0.5); got != 1 {
		t.Errorf("QuantileSize(3, 0.5) = %d, want 1 (at most half)", got)
	}
}

// The bottom quarter copies the top quarter; nobody else moves.
func TestTruncation(t *testing.T) {
	scores := []float64{5, 1, 8, 3, 7, 2, 6, 4} // bottom 2: members 1, 5; top 2: members 2, 4
	seen := map[int]bool{}
	for seed := range uint64(50) {
		d, err := Truncation(scores, 0.25, rand.New(rand.NewPCG(seed, 1)))
		if err != nil {
			t.Fatal(err)
		}
		for i, j := range d {
			switch i {
			case 1, 5:
				if j != 2 && j != 4 {
					t.Fatalf("seed %d: member %d copies %d, want a top-quantile member (2 or 4)", seed, i, j)
				}
				seen[j] = true
			default:
				if j != -1 {
					t.Fatalf("seed %d: member %d copies %d, want it to keep its own", seed, i, j)
				}
			}
		}
	}
	if !seen[2] || !seen[4] {
		t.Errorf("over 50 seeds the donors were %v, want both top members drawn", seen)
	}
	// Ties rank the lower index first: with equal scores member 0 is the bottom.
	d, _ := Truncation([]float64{1, 1}, 0.25, rand.New(rand.NewPCG(0, 0)))
	if !slices.Equal(d, []int{1, -1}) {
		t.Errorf("tied pair: donors %v, want [1 -1]", d)
	}
	if _, err := Truncation([]float64{1, math.NaN()}, 0.25, rand.New(rand.NewPCG(0, 0))); err == nil {
		t.Error("a NaN score was accepted")
	}
}

// Perturbation multiplies by 0.8 or 1.2, resampling happens with its
// probability, and results stay in range.
func TestPerturb(t *testing.T) {
	space := testSpace(t)
	cfg := controller.Config{1e-4, 0.2, 2000}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		out, ops, err := Perturb(space, cfg, 0, rng)
		if err != nil {
			t.Fatal(err)
		}
		for i, op := range ops {
			f := map[string]float64{"*0.8": 0.8, "*1.2": 1.2}[op]
			if f == 0 {
				t.Fatalf("op %q with resample probability 0", op)
			}
			if !space.Param(i).Integer && math.Abs(out[i]-cfg[i]*f) > 1e-12*cfg[i] {
				t.Fatalf("key %d: %v %s = %v", i, cfg[i], op, out[i])
			}
		}
		if err := space.Validate(out); err != nil {
			t.Fatal(err)
		}
	}
	// At a bound, the factor is clamped.
	out, _, _ := Perturb(space, controller.Config{1e-3, 0.5, 6000}, 0, rand.New(rand.NewPCG(3, 3)))
	if err := space.Validate(out); err != nil {
		t.Fatalf("perturbed at the upper bounds: %v", err)
	}
	n, resampled := 0, 0
	for range 2000 {
		_, ops, _ := Perturb(space, cfg, 0.25, rng)
		for _, op := range ops {
			n++
			if op == "resample" {
				resampled++
			}
		}
	}
	if p := float64(resampled) / float64(n); math.Abs(p-0.25) > 0.02 {
		t.Errorf("resampled %.3f of keys, want 0.25 ± 0.02", p)
	}
}

func members(space controller.Space, scores []float64, gen int) []Interval {
	out := make([]Interval, len(scores))
	for i, s := range scores {
		c := make(controller.Config, space.Dim())
		for k := range c {
			c[k] = space.FromUnit(k, float64(i+1)/float64(len(scores)+1))
		}
		out[i] = Interval{Start: float64(gen) * 1000, End: float64(gen+1) * 1000, Before: s - 1, HaveBefore: gen > 0, After: s, Config: c}
	}
	return out
}

// A step is a function of its input: redone, it decides the same; another
// generation draws differently.
func TestStepDeterministic(t *testing.T) {
	space := testSpace(t)
	for _, method := range []string{PBT, PB2} {
		in := Input{Settings: DefaultSettings(method), Space: space, Seed: 7, Generation: 3,
			Members: members(space, []float64{3, 9, 1, 4, 8, 2, 7, 5}, 3)}
		for g := range 3 {
			in.History = append(in.History, members(space, []float64{1, 2, 3, 4, 5, 6, 7, 8}, g)...)
		}
		a, err := Step(in)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Step(in)
		exploited := 0
		for i := range a {
			if a[i].Donor != b[i].Donor || !slices.Equal(a[i].Config, b[i].Config) {
				t.Fatalf("%s: member %d: %+v then %+v", method, i, a[i], b[i])
			}
			if a[i].Donor >= 0 {
				exploited++
				if a[i].Donor != 1 && a[i].Donor != 4 {
					t.Errorf("%s: member %d copies %d, not a top member", method, i, a[i].Donor)
				}
				if len(a[i].Ops) != space.Dim() {
					t.Errorf("%s: member %d: ops %v", method, i, a[i].Ops)
				}
			} else if !slices.Equal(a[i].Config, in.Members[i].Config) {
				t.Errorf("%s: member %d kept its weights but changed its configuration", method, i)
			}
		}
		if exploited != 2 {
			t.Errorf("%s: %d members exploited, want 2 of 8", method, exploited)
		}
		if method == PB2 && a[2].Ops[0] != "ucb" {
			t.Errorf("pb2 with data: ops %v, want ucb", a[2].Ops)
		}
	}
}

// Without points, PB2 keeps the donor's configuration (Ray's first
// explore); with points whose change grows with lr, it picks a high lr,
// and a second choice at the same ready point moves away from the first.
func TestPB2Choose(t *testing.T) {
	space := testSpace(t)
	set := pb2.DefaultSettings()
	donor := controller.Config{1e-4, 0.3, 3000}
	c, err := pb2.Choose(set, space, nil, 1000, 5, donor, nil, rand.New(rand.NewPCG(1, 1)))
	if err != nil || c.Window != 0 || !slices.Equal(c.Config, donor) {
		t.Fatalf("no data: %+v, %v; want the donor's configuration", c, err)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	var pts []pb2.Point
	for i := range 40 {
		u := []float64{rng.Float64(), rng.Float64(), rng.Float64()}
		cfg := make(controller.Config, 3)
		for k := range cfg {
			cfg[k] = space.FromUnit(k, u[k])
		}
		pts = append(pts, pb2.Point{Time: float64(i/8) * 1000, Before: float64(i / 8), Config: cfg, Change: 2*u[0] - 1 + 0.05*rng.NormFloat64()})
	}
	first, err := pb2.Choose(set, space, pts, 5000, 5, donor, nil, rand.New(rand.NewPCG(5, 5)))
	if err != nil {
		t.Fatal(err)
	}
	if u := space.ToUnit(0, first.Config[0]); u < 0.7 || first.Window != 40 || first.Failed {
		t.Errorf("first choice %+v (lr at unit %.2f); want lr in the top of its range from 40 points", first, u)
	}
	second, err := pb2.Choose(set, space, pts, 5000, 5, donor, []controller.Config{first.Config}, rand.New(rand.NewPCG(5, 5)))
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(second.Config, first.Config) {
		t.Errorf("the second choice repeats the pending first one: %v", second.Config)
	}
}

// A member's controller runs the given configuration at every iteration,
// also after a restore.
func TestGiven(t *testing.T) {
	space := testSpace(t)
	cfg := controller.Config{2e-4, 0.25, 1500}
	ctl, err := controller.New("population", NewGiven(cfg), space, controller.Options{Interval: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		got, err := ctl.Suggest()
		if err != nil || !slices.Equal(got, cfg) {
			t.Fatalf("suggest: %v, %v", got, err)
		}
		if err := ctl.Observe(controller.Result{Reward: 1}); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := ctl.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	next := controller.Config{5e-4, 0.4, 4000}
	ctl2, _ := controller.New("population", NewGiven(next), space, controller.Options{Interval: 1, Seed: 1})
	if err := ctl2.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if got, _ := ctl2.Suggest(); !slices.Equal(got, next) || ctl2.Iteration() != 3 {
		t.Errorf("restored member suggests %v at iteration %d, want %v at 3", got, ctl2.Iteration(), next)
	}
	if _, err := controller.New("population", NewGiven(controller.Config{1, 0.2, 1000}), space, controller.Options{}); err == nil {
		t.Error("a configuration outside the space was accepted")
	}
}

func TestInitial(t *testing.T) {
	space := testSpace(t)
	start := controller.Config{2.5e-4, 0.2, 2048}
	a, err := Initial(space, 4, start, 9)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Initial(space, 4, start, 9)
	if !slices.Equal(a[0], start) {
		t.Errorf("member 0 starts from %v, want %v", a[0], start)
	}
	for i := range a {
		if !slices.Equal(a[i], b[i]) || space.Validate(a[i]) != nil {
			t.Errorf("member %d: %v then %v", i, a[i], b[i])
		}
	}
	if slices.Equal(a[1], a[2]) {
		t.Error("two members drew the same configuration")
	}
}

func TestStarts(t *testing.T) {
	space := testSpace(t)
	start := controller.Config{2.5e-4, 0.2, 2048}
	random, err := Initial(space, 4, start, 9)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		same    bool
		start   controller.Config
		want    []controller.Config
		wantErr string
	}{
		{"random starts are Initial's", false, start, random, ""},
		{"same start: every member at start", true, start, []controller.Config{start, start, start, start}, ""},
		{"same start needs a start", true, nil, nil, "gives no start configuration"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := DefaultSettings(Halving)
			s.SameStart = c.same
			got, err := s.Starts(space, 4, c.start, 9)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range c.want {
				if !slices.Equal(got[i], c.want[i]) {
					t.Errorf("member %d starts at %v, want %v", i, got[i], c.want[i])
				}
			}
		})
	}
}
