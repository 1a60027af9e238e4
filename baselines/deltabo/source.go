package deltabo

import (
	"fmt"
	"math"
	"sort"

	"github.com/hyperctl/hyperctl/controller"
)

// Record is one iteration of a source run: the tuned hyperparameters in
// force, the training progress and the objective. Records of one run share
// Run and are ordered by Iteration. `hyperctl train` reads them from the
// run folders below transfer_from (experiment/run,
// ReadTransfer).
type Record struct {
	// Run identifies the source run (records with the same Run are one run).
	Run int
	// Iteration is the 0-based training iteration.
	Iteration int
	// Time is the cumulative training wall time in seconds at the end of the
	// iteration (train.csv's wall_time_s).
	Time float64
	// Config holds the tuned hyperparameters by name; every parameter of the
	// controlled space must be present.
	Config map[string]float64
	// Objective is the objective the run logged for the iteration (the
	// objective column: controller.Objective.Value of the run's objective).
	Objective float64
}

// Progress modes.
const (
	progressIteration = "iteration"
	progressTime      = "time"
	progressNone      = "none"
)

// sourcePoints turns records into the source GP's data: one point per
// block of at most block consecutive iterations of one run with the same
// configuration, x = (progress at the block's first iteration, the
// configuration in [0, 1]^d) (no progress column when mode is "none"),
// y = the block's mean objective. Records whose configuration lies
// outside the space's bounds are dropped (the source explored a region
// this run cannot use). It returns the points, the progress scale (the
// largest iteration, or the largest time, over the records) and the number
// of dropped records.
func sourcePoints(recs []Record, space controller.Space, mode string, block int) (x, y []float64, scale float64, dropped int, err error) {
	d := space.Dim()
	names := space.Names()
	byRun := map[int][]Record{}
	var runIDs []int
	for _, r := range recs {
		if math.IsNaN(r.Objective) || math.IsInf(r.Objective, 0) || math.IsNaN(r.Time) || math.IsInf(r.Time, 0) || r.Iteration < 0 {
			return nil, nil, 0, 0, fmt.Errorf("record of run %d, iteration %d: objective %v, time %v: want finite values and iteration >= 0", r.Run, r.Iteration, r.Objective, r.Time)
		}
		for _, n := range names {
			v, ok := r.Config[n]
			if !ok {
				return nil, nil, 0, 0, fmt.Errorf("record of run %d, iteration %d: no value for %s", r.Run, r.Iteration, n)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, 0, 0, fmt.Errorf("record of run %d, iteration %d: %s = %v", r.Run, r.Iteration, n, v)
			}
		}
		if _, ok := byRun[r.Run]; !ok {
			runIDs = append(runIDs, r.Run)
		}
		byRun[r.Run] = append(byRun[r.Run], r)
		switch mode {
		case progressIteration:
			scale = math.Max(scale, float64(r.Iteration))
		case progressTime:
			scale = math.Max(scale, r.Time)
		}
	}
	if !(scale > 0) {
		scale = 1
	}
	sort.Ints(runIDs)
	inBounds := func(r Record) bool {
		for i, n := range names {
			p := space.Param(i)
			v := r.Config[n]
			tol := 1e-9 * math.Max(1, math.Abs(p.High-p.Low))
			if v < p.Low-tol || v > p.High+tol {
				return false
			}
		}
		return true
	}
	u := make([]float64, d)
	for _, id := range runIDs {
		rs := byRun[id]
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].Iteration < rs[j].Iteration })
		prevTime := 0.0
		for i := 0; i < len(rs); {
			if !inBounds(rs[i]) {
				dropped++
				prevTime = rs[i].Time
				i++
				continue
			}
			j := i + 1
			for j < len(rs) && j-i < block && rs[j].Iteration == rs[j-1].Iteration+1 && sameConfig(rs[i], rs[j], names) {
				j++
			}
			var sum float64
			for _, r := range rs[i:j] {
				sum += r.Objective
			}
			var prog float64
			switch mode {
			case progressIteration:
				prog = float64(rs[i].Iteration) / scale
			case progressTime:
				// The block starts when the run's previous iteration ended
				// (0 for the run's first record).
				prog = prevTime / scale
			}
			if mode != progressNone {
				x = append(x, clamp01(prog))
			}
			for k, n := range names {
				u[k] = space.ToUnit(k, rs[i].Config[n])
			}
			x = append(x, u...)
			y = append(y, sum/float64(j-i))
			prevTime = rs[j-1].Time
			i = j
		}
	}
	if len(y) == 0 {
		return nil, nil, 0, dropped, fmt.Errorf("no source record lies inside the controlled space's bounds (%d dropped)", dropped)
	}
	return x, y, scale, dropped, nil
}

func sameConfig(a, b Record, names []string) bool {
	for _, n := range names {
		if a.Config[n] != b.Config[n] {
			return false
		}
	}
	return true
}

func clamp01(v float64) float64 { return math.Min(1, math.Max(0, v)) }

// thin keeps at most max of n points (rows of width w), evenly spaced in
// their order, deterministically.
func thin(x, y []float64, w, max int) ([]float64, []float64) {
	n := len(y)
	if n <= max {
		return x, y
	}
	ox, oy := make([]float64, 0, max*w), make([]float64, 0, max)
	for k := range max {
		i := int(math.Round(float64(k) * float64(n-1) / float64(max-1)))
		ox = append(ox, x[i*w:(i+1)*w]...)
		oy = append(oy, y[i])
	}
	return ox, oy
}
