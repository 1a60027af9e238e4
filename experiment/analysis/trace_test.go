package analysis

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"

	"github.com/hyperctl/hyperctl/configs/rundir"
)

// writeTraceRun writes a run folder of 4 iterations of 1000 frames whose
// train.csv logs the hyperparameter columns cols, column c at iteration i
// being vals[c][i], with config (the text of config.toml; none when empty).
func writeTraceRun(t *testing.T, dir string, cols []string, vals map[string][]float64, config string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString(strings.Join(rundir.TrainColumns(cols), ",") + "\n")
	for i := 0; i < 4; i++ {
		fmt.Fprintf(&b, "%d,%d,%d,0,1,,1,1", i, (i+1)*1000, i+1)
		for _, c := range cols {
			fmt.Fprintf(&b, ",%g", vals[c][i])
		}
		b.WriteString(",0\n")
	}
	if err := os.WriteFile(filepath.Join(dir, rundir.TrainCSV), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if config != "" {
		if err := os.WriteFile(filepath.Join(dir, rundir.ConfigFile), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestTraceFigure(t *testing.T) {
	dir := t.TempDir()
	run := func(ctrl string) string { return filepath.Join(dir, "reacher", ctrl, "seed0") }
	lrs := []float64{3e-4, 1e-3, 1e-5, 2e-5}
	// hoof tunes lr and entropy_coef: both logged.
	writeTraceRun(t, run("hoof"), []string{"lr", "entropy_coef"},
		map[string][]float64{"lr": lrs, "entropy_coef": {0.1, 0.05, 0.02, 0}}, "env = \"reacher\"\n")
	// fixed from a wrong start: entropy_coef is held at 0.1, only in config.toml.
	writeTraceRun(t, run("fixed"), []string{"lr"},
		map[string][]float64{"lr": {3e-4, 2e-4, 1e-4, 1e-5}}, "env = \"reacher\"\n[ppo]\nentropy_coef = 0.1\n")
	// random: no config.toml, so its constant keys are unknown.
	writeTraceRun(t, run("random"), []string{"lr"}, map[string][]float64{"lr": lrs}, "")
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Runs[0].Hyper; len(got) == 0 {
		t.Fatalf("loaded run %s: no hyperparameter columns", s.Runs[0].Dir)
	}
	for _, tc := range []struct {
		env, key string
		want     map[string][]float64 // per controller, its one run's values
		lo, hi   float64
		problem  string // a run named in s.Problems, "" for none
	}{
		{"reacher", "lr", map[string][]float64{"hoof": lrs, "fixed": {3e-4, 2e-4, 1e-4, 1e-5}, "random": lrs}, 1e-5, 1e-3, ""},
		{"reacher", "entropy_coef", map[string][]float64{"hoof": {0.1, 0.05, 0.02, 0}, "fixed": {0.1, 0.1, 0.1, 0.1}}, 0, 0.1, run("random")},
		{"halfcheetah", "lr", nil, 0, 0, ""},
	} {
		t.Run(tc.env+"/"+tc.key, func(t *testing.T) {
			s.Problems = nil
			lines, lo, hi := s.traceLines(tc.env, tc.key)
			if len(lines) != len(tc.want) {
				t.Fatalf("%d controllers drawn, want %d (%v)", len(lines), len(tc.want), lines)
			}
			for ctrl, want := range tc.want {
				if len(lines[ctrl]) != 1 || len(lines[ctrl][0]) != len(want) {
					t.Fatalf("%s: lines %v, want one of %d points", ctrl, lines[ctrl], len(want))
				}
				for k, p := range lines[ctrl][0] {
					if p.X != float64((k+1)*1000) || p.Y != want[k] {
						t.Errorf("%s: point %d = (%g, %g), want (%d, %g)", ctrl, k, p.X, p.Y, (k+1)*1000, want[k])
					}
				}
			}
			if len(tc.want) > 0 && (lo != tc.lo || hi != tc.hi) {
				t.Errorf("range [%g, %g], want [%g, %g]", lo, hi, tc.lo, tc.hi)
			}
			if got := strings.Join(s.Problems, "; "); (tc.problem == "") != (got == "") || !strings.Contains(got, tc.problem) {
				t.Errorf("problems %q, want one naming %q", got, tc.problem)
			}
			path, err := s.TraceFigure(tc.env, tc.key, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if len(tc.want) == 0 {
				if path != "" {
					t.Errorf("figure %s, want none", path)
				}
				return
			}
			if filepath.Base(path) != tc.env+"_trace_"+tc.key+".png" {
				t.Errorf("figure %s", path)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := png.Decode(f); err != nil {
				t.Errorf("%s: %v", path, err)
			}
		})
	}
}

// TestQuartileBand: runs aligned by point index, a shorter run held at its
// last point; the median line and the band from the 25th to the 75th
// percentile (type 7) at the median frames.
func TestQuartileBand(t *testing.T) {
	line := func(ys ...float64) plotter.XYs {
		l := make(plotter.XYs, len(ys))
		for i, y := range ys {
			l[i] = plotter.XY{X: float64(i + 1), Y: y}
		}
		return l
	}
	for _, tc := range []struct {
		name      string
		lines     []plotter.XYs
		med, band plotter.XYs
	}{
		{"three runs", []plotter.XYs{line(1, 2), line(3, 6), line(5, 4)},
			plotter.XYs{{X: 1, Y: 3}, {X: 2, Y: 4}},
			plotter.XYs{{X: 1, Y: 4}, {X: 2, Y: 5}, {X: 2, Y: 3}, {X: 1, Y: 2}}},
		{"a shorter run held at its last point", []plotter.XYs{line(1, 1), line(2)},
			plotter.XYs{{X: 1, Y: 1.5}, {X: 1.5, Y: 1.5}},
			plotter.XYs{{X: 1, Y: 1.75}, {X: 1.5, Y: 1.75}, {X: 1.5, Y: 1.25}, {X: 1, Y: 1.25}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			med, band := quartileBand(tc.lines)
			if !reflect.DeepEqual(med, tc.med) || !reflect.DeepEqual(band, tc.band) {
				t.Errorf("median %v, band %v; want %v, %v", med, band, tc.med, tc.band)
			}
		})
	}
}
