package matrix

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	progressline "github.com/hyperctl/hyperctl/experiment/progress"
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

// TestFleetMeasure: the speed, the ETA and the fraction done of a
// compare's runs from their train.csv, resumed runs and runs that have not
// started among them, without and with a frame budget.
func TestFleetMeasure(t *testing.T) {
	root := t.TempDir()
	a, b, c := filepath.Join(root, "a"), filepath.Join(root, "b"), filepath.Join(root, "c")
	writeRows(t, a, 4) // resumed from iteration 4
	writeRows(t, b, 0) // header only
	// c does not exist yet
	t0 := time.Unix(1000, 0)
	f := newFleet([]string{a, b, c}, 1, 10, 0, t0) // and one run finished before
	if m := f.measure(t0.Add(time.Second)); m.ok || m.done != (1+0.4)/4 {
		t.Fatalf("before any iteration: %+v, want no speed and 1.4 of 4 runs done", m)
	}
	writeRows(t, a, 6) // +2 iterations, +200 frames
	writeRows(t, b, 3) // +3, +300
	writeRows(t, c, 5) // +5, +500
	m := f.measure(t0.Add(10 * time.Second))
	if !m.ok || m.fps != 100 {
		t.Fatalf("fps = %v (%v), want 1000 frames in 10 s", m.fps, m.ok)
	}
	// remaining at start: 6 + 10 + 10 = 26 iterations; 10 done in 10 s.
	if m.eta != 16*time.Second {
		t.Fatalf("eta = %v, want 16s", m.eta)
	}
	if want := (1 + 0.6 + 0.3 + 0.5) / 4; math.Abs(m.done-want) > 1e-12 {
		t.Fatalf("done = %v, want %v", m.done, want)
	}
	f.ended[1] = true // b failed: it counts whole
	if m := f.measure(t0.Add(10 * time.Second)); math.Abs(m.done-(1+0.6+1+0.5)/4) > 1e-12 {
		t.Fatalf("done with b ended = %v", m.done)
	}
	// With a frame budget of 700 frames per run the ETA counts frames:
	// left at start 300 + 700 + 700 = 1700; 1000 trained in 10 s. The
	// fraction done is of the budget, which is further along than the
	// iterations.
	writeRows(t, a, 4)
	writeRows(t, b, 0)
	os.RemoveAll(c)
	f = newFleet([]string{a, b, c}, 0, 10, 700, t0)
	writeRows(t, a, 6)
	writeRows(t, b, 3)
	writeRows(t, c, 5)
	m = f.measure(t0.Add(10 * time.Second))
	if !m.ok || m.eta != 7*time.Second {
		t.Fatalf("eta with a frame budget = %v (%v), want 7s", m.eta, m.ok)
	}
	if want := (600.0/700 + 300.0/700 + 500.0/700) / 3; math.Abs(m.done-want) > 1e-12 {
		t.Fatalf("done with a frame budget = %v, want %v", m.done, want)
	}
	writeRows(t, c, 8) // 800 frames: past the budget, counted whole
	if m := f.measure(t0.Add(10 * time.Second)); math.Abs(m.done-(600.0/700+300.0/700+1)/3) > 1e-12 {
		t.Fatalf("done with c past the budget = %v", m.done)
	}
}

// shape is a progress line of any command: its position, the bar (of
// 20 or 10 columns, "#" done and "-" to do) and the percentage, or the
// percentage alone, then fields separated by " | ".
var shape = regexp.MustCompile(`^[a-z]+ [^|\[]*?( \[(#|-){20}\]| \[(#|-){10}\])? \d+%( \| [^|]+)*$`)

// TestCompareProgressLine: compare's line has the shape of the others
// (population's among them, drawn from the same fields): the runs ended
// out of the total, the bar and the percentage of the compare done, the
// ETA and the frames per second across the jobs, in that order; it fits
// the width given it (an 80-column terminal gives it 79), losing the bar
// there before the speed.
func TestCompareProgressLine(t *testing.T) {
	early := fleetNow{done: 0.05}
	mid := fleetNow{done: 0.4375, fps: 3456.7, eta: 95 * time.Second, ok: true}
	long := fleetNow{done: 0.5, fps: 123456, eta: 100*time.Hour + 59*time.Minute + 59*time.Second, ok: true}
	end := fleetNow{done: 1, fps: 2000, ok: true}
	for _, tc := range []struct {
		name  string
		f     progressline.Fields
		width int
		want  string
	}{
		{"compare before the first iteration", compareFields(0, 4, early), 79, "runs 0/4 [#-------------------] 5% | ETA after the first iteration"},
		{"compare", compareFields(1, 4, mid), 79, "runs 1/4 [########------------] 44% | ETA 1m35s | 3457 f/s"},
		{"compare, long ETA", compareFields(12, 1200, long), 79, "runs 12/1200 [##########----------] 50% | ETA 100h59m59s | 123456 f/s"},
		{"compare, at the end", compareFields(4, 4, end), 79, "runs 4/4 [####################] 100% | ETA 0s | 2000 f/s"},
		{"compare, 40 columns", compareFields(1, 4, mid), 39, "runs 1/4 44% | ETA 1m35s | 3457 f/s"},
		{"compare, 30 columns", compareFields(1, 4, mid), 29, "runs 1/4 44% | ETA 1m35s"},
		{"population", framesFields("generation 1 of 4", 4000, 12000, 4000, 2*time.Second), 79, "generation 1 of 4 [###-------] 33% | ETA 4s | frames 4000/12000 | 2000 f/s"},
	} {
		got := progressline.Fit(tc.f, tc.width)
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if n := utf8.RuneCountInString(got); n > tc.width {
			t.Errorf("%s: %d columns, wider than %d", tc.name, n, tc.width)
		}
		if !shape.MatchString(got) {
			t.Errorf("%s: %q is not of the progress lines' shape", tc.name, got)
		}
	}
}
