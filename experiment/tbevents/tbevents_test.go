package tbevents_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"testing"
	"time"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/tbevents"
	"github.com/hyperctl/hyperctl/experiment/tbevents/tbeventstest"
)

func TestMaskedCRC(t *testing.T) {
	// CRC-32C("123456789") = 0xe3069283, the Castagnoli check value.
	c := uint32(0xe3069283)
	want := ((c >> 15) | (c << 17)) + 0xa282ead8
	if got := tbevents.MaskedCRC([]byte("123456789")); got != want {
		t.Fatalf("MaskedCRC = %#x, want %#x", got, want)
	}
}

func TestRecordFraming(t *testing.T) {
	var buf []byte
	payloads := [][]byte{[]byte("a"), {}, bytes.Repeat([]byte{7}, 1000)}
	for _, p := range payloads {
		buf = tbevents.AppendRecord(buf, p)
	}
	// The first record by hand.
	if n := binary.LittleEndian.Uint64(buf); n != 1 {
		t.Fatalf("length field = %d, want 1", n)
	}
	if c := binary.LittleEndian.Uint32(buf[8:]); c != tbevents.MaskedCRC(buf[:8]) {
		t.Fatalf("length CRC = %#x", c)
	}
	if buf[12] != 'a' || binary.LittleEndian.Uint32(buf[13:]) != tbevents.MaskedCRC([]byte("a")) {
		t.Fatal("data or data CRC misplaced")
	}
	rr := tbevents.NewRecordReader(bytes.NewReader(buf))
	for i, p := range payloads {
		got, err := rr.Next()
		if err != nil || !bytes.Equal(got, p) {
			t.Fatalf("record %d: %q, %v", i, got, err)
		}
	}
	if _, err := rr.Next(); err != io.EOF {
		t.Fatalf("after the last record: %v, want EOF", err)
	}
	for _, tc := range []struct {
		name string
		mod  func([]byte) []byte
		want error
	}{
		{"torn", func(b []byte) []byte { return b[:len(b)-3] }, io.ErrUnexpectedEOF},
		{"data flipped", func(b []byte) []byte { b[12] ^= 1; return b }, tbevents.ErrCorrupt},
		{"length flipped", func(b []byte) []byte { b[0] ^= 2; return b }, tbevents.ErrCorrupt},
	} {
		b := tc.mod(tbevents.AppendRecord(nil, []byte("abc")))
		if _, err := tbevents.NewRecordReader(bytes.NewReader(b)).Next(); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

type point struct {
	step  int64
	tag   string
	value float64
}

// writeSteps writes "loss" and "reward" at steps from..to (every 100).
func writeSteps(t *testing.T, w *tbevents.Writer, from, to int64) []point {
	t.Helper()
	var pts []point
	for s := from; s <= to; s += 100 {
		v := []tbevents.Scalar{{Tag: "train/reward", Value: float64(s) / 7}, {Tag: "loss/value", Value: -float64(s) * 1e-3}}
		if err := w.Write(s, time.Unix(1700000000+s, 0), v...); err != nil {
			t.Fatal(err)
		}
		for _, x := range v {
			pts = append(pts, point{s, x.Tag, x.Value})
		}
	}
	return pts
}

func readPoints(t *testing.T, dir string) []point {
	t.Helper()
	files, err := rundir.EventsFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	var pts []point
	for _, f := range files {
		evs, err := tbevents.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			for _, v := range ev.GetSummary().GetValue() {
				pts = append(pts, point{ev.Step, v.Tag, float64(v.GetSimpleValue())})
			}
		}
	}
	return pts
}

func samePoints(t *testing.T, got, want []point) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d points, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].step != want[i].step || got[i].tag != want[i].tag || float32(got[i].value) != float32(want[i].value) {
			t.Fatalf("point %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestWriteAndResume(t *testing.T) {
	dir := t.TempDir()
	w, err := tbevents.Create(dir, time.Unix(1700000000, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := writeSteps(t, w, 100, 500) // covered by the checkpoint
	_ = writeSteps(t, w, 600, 900)     // written after it, then killed
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// A kill mid-record leaves a torn tail.
	f, err := os.OpenFile(w.Path(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(tbevents.AppendRecord(nil, []byte("half a record"))[:9])
	f.Close()

	w2, err := tbevents.Resume(dir, 500, time.Unix(1700005000, 0))
	if err != nil {
		t.Fatal(err)
	}
	if w2.Path() != w.Path() {
		t.Fatalf("resume wrote to %s, want the existing %s", w2.Path(), w.Path())
	}
	if err := w2.Write(400, time.Now(), tbevents.Scalar{Tag: "x", Value: 1}); err == nil {
		t.Fatal("a step before the resume point was accepted")
	}
	want = append(want, writeSteps(t, w2, 600, 1000)...)
	w2.Close()
	samePoints(t, readPoints(t, dir), want)

	evs, err := tbevents.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if evs[0].GetFileVersion() != tbevents.FileVersion {
		t.Fatalf("first record %v, want file_version", evs[0])
	}
	var starts []int64
	for _, ev := range evs {
		if ev.GetSessionLog() != nil {
			starts = append(starts, ev.Step)
		}
	}
	if len(starts) != 1 || starts[0] != 501 {
		t.Fatalf("session starts at %v, want one at 501", starts)
	}

	// Resuming with nothing written yet creates a file.
	empty := t.TempDir()
	w3, err := tbevents.Resume(empty, 0, time.Unix(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	w3.Close()
	if fs, _ := rundir.EventsFiles(empty); len(fs) != 1 {
		t.Fatalf("files = %v, want one", fs)
	}
}

// TestTensorBoardDecodes compiles TensorBoard's own definitions with protoc
// and decodes a written file with Debian's python3-protobuf through
// scripts/read_tb_events.py, which checks every CRC itself.
func TestTensorBoardDecodes(t *testing.T) {
	dir := t.TempDir()
	w, err := tbevents.Create(dir, time.Unix(1700000000, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := writeSteps(t, w, 100, 300)
	if err := w.Write(400, time.Unix(1700000400, 0), tbevents.Scalar{Tag: "eval/return", Value: math.Pi}, tbevents.Scalar{Tag: "big", Value: 1e30}); err != nil {
		t.Fatal(err)
	}
	want = append(want, point{400, "eval/return", math.Pi}, point{400, "big", 1e30})
	w.Close()
	w, err = tbevents.Resume(dir, 300, time.Unix(1700000500, 0))
	if err != nil {
		t.Fatal(err)
	}
	want = append(want[:6], writeSteps(t, w, 400, 400)...)
	w.Close()

	got := DecodeWithTensorBoard(t, w.Path())
	samePoints(t, got.points, want)
	if got.fileVersion != tbevents.FileVersion || got.sessionStarts != 1 {
		t.Fatalf("file_version %q, %d session starts", got.fileVersion, got.sessionStarts)
	}
	t.Logf("TensorBoard's event.proto (protoc + python3-protobuf) decoded %d records, every CRC verified; %d scalars equal to the written float32 values", got.records, len(got.points))
}

type decoded struct {
	points        []point
	records       int
	fileVersion   string
	sessionStarts int
}

// DecodeWithTensorBoard decodes a file with TensorBoard's definitions and
// lists its scalars in the order this test wrote them.
func DecodeWithTensorBoard(t *testing.T, path string) decoded {
	t.Helper()
	var d decoded
	for _, f := range tbeventstest.Decode(t, path) {
		d.records += f.Records
		for _, ev := range f.Events {
			if ev.FileVersion != "" {
				d.fileVersion = ev.FileVersion
			}
			if ev.SessionLog == "START" {
				d.sessionStarts++
			}
			// JSON objects are unordered: put the tags back in the order
			// this test writes them within a step.
			for _, tag := range []string{"train/reward", "loss/value", "eval/return", "big"} {
				if v, ok := ev.Scalars[tag]; ok {
					d.points = append(d.points, point{ev.Step, tag, v})
				}
			}
		}
	}
	return d
}
