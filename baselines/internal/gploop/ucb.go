package gploop

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"gonum.org/v1/gonum/optimize"

	"github.com/hyperctl/hyperctl/baselines/gp"
)

// Maximizer maximises the upper confidence bound μ(x) + κσ(x) of a GP
// over the free (hyperparameter) columns of its input, [0, 1]^free, with the
// leading fixed columns (PB2's time and reward) held at given values: dense
// uniform sampling, then L-BFGS from the best few candidates, with the
// analytic gradient of μ and σ. The box is enforced by optimising z with
// u = (1 − cos πz)/2, a smooth map of ℝ onto [0, 1].
type Maximizer struct {
	Candidates int // uniform random candidates scored per call
	Refine     int // best candidates refined by L-BFGS
	MaxIter    int // L-BFGS major iterations per refinement
}

// Maximize returns the free coordinates (in [0, 1]) with the highest UCB
// found, and that UCB (in the model's standardised units). extra are
// additional candidates (free coordinates only), e.g. the observed ones.
func (a Maximizer) Maximize(m *gp.Model, fixed []float64, free int, kappa float64, rng *rand.Rand, extra [][]float64) ([]float64, float64) {
	return a.MaximizeSplit(m, m, fixed, free, kappa, rng, extra)
}

// MaximizeSplit is Maximize with the mean μ taken from m and the variance σ²
// from v, a GP with m's hyperparameters conditioned on more inputs: the
// configurations of a batch already chosen but not yet observed, which
// lowers σ there so the next choice goes elsewhere (GP-BUCB, Desautels et
// al. 2014, as PB2 chooses for several members at once). v == m is
// Maximize.
func (a Maximizer) MaximizeSplit(m, v *gp.Model, fixed []float64, free int, kappa float64, rng *rand.Rand, extra [][]float64) ([]float64, float64) {
	nf := len(fixed)
	d := nf + free
	nc := a.Candidates + len(extra)
	xs := make([]float64, nc*d)
	for j := range nc {
		row := xs[j*d : (j+1)*d]
		copy(row, fixed)
		if j < a.Candidates {
			for c := nf; c < d; c++ {
				row[c] = rng.Float64()
			}
		} else {
			copy(row[nf:], extra[j-a.Candidates])
		}
	}
	mean, vr := make([]float64, nc), make([]float64, nc)
	err := m.PredictStd(xs, mean, vr)
	if err == nil && v != m {
		err = v.PredictStd(xs, make([]float64, nc), vr)
	}
	if err != nil {
		// Inputs are finite by construction; fall back to the first candidate.
		return append([]float64(nil), xs[nf:d]...), math.Inf(-1)
	}
	ucb := make([]float64, nc)
	idx := make([]int, nc)
	for j := range nc {
		ucb[j] = mean[j] + kappa*math.Sqrt(vr[j])
		if math.IsNaN(ucb[j]) {
			ucb[j] = math.Inf(-1)
		}
		idx[j] = j
	}
	sort.SliceStable(idx, func(p, q int) bool { return ucb[idx[p]] > ucb[idx[q]] })
	best := append([]float64(nil), xs[idx[0]*d+nf:(idx[0]+1)*d]...)
	bestV := ucb[idx[0]]

	x := make([]float64, d)
	copy(x, fixed)
	dm, dv := make([]float64, d), make([]float64, d)
	buf := &gp.Gradient{}
	var dm2 []float64 // v's mean gradient, unused
	var buf2 *gp.Gradient
	if v != m {
		dm2, buf2 = make([]float64, d), &gp.Gradient{}
	}
	// f(z) = −UCB(u(z)) and its gradient in z.
	var memo struct {
		z, g []float64
		f    float64
	}
	evalZ := func(z []float64) {
		if memo.z != nil && slices.Equal(memo.z, z) {
			return
		}
		memo.z = append(memo.z[:0], z...)
		if memo.g == nil {
			memo.g = make([]float64, free)
		}
		for c := range free {
			x[nf+c] = 0.5 * (1 - math.Cos(math.Pi*z[c]))
		}
		mu, vx := m.PredictGrad(x, dm, dv, buf)
		if v != m {
			_, vx = v.PredictGrad(x, dm2, dv, buf2)
		}
		sd := math.Sqrt(vx)
		val := mu + kappa*sd
		for c := range free {
			g := dm[nf+c]
			if sd > 1e-12 {
				g += kappa * dv[nf+c] / (2 * sd)
			}
			memo.g[c] = -g * 0.5 * math.Pi * math.Sin(math.Pi*z[c])
		}
		memo.f = -val
		if math.IsNaN(val) || math.IsInf(val, 0) {
			memo.f = math.Inf(1)
			for c := range memo.g {
				memo.g[c] = 0
			}
			return
		}
		if val > bestV {
			bestV = val
			best = append(best[:0], x[nf:]...)
		}
	}
	problem := optimize.Problem{
		Func: func(z []float64) float64 { evalZ(z); return memo.f },
		Grad: func(g, z []float64) { evalZ(z); copy(g, memo.g) },
	}
	settings := &optimize.Settings{
		MajorIterations:   a.MaxIter,
		GradientThreshold: 1e-6,
		Converger:         &optimize.FunctionConverge{Absolute: 1e-8, Relative: 1e-8, Iterations: 4},
	}
	for r := 0; r < a.Refine && r < nc; r++ {
		j := idx[r]
		z0 := make([]float64, free)
		for c := range free {
			u := math.Max(1e-6, math.Min(1-1e-6, xs[j*d+nf+c]))
			z0[c] = math.Acos(1-2*u) / math.Pi
		}
		// The best point seen is tracked inside evalZ, so an optimiser error
		// (e.g. a failed line search) still leaves a usable optimum.
		_, _ = optimize.Minimize(problem, z0, settings, &optimize.LBFGS{})
	}
	for c := range best {
		best[c] = math.Max(0, math.Min(1, best[c]))
	}
	return best, bestV
}
