package population

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hyperctl/hyperctl/internal/ground/safefile"
)

// The events of the population log.
const (
	EventReady   = "ready"   // a member reached a ready point: its frames, score and configuration
	EventExploit = "exploit" // a member copied another's weights (From) at the donor's frames
	EventExplore = "explore" // an exploited member's configuration moved: Old → New, with Ops
	EventEnd     = "end"     // a member finished its budget: its frames, score and final evaluation
)

// Record is one line of the population log (population.jsonl), sealed:
// its JSON ends with a "crc32c" field over the rest of the line (seal.go).
// Maps are written with sorted keys, so equal records are equal lines.
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

// AppendGeneration appends generation g's records, sealed, to out's
// population log and fsyncs it. It first checks every complete record:
// one that fails its check, or is unsealed, is an error naming the file
// and line, and the log is left as it is. Then it cuts a torn last line
// (one without its newline: a write cut short) and the records of g or
// later that an interrupted earlier attempt of this step wrote, so the log
// never holds a record twice.
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
	old, ends, err := parseLog(path, b, Sealed)
	if err != nil {
		return err
	}
	keep := 0
	for i, r := range old {
		if r.Generation >= g {
			break
		}
		keep = ends[i]
	}
	var buf bytes.Buffer
	for _, r := range recs {
		if r.Generation != g {
			return fmt.Errorf("population log: a record of generation %d among generation %d's", r.Generation, g)
		}
		line, err := sealRecord(r)
		if err != nil {
			return fmt.Errorf("population log: %w", err)
		}
		buf.Write(line)
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

// ReadLog reads out's population log, every record sealed, leaving out a
// torn last line (one without its newline); a record that fails its check
// or is unsealed is an error naming the file and line.
func ReadLog(out string) ([]Record, error) {
	recs, _, err := readLog(out, Sealed)
	return recs, err
}

// ReadLogLegacy is ReadLog for readers that steer nothing (status,
// report): in a legacy population (folderStrictness) it also accepts
// unsealed records, and says whether it met any.
func ReadLogLegacy(out string) (recs []Record, legacy bool, err error) {
	strict, err := folderStrictness(out)
	if err != nil {
		return nil, false, err
	}
	return readLog(out, strict)
}

func readLog(out string, strict Strictness) ([]Record, bool, error) {
	path := filepath.Join(out, LogFile)
	b, err := safefile.ReadRegular(path, maxLogBytes)
	if err != nil {
		return nil, false, err
	}
	recs, _, legacy, err := parseLogLegacy(path, b, strict)
	return recs, legacy, err
}

// parseLog is parseLogLegacy without the legacy flag; ends[i] is the
// offset just past record i's newline.
func parseLog(path string, b []byte, strict Strictness) (recs []Record, ends []int, err error) {
	recs, ends, _, err = parseLogLegacy(path, b, strict)
	return recs, ends, err
}

// parseLogLegacy checks and decodes every complete line of a log's bytes
// b; a last line without its newline (torn) is left out. legacy reports an
// unsealed record (an error unless strict is Legacy).
func parseLogLegacy(path string, b []byte, strict Strictness) (recs []Record, ends []int, legacy bool, err error) {
	off := 0
	for line := 1; off < len(b); line++ {
		nl := bytes.IndexByte(b[off:], '\n')
		if nl < 0 {
			// A last line without its newline is torn (a write cut
			// short) and left out, unless it is a whole sealed record
			// and one more byte: then its newline was changed.
			if tail := b[off:]; len(tail) > 1 {
				if _, _, err := openRecord(tail[:len(tail)-1], Sealed); err == nil {
					return nil, nil, legacy, fmt.Errorf("%s: line %d is refused (the log is left as it is; restore the line, or start the population over in another folder): %w: its newline is changed", path, line, ErrDamaged)
				}
			}
			break
		}
		r, old, err := openRecord(b[off:off+nl], strict)
		if err != nil {
			return nil, nil, legacy, fmt.Errorf("%s: line %d is refused (the log is left as it is; restore the line, or start the population over in another folder): %w", path, line, err)
		}
		legacy = legacy || old
		off += nl + 1
		recs, ends = append(recs, r), append(ends, off)
	}
	return recs, ends, legacy, nil
}
