package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ReadLog drops a torn last line, finds columns by name and names the file,
// the line and the column in its errors; LastRow reads the last complete
// row; Runs lists the run folders below a folder, FindRuns the finished
// ones.
func TestReadLog(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, TrainCSV)
	write := func(text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ReadLog(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	if _, _, ok := LastRow(dir); ok {
		t.Fatal("LastRow of a missing file")
	}
	write("iteration,frames,objective\n0,100,\n1,200,0.5\n2,30")
	l, err := ReadLog(path)
	if err != nil || len(l.Rows) != 2 {
		t.Fatalf("%v, %d rows; want 2 (the torn last line dropped)", err, len(l.Rows))
	}
	c, err := l.Col("objective")
	if err != nil || l.Field(0, c) != "" || l.Line(1) != 3 {
		t.Fatalf("column %d, %v, field %q, line %d", c, err, l.Field(0, c), l.Line(1))
	}
	if v, err := l.Float(1, c); err != nil || v != 0.5 {
		t.Fatalf("Float = %v, %v", v, err)
	}
	if _, err := l.Float(0, c); err == nil || !strings.Contains(err.Error(), path+": line 2: objective") {
		t.Fatalf("empty field: %v", err)
	}
	if _, err := l.Col("lr"); err == nil || !strings.Contains(err.Error(), "no column lr") {
		t.Fatalf("missing column: %v", err)
	}
	if it, fr, ok := LastRow(dir); !ok || it != 1 || fr != 200 {
		t.Fatalf("LastRow = %d, %d, %v; want 1, 200", it, fr, ok)
	}
	write("iteration,frames\n0,100,7\n1,200\n")
	if _, err := ReadLog(path); err == nil || !strings.Contains(err.Error(), "line 2: 3 fields") {
		t.Fatalf("long row: %v", err)
	}

	// FindRuns: a finished run, an unfinished one, a checkpoint folder.
	root := t.TempDir()
	for _, r := range []struct {
		rel      string
		finished bool
	}{{"b/seed0", true}, {"a/seed1", false}, {"b/seed0/" + CheckpointDir, true}, {"a-c/seed0", true}} {
		d := filepath.Join(root, r.rel)
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, TrainCSV), []byte("iteration\n"), 0o644)
		if r.finished {
			os.WriteFile(filepath.Join(d, SummaryFile), []byte("{}\n"), 0o644)
		}
	}
	runs, unfinished, err := FindRuns(root)
	want := []string{filepath.Join(root, "a-c/seed0"), filepath.Join(root, "b/seed0")}
	if err != nil || unfinished != 1 || strings.Join(runs, " ") != strings.Join(want, " ") {
		t.Fatalf("FindRuns = %v, %d, %v; want %v, 1", runs, unfinished, err, want)
	}
	all, err := Runs(root)
	var got []string
	for _, r := range all {
		got = append(got, fmt.Sprintf("%s:%v", strings.TrimPrefix(r.Dir, root+"/"), r.Finished))
	}
	if err != nil || strings.Join(got, " ") != "a-c/seed0:true a/seed1:false b/seed0:true" {
		t.Fatalf("Runs = %v, %v; want a-c/seed0:true a/seed1:false b/seed0:true", got, err)
	}
}

// TestRuns: a run folder is found as the root itself or at any depth
// below it, finished or not; checkpoint folders and the folders below a
// finished run are not searched.
func TestRunsAtAnyDepth(t *testing.T) {
	root := t.TempDir()
	mk := func(rel string, finished bool) {
		d := filepath.Join(root, rel)
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, TrainCSV), []byte("iteration\n"), 0o644)
		if finished {
			os.WriteFile(filepath.Join(d, SummaryFile), []byte("{}\n"), 0o644)
		}
	}
	mk("runs/hc-fixed-seed0", true)
	mk("runs/hc-fixed-seed0/inner", true) // below a finished run: not searched
	mk("deep/x/y/z/r1", false)
	mk("deep/x/y/z/r1/"+CheckpointDir, true) // a checkpoint folder: not searched
	mk("cmp/reacher/fixed/seed3", true)
	for _, tc := range []struct {
		root string
		want []Found
	}{
		{root, []Found{
			{filepath.Join(root, "cmp/reacher/fixed/seed3"), true},
			{filepath.Join(root, "deep/x/y/z/r1"), false},
			{filepath.Join(root, "runs/hc-fixed-seed0"), true},
		}},
		{filepath.Join(root, "runs/hc-fixed-seed0"), []Found{{filepath.Join(root, "runs/hc-fixed-seed0"), true}}},
		{filepath.Join(root, "deep/x/y/z/r1"), []Found{{filepath.Join(root, "deep/x/y/z/r1"), false}}},
		{filepath.Join(root, "deep/x"), []Found{{filepath.Join(root, "deep/x/y/z/r1"), false}}},
	} {
		got, err := Runs(tc.root)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Runs(%s) = %v, %v; want %v", tc.root, got, err, tc.want)
		}
	}
	if _, err := Runs(filepath.Join(root, "absent")); err == nil || !strings.Contains(err.Error(), "absent") {
		t.Errorf("absent root: %v", err)
	}
}

// TestReadIdentity: from config.toml (only its identity keys decoded), from
// summary.json without one, and errors that name the file.
func TestReadIdentity(t *testing.T) {
	for _, tc := range []struct {
		name, config, summary string
		want                  Identity
		wantErr               string
	}{
		{"config", "env = \"reacher\"\nseed = 7\niterations = 200\nframes = 0\nunknown_key = 3\n[ppo]\nlr = 1e-3\n[controller]\nname = \"gpucb\"\n", "",
			Identity{Env: "reacher", Controller: "gpucb", Seed: 7, Iterations: 200}, ""},
		{"summary only", "", `{"env": "halfcheetah", "controller": "fixed", "seed": 2, "iterations": 489, "frame_budget": 1000000}`,
			Identity{Env: "halfcheetah", Controller: "fixed", Seed: 2, Iterations: 489, Frames: 1000000}, ""},
		{"bad toml", "env = \n", "", Identity{}, ConfigFile},
		{"no controller", "env = \"reacher\"\n", "", Identity{}, "no env or no [controller] name"},
		{"neither file", "", "", Identity{}, "no " + ConfigFile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.config != "" {
				os.WriteFile(filepath.Join(dir, ConfigFile), []byte(tc.config), 0o644)
			}
			if tc.summary != "" {
				os.WriteFile(filepath.Join(dir, SummaryFile), []byte(tc.summary), 0o644)
			}
			got, err := ReadIdentity(dir)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ReadIdentity = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}
