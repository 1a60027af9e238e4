package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/slurm"
)

// slurmIters and slurmEvalEvery: slurmTestConfig's run length and
// evaluation interval, which the test's expected rows follow.
const slurmIters, slurmEvalEvery = 24, 4

// slurmTestConfig: slurmIters iterations of a small batch, an evaluation
// every slurmEvalEvery, a checkpoint every 3.
var slurmTestConfig = fmt.Sprintf(`env = "reacher"
seed = 0
iterations = %d
eval_every = %d
checkpoint_every = 3

[ppo]
num_envs = 2
batch_size = 200
minibatch_size = 100
epochs = 2

[controller]
name = "hypercontroller"
interval = 2
`, slurmIters, slurmEvalEvery)

type statusJSON struct {
	Runs []struct {
		Env, Controller, Dir, Detail string
		Seed                         int64
		State                        string `json:"state"`
		Done                         int    `json:"iterations_done"`
		Task                         string `json:"slurm_task"`
	} `json:"runs"`
	Counts    map[string]int `json:"counts"`
	SlurmJobs []string       `json:"slurm_jobs"`
}

// TestSlurmEndToEnd runs a real one-node Slurm (scripts/slurm-local.sh) and
// drives `compare --backend slurm` through it: 2 envs × 2 controllers × 2
// seeds; one running task gets the time-limit signal (TERM to its batch
// shell, as --signal=B:TERM sends it) and requeues itself, another is
// cancelled with scancel and re-submitted; every run must end with each CSV
// row exactly once, and report must work. The cluster uses its own scratch
// folder and ports, so a cluster started by hand is not touched. Skips, with
// the reason, when the daemons cannot start.
func TestSlurmEndToEnd(t *testing.T) {
	startLocalSlurm(t, "/tmp/hyperctl-slurm-e2e", "6837", "6838")
	slurmCmd := func(name string, args ...string) string {
		t.Helper()
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	// scontrol is slurmCmd's scontrol that only logs a failure: a hold
	// finds tasks already started, and a release may race their start.
	scontrol := func(args ...string) {
		t.Helper()
		o, err := exec.Command("scontrol", args...).CombinedOutput()
		t.Logf("scontrol %s: %v %s", strings.Join(args, " "), err, strings.TrimSpace(string(o)))
	}

	dir := t.TempDir()
	cfg := filepath.Join(dir, "small.toml")
	if err := os.WriteFile(cfg, []byte(slurmTestConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	const iters = slurmIters
	out := filepath.Join(dir, "cmp")
	args := []string{"compare", "--env", "reacher,inverteddoublependulum", "--controllers", "hypercontroller,random", "--seeds", "0-1",
		"--config", cfg, "--out", out, "--backend", "slurm", "--max-parallel", "2", "--time", "00:10:00"}
	submit := func() string {
		t.Helper()
		o, e, code := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("compare --backend slurm: exit %d\n%s\n%s", code, o, e)
		}
		t.Logf("%s", strings.TrimSpace(o))
		return o
	}
	status := func() statusJSON {
		t.Helper()
		o, e, code := runCLI(t, "status", out, "--json")
		var s statusJSON
		if code != 0 || json.Unmarshal([]byte(o), &s) != nil {
			t.Fatalf("status: exit %d\n%s\n%s", code, o, e)
		}
		return s
	}
	// waitFor polls status every 0.5 s, at most polls times.
	waitFor := func(what string, polls int, ok func(statusJSON) bool) statusJSON {
		t.Helper()
		var s statusJSON
		for i := 0; i < polls; i++ {
			if s = status(); ok(s) {
				return s
			}
			time.Sleep(500 * time.Millisecond)
		}
		o, _, _ := runCLI(t, "status", out)
		t.Fatalf("gave up waiting (%d polls) for %s:\n%s\nsqueue:\n%s", polls, what, o, slurmCmd("squeue", "-r"))
		return s
	}
	jobRe := regexp.MustCompile(`submitted Slurm job (\d+): (\d+) array tasks`)

	// 1. Submit the matrix: 8 tasks.
	m := jobRe.FindStringSubmatch(submit())
	if m == nil || m[2] != "8" {
		t.Fatalf("first submission: %v", m)
	}
	job1 := m[1]

	// The array's pending tasks are held at once and released one at a
	// time by catch: a task of this config runs for a few seconds, and left
	// to the scheduler every task could end between two polls before the
	// test picked one to interrupt (seen: step 3 waited on an empty queue).
	// Tasks Slurm started before the hold run on.
	scontrol("hold", job1)
	// catch returns a running task past its first checkpoint, with
	// iterations left, whose run is not in skip. While no task runs or
	// waits to run, it releases the next held one; it fails when none is
	// left. The task may still end before the caller's signal lands: the
	// caller then catches another.
	catch := func(what string, skip map[string]bool) (task, dir string) {
		t.Helper()
		waitFor(what, 600, func(s statusJSON) bool {
			busy, next := false, ""
			for _, r := range s.Runs {
				held := r.State == "pending" && strings.Contains(r.Detail, "JobHeld")
				switch {
				case r.State == "running" && !skip[r.Dir] && r.Done >= 4 && r.Done <= iters-4:
					task, dir = r.Task, r.Dir
					return true
				case r.State == "running" || (r.State == "pending" && !held):
					busy = true
				case held && !skip[r.Dir] && next == "":
					next = r.Task
				}
			}
			if !busy {
				if next == "" {
					o, _, _ := runCLI(t, "status", out)
					t.Fatalf("%s: every task ended before a poll caught one:\n%s", what, o)
				}
				scontrol("release", next)
			}
			return false
		})
		return task, dir
	}
	// interrupt catches a task (whose run is not in skip), runs signal on
	// it and waits until its run reaches the state ok wants; when the run
	// finished first, it catches another (bounded by the 8 runs).
	interrupt := func(what string, skip map[string]bool, signal func(task string), ok func(state, detail string) bool) (string, string) {
		t.Helper()
		for range 8 {
			task, dir := catch(what, skip)
			signal(task)
			var state string
			waitFor("task "+task+" interrupted or finished", 120, func(s statusJSON) bool {
				for _, r := range s.Runs {
					if r.Dir == dir {
						state = r.State
						return r.State == "finished" || ok(r.State, r.Detail)
					}
				}
				return false
			})
			if state != "finished" {
				return task, dir
			}
			t.Logf("task %s (%s) finished before the signal; catching another", task, dir)
			skip[dir] = true
		}
		t.Fatalf("%s: every caught task finished before the signal", what)
		return "", ""
	}

	// 2. The time-limit signal for a task past its first checkpoint: it
	// checkpoints, requeues itself, and is released at once rather than
	// after Slurm's requeue delay. Slurm 22.05 delivers this signal to a
	// task of an array that still has pending tasks, yet answers "Job can
	// not be altered now, try again later", and scancel then retries for
	// minutes: the call is bounded and its answer only logged; the requeue
	// is what counts.
	skip := map[string]bool{}
	termTask, termDir := interrupt("a running task past its first checkpoint", skip, func(task string) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		o, err := exec.CommandContext(ctx, "scancel", "--batch", "--signal=TERM", task).CombinedOutput()
		cancel()
		t.Logf("sent TERM to the batch shell of task %s, as --signal=B:TERM does before the time limit (scancel: %v %s)", task, err, strings.TrimSpace(string(o)))
	}, func(state, detail string) bool { return state == "pending" && strings.Contains(detail, "requeued") })
	slurmCmd("scontrol", "update", "JobId="+termTask, "StartTime=now")

	// 3. scancel another running task past its first checkpoint, then let
	// the held tasks run.
	skip[termDir] = true
	cancelTask, cancelDir := interrupt("another running task past its first checkpoint", skip, func(task string) {
		slurmCmd("scancel", task)
		t.Logf("cancelled task %s with scancel", task)
	}, func(state, detail string) bool { return state == "failed" })
	scontrol("release", job1)

	// 4. The first job drains: 7 finished, the cancelled one failed.
	s := waitFor("the first job to drain", 1200, func(s statusJSON) bool {
		return s.Counts["running"] == 0 && s.Counts["pending"] == 0
	})
	if s.Counts["finished"] != 7 || s.Counts["failed"] != 1 {
		t.Fatalf("after the first job: %v", s.Counts)
	}
	for _, r := range s.Runs {
		if r.Dir == cancelDir && (r.State != "failed" || !strings.Contains(r.Detail, "cancelled")) {
			t.Fatalf("the cancelled run: %s %q", r.State, r.Detail)
		}
	}
	t.Logf("after job %s: %v; %s: %s", job1, s.Counts, cancelDir, detailOf(s, cancelDir))

	// 5. Re-submit: only the cancelled run.
	m = jobRe.FindStringSubmatch(submit())
	if m == nil || m[2] != "1" {
		t.Fatalf("re-submission: %v", m)
	}
	job2 := m[1]
	s = waitFor("the matrix to complete", 600, func(s statusJSON) bool { return s.Counts["finished"] == 8 })
	t.Logf("after job %s: %v; jobs in the manifest: %v", job2, s.Counts, s.SlurmJobs)
	if o := submit(); !strings.Contains(o, "nothing to submit") {
		t.Fatalf("third submission: %s", o)
	}

	// 6. Every run: iterations 0..N-1 once in train.csv, the evaluations
	// once in eval.csv; the two interrupted runs resumed from a checkpoint.
	var evals []int // the last iteration of every slurmEvalEvery: 3, 7, …, 23
	for i := slurmEvalEvery - 1; i < iters; i += slurmEvalEvery {
		evals = append(evals, i)
	}
	for _, r := range s.Runs {
		run := filepath.Join(out, r.Dir)
		wantSeq(t, r.Dir+" train.csv", csvIterations(t, filepath.Join(run, "train.csv")), seq(iters))
		wantSeq(t, r.Dir+" eval.csv", csvIterations(t, filepath.Join(run, "eval.csv")), evals)
	}
	for _, c := range []struct{ dir, task string }{{termDir, termTask}, {cancelDir, cancelTask}} {
		log, err := os.ReadFile(filepath.Join(out, c.dir, rundir.LogFile))
		if err != nil {
			t.Fatal(err)
		}
		resumed := resumeRe.FindAllStringSubmatch(string(log), -1)
		if len(resumed) < 1 {
			t.Fatalf("%s (task %s) did not resume from its checkpoint:\n%s", c.dir, c.task, log)
		}
		var at []string
		for _, m := range resumed {
			at = append(at, m[1])
		}
		rec, _ := os.ReadFile(filepath.Join(out, c.dir, slurm.TaskFile))
		t.Logf("%s (task %s) resumed from its checkpoint at iteration %s; last record: %s", c.dir, c.task, strings.Join(at, ", "), strings.ReplaceAll(strings.TrimSpace(string(rec)), "\n", " "))
	}
	rec, _ := os.ReadFile(filepath.Join(out, termDir, slurm.TaskFile))
	if !strings.Contains(string(rec), "job="+termTask+"\nattempt=1\nstate=finished") {
		t.Errorf("the requeued task's record: %s", rec)
	}

	// 7. report works.
	rep, e, code := runCLI(t, "report", out)
	if code != 0 || strings.Count(rep, "| hypercontroller | 2/2 |") != 2 || strings.Count(rep, "| random | 2/2 |") != 2 {
		t.Fatalf("report: exit %d\n%s\n%s", code, rep, e)
	}
	t.Logf("report: both environments with 2/2 seeds per controller; %d rows per train.csv, %d per eval.csv, in all 8 runs", iters, len(evals))
}

// resumeRe matches train's JSON log line of a resume.
var resumeRe = regexp.MustCompile(`"iteration":(\d+)[^\n]*"message":"resuming from checkpoint"`)

func detailOf(s statusJSON, dir string) string {
	for _, r := range s.Runs {
		if r.Dir == dir {
			return r.State + " (" + r.Detail + ")"
		}
	}
	return ""
}

// startLocalSlurm starts a one-node Slurm (scripts/slurm-local.sh) in its
// own scratch folder and on its own ports, points SLURM_CONF at it for the
// test, and stops it at the end; it skips the test, with the reason, when
// the daemons cannot start (not root, Slurm not installed).
func startLocalSlurm(t *testing.T, scratch, ctldPort, dPort string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("skipped: the Slurm daemons need root (scripts/slurm-local.sh start)")
	}
	script, err := filepath.Abs("../../scripts/slurm-local.sh")
	if err != nil {
		t.Fatal(err)
	}
	lock := lockFile(t, scratch+".lock")
	t.Cleanup(func() { lock.Close() }) // registered first, so released after the daemons stop
	env := append(os.Environ(), "HYPERCTL_SLURM_DIR="+scratch, "HYPERCTL_SLURM_CTLD_PORT="+ctldPort, "HYPERCTL_SLURM_D_PORT="+dPort)
	sh := func(arg string) (string, error) {
		c := exec.Command("bash", script, arg)
		c.Env = env
		out, err := c.CombinedOutput()
		return string(out), err
	}
	if out, err := sh("start"); err != nil {
		sh("stop")
		t.Skipf("skipped: the Slurm daemons cannot start here (%v):\n%s", err, out)
	}
	t.Cleanup(func() {
		out, err := sh("stop")
		t.Logf("slurm-local.sh stop: %v\n%s", err, out)
	})
	t.Setenv("SLURM_CONF", filepath.Join(scratch, "slurm.conf"))
}

// lockFile takes an exclusive lock on path, waiting (bounded) while another
// test process holds the cluster.
func lockFile(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return f
		}
		if i == 1200 { // 10 minutes
			f.Close()
			t.Skipf("skipped: another test process has held %s for 10 minutes", path)
		}
		if i == 0 {
			fmt.Fprintf(os.Stderr, "TestSlurmEndToEnd: waiting for %s (another test uses the cluster)\n", path)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
