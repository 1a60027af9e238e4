package baselines

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/hyperctl/hyperctl/controller"
)

// Stationary test functions on [0, 1]^d with maximum 1, each with a
// second, lower mode to get stuck in.
var (
	bumps1D = func(_ int, u []float64) float64 {
		return math.Exp(-sq(u[0]-0.7)/(2*0.08*0.08)) + 0.5*math.Exp(-sq(u[0]-0.2)/(2*0.1*0.1))
	}
	bumps2D = func(_ int, u []float64) float64 {
		a := sq(u[0]-0.3) + sq(u[1]-0.8)
		b := sq(u[0]-0.8) + sq(u[1]-0.2)
		return math.Exp(-a/(2*0.15*0.15)) + 0.6*math.Exp(-b/(2*0.1*0.1))
	}
)

func sq(x float64) float64 { return x * x }

// GP-UCB (default settings, decision interval 1, noise sd 0.05) finds the
// maximum of a stationary bimodal function: within the budget (30 rounds in
// 1-D, 60 in 2-D) it samples a point with f ≥ 0.95, and the median regret
// of its last 10 rounds is ≤ 0.05 (the second mode has regret 0.5 in 1-D,
// 0.4 in 2-D; single exploratory rounds are expected), for each of 5 seeds.
func TestGPUCBFindsMaximum(t *testing.T) {
	for _, c := range []struct {
		name   string
		d      int
		f      func(int, []float64) float64
		budget int
	}{{"1-D", 1, bumps1D, 30}, {"2-D", 2, bumps2D, 60}} {
		t.Run(c.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 5; seed++ {
				space := unitSpace(t, c.d)
				ctl := build(t, "gpucb", nil, space, 1, seed)
				cfgs := newFeedback(space, c.f, 0.05, seed).Run(t, ctl, 0, c.budget)
				best := 0.0
				var last []float64
				for i, cfg := range cfgs {
					v := c.f(0, cfg)
					best = math.Max(best, v)
					if i >= c.budget-10 {
						last = append(last, 1-v)
					}
				}
				slices.Sort(last)
				median := (last[4] + last[5]) / 2
				t.Logf("seed %d: best f %.3f, last-10 median regret %.3f, last %v", seed, best, median, cfgs[len(cfgs)-1])
				if best < 0.95 || median > 0.05 {
					t.Errorf("seed %d: best f %.3f (want >= 0.95), last-10 median regret %.3f (want <= 0.05)", seed, best, median)
				}
			}
		})
	}
}

