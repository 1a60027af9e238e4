package rundir

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hyperctl/hyperctl/internal/ground/safefile"
)

// CSV is an append-only CSV log whose first column is the iteration number.
// Every Append is written straight to the file (no user-space buffering), so
// a killed process loses nothing it appended.
type CSV struct {
	path   string
	header []string
	f      *os.File
	buf    []byte
}

// OpenCSV opens (or creates) path with the given header. An existing file
// must have the same header. Rows whose iteration is >= keepBelow are dropped
// (pass the checkpoint's iteration on resume, 0 for a fresh run), as is a
// torn last line, so the log continues exactly where the checkpoint left it.
func OpenCSV(path string, header []string, keepBelow int) (*CSV, error) {
	want := strings.Join(header, ",")
	var kept bytes.Buffer
	kept.WriteString(want + "\n")
	if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
		first := true
		complete := bytes.HasSuffix(b, []byte("\n"))
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		for k, line := range lines {
			if first {
				first = false
				if line != want {
					return nil, fmt.Errorf("%s: header %q does not match this run's %q", path, line, want)
				}
				continue
			}
			if k == len(lines)-1 && !complete {
				break // torn write from a kill
			}
			it, err := strconv.Atoi(strings.SplitN(line, ",", 2)[0])
			if err != nil {
				return nil, fmt.Errorf("%s: line %d: iteration %q is not an integer", path, k+1, strings.SplitN(line, ",", 2)[0])
			}
			if it < keepBelow {
				kept.WriteString(line + "\n")
			}
		}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := safefile.WriteAtomic(path, kept.Bytes()); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return &CSV{path: path, header: header, f: f}, nil
}

// Append writes one row; values are formatted with %v, floats compactly.
func (c *CSV) Append(values ...any) error {
	if len(values) != len(c.header) {
		return fmt.Errorf("%s: row has %d values, header has %d", c.path, len(values), len(c.header))
	}
	c.buf = c.buf[:0]
	for i, v := range values {
		if i > 0 {
			c.buf = append(c.buf, ',')
		}
		switch x := v.(type) {
		case float64:
			c.buf = strconv.AppendFloat(c.buf, x, 'g', -1, 64)
		case int:
			c.buf = strconv.AppendInt(c.buf, int64(x), 10)
		case int64:
			c.buf = strconv.AppendInt(c.buf, x, 10)
		case string:
			c.buf = append(c.buf, x...)
		default:
			c.buf = fmt.Append(c.buf, x)
		}
	}
	c.buf = append(c.buf, '\n')
	if _, err := c.f.Write(c.buf); err != nil {
		return fmt.Errorf("append to %s: %w", c.path, err)
	}
	return nil
}

// Close closes the file.
func (c *CSV) Close() error {
	if c.f == nil {
		return nil
	}
	err := c.f.Close()
	c.f = nil
	return err
}

// Column names of train.csv and eval.csv.
const (
	ColIteration         = "iteration"           // 0-based iteration (first column of both files)
	ColFrames            = "frames"              // environment frames collected so far
	ColWallTime          = "wall_time_s"         // cumulative wall time, s
	ColControllerTime    = "controller_time_s"   // cumulative time in the controller, s
	ColTrainReward       = "train_reward"        // R_t, the iteration's mean training reward per step
	ColObjective         = "objective"           // X_t (empty where undefined)
	ColEpisodes          = "episodes"            // training episodes finished this iteration
	ColMeanEpisodeReturn = "mean_episode_return" // their mean return (empty without episodes)
	ColRejectedUpdates   = "rejected_updates"    // cumulative rejected updates
	ColEvalReturn        = "eval_return"         // mean return of the evaluation episodes
	ColEvalSteps         = "eval_steps"          // their mean length
	ColEvalEpisodes      = "eval_episodes"       // how many episodes the row averages
	ColEvalStd           = "eval_return_std"     // the population standard deviation of their returns
)

// TrainColumns is train.csv's header for a run that logs the per-iteration
// hyperparameters hyper (configs.Run.LoggedHyper): they are logged every
// iteration, between mean_episode_return and rejected_updates.
func TrainColumns(hyper []string) []string {
	out := []string{ColIteration, ColFrames, ColWallTime, ColControllerTime, ColTrainReward, ColObjective, ColEpisodes, ColMeanEpisodeReturn}
	out = append(out, hyper...)
	return append(out, ColRejectedUpdates)
}

