package run

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/hyperctl/hyperctl/baselines/deltabo"
	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/controller"
)

// Source is what ReadTransfer found below a transfer_from folder.
type Source struct {
	Dir       string               // the folder searched
	Runs      []string             // run folders used, sorted
	Objective controller.Objective // the runs' controller.objective (all equal)
	Records   []deltabo.Record
}

// ReadTransfer walks dir for finished runs of `hyperctl train` or `hyperctl
// compare` (run folders holding summary.json and train.csv, see
// rundir.FindRuns) and returns one record per train.csv row with an
// objective value, keeping the columns of params (the controlled space's
// names). Every error names the offending path: a missing folder, no
// finished runs, a train.csv without a needed column, an unparsable value,
// or runs with different objectives.
func ReadTransfer(dir string, params []string) (*Source, error) {
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
	runs, unfinished, err := rundir.FindRuns(dir)
	if err != nil {
		return nil, fmt.Errorf("transfer_from %w", err)
	}
	if len(runs) == 0 {
		msg := fmt.Sprintf("transfer_from %s: no finished runs (folders holding %s and %s) below it", dir, rundir.SummaryFile, rundir.TrainCSV)
		if unfinished > 0 {
			msg += fmt.Sprintf("; %d unfinished run(s) without %s were skipped", unfinished, rundir.SummaryFile)
		}
		return nil, errors.New(msg)
	}
	src := &Source{Dir: dir, Runs: runs}
	objOf := ""
	for i, r := range runs {
		obj, err := configs.ReadObjective(filepath.Join(r, rundir.ConfigFile))
		if err != nil {
			return nil, fmt.Errorf("transfer_from: %w", err)
		}
		if i == 0 {
			src.Objective, objOf = obj, r
		} else if obj != src.Objective {
			return nil, fmt.Errorf("transfer_from %s: runs use different objectives: %s has %q, %s has %q", dir, objOf, src.Objective, r, obj)
		}
		recs, err := transferRecords(filepath.Join(r, rundir.TrainCSV), params, i)
		if err != nil {
			return nil, fmt.Errorf("transfer_from: %w", err)
		}
		src.Records = append(src.Records, recs...)
	}
	if len(src.Records) == 0 {
		return nil, fmt.Errorf("transfer_from %s: the %d finished run(s) hold no iteration with an objective value", dir, len(runs))
	}
	return src, nil
}

// transferRecords reads one train.csv into records (rows with an empty
// objective, e.g. the first iteration under the delta objective, are
// skipped).
func transferRecords(path string, params []string, run int) ([]deltabo.Record, error) {
	l, err := rundir.ReadLog(path)
	if err != nil {
		return nil, err
	}
	need := append([]string{rundir.ColIteration, rundir.ColWallTime, rundir.ColObjective}, params...)
	cols := make([]int, len(need))
	var missing []string
	for k, n := range need {
		if cols[k], err = l.Col(n); err != nil {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: no column %s (the controlled space needs %s; the file has %s)",
			path, strings.Join(missing, ", "), strings.Join(params, ", "), strings.Join(l.Header, ", "))
	}
	num := func(i, k int) (float64, error) {
		v, err := l.Float(i, cols[k])
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%s: line %d: %s = %q, want a finite number", path, l.Line(i), need[k], l.Field(i, cols[k]))
		}
		return v, nil
	}
	var out []deltabo.Record
	for i := range l.Rows {
		if l.Field(i, cols[2]) == "" {
			continue
		}
		rec := deltabo.Record{Run: run, Config: make(map[string]float64, len(params))}
		if rec.Objective, err = num(i, 2); err != nil {
			return nil, err
		}
		it, err := num(i, 0)
		if err != nil {
			return nil, err
		}
		if it < 0 || it != math.Trunc(it) {
			return nil, fmt.Errorf("%s: line %d: iteration %v, want an integer >= 0", path, l.Line(i), it)
		}
		rec.Iteration = int(it)
		if rec.Time, err = num(i, 1); err != nil {
			return nil, err
		}
		for k, p := range params {
			if rec.Config[p], err = num(i, 3+k); err != nil {
				return nil, err
			}
		}
		out = append(out, rec)
	}
	return out, nil
}

// withTransfer hands the source runs to settings that transfer from earlier
// runs (deltabo with transfer_from and no Records yet): it reads them below
// transfer_from and checks that they logged the objective the settings name
// (this run's). Other settings are returned as they are; the settings given
// are not changed.
func withTransfer(settings controller.Settings, space controller.Space) (controller.Settings, error) {
	s, ok := settings.(*deltabo.Settings)
	if !ok || s.TransferFrom == "" || s.Records != nil {
		return settings, nil
	}
	src, err := ReadTransfer(s.TransferFrom, space.Names())
	if err != nil {
		return nil, fmt.Errorf("deltabo: %w", err)
	}
	if src.Objective != s.Objective {
		return nil, fmt.Errorf("deltabo: transfer_from %s: the source runs logged the %q objective, this run uses %q (setting objective)", s.TransferFrom, src.Objective, s.Objective)
	}
	c := *s
	c.Records = src.Records
	return &c, nil
}