// PB2 adapts when the best region moves: the optimum of the per-iteration
// reward gain jumps from u = 0.2 to u = 0.8 at iteration 300 (decision
// interval 5, noise sd 0.05). For each of 3 seeds: in iterations 200-300
// at least 60% of PB2's decisions are within 0.15 of 0.2; within 50
// iterations of the jump it chooses within 0.15 of 0.8; and in iterations
// 320-600 at least 60% of its decisions are within 0.15 of 0.8 (the rest
// is UCB exploration).
func TestPB2AdaptsToMovingOptimum(t *testing.T) {
	moving := func(it int, u []float64) float64 {
		c := 0.2
		if it >= 300 {
			c = 0.8
		}
		return math.Exp(-sq(u[0]-c) / (2 * 0.1 * 0.1))
	}
	const interval = 5
	for seed := uint64(1); seed <= 3; seed++ {
		space := unitSpace(t, 1)
		ctl := build(t, "pb2", nil, space, interval, seed)
		cfgs := newFeedback(space, moving, 0.05, seed).Run(t, ctl, 0, 600)
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

// Degenerate data never crashes the GP methods, never yields an invalid or
// NaN configuration (the driver validates every suggestion), and never
// makes a fit fail.
func TestGPMethodsDegenerateData(t *testing.T) {
	intSpace, err := controller.NewSpace(controller.Param{Name: "n", Low: 1, High: 2, Integer: true})
	if err != nil {
		t.Fatal(err)
	}
	smooth := func(_ int, u []float64) float64 { return 1 - sq(u[0]-0.4) }
	scaled := func(s float64) func(int, []float64) float64 {
		return func(it int, u []float64) float64 { return s * smooth(it, u) }
	}
	pb2Seconds := DefaultPB2Settings()
	pb2Seconds.Time = "seconds"
	smallWindow := DefaultPB2Settings()
	smallWindow.WindowMin, smallWindow.WindowMax, smallWindow.WindowStep = 4, 12, 3
	cases := []struct {
		name    string
		space   controller.Space
		gain    func(int, []float64) float64
		noise   float64
		iters   int
		elapsed time.Duration
	}{
		{"all-equal objective", unitSpace(t, 2), func(int, []float64) float64 { return 1 }, 0, 100, 0},
		{"zero objective", unitSpace(t, 2), func(int, []float64) float64 { return 0 }, 0, 100, 0},
		{"duplicate inputs (two-valued integer)", intSpace, smooth, 0.1, 100, 0},
		{"duplicates, constant objective", intSpace, func(int, []float64) float64 { return 3 }, 0, 100, 0},
		{"single data point", paperSpace(t), smooth, 0.1, 10, 0},
		{"objective scale 1e-12", paperSpace(t), scaled(1e-12), 1e-13, 100, 0},
		{"objective scale 1e12", paperSpace(t), scaled(1e12), 1e11, 100, 0},
		{"zero elapsed time", paperSpace(t), smooth, 0.1, 60, -1},
	}
	methods := []struct {
		name string
		set  func() controller.Settings
	}{
		{"gpucb", func() controller.Settings { s := DefaultGPUCBSettings(); return &s }},
		{"pb2", func() controller.Settings { s := DefaultPB2Settings(); return &s }},
		{"pb2", func() controller.Settings { s := pb2Seconds; return &s }},
		{"pb2", func() controller.Settings { s := smallWindow; return &s }},
	}
	for _, c := range cases {
		for i, m := range methods {
			t.Run(c.name+"/"+m.name+string(rune('0'+i)), func(t *testing.T) {
				ctl := build(t, m.name, m.set(), c.space, 5, 3)
				f := newFeedback(c.space, c.gain, c.noise, 4)
				f.Elapsed = c.elapsed
				f.Run(t, ctl, 0, c.iters)
				switch mm := ctl.Method().(type) {
				case *GPUCB:
					if mm.Failures() != 0 {
						t.Errorf("%d failed fits", mm.Failures())
					}
				case *PB2:
					if mm.Failures() != 0 {
						t.Errorf("%d failed fits", mm.Failures())
					}
				}
			})
		}
	}
}

// PB2's window follows select_length: all rows below WindowMin, else the
// best-likelihood length among WindowMin, WindowMin+WindowStep, … ≤ rows.
func TestPB2WindowRule(t *testing.T) {
	s := DefaultPB2Settings()
	s.WindowMin, s.WindowStep, s.WindowMax = 6, 3, 20
	space := unitSpace(t, 1)
	ctl := build(t, "pb2", &s, space, 1, 1)
	f := newFeedback(space, bumps1D, 0.05, 1)
	for it := range 40 {
		f.Step(t, ctl, it)
		m := ctl.Method().(*PB2)
		rows := len(m.st.Y)
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

// Theorem 1's β_t and PB2's β by hand.
func TestBetaSchedules(t *testing.T) {
	// |D| = 10^4, t = 3, δ = 0.1: 2 log(10^4 · 9 · π² / 0.6).
	want := 2 * math.Log(1e4*9*math.Pi*math.Pi/0.6)
	if got := Beta(3, 4, 10, 0.1, 1); math.Abs(got-want) > 1e-12*want {
		t.Errorf("Beta = %v, want %v", got, want)
	}
	if got := Beta(3, 4, 10, 0.1, 0.2); math.Abs(got-0.2*want) > 1e-12*want {
		t.Errorf("scaled Beta = %v, want %v", got, 0.2*want)
	}
	// Large |D| does not overflow.
	if b := Beta(1000, 400, 100, 0.1, 1); math.IsInf(b, 0) || math.IsNaN(b) {
		t.Errorf("Beta overflowed: %v", b)
	}
	if got, want := PB2Beta(100, 0.2, 0.4), 0.2+math.Log(40); math.Abs(got-want) > 1e-12 {
		t.Errorf("PB2Beta(100) = %v, want %v", got, want)
	}
	if got := PB2Beta(1, 0.2, 0.4); got != 0.2 {
		t.Errorf("PB2Beta(1) = %v, want 0.2 (log term clipped at 0)", got)
	}
}
