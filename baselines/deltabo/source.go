package deltabo

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/controller"
)

// Record is one iteration of a source run: the tuned hyperparameters in
// force, the training progress and the objective. Records of one run share
// Run and are ordered by Iteration.
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

// Source is what ReadRuns found.
type Source struct {
	Dir       string               // the folder searched
	Runs      []string             // run folders used, sorted
	Objective controller.Objective // the runs' controller.objective (all equal)
	Records   []Record
}

// ReadRuns walks dir for finished runs of `hyperctl train` or `hyperctl
// compare` — run folders (package rundir) holding summary.json and
// train.csv — and returns one
// Record per train.csv row with an objective value, keeping the columns of
// params (the controlled space's names). Every error names the offending
// path: a missing folder, no finished runs, a train.csv without a needed
// column, an unparsable value, or runs with different objectives.
func ReadRuns(dir string, params []string) (*Source, error) {
	st, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("transfer_from %s: no such folder", dir)
		}
		return nil, fmt.Errorf("transfer_from %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("transfer_from %s: not a folder", dir)
	}
	var runs []string
	unfinished := 0
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("transfer_from %s: %w", path, err)
		}
		if !d.IsDir() {
			return nil
		}
		if d.Name() == rundir.CheckpointDir && path != dir {
			return filepath.SkipDir
		}
		hasSummary := fileExists(filepath.Join(path, rundir.SummaryFile))
		hasTrain := fileExists(filepath.Join(path, rundir.TrainCSV))
		switch {
		case hasSummary && hasTrain:
			runs = append(runs, path)
			return filepath.SkipDir
		case hasTrain:
			unfinished++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		msg := fmt.Sprintf("transfer_from %s: no finished runs (folders holding %s and %s) below it", dir, rundir.SummaryFile, rundir.TrainCSV)
		if unfinished > 0 {
			msg += fmt.Sprintf("; %d unfinished run(s) without %s were skipped", unfinished, rundir.SummaryFile)
		}
		return nil, errors.New(msg)
	}
	sort.Strings(runs)
	src := &Source{Dir: dir, Runs: runs}
	objOf := ""
	for i, r := range runs {
		obj, err := runObjective(r)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			src.Objective, objOf = obj, r
		} else if obj != src.Objective {
			return nil, fmt.Errorf("transfer_from %s: runs use different objectives: %s has %q, %s has %q", dir, objOf, src.Objective, r, obj)
		}
		recs, err := readTrainCSV(filepath.Join(r, rundir.TrainCSV), params, i)
		if err != nil {
			return nil, err
		}
		src.Records = append(src.Records, recs...)
	}
	if len(src.Records) == 0 {
		return nil, fmt.Errorf("transfer_from %s: the %d finished run(s) hold no iteration with an objective value", dir, len(runs))
	}
	return src, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// runObjective reads [controller] objective from a run's config.toml
// ("delta", the default, when the file or the key is absent).
func runObjective(run string) (controller.Objective, error) {
	path := filepath.Join(run, rundir.ConfigFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return controller.Delta, nil
	}
	if err != nil {
		return 0, fmt.Errorf("transfer_from: %s: %w", path, err)
	}
	var c struct {
		Controller struct {
			Objective controller.Objective `toml:"objective"`
		} `toml:"controller"`
	}
	if _, err := toml.Decode(string(b), &c); err != nil {
		return 0, fmt.Errorf("transfer_from: %s: %w", path, err)
	}
	return c.Controller.Objective, nil
}

// readTrainCSV parses one train.csv into records (rows with an empty
// objective, e.g. the first iteration under the delta objective, are
// skipped).
func readTrainCSV(path string, params []string, run int) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("transfer_from: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("transfer_from: %s: header: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(h)] = i
	}
	need := append([]string{rundir.ColIteration, rundir.ColWallTime, rundir.ColObjective}, params...)
	var missing []string
	for _, n := range need {
		if _, ok := col[n]; !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("transfer_from: %s: no column %s (the controlled space needs %s; the file has %s)",
			path, strings.Join(missing, ", "), strings.Join(params, ", "), strings.Join(header, ", "))
	}
	var out []Record
	line := 1
	for {
		row, err := r.Read()
		line++
		if err == io.EOF {
			break
		}
		if err != nil {
			// A torn last line (a killed writer) ends the file; anything
			// else is reported.
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("transfer_from: %s: line %d: %w", path, line, err)
			}
			return nil, fmt.Errorf("transfer_from: %s: %w", path, err)
		}
		get := func(name string) (string, error) {
			i := col[name]
			if i >= len(row) {
				return "", fmt.Errorf("transfer_from: %s: line %d: %d fields, no %s", path, line, len(row), name)
			}
			return strings.TrimSpace(row[i]), nil
		}
		num := func(name string) (float64, error) {
			s, err := get(name)
			if err != nil {
				return 0, err
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("transfer_from: %s: line %d: %s = %q, want a finite number", path, line, name, s)
			}
			return v, nil
		}
		objS, err := get(rundir.ColObjective)
		if err != nil {
			return nil, err
		}
		if objS == "" {
			continue
		}
		rec := Record{Run: run, Config: make(map[string]float64, len(params))}
		if rec.Objective, err = num(rundir.ColObjective); err != nil {
			return nil, err
		}
		it, err := num(rundir.ColIteration)
		if err != nil {
			return nil, err
		}
		if it < 0 || it != math.Trunc(it) {
			return nil, fmt.Errorf("transfer_from: %s: line %d: iteration %v, want an integer >= 0", path, line, it)
		}
		rec.Iteration = int(it)
		if rec.Time, err = num(rundir.ColWallTime); err != nil {
			return nil, err
		}
		for _, p := range params {
			if rec.Config[p], err = num(p); err != nil {
				return nil, err
			}
		}
		out = append(out, rec)
	}
	return out, nil
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
