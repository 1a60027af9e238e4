package matrix

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeRows writes a train.csv with rows iterations of 100 frames each.
func writeRows(t *testing.T, dir string, rows int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("iteration,frames,wall_time_s\n")
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&b, "%d,%d,%d\n", i, 100*(i+1), i)
	}
	if err := os.WriteFile(filepath.Join(dir, "train.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFleetMeasure(t *testing.T) {
	root := t.TempDir()
	a, b, c := filepath.Join(root, "a"), filepath.Join(root, "b"), filepath.Join(root, "c")
	writeRows(t, a, 4) // resumed from iteration 4
	writeRows(t, b, 0) // header only
	// c does not exist yet
	t0 := time.Unix(1000, 0)
	f := newFleet([]string{a, b, c}, 10, 0, t0)
	if _, _, ok := f.measure(t0.Add(time.Second)); ok {
		t.Fatal("a measure before any iteration")
	}
	writeRows(t, a, 6) // +2 iterations, +200 frames
	writeRows(t, b, 3) // +3, +300
	writeRows(t, c, 5) // +5, +500
	fps, eta, ok := f.measure(t0.Add(10 * time.Second))
	if !ok || fps != 100 {
		t.Fatalf("fps = %v (%v), want 1000 frames in 10 s", fps, ok)
	}
	// remaining at start: 6 + 10 + 10 = 26 iterations; 10 done in 10 s.
	if eta != 16*time.Second {
		t.Fatalf("eta = %v, want 16s", eta)
	}
	if got := compareLine(fps, eta, ok); got != "runs | 100 frames/s | ETA 16s" {
		t.Fatalf("line %q", got)
	}
	// With a frame budget of 700 frames per run the ETA counts frames:
	// left at start 300 + 700 + 700 = 1700; 1000 trained in 10 s.
	writeRows(t, a, 4)
	writeRows(t, b, 0)
	os.RemoveAll(c)
	f = newFleet([]string{a, b, c}, 10, 700, t0)
	writeRows(t, a, 6)
	writeRows(t, b, 3)
	writeRows(t, c, 5)
	if _, eta, ok := f.measure(t0.Add(10 * time.Second)); !ok || eta != 7*time.Second {
		t.Fatalf("eta with a frame budget = %v (%v), want 7s", eta, ok)
	}
}
