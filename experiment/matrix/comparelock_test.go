package matrix

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/internal/ground/safefile"
)

// TestRunsWaitForARunningCompare: while a local compare holds its folder's
// shared lock (as Local.Run does), the runs that no process writes and that
// are not finished are pending, waiting for its workers, both in the
// compare folder's status (Collect) and in a folder's (Folders); once it
// ends they are missing (never started) or stopped again.
func TestRunsWaitForARunningCompare(t *testing.T) {
	out := t.TempDir()
	man := Manifest{Envs: []string{"reacher"}, Controllers: []string{"fixed"}, Seeds: []int64{0, 1}, Iterations: 4}
	if err := WriteManifest(out, man); err != nil {
		t.Fatal(err)
	}
	// Seed 1 was started and stopped: a train.csv and no summary.json.
	stopped := filepath.Join(out, "reacher", "fixed", "seed1")
	if err := os.MkdirAll(stopped, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stopped, rundir.TrainCSV), []byte("iteration,frames\n0,2048\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	states := func() (Status, []FolderRun) {
		t.Helper()
		st, err := Collect(out, man, nil)
		if err != nil {
			t.Fatal(err)
		}
		runs, err := Folders(out)
		if err != nil {
			t.Fatal(err)
		}
		return st, runs
	}
	lock, err := safefile.AcquireShared(out, CompareLockFile)
	if err != nil {
		t.Fatal(err)
	}
	st, runs := states()
	for _, r := range st.Runs {
		if r.State != Pending || r.Detail != waitsForCompare {
			t.Errorf("compare running: seed %d is %v (%q), want pending (%q)", r.Seed, r.State, r.Detail, waitsForCompare)
		}
	}
	if len(runs) != 1 || runs[0].State != FolderPending || runs[0].Detail != waitsForCompare {
		t.Errorf("compare running, folder status: %+v, want seed 1 pending", runs)
	}
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	st, runs = states()
	for _, r := range st.Runs {
		if r.State != Missing {
			t.Errorf("compare ended: seed %d is %v (%q), want missing", r.Seed, r.State, r.Detail)
		}
	}
	if len(runs) != 1 || runs[0].State != FolderStopped {
		t.Errorf("compare ended, folder status: %+v, want seed 1 stopped", runs)
	}
}
