package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// Quartiles returns the 25th, 50th and 75th percentiles with linear
// interpolation between order statistics (Hyndman and Fan's type 7, NumPy's
// and matplotlib's default, so box plots match the paper's). gonum's
// stat.LinInterp is a different estimator (its median of {1, 2, 3} is 1.5).
// NaN for no data.
func Quartiles(x []float64) (q1, med, q3 float64) {
	if len(x) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return quantile7(s, 0.25), quantile7(s, 0.5), quantile7(s, 0.75)
}

// quantile7 is the type-7 quantile of sorted data.
func quantile7(s []float64, p float64) float64 {
	h := float64(len(s)-1) * p
	lo := int(math.Floor(h))
	if lo+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

// Row is one line of an environment's table.
type Row struct {
	Controller     string
	Finished       int
	Expected       int
	TrainQ         [3]float64 // final training reward quartiles over finished runs
	EvalQ          [3]float64 // final evaluation return quartiles over finished runs
	CtrlPer1000    float64    // median controller seconds per 1000 iterations
	WallMedian     float64    // median total wall time, s
	Unfinished     []string   // seeds started but unfinished, with progress
	Missing        []int64    // seeds expected but never started
	EvalIterations int        // median iteration of the final evaluation
}

// Envs lists the environments present or expected, sorted.
func (s *Set) Envs() []string {
	m := map[string]bool{}
	for _, r := range s.Runs {
		m[r.Env] = true
	}
	if s.Manifest != nil {
		for _, e := range s.Manifest.Envs {
			m[e] = true
		}
	}
	return sortedKeys(m)
}

// Table computes the rows for one environment.
func (s *Set) Table(env string) []Row {
	ctrls := map[string]bool{}
	seeds := map[int64]bool{}
	byKey := map[string]*Run{}
	for _, r := range s.Runs {
		if r.Env != env {
			continue
		}
		ctrls[r.Controller] = true
		seeds[r.Seed] = true
		byKey[fmt.Sprintf("%s/%d", r.Controller, r.Seed)] = r
	}
	expectedSeeds := make([]int64, 0, len(seeds))
	if s.Manifest != nil {
		for _, c := range s.Manifest.Controllers {
			ctrls[c] = true
		}
		expectedSeeds = append(expectedSeeds, s.Manifest.Seeds...)
	} else {
		for sd := range seeds {
			expectedSeeds = append(expectedSeeds, sd)
		}
	}
	sort.Slice(expectedSeeds, func(i, j int) bool { return expectedSeeds[i] < expectedSeeds[j] })
	var rows []Row
	for _, c := range sortedKeys(ctrls) {
		row := Row{Controller: c, Expected: len(expectedSeeds)}
		var train, eval, ctrl, wall, evalIt []float64
		for _, sd := range expectedSeeds {
			r := byKey[fmt.Sprintf("%s/%d", c, sd)]
			switch {
			case r == nil:
				row.Missing = append(row.Missing, sd)
			case !r.Finished:
				last := r.Train[len(r.Train)-1]
				row.Unfinished = append(row.Unfinished, fmt.Sprintf("seed %d at iteration %d", sd, last.Iteration+1))
			default:
				row.Finished++
				last := r.Train[len(r.Train)-1]
				train = append(train, last.Reward)
				if len(r.Eval) > 0 {
					ev := r.Eval[len(r.Eval)-1]
					eval = append(eval, ev.Return)
					evalIt = append(evalIt, float64(ev.Iteration))
				}
				ctrl = append(ctrl, last.Ctrl/float64(last.Iteration+1)*1000)
				wall = append(wall, last.Wall)
			}
		}
		q := func(x []float64) [3]float64 { a, b, c := Quartiles(x); return [3]float64{a, b, c} }
		row.TrainQ, row.EvalQ = q(train), q(eval)
		_, row.CtrlPer1000, _ = Quartiles(ctrl)
		_, row.WallMedian, _ = Quartiles(wall)
		_, m, _ := Quartiles(evalIt)
		if !math.IsNaN(m) {
			row.EvalIterations = int(m)
		}
		rows = append(rows, row)
	}
	return rows
}

// Markdown writes one table per environment, plus what is missing.
func (s *Set) Markdown(w io.Writer) error {
	var sb strings.Builder
	if s.Manifest != nil {
		fmt.Fprintf(&sb, "Matrix: envs %s; controllers %s; seeds %v; %d iterations.\n",
			strings.Join(s.Manifest.Envs, ", "), strings.Join(s.Manifest.Controllers, ", "), s.Manifest.Seeds, s.Manifest.Iterations)
		if s.Manifest.Command != "" {
			fmt.Fprintf(&sb, "Command: `%s`\n", s.Manifest.Command)
		}
		sb.WriteString("\n")
	}
	for _, env := range s.Envs() {
		rows := s.Table(env)
		fmt.Fprintf(&sb, "## %s\n\n", env)
		sb.WriteString("| controller | seeds | final training reward, median [IQR] | final evaluation return, median [IQR] | controller time per 1000 it. (s) | total wall time, median (s) |\n")
		sb.WriteString("|---|---|---|---|---|---|\n")
		var notes []string
		for _, r := range rows {
			fmt.Fprintf(&sb, "| %s | %d/%d | %s | %s | %s | %s |\n", r.Controller, r.Finished, r.Expected,
				fmtQ(r.TrainQ), fmtQ(r.EvalQ), fmtNum(r.CtrlPer1000, 4), fmtNum(r.WallMedian, 1))
			if len(r.Unfinished) > 0 {
				notes = append(notes, fmt.Sprintf("%s: unfinished: %s", r.Controller, strings.Join(r.Unfinished, "; ")))
			}
			if len(r.Missing) > 0 {
				notes = append(notes, fmt.Sprintf("%s: missing seeds %v", r.Controller, r.Missing))
			}
		}
		if len(notes) > 0 {
			sb.WriteString("\nMissing or unfinished (not in the statistics):\n")
			for _, n := range notes {
				fmt.Fprintf(&sb, "- %s\n", n)
			}
		}
		sb.WriteString("\n")
	}
	if len(s.Problems) > 0 {
		sb.WriteString("Unreadable runs:\n")
		for _, p := range s.Problems {
			fmt.Fprintf(&sb, "- %s\n", p)
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

func fmtQ(q [3]float64) string {
	if math.IsNaN(q[1]) {
		return "–"
	}
	return fmt.Sprintf("%s [%s, %s]", fmtNum(q[1], 2), fmtNum(q[0], 2), fmtNum(q[2], 2))
}

func fmtNum(v float64, prec int) string {
	if math.IsNaN(v) {
		return "–"
	}
	if v != 0 && (math.Abs(v) < math.Pow(10, -float64(prec)) || math.Abs(v) >= 1e7) {
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.*f", prec, v)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
