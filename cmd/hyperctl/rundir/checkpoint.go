package rundir

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Progress is what a checkpoint records besides the trainer and the
// controller, so a resumed run continues its clocks, its objective column
// and its summary.
type Progress struct {
	Iteration  int     // iterations completed
	WallS      float64 // cumulative wall time, s
	CtrlS      float64 // cumulative controller time, s
	PrevReward float64 // R_{t−1}, for the objective column
	HavePrev   bool
	LastEval   float64 // the last evaluation return
	HaveEval   bool
}

// Checkpoint is the content of a run's checkpoint file: the progress and two
// opaque payloads, the trainer's and the controller's snapshots.
type Checkpoint struct {
	Progress   Progress
	Trainer    []byte
	Controller []byte // nil for a run without a controller
}

// checkpointVersion is the checkpoint file's format version.
const checkpointVersion = 1

// checkpointFile is the file's encoding (gob). Its field names are the
// format: keep them.
type checkpointFile struct {
	Version    int
	Progress   Progress
	Trainer    []byte
	Controller []byte
}

// CheckpointPath is the checkpoint file of the run folder dir.
func CheckpointPath(dir string) string {
	return filepath.Join(dir, CheckpointDir, CheckpointFile)
}

// WriteCheckpoint writes c as dir's checkpoint, atomically: a crash leaves
// the previous checkpoint or the new one.
func WriteCheckpoint(dir string, c Checkpoint) error {
	var buf bytes.Buffer
	f := checkpointFile{Version: checkpointVersion, Progress: c.Progress, Trainer: c.Trainer, Controller: c.Controller}
	if err := gob.NewEncoder(&buf).Encode(f); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, CheckpointDir), 0o755); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return WriteFileAtomic(CheckpointPath(dir), buf.Bytes())
}

// ReadCheckpoint reads dir's checkpoint: nil, nil when there is none; an
// error naming the file when it cannot be read or decoded, or has another
// format version.
func ReadCheckpoint(dir string) (*Checkpoint, error) {
	path := CheckpointPath(dir)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read checkpoint: %w", err)
	}
	var f checkpointFile
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&f); err != nil {
		return nil, fmt.Errorf("checkpoint %s is unreadable: %w", path, err)
	}
	if f.Version != checkpointVersion {
		return nil, fmt.Errorf("checkpoint %s: version %d, want %d", path, f.Version, checkpointVersion)
	}
	return &Checkpoint{Progress: f.Progress, Trainer: f.Trainer, Controller: f.Controller}, nil
}

// RemoveCheckpoint removes dir's checkpoint (a finished run needs none).
func RemoveCheckpoint(dir string) error {
	if err := os.RemoveAll(filepath.Join(dir, CheckpointDir)); err != nil {
		return fmt.Errorf("remove checkpoint: %w", err)
	}
	return nil
}
