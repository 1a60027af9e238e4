// Package report turns a compare folder into Markdown tables and PNG plots
// like the HyperController paper's Figures 1 and 2. It works on partial
// results and says which runs are missing or unfinished.
//
// A compare folder holds one run folder per (environment, controller, seed):
//
//	DIR/compare.json                     the matrix that was asked for (optional)
//	DIR/<env>/<controller>/seed<N>/      a run folder (see package rundir)
package report

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/hyperctl/hyperctl/cmd/hyperctl/rundir"
)

// ManifestFile is the compare matrix written by `hyperctl compare`.
const ManifestFile = "compare.json"

// Manifest records what a compare run was asked to do.
type Manifest struct {
	Envs        []string `json:"envs"`
	Controllers []string `json:"controllers"`
	Seeds       []int64  `json:"seeds"`
	Iterations  int      `json:"iterations"`
	Frames      int64    `json:"frames,omitempty"` // the frame budget of every run (absent: none)
	Command     string   `json:"command"`
	// SlurmJobs are the submissions of `compare --backend slurm`, oldest
	// first (absent for local compares).
	SlurmJobs []SlurmJob `json:"slurm_jobs,omitempty"`
}

// SlurmJob is one job array submitted by `compare --backend slurm`.
type SlurmJob struct {
	ID        string `json:"id"`        // Slurm's job id
	Submitted string `json:"submitted"` // RFC 3339 time of the submission
	// Runs are the run folders relative to the compare folder
	// (<env>/<controller>/seed<N>); array task i runs Runs[i].
	Runs []string `json:"runs"`
}

// TrainRow is one row of train.csv (the columns the report uses).
type TrainRow struct {
	Iteration int
	Frames    float64
	Wall      float64 // cumulative wall time, s
	Ctrl      float64 // cumulative controller time, s
	Reward    float64 // mean training reward
}

// EvalRow is one row of eval.csv.
type EvalRow struct {
	Iteration int
	Frames    float64
	Wall      float64
	Ctrl      float64
	Return    float64
}

// Run is one run folder's data.
type Run struct {
	Env, Controller string
	Seed            int64
	Dir             string
	Train           []TrainRow
	Eval            []EvalRow
	Finished        bool
	Summary         rundir.Summary
}

// Set is everything found in a compare folder.
type Set struct {
	Dir      string
	Manifest *Manifest
	Runs     []*Run
	Problems []string // unreadable files, reported rather than fatal
	// Focus is the controller whose rank the summary reports (empty:
	// DefaultFocus).
	Focus string
	// Reference is the row the "Against" section compares every
	// controller with (empty: DefaultReference).
	Reference string
	// Random is a uniformly random policy's return per environment, the
	// zero of the normalised scores (see Stats); environments without one
	// are left out of the aggregate.
	Random map[string]RandomBaseline
	// Bootstrap configures the confidence intervals of Stats.
	Bootstrap Bootstrap
}

// Load scans dir.
func Load(dir string) (*Set, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("report: %s is not a folder", dir)
	}
	s := &Set{Dir: dir}
	if b, err := os.ReadFile(filepath.Join(dir, ManifestFile)); err == nil {
		var m Manifest
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("report: %s: %w", filepath.Join(dir, ManifestFile), err)
		}
		s.Manifest = &m
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("report: %w", err)
	}
	envDirs, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	for _, e := range envDirs {
		if !e.IsDir() {
			continue
		}
		ctrlDirs, _ := os.ReadDir(filepath.Join(dir, e.Name()))
		for _, c := range ctrlDirs {
			if !c.IsDir() {
				continue
			}
			seedDirs, _ := os.ReadDir(filepath.Join(dir, e.Name(), c.Name()))
			for _, sd := range seedDirs {
				n, ok := strings.CutPrefix(sd.Name(), "seed")
				seed, err := strconv.ParseInt(n, 10, 64)
				if !sd.IsDir() || !ok || err != nil {
					continue
				}
				run, err := loadRun(filepath.Join(dir, e.Name(), c.Name(), sd.Name()))
				if err != nil {
					s.Problems = append(s.Problems, err.Error())
					continue
				}
				if run == nil {
					continue
				}
				run.Env, run.Controller, run.Seed = e.Name(), c.Name(), seed
				s.Runs = append(s.Runs, run)
			}
		}
	}
	sort.Slice(s.Runs, func(i, j int) bool {
		a, b := s.Runs[i], s.Runs[j]
		if a.Env != b.Env {
			return a.Env < b.Env
		}
		if a.Controller != b.Controller {
			return a.Controller < b.Controller
		}
		return a.Seed < b.Seed
	})
	return s, nil
}

