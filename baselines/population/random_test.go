package population

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hyperctl/hyperctl/controller"
)

func TestBest(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name  string
		evals []float64
		want  int
		ok    bool
	}{
		{"highest", []float64{3, 9, 1, 4}, 1, true},
		{"first of equal", []float64{2, 7, 7, 1}, 1, true},
		{"negative returns", []float64{-20.4, -19.9, -21}, 1, true},
		{"without evaluations skipped", []float64{nan, 1, nan, 0}, 1, true},
		{"none evaluated", []float64{nan, nan}, -1, false},
		{"empty", nil, -1, false},
		{"infinite", []float64{1, math.Inf(1)}, -1, false},
	} {
		got, err := Best(c.evals)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("%s: Best(%v) = %d, %v; want %d (ok %v)", c.name, c.evals, got, err, c.want, c.ok)
		}
	}
}

// Random search's draw is Initial's: the configurations follow from the
// seed alone. Each value is rederived here from the generator's uniform
// draws u, key by key in the space's order: lr = exp(ln 1e-5 +
// u·(ln 1e-3 − ln 1e-5)) (log scale), clip = 0.1 + 0.4u, batch_size =
// round(1000 + 5000u); member 0 is start when it is given.
func TestRandomSearchDraw(t *testing.T) {
	space := testSpace(t)
	start := controller.Config{2.5e-4, 0.2, 2048}
	for _, c := range []struct {
		name  string
		n     int
		seed  uint64
		start controller.Config
	}{
		{"8 members, seed 0", 8, 0, nil},
		{"8 members, seed 3", 8, 3, nil},
		{"4 members from the defaults", 4, 3, start},
		{"1 member", 1, 11, nil},
	} {
		got, err := Initial(space, c.n, c.start, c.seed)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		u := rand.New(rand.NewPCG(c.seed^0x243f6a8885a308d3, 0))
		for k := range c.n {
			want := controller.Config{
				math.Exp(math.Log(1e-5) + u.Float64()*(math.Log(1e-3)-math.Log(1e-5))),
				0.1 + 0.4*u.Float64(),
				math.Round(1000 + 5000*u.Float64()),
			}
			if k == 0 && c.start != nil {
				want = c.start
			}
			for i := range want {
				if math.Abs(got[k][i]-want[i]) > 1e-12*math.Abs(want[i]) {
					t.Errorf("%s: member %d key %d = %v, want %v", c.name, k, i, got[k][i], want[i])
				}
			}
		}
	}
	// Seed 0's first configuration, written out: the generator's first
	// draws are u ≈ 0.885, 0.759, 0.374, so lr = e^(ln 1e-5 + 0.885·ln 100)
	// ≈ 5.88e-4, clip ≈ 0.1 + 0.4·0.759 ≈ 0.404, batch_size =
	// round(1000 + 5000·0.374) = 2868.
	got, _ := Initial(space, 1, nil, 0)
	want := controller.Config{0.0005884519707677697, 0.4036676011047572, 2868}
	for i := range want {
		if got[0][i] != want[i] {
			t.Errorf("seed 0, member 0: %v, want %v", got[0], want)
			break
		}
	}
}
