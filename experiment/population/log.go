package population

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hyperctl/hyperctl/configs/ground/safefile"
)

// The events of the population log.
const (
	EventReady   = "ready"   // a member reached a ready point: its frames, score and configuration
	EventExploit = "exploit" // a member copied another's weights (From) at the donor's frames
	EventExplore = "explore" // an exploited member's configuration moved: Old → New, with Ops
	EventEnd     = "end"     // a member finished its budget: its frames, score and final evaluation
)

// Record is one line of the population log (population.jsonl). Maps are
// written with sorted keys, so equal records are equal lines.
type Record struct {
	Generation int                `json:"generation"`
	Event      string             `json:"event"`
	Member     int                `json:"member"`
	Frames     int64              `json:"frames"`
	Score      *float64           `json:"score,omitempty"`
	Hyper      map[string]float64 `json:"hyperparameters,omitempty"` // ready, end: the configuration in force
	From       *int               `json:"from,omitempty"`            // exploit: the donor
	FromScore  *float64           `json:"from_score,omitempty"`      // exploit: the donor's score
	Old        map[string]float64 `json:"old,omitempty"`             // explore
	New        map[string]float64 `json:"new,omitempty"`             // explore
	Ops        map[string]string  `json:"ops,omitempty"`             // explore: per key, how it moved
	EvalReturn *float64           `json:"final_eval_return,omitempty"`
}

// maxLogBytes caps the population log that is read (a record is a few
// hundred bytes).
const maxLogBytes = 256 << 20

// AppendGeneration appends generation g's records to out's population log
// and fsyncs it. It first cuts the log after the last complete record of an
// earlier generation: a torn last line, and the records of g or later that
// an interrupted earlier attempt of this step wrote, go, so the log never
// holds a record twice.
func AppendGeneration(out string, g int, recs []Record) error {
	path := filepath.Join(out, LogFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("population log: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxLogBytes+1))
	if err != nil {
		return fmt.Errorf("population log %s: %w", path, err)
	}
	if len(b) > maxLogBytes {
		return fmt.Errorf("population log %s: larger than %d bytes", path, maxLogBytes)
	}
	keep := 0
	for keep < len(b) {
		nl := bytes.IndexByte(b[keep:], '\n')
		if nl < 0 {
			break // a torn line
		}
		var r Record
		if json.Unmarshal(b[keep:keep+nl], &r) != nil || r.Generation >= g {
			break
		}
		keep += nl + 1
	}
	var buf bytes.Buffer
	for _, r := range recs {
		if r.Generation != g {
			return fmt.Errorf("population log: a record of generation %d among generation %d's", r.Generation, g)
		}
		line, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("population log: %w", err)
		}
		buf.Write(append(line, '\n'))
	}
	if err := f.Truncate(int64(keep)); err != nil {
		return fmt.Errorf("population log %s: %w", path, err)
	}
	if _, err := f.WriteAt(buf.Bytes(), int64(keep)); err != nil {
		return fmt.Errorf("population log %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("population log %s: %w", path, err)
	}
	return safefile.SyncDir(out)
}

// ReadLog reads out's population log, leaving out a torn last line; any
// other line that is not a record is an error naming its line.
func ReadLog(out string) ([]Record, error) {
	path := filepath.Join(out, LogFile)
	b, err := safefile.ReadRegular(path, maxLogBytes)
	if err != nil {
		return nil, err
	}
	var recs []Record
	for i, line := range bytes.SplitAfter(b, []byte("\n")) {
		if len(line) == 0 || line[len(line)-1] != '\n' {
			break
		}
		var r Record
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", path, i+1, err)
		}
		recs = append(recs, r)
	}
	return recs, nil
}