// loadRun reads one run folder; nil when it holds no rows yet.
func loadRun(dir string) (*Run, error) {
	r := &Run{Dir: dir}
	rows, hdr, err := readCSV(filepath.Join(dir, rundir.TrainCSV))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	col := func(names ...string) (int, error) {
		for _, n := range names {
			for i, h := range hdr {
				if h == n {
					return i, nil
				}
			}
		}
		return -1, fmt.Errorf("%s: no column %s", filepath.Join(dir, rundir.TrainCSV), names[0])
	}
	ci, e1 := col(rundir.ColIteration)
	cf, e2 := col(rundir.ColFrames)
	cw, e3 := col(rundir.ColWallTime)
	cc, e4 := col(rundir.ColControllerTime)
	cr, e5 := col(rundir.ColTrainReward)
	if err := errors.Join(e1, e2, e3, e4, e5); err != nil {
		return nil, err
	}
	for k, row := range rows {
		var tr TrainRow
		var perr error
		tr.Iteration, perr = strconv.Atoi(row[ci])
		vals := []*float64{&tr.Frames, &tr.Wall, &tr.Ctrl, &tr.Reward}
		for i, c := range []int{cf, cw, cc, cr} {
			v, err := strconv.ParseFloat(row[c], 64)
			if err != nil {
				perr = err
			}
			*vals[i] = v
		}
		if perr != nil {
			return nil, fmt.Errorf("%s: row %d: %v", filepath.Join(dir, rundir.TrainCSV), k+2, perr)
		}
		r.Train = append(r.Train, tr)
	}
	if len(r.Train) == 0 {
		return nil, nil
	}
	if erows, ehdr, err := readCSV(filepath.Join(dir, rundir.EvalCSV)); err == nil {
		idx := map[string]int{}
		for i, h := range ehdr {
			idx[h] = i
		}
		need := []string{rundir.ColIteration, rundir.ColFrames, rundir.ColWallTime, rundir.ColControllerTime, rundir.ColEvalReturn}
		for _, n := range need {
			if _, ok := idx[n]; !ok {
				return nil, fmt.Errorf("%s: no column %s", filepath.Join(dir, rundir.EvalCSV), n)
			}
		}
		for k, row := range erows {
			var ev EvalRow
			var perr error
			ev.Iteration, perr = strconv.Atoi(row[idx[rundir.ColIteration]])
			for _, p := range []struct {
				dst *float64
				col string
			}{{&ev.Frames, rundir.ColFrames}, {&ev.Wall, rundir.ColWallTime}, {&ev.Ctrl, rundir.ColControllerTime}, {&ev.Return, rundir.ColEvalReturn}} {
				v, err := strconv.ParseFloat(row[idx[p.col]], 64)
				if err != nil {
					perr = err
				}
				*p.dst = v
			}
			if perr != nil {
				return nil, fmt.Errorf("%s: row %d: %v", filepath.Join(dir, rundir.EvalCSV), k+2, perr)
			}
			r.Eval = append(r.Eval, ev)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if s, err := rundir.ReadSummary(dir); err == nil {
		r.Finished, r.Summary = true, s
	}
	return r, nil
}

func readCSV(path string) (rows [][]string, header []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	all, err := cr.ReadAll()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(all) == 0 {
		return nil, nil, fmt.Errorf("%s: empty file", path)
	}
	header = all[0]
	for _, r := range all[1:] {
		if len(r) == len(header) { // a torn last line is skipped
			rows = append(rows, r)
		}
	}
	return rows, header, nil
}
