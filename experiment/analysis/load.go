// Package report turns run folders into Markdown tables, PNG plots like the
// HyperController paper's Figures 1 and 2, and JSON or CSV tables for other
// tools. It works on partial results and says which runs are missing or
// unfinished.
//
// It reads a compare folder, which holds one run folder per (environment,
// controller, seed):
//
//	DIR/compare.json                     the matrix that was asked for (optional)
//	DIR/<env>/<controller>/seed<N>/      a run folder (see package rundir)
//
// or a single run folder, or any folder with run folders below it (found
// by rundir.Runs), such as the runs/ folder `hyperctl train` fills.
package analysis

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/configs/safefile"
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

// WriteManifest writes m as dir's compare.json, atomically.
func WriteManifest(dir string, m Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	return safefile.WriteAtomic(filepath.Join(dir, ManifestFile), append(b, '\n'))
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

// Load reads the runs in dir: dir itself when it is a run folder, else
// every run folder below it (rundir.Runs), and compare.json when dir
// has one. A run is named by its environment, controller and seed as its
// config.toml says (rundir.ReadIdentity), the controller by its folder
// when the folder says more: a compare folder's <env>/<variant>/seed<N>
// (hypercontroller@rl) or train's default <env>-<variant>-seed<N>. A cell
// of a compare.json in dir or below it, <env>/<controller>/seed<N> with
// all three in the matrix, is named by the matrix, as status and the
// dashboard name it (a population's members, whose config.toml is an
// exploit donor's, and a study's copies of picked runs). A run that cannot
// be named, or names one already read, is a Problem.
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
	found, err := rundir.Runs(dir)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	seen := map[string]string{}
	ms := Matrices{dir: s.Manifest}
	for _, f := range found {
		env, ctrl, seed, err := ms.RunName(dir, f.Dir)
		if err != nil {
			s.Problems = append(s.Problems, err.Error())
			continue
		}
		key := fmt.Sprintf("%s/%s/seed%d", env, ctrl, seed)
		if prev, dup := seen[key]; dup {
			s.Problems = append(s.Problems, fmt.Sprintf("%s: the same run (%s, %s, seed %d) as %s; left out", f.Dir, env, ctrl, seed, prev))
			continue
		}
		run, err := loadRun(f.Dir)
		if err != nil {
			s.Problems = append(s.Problems, err.Error())
			continue
		}
		if run == nil {
			continue
		}
		seen[key] = f.Dir
		run.Env, run.Controller, run.Seed = env, ctrl, seed
		s.Runs = append(s.Runs, run)
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

// Matrices caches the compare.json files read while naming runs, by
// folder (nil: the folder has none).
type Matrices map[string]*Manifest

// at returns the matrix of the compare folder d (nil: none).
func (ms Matrices) at(d string) (*Manifest, error) {
	if m, ok := ms[d]; ok {
		return m, nil
	}
	path := filepath.Join(d, ManifestFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		ms[d] = nil
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("report: %s: %w", path, err)
	}
	ms[d] = &m
	return &m, nil
}

// RunName names the run in dir, a folder in root or below it (see Load):
// by the matrix of the compare folder it is a cell of, else by its
// config.toml and folder name. An unreadable compare.json is an error
// naming it.
func (ms Matrices) RunName(root, dir string) (env, ctrl string, seed int64, err error) {
	// cell: dir is <env>/<variant>/seed<N> below a compare folder in root
	// (or root itself) that lists it.
	cell := false
	e, c, sd, ok := compareLayout(dir)
	if ok {
		top := filepath.Dir(filepath.Dir(filepath.Dir(dir)))
		if rel, err := filepath.Rel(root, top); err == nil && filepath.IsLocal(rel) {
			m, err := ms.at(top)
			if err != nil {
				return "", "", 0, err
			}
			if m.holds(e, c, sd) {
				return e, c, sd, nil
			}
			cell = top == filepath.Clean(root)
		}
	}
	id, err := rundir.ReadIdentity(dir)
	if err != nil {
		if ok && cell {
			return e, c, sd, nil // a compare run whose config cannot be read: its folder names it
		}
		return "", "", 0, err
	}
	env, ctrl, seed, _ = NameByConfig(dir, id)
	return env, ctrl, seed, nil
}

// compareLayout splits a folder whose last three folders are compare's
// <env>/<variant>/seed<N>.
func compareLayout(dir string) (env, variant string, seed int64, ok bool) {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(dir)), "/")
	if len(parts) < 3 {
		return "", "", 0, false
	}
	n, ok := strings.CutPrefix(parts[len(parts)-1], "seed")
	sd, err := strconv.ParseInt(n, 10, 64)
	if !ok || err != nil {
		return "", "", 0, false
	}
	return parts[len(parts)-3], parts[len(parts)-2], sd, true
}