// HyperColumns returns the hyperparameter columns of a train.csv header
// (see TrainColumns): those between mean_episode_return and
// rejected_updates, in the header's order. A header without both has none.
func HyperColumns(header []string) []string {
	lo, hi := slices.Index(header, ColMeanEpisodeReturn), slices.Index(header, ColRejectedUpdates)
	if lo < 0 || hi <= lo {
		return nil
	}
	return slices.Clone(header[lo+1 : hi])
}

// EvalColumns is eval.csv's header.
func EvalColumns() []string {
	return []string{ColIteration, ColFrames, ColWallTime, ColControllerTime, ColEvalReturn, ColEvalSteps, ColEvalEpisodes, ColEvalStd}
}

// TrainRow is one row of train.csv.
type TrainRow struct {
	Iteration       int
	Frames          int64   // collected so far
	WallTimeS       float64 // cumulative
	ControllerTimeS float64 // cumulative
	TrainReward     float64
	Objective       float64 // written when HaveObjective
	HaveObjective   bool
	Episodes        int
	MeanReturn      float64 // written when Episodes > 0
	Hyper           []any   // the hyperparameter columns' values (int or float64), in TrainColumns' order
	Rejected        int     // cumulative rejected updates
}

// EvalRow is one row of eval.csv.
type EvalRow struct {
	Iteration       int
	Frames          int64
	WallTimeS       float64
	ControllerTimeS float64
	Return          float64 // mean return of the episodes
	Steps           int     // mean length of the episodes
	Episodes        int     // how many episodes
	Std             float64 // population standard deviation of their returns
}

// short formats the objective and the mean episode return (6 significant
// digits).
func short(v float64) string { return fmt.Sprintf("%.6g", v) }

// TrainLog appends rows to a run's train.csv.
type TrainLog struct {
	csv   *CSV
	hyper int
}

// OpenTrainLog opens dir's train.csv for a run that logs the per-iteration
// hyperparameters hyper (TrainColumns), keeping the rows below keepBelow
// (see OpenCSV).
func OpenTrainLog(dir string, hyper []string, keepBelow int) (*TrainLog, error) {
	c, err := OpenCSV(filepath.Join(dir, TrainCSV), TrainColumns(hyper), keepBelow)
	if err != nil {
		return nil, err
	}
	return &TrainLog{csv: c, hyper: len(hyper)}, nil
}

// Append writes one row.
func (l *TrainLog) Append(r TrainRow) error {
	if len(r.Hyper) != l.hyper {
		return fmt.Errorf("%s: row has %d hyperparameter values, header has %d", l.csv.path, len(r.Hyper), l.hyper)
	}
	obj, ret := "", ""
	if r.HaveObjective {
		obj = short(r.Objective)
	}
	if r.Episodes > 0 {
		ret = short(r.MeanReturn)
	}
	row := append([]any{r.Iteration, r.Frames, r.WallTimeS, r.ControllerTimeS, r.TrainReward, obj, r.Episodes, ret}, r.Hyper...)
	return l.csv.Append(append(row, r.Rejected)...)
}

// Close closes the file.
func (l *TrainLog) Close() error { return l.csv.Close() }

// EvalLog appends rows to a run's eval.csv.
type EvalLog struct{ csv *CSV }

// OpenEvalLog opens dir's eval.csv, keeping the rows below keepBelow (see
// OpenCSV).
func OpenEvalLog(dir string, keepBelow int) (*EvalLog, error) {
	c, err := OpenCSV(filepath.Join(dir, EvalCSV), EvalColumns(), keepBelow)
	if err != nil {
		return nil, err
	}
	return &EvalLog{csv: c}, nil
}

// Append writes one row.
func (l *EvalLog) Append(r EvalRow) error {
	return l.csv.Append(r.Iteration, r.Frames, r.WallTimeS, r.ControllerTimeS, r.Return, r.Steps, r.Episodes, short(r.Std))
}

// Close closes the file.
func (l *EvalLog) Close() error { return l.csv.Close() }

