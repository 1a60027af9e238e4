// Package rundir manages a training run's output folder: the resolved
// config, CSV logs appended and flushed every iteration, atomic checkpoint
// files, the final summary, and the checks that make a killed run resumable
// without lost or duplicated rows.
//
// Layout of a run folder:
//
//	config.toml     the resolved config (written before training starts)
//	train.csv       one row per iteration, appended and flushed each iteration
//	eval.csv        one row per evaluation
//	checkpoint/     the latest checkpoint (written atomically)
//	summary.json    written when the run finishes; its presence marks a finished run
package rundir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// File names inside a run folder.
const (
	ConfigFile    = "config.toml"
	TrainCSV      = "train.csv"
	EvalCSV       = "eval.csv"
	SummaryFile   = "summary.json"
	CheckpointDir = "checkpoint"
	minFreeBytes  = 64 << 20 // refuse to start with less free space than this
	probeFileName = ".hyperctl-write-probe"
)

// State says what a folder holds.
type State int

const (
	// Empty: the folder is absent or holds no run.
	Empty State = iota
	// Unfinished: a run started (config.toml exists) but has no summary.
	Unfinished
	// Finished: summary.json exists.
	Finished
)

func (s State) String() string {
	return [...]string{"empty", "unfinished", "finished"}[s]
}

// Inspect reports the state of a run folder.
func Inspect(dir string) (State, error) {
	if _, err := os.Stat(filepath.Join(dir, SummaryFile)); err == nil {
		return Finished, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Empty, fmt.Errorf("output folder %s: %w", dir, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ConfigFile)); err == nil {
		return Unfinished, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Empty, fmt.Errorf("output folder %s: %w", dir, err)
	}
	return Empty, nil
}

// CheckWritable creates dir if needed and proves it is writable and has room,
// before any training starts.
func CheckWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output folder %s: cannot create: %w", dir, err)
	}
	probe := filepath.Join(dir, probeFileName)
	if err := os.WriteFile(probe, []byte("ok"), 0o644); err != nil {
		return fmt.Errorf("output folder %s: not writable: %w", dir, err)
	}
	_ = os.Remove(probe)
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err == nil {
		free := uint64(st.Bavail) * uint64(st.Bsize)
		if free < minFreeBytes {
			return fmt.Errorf("output folder %s: only %d MiB free on its disk, need at least %d MiB", dir, free>>20, minFreeBytes>>20)
		}
	}
	return nil
}

// WriteFileAtomic writes data to path through a temporary file and a rename,
// so a crash leaves either the old or the new content.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ConfigDiff returns a line diff of two config texts ("" when equal). Lines
// only in a are prefixed "-", lines only in b "+".
func ConfigDiff(a, b string) string {
	al, bl := splitLines(a), splitLines(b)
	// Longest common subsequence on lines; configs are short.
	n, m := len(al), len(bl)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if al[i] == bl[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var sb strings.Builder
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && al[i] == bl[j]:
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			fmt.Fprintf(&sb, "- %s\n", al[i])
			i++
		default:
			fmt.Fprintf(&sb, "+ %s\n", bl[j])
			j++
		}
	}
	return sb.String()
}

func splitLines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if t := strings.TrimSpace(l); t != "" {
			out = append(out, t)
		}
	}
	return out
}

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
	if err := WriteFileAtomic(path, kept.Bytes()); err != nil {
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

// Summary is summary.json: the record of a finished run.
type Summary struct {
	Env              string             `json:"env"`
	Controller       string             `json:"controller"`
	Seed             int64              `json:"seed"`
	Iterations       int                `json:"iterations"`
	Frames           int64              `json:"frames"`
	WallTimeS        float64            `json:"wall_time_s"`
	ControllerTimeS  float64            `json:"controller_time_s"`
	FinalTrainReward float64            `json:"final_train_reward"`
	FinalEvalReturn  *float64           `json:"final_eval_return,omitempty"`
	FinalHyper       map[string]float64 `json:"final_hyperparameters,omitempty"`
	RejectedUpdates  int                `json:"rejected_updates"`
	FramesPerSecond  float64            `json:"frames_per_second"`
}

// WriteSummary writes summary.json atomically.
func WriteSummary(dir string, s Summary) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	return WriteFileAtomic(filepath.Join(dir, SummaryFile), append(b, '\n'))
}

// ReadSummary reads summary.json.
func ReadSummary(dir string) (Summary, error) {
	var s Summary
	b, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("%s: %w", filepath.Join(dir, SummaryFile), err)
	}
	return s, nil
}
