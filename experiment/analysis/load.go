// Package analysis turns run folders into Markdown tables, PNG plots like the
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
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/matrix"
	"github.com/hyperctl/hyperctl/experiment/population"
	"github.com/hyperctl/hyperctl/ppo/policy"
)

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
	// Hyper holds each hyperparameter column of train.csv
	// (rundir.HyperColumns): its value at every row of Train.
	Hyper    map[string][]float64
	Finished bool
	Summary  rundir.Summary
	// Judge is the run's judge.json (hyperctl judge: the policy it names,
	// policy-final or policy-best, on fresh episodes), nil when it has
	// none; JudgeProblem says why one that is there cannot be used
	// (unreadable, or of other policy files than the run's).
	Judge        *policy.Judgement
	JudgeProblem string
	// Pruned says where successive halving pruned the run, a member it
	// did not promote ("rung 1 of 3, not promoted"); empty otherwise.
	Pruned string
}

// Set is everything found in a compare folder.
type Set struct {
	Dir string
	// Manifest is the folder's compare.json with its controllers named as
	// its runs are (matrix.Manifest.Named: a population's as pb2-8); nil
	// when it has none.
	Manifest *matrix.Manifest
	Runs     []*Run
	Problems []string // unreadable files, reported rather than fatal
	// Focus is the controller whose rank the summary reports (empty:
	// DefaultFocus of the set's controllers).
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
	// Score is what a run's score is: ScoreBudget (also "") its
	// evaluation return at the matched budget, ScoreJudge its judge.json
	// mean.
	Score string
	// Traces are the hyperparameters whose values Write plots against
	// frames, one figure per environment and key (TraceFigure).
	Traces []string
	// Published holds scores published for some environments (say
	// RLZooScores), which the report shows each row beside; none when nil.
	Published map[string]Published
}

// The scores a report can use (Set.Score, report --score).
const (
	// ScoreBudget scores a run by its in-run evaluation return at its
	// environment's matched frame budget (the default).
	ScoreBudget = "budget"
	// ScoreJudge scores a run by the mean of its judge.json: the policy
	// it names on fresh episodes (policy.FreshSeedBase on). A finished
	// run without a usable judge.json is left out, with the reason.
	ScoreJudge = "judge"
)

// Scores lists the values of Set.Score.
var Scores = []string{ScoreBudget, ScoreJudge}

// Load reads the runs in dir: dir itself when it is a run folder, else
// every run folder below it (rundir.Runs), and compare.json when dir
// has one. A run is named by its environment, controller and seed as its
// config.toml says (rundir.ReadIdentity), the controller by its folder
// when the folder says more, or by the matrix of the compare folder it is
// a cell of, as status and the dashboard name it (matrix.Matrices.RunName:
// a population's members, whose config.toml is an exploit donor's, and a
// study's copies of picked runs). A run that cannot be named, or names one
// already read, is a Problem.
func Load(dir string) (*Set, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("report: %s is not a folder", dir)
	}
	s := &Set{Dir: dir}
	var raw *matrix.Manifest // as compare.json says; s.Manifest names its cells as the runs are named
	if m, err := matrix.ReadManifest(dir); err == nil {
		named := m.Named(dir)
		raw, s.Manifest = &m, &named
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("report: %w", err)
	}
	found, err := rundir.Runs(dir)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	seen := map[matrix.Cell]string{}
	ms := matrix.Matrices{dir: raw}
	pruned := population.PrunedRuns{}
	for _, f := range found {
		env, ctrl, seed, err := ms.RunName(dir, f.Dir)
		if err != nil {
			s.Problems = append(s.Problems, err.Error())
			continue
		}
		key := matrix.Cell{Env: env, Controller: ctrl, Seed: seed}
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
		// A population's files are verified (at its first member) whether
		// its runs finished or not: damage is reported once, naming the
		// file, and its members read as their folders say, never pruned.
		at, err := pruned.At(f.Dir, seed)
		if err != nil {
			s.Problems = append(s.Problems, err.Error())
		}
		if !run.Finished {
			run.Pruned = at
		}
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
	if r.Hyper, err = hyperColumns(tl); err != nil {
		return nil, err
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
	r.Judge, r.JudgeProblem = loadJudgement(dir)
	return r, nil
}

// hyperColumns reads every hyperparameter column of a train.csv.
func hyperColumns(l *rundir.Log) (map[string][]float64, error) {
	out := map[string][]float64{}
	for _, name := range rundir.HyperColumns(l.Header) {
		c, err := l.Col(name)
		if err != nil {
			return nil, err
		}
		vals := make([]float64, len(l.Rows))
		for k := range l.Rows {
			if vals[k], err = l.Float(k, c); err != nil {
				return nil, err
			}
		}
		out[name] = vals
	}
	return out, nil
}

// loadJudgement reads dir's judge.json: nil and "" without one, nil and
// why when it is unreadable or judged other files than dir's policy of
// the same name (checked when the policy is there; a study's copy of a run keeps
// judge.json without the policy).
func loadJudgement(dir string) (*policy.Judgement, string) {
	j, err := policy.ReadJudgement(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ""
	}
	if err != nil {
		return nil, err.Error()
	}
	if policy.Exists(dir, j.Policy) {
		ok, err := j.Current(dir, j.Policy, j.Episodes)
		if err != nil {
			return nil, err.Error()
		}
		if !ok {
			return nil, fmt.Sprintf("%s judged other %s files than the run's; judge it again: hyperctl judge %s", policy.JudgeFile, j.Policy, dir)
		}
	}
	return &j, ""
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