// Column names of episodes.csv: one row per finished training episode,
// in the order they finished.
const (
	ColEpisodeReturn = "return" // the episode's return
)

// EpisodeColumns is episodes.csv's header: the iteration in which the
// episode finished, the run's frames at that iteration's end and the
// episode's return.
func EpisodeColumns() []string { return []string{ColIteration, ColFrames, ColEpisodeReturn} }

// EpisodeLog appends rows to a run's episodes.csv: the returns of the
// training episodes, which train.csv gives only as each iteration's mean.
type EpisodeLog struct{ csv *CSV }

// OpenEpisodeLog opens dir's episodes.csv, keeping the rows below
// keepBelow (see OpenCSV): a resumed run drops the episodes of the
// iterations after its checkpoint, which it finishes again.
func OpenEpisodeLog(dir string, keepBelow int) (*EpisodeLog, error) {
	c, err := OpenCSV(filepath.Join(dir, EpisodesCSV), EpisodeColumns(), keepBelow)
	if err != nil {
		return nil, err
	}
	return &EpisodeLog{csv: c}, nil
}

// Append writes the returns of the episodes that finished in iteration it,
// at frames, one row each, oldest first.
func (l *EpisodeLog) Append(it int, frames int64, returns []float64) error {
	for _, r := range returns {
		if err := l.csv.Append(it, frames, r); err != nil {
			return err
		}
	}
	return nil
}

// Close closes the file.
func (l *EpisodeLog) Close() error { return l.csv.Close() }

// LatestReturns reads the returns of the last n rows of dir's
// episodes.csv, oldest first (fewer when it holds fewer).
func LatestReturns(dir string, n int) ([]float64, error) {
	l, err := ReadLog(filepath.Join(dir, EpisodesCSV))
	if err != nil {
		return nil, err
	}
	c, err := l.Col(ColEpisodeReturn)
	if err != nil {
		return nil, err
	}
	var out []float64
	for i := max(0, len(l.Rows)-n); i < len(l.Rows); i++ {
		v, err := l.Float(i, c)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// TimingColumns are the columns of train.csv and eval.csv that measure wall
// time; they differ between any two runs. Every other column is determined
// by the config and the seed, whether the run was interrupted or not.
var TimingColumns = []string{ColWallTime, ColControllerTime}

// CompareCSV compares a log file (train.csv or eval.csv) of a run, got,
// with the same file of a reference run, want, timing columns aside. It
// returns the number of rows of want that got has identically at the same
// position, want's number of rows, and, when they are not all identical, a
// description of the first difference.
func CompareCSV(got, want string) (same, total int, diff string, err error) {
	hg, rg, err := readCSVNoTiming(got)
	if err != nil {
		return 0, 0, "", err
	}
	hw, rw, err := readCSVNoTiming(want)
	if err != nil {
		return 0, 0, "", err
	}
	if hg != hw {
		return 0, len(rw), fmt.Sprintf("headers differ: %q vs %q", hg, hw), nil
	}
	for i := range rw {
		if i < len(rg) && rg[i] == rw[i] {
			same++
		} else if diff == "" {
			g := "(missing)"
			if i < len(rg) {
				g = rg[i]
			}
			diff = fmt.Sprintf("row %d: %s vs %s", i, g, rw[i])
		}
	}
	if diff == "" && len(rg) != len(rw) {
		diff = fmt.Sprintf("%d rows vs %d", len(rg), len(rw))
	}
	return same, len(rw), diff, nil
}

// readCSVNoTiming reads a log's header and rows with the timing columns
// removed.
func readCSVNoTiming(path string) (string, []string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	var keep []int
	header := strings.Split(lines[0], ",")
	for i, h := range header {
		if !slices.Contains(TimingColumns, h) {
			keep = append(keep, i)
		}
	}
	pick := func(line string) string {
		f := strings.Split(line, ",")
		out := make([]string, 0, len(keep))
		for _, i := range keep {
			if i < len(f) {
				out = append(out, f[i])
			}
		}
		return strings.Join(out, ",")
	}
	rows := make([]string, 0, len(lines)-1)
	for _, l := range lines[1:] {
		rows = append(rows, pick(l))
	}
	return pick(lines[0]), rows, nil
}
