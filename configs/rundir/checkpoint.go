package rundir

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/hyperctl/hyperctl/internal/ground/safefile"
	"github.com/hyperctl/hyperctl/internal/ground/statecodec"
	"github.com/hyperctl/hyperctl/internal/ground/words"
)

// Progress is what a checkpoint records besides the trainer and the
// controller, so a resumed run continues its clocks, its objective column
// and its summary.
type Progress struct {
	Iteration  int     // iterations completed
	WallS      float64 // cumulative wall time, s
	CtrlS      float64 // cumulative controller time, s
	PrevReward float64 // R_{t−1} of a run without a controller (a controller's driver keeps its own: controller.Controller.Previous)
	HavePrev   bool
	LastEval   float64 // the last evaluation return
	HaveEval   bool
	Kernels    string // the float kernels the run computes with (ppo.Kernels); "" in checkpoints written before they were recorded
}

// Checkpoint is the content of a run's checkpoint file: the progress and two
// opaque payloads, the trainer's and the controller's snapshots.
type Checkpoint struct {
	Progress   Progress
	Trainer    []byte
	Controller []byte // nil for a run without a controller
}

// CheckpointFormatVersion is the version of the checkpoint file that
// WriteCheckpoint writes and ReadCheckpoint reads. Version 1 (a gob without
// a checksum, whose trainer payload lacked the environments' states) is
// refused: such a run cannot continue exactly.
const CheckpointFormatVersion = 2

// checkpointMagic opens every checkpoint file.
const checkpointMagic = "HCRUNCKP"

// MaxCheckpointBytes caps the size of a checkpoint file that is read (the
// largest payloads, BipedalWalker's replays, are a few MB).
const MaxCheckpointBytes = 1 << 30

// ErrCheckpoint is wrapped by every error about a checkpoint file's bytes:
// corrupt, truncated, not a checkpoint, another format version.
var ErrCheckpoint = statecodec.ErrCorrupt

// EncodeCheckpoint returns the bytes of a checkpoint file (format version
// CheckpointFormatVersion, little-endian):
//
//	[0:8]   magic "HCRUNCKP"
//	[8:10]  format version (uint16)
//	section "progress" 1: iteration (int64), wall and controller seconds,
//	        previous reward (float64 each), whether it exists (bool), last
//	        evaluation return (float64), whether it exists (bool)
//	section "trainer" 1: the trainer's snapshot (uint32 length + bytes)
//	section "controller" 1: whether there is one (bool), its snapshot
//	        (uint32 length + bytes)
//	section "kernels" 1: the float kernels (uint32 length + bytes, not
//	        empty); absent when they are unknown (Progress.Kernels "", as
//	        in checkpoints written before the kernels were recorded)
//	[-4:]   CRC-32C of every byte before it
func EncodeCheckpoint(c Checkpoint) []byte {
	w := statecodec.NewWriter(make([]byte, 0, 128+len(c.Trainer)+len(c.Controller)))
	p := c.Progress
	w.Tag("progress", 1)
	w.I64(int64(p.Iteration))
	w.F64(p.WallS)
	w.F64(p.CtrlS)
	w.F64(p.PrevReward)
	w.Bool(p.HavePrev)
	w.F64(p.LastEval)
	w.Bool(p.HaveEval)
	w.Tag("trainer", 1)
	w.Bytes32(c.Trainer)
	w.Tag("controller", 1)
	w.Bool(c.Controller != nil)
	w.Bytes32(c.Controller)
	if p.Kernels != "" {
		w.Tag("kernels", 1)
		w.String(p.Kernels)
	}
	return statecodec.Seal(checkpointMagic, CheckpointFormatVersion, w.Bytes())
}

// DecodeCheckpoint checks and decodes a checkpoint file's bytes: the
// magic, the checksum over all of them and the format version first, then
// every field. Any changed or missing byte is an error wrapping
// ErrCheckpoint. The payloads are copies (b may be reused).
func DecodeCheckpoint(b []byte) (Checkpoint, error) {
	payload, err := statecodec.Open(b, "hyperctl checkpoint", checkpointMagic, CheckpointFormatVersion)
	if err != nil {
		return Checkpoint{}, err
	}
	r := statecodec.NewReader(payload)
	var c Checkpoint
	p := &c.Progress
	r.Tag("progress", 1)
	p.Iteration = int(r.Int("iteration", 0, math.MaxInt32))
	p.WallS = r.F64("wall time")
	p.CtrlS = r.F64("controller time")
	p.PrevReward = r.F64("previous reward")
	p.HavePrev = r.Bool("previous reward flag")
	p.LastEval = r.F64("last evaluation")
	p.HaveEval = r.Bool("last evaluation flag")
	r.Tag("trainer", 1)
	tr := r.Bytes32("trainer snapshot", len(payload))
	r.Tag("controller", 1)
	haveCtl := r.Bool("controller flag")
	ctl := r.Bytes32("controller snapshot", len(payload))
	if r.Remaining() > 0 {
		r.Tag("kernels", 1)
		if p.Kernels = r.String("kernels", 1024); p.Kernels == "" {
			r.Fail("an empty kernels section")
		}
	}
	if err := r.Done(); err != nil {
		return Checkpoint{}, err
	}
	for _, v := range []float64{p.WallS, p.CtrlS, p.PrevReward, p.LastEval} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Checkpoint{}, fmt.Errorf("%w: non-finite progress value %v", ErrCheckpoint, v)
		}
	}
	if !haveCtl && len(ctl) > 0 {
		return Checkpoint{}, fmt.Errorf("%w: %d bytes of controller snapshot without a controller", ErrCheckpoint, len(ctl))
	}
	c.Trainer = append([]byte{}, tr...)
	if haveCtl {
		c.Controller = append([]byte{}, ctl...)
	}
	return c, nil
}

