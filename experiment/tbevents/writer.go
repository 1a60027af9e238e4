// Package tbevents writes TensorBoard event files: scalar time series that
// `tensorboard --logdir DIR` shows while a run trains.
//
// A file is a sequence of TFRecord-framed Event messages (see AppendRecord
// and package tbpb, whose definitions carry TensorBoard's field numbers).
// The first record holds file_version "brain.Event:2"; every later one holds
// a Summary of scalars at a step. Scalars are written as simple_value (a
// float32), the form TensorBoard's readers turn into its scalars plugin's
// time series (its Rust data server reads simple_value and rank-0 DT_FLOAT
// tensors only, so float64 tensors would not be shown).
//
// Files are named events.out.tfevents.<unix seconds>.hyperctl; TensorBoard
// reads every file whose name contains "tfevents". A resumed run calls
// Resume with the last step its checkpoint covers: records after that step
// (written after the checkpoint by the interrupted process, or torn by the
// kill) are cut off, writing continues in the same file, and a SessionLog
// START at the next step tells a TensorBoard that was already watching to
// drop the orphaned points it had read. So no step is ever recorded twice.
package tbevents

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/tbevents/tbpb"
)

// FileVersion is the first record's file_version.
const FileVersion = "brain.Event:2"

// Scalar is one tagged value.
type Scalar struct {
	Tag   string
	Value float64
}

// Writer appends events to one file. It is not safe for concurrent use.
type Writer struct {
	f        *os.File
	path     string
	lastStep int64
	buf      []byte
}

// Create starts a new events file in dir (created if needed), stamped with
// now.
func Create(dir string, now time.Time) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("tensorboard events: %w", err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%s%d.hyperctl", rundir.EventsPrefix, now.Unix()))
	for k := 1; ; k++ { // never reuse an existing name
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			break
		}
		path = filepath.Join(dir, fmt.Sprintf("%s%d.hyperctl.%d", rundir.EventsPrefix, now.Unix(), k))
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("tensorboard events: %w", err)
	}
	w := &Writer{f: f, path: path, lastStep: math.MinInt64}
	ev := &tbpb.Event{WallTime: wallTime(now), What: &tbpb.Event_FileVersion{FileVersion: FileVersion},
		SourceMetadata: &tbpb.SourceMetadata{Writer: "hyperctl"}}
	if err := w.write(ev); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// Resume continues the events of dir after a checkpoint that covers steps
// up to upTo: in every events file it cuts off the records with a larger
// step and any torn or corrupt tail, then appends to the newest file (or
// creates one when there is none) after a SessionLog START at step upTo+1.
func Resume(dir string, upTo int64, now time.Time) (*Writer, error) {
	files, err := rundir.EventsFiles(dir)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return Create(dir, now)
	}
	for _, p := range files {
		if err := truncateAfter(p, upTo); err != nil {
			return nil, err
		}
	}
	last := files[len(files)-1]
	f, err := os.OpenFile(last, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("tensorboard events: %w", err)
	}
	w := &Writer{f: f, path: last, lastStep: upTo}
	ev := &tbpb.Event{WallTime: wallTime(now), Step: upTo + 1,
		What: &tbpb.Event_SessionLog{SessionLog: &tbpb.SessionLog{Status: tbpb.SessionLog_START,
			Msg: fmt.Sprintf("hyperctl: resumed after step %d", upTo)}}}
	if err := w.write(ev); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// truncateAfter cuts path at the first record that is torn, corrupt, or an
// event with a step above upTo (the file_version record is always kept).
func truncateAfter(path string, upTo int64) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("tensorboard events: %w", err)
	}
	rr := NewRecordReader(f)
	cut := int64(-1)
	for {
		start := rr.Offset()
		data, err := rr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			cut = start
			break
		}
		var ev tbpb.Event
		if proto.Unmarshal(data, &ev) != nil {
			cut = start
			break
		}
		if ev.GetFileVersion() == "" && ev.Step > upTo {
			cut = start
			break
		}
	}
	f.Close()
	if cut < 0 {
		return nil
	}
	if err := os.Truncate(path, cut); err != nil {
		return fmt.Errorf("tensorboard events: cut %s after step %d: %w", path, upTo, err)
	}
	return nil
}

// Path is the file being written.
func (w *Writer) Path() string { return w.path }

// Write appends one event holding the scalars at step, and hands it to the
// operating system (a TensorBoard watching the folder sees it at once).
// Steps must not decrease. Non-finite values are written as they are
// (TensorBoard shows NaN and ±Inf).
func (w *Writer) Write(step int64, wall time.Time, values ...Scalar) error {
	if w.f == nil {
		return errors.New("tensorboard events: writer is closed")
	}
	if step < w.lastStep {
		return fmt.Errorf("tensorboard events: step %d after step %d", step, w.lastStep)
	}
	if len(values) == 0 {
		return nil
	}
	s := &tbpb.Summary{}
	for _, v := range values {
		if v.Tag == "" {
			return errors.New("tensorboard events: empty tag")
		}
		s.Value = append(s.Value, &tbpb.Summary_Value{Tag: v.Tag, Value: &tbpb.Summary_Value_SimpleValue{SimpleValue: float32(v.Value)}})
	}
	if err := w.write(&tbpb.Event{WallTime: wallTime(wall), Step: step, What: &tbpb.Event_Summary{Summary: s}}); err != nil {
		return err
	}
	w.lastStep = step
	return nil
}

func (w *Writer) write(ev *tbpb.Event) error {
	data, err := proto.Marshal(ev)
	if err != nil {
		return fmt.Errorf("tensorboard events: %w", err)
	}
	w.buf = AppendRecord(w.buf[:0], data)
	if _, err := w.f.Write(w.buf); err != nil {
		return fmt.Errorf("tensorboard events: write %s: %w", w.path, err)
	}
	return nil
}

// Close closes the file.
func (w *Writer) Close() error {
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	if err != nil {
		return fmt.Errorf("tensorboard events: %w", err)
	}
	return nil
}

func wallTime(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// ReadFile decodes every event of a file, checking each record's CRCs.
func ReadFile(path string) ([]*tbpb.Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("tensorboard events: %w", err)
	}
	defer f.Close()
	rr := NewRecordReader(f)
	var out []*tbpb.Event
	for {
		data, err := rr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("tensorboard events: %s: %w", path, err)
		}
		ev := &tbpb.Event{}
		if err := proto.Unmarshal(data, ev); err != nil {
			return out, fmt.Errorf("tensorboard events: %s: record %d: %w", path, len(out), err)
		}
		out = append(out, ev)
	}
}
