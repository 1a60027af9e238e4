package slurm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/matrix"
	"github.com/hyperctl/hyperctl/internal/ground/words"
)

// compareFolder builds a compare folder whose runs (reacher × c0..c6 × seed
// 0) are in every state, recorded as job 20 of the fixtures: task i ran
// reacher/c<i>/seed0.
func compareFolder(t *testing.T) (string, matrix.Manifest) {
	t.Helper()
	out := t.TempDir()
	man := matrix.Manifest{Envs: []string{"reacher"}, Seeds: []int64{0}, Iterations: 4}
	var runs []string
	for i := 0; i < 8; i++ {
		c := "c" + string(rune('0'+i))
		man.Controllers = append(man.Controllers, c)
		runs = append(runs, matrix.RunDir("reacher", c, 0))
	}
	man.SlurmJobs = []matrix.SlurmJob{{ID: "20", Runs: runs[:7]}} // c7 was never submitted
	run := func(i int) string { return filepath.Join(out, runs[i]) }
	write := func(i int, name, text string) {
		os.MkdirAll(run(i), 0o755)
		if err := os.WriteFile(filepath.Join(run(i), name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	started := func(i, rows int) {
		write(i, rundir.ConfigFile, "env = \"reacher\"\n")
		csv := "iteration,frames\n"
		for r := 0; r < rows; r++ {
			csv += string(rune('0'+r)) + ",100\n"
		}
		write(i, rundir.TrainCSV, csv+"9,1") // a torn last row is not counted
	}
	// task 0: COMPLETED, the run finished.
	started(0, 4)
	if err := rundir.WriteSummary(run(0), rundir.Summary{Iterations: 4, WallTimeS: 12}); err != nil {
		t.Fatal(err)
	}
	// task 1: FAILED; the task recorded train's error.
	started(1, 1)
	write(1, TaskFile, "job=20_1\nattempt=0\nstate=failed\nexit=1\nnode=vm\ntime=t\nreason=hyperctl: train: boom\n")
	// task 2: cancelled while pending: Slurm keeps no record; nothing ran.
	// task 3: requeued, pending (BeginTime), 2 iterations done.
	started(3, 2)
	write(3, TaskFile, "job=20_3\nattempt=0\nstate=requeued\nexit=1\nreason=TERM\n")
	// task 4: CANCELLED while running; the task recorded it.
	started(4, 3)
	write(4, TaskFile, "job=20_4\nattempt=0\nstate=cancelled\nexit=143\nreason=stopped by Slurm (job state COMPLETING).\n")
	// task 5: RUNNING.
	started(5, 1)
	write(5, TaskFile, "job=20_5\nattempt=0\nstate=running\nexit=0\nreason=\n")
	// task 6: the record says running but squeue no longer lists it (the
	// fake squeue below drops it): killed without a chance to record.
	started(6, 2)
	write(6, TaskFile, "job=20_6\nattempt=0\nstate=running\nexit=0\nreason=\n")
	return out, man
}

func fixtureRunner(t *testing.T) *fakeRunner {
	return &fakeRunner{out: map[string][]byte{
		"scontrol --oneliner show job 20": fixture(t, "scontrol-mixed.txt"),
		"squeue":                          []byte("20|3|PENDING|BeginTime\n20|5|RUNNING|None\n"),
		"sbatch --parsable":               []byte("21\n"),
	}}
}

func TestCollect(t *testing.T) {
	out, man := compareFolder(t)
	st, err := Collect(context.Background(), out, man, fixtureRunner(t))
	if err != nil || st.QueueErr != nil {
		t.Fatal(err, st.QueueErr)
	}
	want := []struct {
		state  matrix.State
		done   int
		task   string
		detail string
	}{
		{matrix.Finished, 4, "20_0", "12 s wall time"},
		{matrix.Failed, 1, "20_1", "failed: hyperctl: train: boom"},
		{matrix.Missing, 0, "20_2", "not started"},
		{matrix.Pending, 2, "20_3", "PENDING (BeginTime), requeued 1×"},
		{matrix.Failed, 3, "20_4", "cancelled: stopped by Slurm"},
		{matrix.Running, 1, "20_5", "RUNNING"},
		{matrix.Failed, 2, "20_6", "left the queue without recording its end"},
		{matrix.Missing, 0, "", "not started"},
	}
	if len(st.Runs) != len(want) {
		t.Fatalf("%d runs, want %d", len(st.Runs), len(want))
	}
	for i, w := range want {
		r := st.Runs[i]
		if r.State != w.state || r.Done != w.done || r.Task != w.task || !strings.Contains(r.Detail, w.detail) || r.Iterations != 4 {
			t.Errorf("run %d (%s): %s %d/%d %s %q; want %s %d %s %q", i, r.Dir, r.State, r.Done, r.Iterations, r.Task, r.Detail, w.state, w.done, w.task, w.detail)
		}
	}
	c := st.Counts()
	if c[matrix.Finished] != 1 || c[matrix.Failed] != 3 || c[matrix.Missing] != 2 || c[matrix.Pending] != 1 || c[matrix.Running] != 1 {
		t.Errorf("counts %v", c)
	}
	// Without a readable queue, the folders alone: a recorded running task
	// is trusted, and the error is reported.
	r := fixtureRunner(t)
	r.missing = map[string]bool{"squeue": true}
	st, err = Collect(context.Background(), out, man, r)
	if err != nil || !errors.Is(st.QueueErr, ErrNoSlurm) {
		t.Fatalf("no squeue: %v, queue error %v", err, st.QueueErr)
	}
	if st.Runs[5].State != matrix.Running || st.Runs[3].State != matrix.Pending || st.Runs[1].State != matrix.Failed {
		t.Errorf("folder-only states: %v %v %v", st.Runs[5].State, st.Runs[3].State, st.Runs[1].State)
	}
}

// TestRunningByLock: a run whose folder a process writes (it holds the
// folder's lock, as train does) is running, in a local compare's matrix and
// as a folder alone; once the lock is released it is missing again.
func TestRunningByLock(t *testing.T) {
	out := t.TempDir()
	man := matrix.Manifest{Envs: []string{"reacher"}, Controllers: []string{"a", "b"}, Seeds: []int64{0}, Iterations: 4}
	for _, c := range man.Controllers {
		dir := filepath.Join(out, matrix.RunDir("reacher", c, 0))
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, rundir.ConfigFile), []byte("env = \"reacher\"\n"), 0o644)
		os.WriteFile(filepath.Join(dir, rundir.TrainCSV), []byte("iteration,frames\n0,100\n1,200\n"), 0o644)
	}
	held := filepath.Join(out, matrix.RunDir("reacher", "a", 0))
	lock, err := rundir.Acquire(held)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Collect(context.Background(), out, man, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantDetail := fmt.Sprintf("process %d writes it", os.Getpid())
	if r := st.Runs[0]; r.State != matrix.Running || r.Detail != wantDetail || r.Done != 2 {
		t.Errorf("locked run: %s %q %d done; want running %q 2", r.State, r.Detail, r.Done, wantDetail)
	}
	if r := st.Runs[1]; r.State != matrix.Missing || r.Detail != "unfinished and not queued" {
		t.Errorf("unlocked run: %s %q; want missing", r.State, r.Detail)
	}
	if r, err := FolderStatus(held); err != nil || r.State != matrix.Running || r.StateName != "running" || r.Detail != wantDetail {
		t.Errorf("FolderStatus(locked) = %+v, %v", r, err)
	}
	lock.Release()
	if r, err := FolderStatus(held); err != nil || r.State != matrix.Missing || r.Done != 2 {
		t.Errorf("FolderStatus(released) = %+v, %v; want missing, 2 done", r, err)
	}
	if err := rundir.WriteSummary(held, rundir.Summary{Iterations: 2, WallTimeS: 3}); err != nil {
		t.Fatal(err)
	}
	if r, err := FolderStatus(held); err != nil || r.State != matrix.Finished || r.Done != 2 {
		t.Errorf("FolderStatus(finished) = %+v, %v; want finished, 2 done", r, err)
	}
	if r, err := FolderStatus(filepath.Join(out, "nothing")); err != nil || r.State != matrix.Missing || r.Detail != "not started" {
		t.Errorf("FolderStatus(absent) = %+v, %v; want missing, not started", r, err)
	}
}

func TestCollectSlurmEndStateWithoutRecord(t *testing.T) {
	// A task that ended in Slurm before its script wrote anything (e.g.
	// refused by the node) shows Slurm's end state.
	out := t.TempDir()
	man := matrix.Manifest{Envs: []string{"reacher"}, Controllers: []string{"a", "b"}, Seeds: []int64{0}, Iterations: 4,
		SlurmJobs: []matrix.SlurmJob{{ID: "20", Runs: []string{"reacher/a/seed0", "reacher/b/seed0"}}}}
	st, err := Collect(context.Background(), out, man, fixtureRunner(t))
	if err != nil {
		t.Fatal(err)
	}
	if r := st.Runs[1]; r.State != matrix.Failed || r.Detail != "Slurm: FAILED (NonZeroExitCode, exit 3:0)" {
		t.Errorf("run b: %s %q", r.State, r.Detail)
	}
	if r := st.Runs[0]; r.State != matrix.Failed || !strings.Contains(r.Detail, "COMPLETED") {
		t.Errorf("run a (COMPLETED but no summary): %s %q", r.State, r.Detail)
	}
}

func TestSubmitOnlyMissingAndFailed(t *testing.T) {
	out, man := compareFolder(t)
	r := fixtureRunner(t)
	req := Request{
		Out: out, Manifest: man, Binary: "/usr/local/bin/hyperctl", Options: Options{CPUsPerTask: 2},
		TrainArgs: func(env, ctrl string, seed int64, dir string) []string {
			return []string{"--env", env, "--controller", ctrl, "--out", dir, "--resume"}
		},
	}
	// Dry run: the script on w, nothing written, nothing submitted.
	var w bytes.Buffer
	req.DryRun = true
	res, err := Submit(context.Background(), r, req, &w)
	if err != nil {
		t.Fatal(err)
	}
	if res.Tasks != 5 || res.JobID != "" || !strings.Contains(w.String(), "#SBATCH --array=0-4\n") {
		t.Fatalf("dry run: %d tasks, job %q\n%s", res.Tasks, res.JobID, w.String())
	}
	if _, err := os.Stat(filepath.Join(out, Dir)); err == nil {
		t.Errorf("dry run created %s", filepath.Join(out, Dir))
	}
	for _, c := range r.calls {
		if strings.HasPrefix(c, "sbatch") {
			t.Errorf("dry run called %s", c)
		}
	}
	// The submission: failed (c1, c4, c6) and missing (c2, c7) runs only, in
	// matrix order; the job is added to the manifest.
	req.DryRun = false
	res, err = Submit(context.Background(), r, req, &w)
	if err != nil {
		t.Fatal(err)
	}
	if res.JobID != "21" || res.Tasks != 5 {
		t.Fatalf("job %q, %d tasks", res.JobID, res.Tasks)
	}
	script := filepath.Join(out, Dir, ScriptFile)
	if last := r.calls[len(r.calls)-1]; last != "sbatch --parsable "+script {
		t.Errorf("last call %q", last)
	}
	text, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []string{"c1", "c2", "c4", "c6", "c7"} {
		if want := "  " + string(rune('0'+i)) + ") dir=" + filepath.Join(out, "reacher", c, "seed0") + ";"; !strings.Contains(string(text), want) {
			t.Errorf("script lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, Dir, LogDir)); err != nil {
		t.Errorf("log folder: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(out, Dir, "job-21.sbatch")); err != nil || !bytes.Equal(b, text) {
		t.Errorf("job-21.sbatch: %v", err)
	}
	var got matrix.Manifest
	b, _ := os.ReadFile(filepath.Join(out, matrix.ManifestFile))
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.SlurmJobs) != 2 || got.SlurmJobs[1].ID != "21" ||
		strings.Join(got.SlurmJobs[1].Runs, " ") != "reacher/c1/seed0 reacher/c2/seed0 reacher/c4/seed0 reacher/c6/seed0 reacher/c7/seed0" {
		t.Errorf("manifest jobs: %+v", got.SlurmJobs)
	}
}

func TestSubmitErrors(t *testing.T) {
	out, man := compareFolder(t)
	req := Request{Out: out, Manifest: man, Binary: "/x/hyperctl", Options: Options{CPUsPerTask: 1},
		TrainArgs: func(string, string, int64, string) []string { return nil }}
	// No sbatch: a clear error, nothing written.
	r := fixtureRunner(t)
	r.missing = map[string]bool{"sbatch": true}
	_, err := Submit(context.Background(), r, req, nil)
	if !errors.Is(err, ErrNoSlurm) || !strings.Contains(err.Error(), "sbatch is not on PATH") || !strings.Contains(err.Error(), "slurm-local.sh") {
		t.Errorf("no sbatch: %v", err)
	}
	// The dry run named as a Go field, or a command line's flag.
	if s := err.Error(); !strings.Contains(s, "; slurm.Backend.DryRun prints the script") || strings.Contains(s, "--") {
		t.Errorf("no sbatch, in Go: %q", s)
	}
	if s := words.Say(err, words.Words{DryRun: "--dry-run"}); !strings.HasPrefix(s, "compare on Slurm: Slurm client commands not found: sbatch is not on PATH") || !strings.Contains(s, "; --dry-run prints the script") {
		t.Errorf("no sbatch, in flags: %q", s)
	}
	// Jobs in the manifest but no squeue: refused (it could double-run a
	// queued run).
	r = fixtureRunner(t)
	r.missing = map[string]bool{"squeue": true}
	if _, err := Submit(context.Background(), r, req, nil); err == nil || !strings.Contains(err.Error(), "queue cannot be read") {
		t.Errorf("no squeue: %v", err)
	}
	// sbatch's refusal is passed on.
	r = fixtureRunner(t)
	r.errs = map[string]error{"sbatch": errors.New("sbatch --parsable x: exit status 1: sbatch: error: invalid partition specified: gpu")}
	if _, err := Submit(context.Background(), r, req, nil); err == nil || !strings.Contains(err.Error(), "invalid partition") {
		t.Errorf("sbatch refusal: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, Dir, "job-21.sbatch")); err == nil {
		t.Errorf("a refused submission left a job script")
	}
	// Everything finished or queued: nothing to submit, sbatch not called.
	man.Controllers = man.Controllers[:1]
	req.Manifest = man
	r = fixtureRunner(t)
	res, err := Submit(context.Background(), r, req, nil)
	if err != nil || res.Tasks != 0 || res.JobID != "" {
		t.Errorf("nothing to do: %+v %v", res, err)
	}
	for _, c := range r.calls {
		if strings.HasPrefix(c, "sbatch") {
			t.Errorf("called %s with nothing to submit", c)
		}
	}
}
