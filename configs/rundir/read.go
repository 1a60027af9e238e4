package rundir

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Log is a run's train.csv or eval.csv as read: its header and its rows,
// fields as written. Readers find columns by name (Col).
type Log struct {
	Path   string
	Header []string
	Rows   [][]string
	lines  []int // the file line of each row
}

// ReadLog reads a run log. A torn last line (one without its newline: the
// writer was killed while appending it) is left out, as the writer drops it
// on resume (OpenCSV); any other row whose field count differs from the
// header's is an error naming its line. A missing file is an error that
// matches fs.ErrNotExist.
func ReadLog(path string) (*Log, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("%s: empty file", path)
	}
	if i := bytes.LastIndexByte(b, '\n'); i < len(b)-1 {
		b = b[:i+1] // a torn last line (or a header without its newline)
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	l := &Log{Path: path}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := r.FieldPos(0)
		if l.Header == nil {
			l.Header = rec
			continue
		}
		if len(rec) != len(l.Header) {
			return nil, fmt.Errorf("%s: line %d: %d fields, the header has %d", path, line, len(rec), len(l.Header))
		}
		l.Rows = append(l.Rows, rec)
		l.lines = append(l.lines, line)
	}
	if l.Header == nil {
		return nil, fmt.Errorf("%s: empty file", path)
	}
	return l, nil
}

// Col returns the index of the named column; the error names the file and
// the column.
func (l *Log) Col(name string) (int, error) {
	for i, h := range l.Header {
		if strings.TrimSpace(h) == name {
			return i, nil
		}
	}
	return -1, fmt.Errorf("%s: no column %s", l.Path, name)
}

// Line returns the file line of row i (the header is line 1).
func (l *Log) Line(i int) int { return l.lines[i] }

// Field returns row i's field in column c, spaces trimmed.
func (l *Log) Field(i, c int) string { return strings.TrimSpace(l.Rows[i][c]) }

// Float parses row i's field in column c as a number; the error names the
// file, the line, the column and the field.
func (l *Log) Float(i, c int) (float64, error) {
	s := l.Field(i, c)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: line %d: %s = %q, want a number", l.Path, l.Line(i), l.Header[c], s)
	}
	return v, nil
}

// Int parses row i's field in column c as an integer (an iteration); the
// error names the file, the line, the column and the field.
func (l *Log) Int(i, c int) (int, error) {
	s := l.Field(i, c)
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%s: line %d: %s = %q, want an integer", l.Path, l.Line(i), l.Header[c], s)
	}
	return v, nil
}

// LastRow returns the iteration and frames of the last complete row of
// dir's train.csv, reading only the file's tail; ok is false when the file
// is absent or holds no row yet.
func LastRow(dir string) (iteration int, frames int64, ok bool) {
	f, err := os.Open(filepath.Join(dir, TrainCSV))
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, false
	}
	off := max(0, st.Size()-8192)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return 0, 0, false
	}
	lines := strings.Split(strings.TrimRight(string(buf), "\n"), "\n")
	if !bytes.HasSuffix(buf, []byte("\n")) && len(lines) > 0 {
		lines = lines[:len(lines)-1] // a torn last line
	}
	for i := len(lines) - 1; i >= 0; i-- {
		f := strings.SplitN(lines[i], ",", 3)
		if len(f) < 2 {
			continue
		}
		it, err1 := strconv.Atoi(f[0])
		fr, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 == nil && err2 == nil {
			return it, fr, true
		}
	}
	return 0, 0, false
}

// Found is a run folder found by WalkRuns.
type Found struct {
	Dir      string
	Finished bool // it holds summary.json
}

// WalkRuns walks root for run folders: root itself, or the folders below
// it, holding train.csv; finished when they also hold summary.json. It
// returns them sorted by path. Checkpoint folders are not searched, nor the
// folders below a finished run.
func WalkRuns(root string) ([]Found, error) {
	var out []Found
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if !d.IsDir() {
			return nil
		}
		if d.Name() == CheckpointDir && path != root {
			return filepath.SkipDir
		}
		if !regularFile(filepath.Join(path, TrainCSV)) {
			return nil
		}
		finished := regularFile(filepath.Join(path, SummaryFile))
		out = append(out, Found{Dir: path, Finished: finished})
		if finished {
			return filepath.SkipDir
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	return out, err
}

// FindRuns walks root for run folders (see WalkRuns). It returns the
// finished ones, sorted, and the number of unfinished ones.
func FindRuns(root string) (finished []string, unfinished int, err error) {
	found, err := WalkRuns(root)
	for _, f := range found {
		if f.Finished {
			finished = append(finished, f.Dir)
		} else {
			unfinished++
		}
	}
	return finished, unfinished, err
}

func regularFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