// NameByConfig names the run in dir, outside any matrix, by its
// config.toml's identity id; the controller by its folder when the folder
// names the same run and says more (a preset the config does not name):
// compare's <env>/<variant>/seed<N> or train's default
// <env>-<variant>-seed<N>, such as hypercontroller@rl. fromFolder reports
// that the compare layout named it.
func NameByConfig(dir string, id rundir.Identity) (env, ctrl string, seed int64, fromFolder bool) {
	variant := func(v string) bool { return v == id.Controller || strings.HasPrefix(v, id.Controller+"@") }
	if e, c, sd, ok := compareLayout(dir); ok && e == id.Env && sd == id.Seed && variant(c) {
		return e, c, sd, true
	}
	if rest, ok := strings.CutPrefix(filepath.Base(dir), id.Env+"-"); ok {
		if c, ok := strings.CutSuffix(rest, fmt.Sprintf("-seed%d", id.Seed)); ok && variant(c) {
			return id.Env, c, id.Seed, false
		}
	}
	return id.Env, id.Controller, id.Seed, false
}

// holds reports whether the matrix m (nil: none) has the run of env,
// controller and seed.
func (m *Manifest) holds(env, ctrl string, seed int64) bool {
	return m != nil && slices.Contains(m.Envs, env) && slices.Contains(m.Controllers, ctrl) && slices.Contains(m.Seeds, seed)
}

// loadRun reads one run folder; nil when it holds no rows yet.
func loadRun(dir string) (*Run, error) {
	r := &Run{Dir: dir}
	tl, err := rundir.ReadLog(filepath.Join(dir, rundir.TrainCSV))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	if r.Train, err = parseRows(tl, []string{rundir.ColFrames, rundir.ColWallTime, rundir.ColControllerTime, rundir.ColTrainReward},
		func(t *TrainRow) (*int, []*float64) {
			return &t.Iteration, []*float64{&t.Frames, &t.Wall, &t.Ctrl, &t.Reward}
		}); err != nil {
		return nil, err
	}
	if len(r.Train) == 0 {
		return nil, nil
	}
	if el, err := rundir.ReadLog(filepath.Join(dir, rundir.EvalCSV)); err == nil {
		if r.Eval, err = parseRows(el, []string{rundir.ColFrames, rundir.ColWallTime, rundir.ColControllerTime, rundir.ColEvalReturn},
			func(e *EvalRow) (*int, []*float64) {
				return &e.Iteration, []*float64{&e.Frames, &e.Wall, &e.Ctrl, &e.Return}
			}); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if s, err := rundir.ReadSummary(dir); err == nil {
		r.Finished, r.Summary = true, s
	}
	return r, nil
}

// parseRows reads every row of a log into a new T: its iteration and the
// numbers of the named columns, into the destinations fields returns. A
// missing column (each one is reported) or an unparsable field is an error.
func parseRows[T any](l *rundir.Log, names []string, fields func(*T) (*int, []*float64)) ([]T, error) {
	ci, err := l.Col(rundir.ColIteration)
	errs := []error{err}
	cols := make([]int, len(names))
	for i, n := range names {
		cols[i], err = l.Col(n)
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := make([]T, len(l.Rows))
	for k := range l.Rows {
		it, nums := fields(&out[k])
		if *it, err = l.Int(k, ci); err != nil {
			return nil, err
		}
		for i, p := range nums {
			if *p, err = l.Float(k, cols[i]); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
