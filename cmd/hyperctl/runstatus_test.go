package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/matrix"
	"github.com/hyperctl/hyperctl/experiment/population"
)

// TestStatusOfRunFolders: outside a compare folder, status finds run
// folders at any depth and tells finished, running (a process holds the
// lock) and stopped runs apart, with their progress; a single run folder
// works too, and a folder without runs is an error saying what was looked
// for.
func TestStatusOfRunFolders(t *testing.T) {
	root := t.TempDir()
	mk := func(rel, ctrl string, seed int64, rows int, finished bool, frames int64) string {
		d := filepath.Join(root, rel)
		os.MkdirAll(d, 0o755)
		var b strings.Builder
		b.WriteString("iteration,frames,wall_time_s\n")
		for i := 0; i < rows; i++ {
			fmt.Fprintf(&b, "%d,%d,1\n", i, (i+1)*100)
		}
		os.WriteFile(filepath.Join(d, rundir.TrainCSV), []byte(b.String()), 0o644)
		os.WriteFile(filepath.Join(d, rundir.ConfigFile), []byte(fmt.Sprintf("env = \"reacher\"\nseed = %d\niterations = 50\nframes = %d\n[controller]\nname = %q\n", seed, frames, ctrl)), 0o644)
		if finished {
			if err := rundir.WriteSummary(d, rundir.Summary{Env: "reacher", Controller: ctrl, Seed: seed, Iterations: rows, Frames: int64(rows) * 100, WallTimeS: 12}); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	fin := mk("a/reacher-fixed-seed0", "fixed", 0, 50, true, 0)
	run := mk("b/deep/reacher-gpucb-seed1", "gpucb", 1, 7, false, 0)
	stop := mk("b/reacher-random-seed2", "random", 2, 3, false, 0)
	// A frame budget ends a run before its iterations: its progress is in frames.
	budget := mk("c/reacher-hoof-seed3", "hoof", 3, 4, true, 350)
	// A population's members: named by its matrix, not by their configs
	// (an exploit donor's: controller population, seed 0).
	m4 := mk("pop/reacher/pb2/seed4", "population", 0, 2, true, 0)
	m5 := mk("pop/reacher/pb2/seed5", "population", 0, 2, true, 0)
	if err := matrix.WriteManifest(filepath.Join(root, "pop"), matrix.Manifest{Envs: []string{"reacher"}, Controllers: []string{"pb2"}, Seeds: []int64{4, 5}, Iterations: 50}); err != nil {
		t.Fatal(err)
	}
	lock, err := rundir.Acquire(run)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()

	runs, err := matrix.Folders(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []matrix.FolderRun{
		{Dir: fin, Env: "reacher", Controller: "fixed", Seed: 0, State: matrix.FolderFinished, Done: 50, Iterations: 50, FramesDone: 5000, Detail: "12 s wall time"},
		{Dir: run, Env: "reacher", Controller: "gpucb", Seed: 1, State: matrix.FolderRunning, Done: 7, Iterations: 50, FramesDone: 700, Detail: fmt.Sprintf("pid %d", os.Getpid())},
		{Dir: stop, Env: "reacher", Controller: "random", Seed: 2, State: matrix.FolderStopped, Done: 3, Iterations: 50, FramesDone: 300, Detail: "continue with: hyperctl train --out " + stop + " --resume"},
		{Dir: budget, Env: "reacher", Controller: "hoof", Seed: 3, State: matrix.FolderFinished, Done: 4, Iterations: 50, FramesDone: 400, Frames: 350, Detail: "12 s wall time"},
		{Dir: m4, Env: "reacher", Controller: "pb2", Seed: 4, State: matrix.FolderFinished, Done: 2, Iterations: 50, FramesDone: 200, Detail: "12 s wall time"},
		{Dir: m5, Env: "reacher", Controller: "pb2", Seed: 5, State: matrix.FolderFinished, Done: 2, Iterations: 50, FramesDone: 200, Detail: "12 s wall time"},
	}
	if len(runs) != len(want) {
		t.Fatalf("%d runs, want %d: %+v", len(runs), len(want), runs)
	}
	for i := range want {
		if runs[i] != want[i] {
			t.Errorf("run %d: %+v, want %+v", i, runs[i], want[i])
		}
	}
	var out bytes.Buffer
	if err := population.WriteFolderStatus(&out, root, runs, nil, false); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"b/deep/reacher-gpucb-seed1", "running", "7/50 iterations", "400/350 frames", "status: 6 runs: 4 finished, 1 running, 1 stopped"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("table lacks %q:\n%s", w, out.String())
		}
	}
	out.Reset()
	if err := population.WriteFolderStatus(&out, root, runs, nil, true); err != nil {
		t.Fatal(err)
	}
	var js struct {
		Runs   []matrix.FolderRun
		Counts map[string]int
	}
	if err := json.Unmarshal(out.Bytes(), &js); err != nil || len(js.Runs) != 6 || js.Counts[matrix.FolderStopped] != 1 || js.Runs[3].Frames != 350 || js.Runs[3].FramesDone != 400 {
		t.Errorf("JSON %v: %s", err, out.String())
	}

	// Through the CLI: a single run folder, and a folder without runs.
	// The one run is labelled by the path given, not ".".
	o, e, code := runCLI(t, "status", fin)
	if code != 0 || !strings.Contains(o, "finished") || !strings.Contains(o, "status: 1 run: 1 finished, 0 running, 0 stopped") {
		t.Errorf("status of one run: exit %d, %s %s", code, o, e)
	}
	if lines := strings.Split(o, "\n"); len(lines) < 2 || !strings.HasPrefix(lines[1], fin+" ") {
		t.Errorf("status of one run labels it other than %s:\n%s", fin, o)
	}
	empty := t.TempDir()
	if _, e, code := runCLI(t, "status", empty); code != 1 || !strings.Contains(e, "no run in "+empty) {
		t.Errorf("status of an empty folder: exit %d, %s", code, e)
	}
}