// CheckpointPath is the newest checkpoint file of the run folder dir.
func CheckpointPath(dir string) string {
	return filepath.Join(dir, CheckpointDir, CheckpointFile)
}

// PrevCheckpointPath is the previous checkpoint file of the run folder dir,
// the fallback when the newest fails its check.
func PrevCheckpointPath(dir string) string {
	return filepath.Join(dir, CheckpointDir, PrevCheckpointDir, CheckpointFile)
}

// WriteCheckpoint writes c as dir's newest checkpoint. If the newest
// checkpoint it replaces passes its check, it first moves it, with every
// file kept beside it in the checkpoint folder (policy-best's copy), to
// checkpoint/prev/: the folder then holds the last two good checkpoints,
// each with its own files. A newest file that fails its check is replaced
// and the previous one kept. Every write is atomic (a temporary file, fsync,
// rename) and the checkpoint file moves last: a crash at any moment leaves
// the last good checkpoint readable, under checkpoint/ or checkpoint/prev/,
// and never a torn file.
func WriteCheckpoint(dir string, c Checkpoint) error {
	data := EncodeCheckpoint(c)
	ck := filepath.Join(dir, CheckpointDir)
	if err := os.MkdirAll(ck, 0o755); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if _, err := readCheckpointFile(CheckpointPath(dir)); err == nil {
		if err := rotate(ck); err != nil {
			return fmt.Errorf("checkpoint: keep the previous one: %w", err)
		}
	}
	// WriteAtomic fsyncs the file and the checkpoint folder.
	return safefile.WriteAtomic(CheckpointPath(dir), data)
}

// rotate moves the checkpoint folder's content (all but prev/ and
// temporary files) into a fresh prev/, the checkpoint file last.
func rotate(ck string) error {
	prev := filepath.Join(ck, PrevCheckpointDir)
	if err := os.RemoveAll(prev); err != nil {
		return err
	}
	if err := os.Mkdir(prev, 0o755); err != nil {
		return err
	}
	ents, err := os.ReadDir(ck)
	if err != nil {
		return err
	}
	for _, e := range ents {
		n := e.Name()
		if n == PrevCheckpointDir || n == CheckpointFile || strings.HasPrefix(n, ".") {
			continue
		}
		if err := os.Rename(filepath.Join(ck, n), filepath.Join(prev, n)); err != nil {
			return err
		}
	}
	if err := os.Rename(filepath.Join(ck, CheckpointFile), filepath.Join(prev, CheckpointFile)); err != nil {
		return err
	}
	if err := safefile.SyncDir(prev); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// readCheckpointFile reads and checks one checkpoint file; errors name it
// and wrap fs.ErrNotExist when it is missing.
func readCheckpointFile(path string) (Checkpoint, error) {
	b, err := safefile.ReadRegular(path, MaxCheckpointBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Checkpoint{}, err
		}
		return Checkpoint{}, fmt.Errorf("checkpoint %s is unreadable: %w", path, err)
	}
	c, err := DecodeCheckpoint(b)
	if err != nil {
		if len(b) > 0 && !bytes.HasPrefix(b, []byte(checkpointMagic)) {
			err = fmt.Errorf("%w (hyperctl before checkpoint format %d wrote files without this magic and without the environments' states; such a run cannot continue exactly)", err, CheckpointFormatVersion)
		}
		return Checkpoint{}, fmt.Errorf("checkpoint %s is refused: %w", path, err)
	}
	return c, nil
}

// CheckpointRead says which checkpoint file ReadCheckpoint used and which
// newer one it refused.
type CheckpointRead struct {
	Path    string // the file used
	Dir     string // its folder, which holds the files kept beside it (checkpoint/ or checkpoint/prev/)
	Refused error  // the newest file's failure when ReadCheckpoint fell back to the previous one (naming the file), else nil
}

// ReadCheckpoint reads dir's newest good checkpoint. It returns nil and no
// error when the folder has no checkpoint file at all. When the newest file
// fails its check (checksum, format version, decoding), it falls back to the
// previous one and says so in CheckpointRead.Refused; the caller should log
// it. When no file passes, the error names each file and its failure and
// says how to start over.
func ReadCheckpoint(dir string) (*Checkpoint, CheckpointRead, error) {
	var errs []error
	var refused error
	missing := 0
	for _, path := range []string{CheckpointPath(dir), PrevCheckpointPath(dir)} {
		c, err := readCheckpointFile(path)
		if err == nil {
			return &c, CheckpointRead{Path: path, Dir: filepath.Dir(path), Refused: refused}, nil
		}
		if errors.Is(err, fs.ErrNotExist) {
			missing++
			continue
		}
		if refused == nil {
			refused = err
		}
		errs = append(errs, err)
	}
	if missing == 2 {
		return nil, CheckpointRead{}, nil
	}
	return nil, CheckpointRead{}, &words.AdviceError{Msg: dir + " has no usable checkpoint, so the run cannot continue; start it over with {force} (its rows are discarded) or use another {out}:\n", Err: errors.Join(errs...)}
}

// RemoveCheckpoint removes dir's checkpoints (a finished run needs none).
func RemoveCheckpoint(dir string) error {
	if err := os.RemoveAll(filepath.Join(dir, CheckpointDir)); err != nil {
		return fmt.Errorf("remove checkpoint: %w", err)
	}
	return nil
}
