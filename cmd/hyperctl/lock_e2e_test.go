package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hyperctl/hyperctl/configs/rundir"
)

// pollUntil calls cond every 10 ms, at most n times, and reports whether it
// became true (tests are bounded in polls, not in wall time).
func pollUntil(n int, cond func() bool) bool {
	for i := 0; i < n; i++ {
		if cond() {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cond()
}

// lockHolder is the pid recorded in a run folder's lock file while the lock
// is held (0 otherwise).
func lockHolder(dir string) int {
	pid, held, err := rundir.Holder(dir)
	if err != nil || !held {
		return 0
	}
	return pid
}

// rowsIn counts a CSV's data rows (0 if absent).
func rowsIn(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return max(0, bytes.Count(b, []byte("\n"))-1)
}

// syncBuffer is a bytes.Buffer safe to read while a process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSecondWriterRefusedAndCompareWaits: while `train` writes a run folder
// (held at a known point with SIGSTOP), a second `train --resume` on it
// exits at once with code 3 and an error naming the writer's pid, and
// `compare` waits for the folder (logging the pid) instead of starting a
// second writer. When the first writer is stopped with SIGTERM (it
// checkpoints), compare resumes the run, and the finished run's train.csv
// and eval.csv equal an uninterrupted run's, timing columns aside: no row
// was written twice or interleaved.
func TestSecondWriterRefusedAndCompareWaits(t *testing.T) {
	dir := t.TempDir()
	cfg := writeTiny(t, dir, "iterations = 6", "iterations = 30", "checkpoint_every = 5", "checkpoint_every = 4")
	ref := filepath.Join(dir, "ref")
	if _, e, code := runCLI(t, "train", "--config", cfg, "--out", ref); code != 0 {
		t.Fatalf("reference run: exit %d\n%s", code, e)
	}
	cmpOut := filepath.Join(dir, "cmp")
	run := filepath.Join(cmpOut, "reacher", "hypercontroller", "seed0")
	// compare's children run with --threads NumCPU/jobs; the first writer
	// uses the same config (threads is a machine setting, not compared).
	first := exec.Command(binPath, "--log-format", "json", "train", "--env", "reacher", "--controller", "hypercontroller", "--seed", "0",
		"--config", cfg, "--out", run, "--resume")
	var firstErr syncBuffer
	first.Stderr = &firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = first.Process.Kill(); _ = first.Wait() })
	if !pollUntil(3000, func() bool {
		return lockHolder(run) == first.Process.Pid && rowsIn(filepath.Join(run, "train.csv")) >= 6
	}) {
		t.Fatal("the first writer never locked its folder and wrote rows")
	}
	if err := first.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}

	// A second writer exits at once, naming the holder.
	start := time.Now()
	_, e, code := runCLI(t, "train", "--env", "reacher", "--controller", "hypercontroller", "--seed", "0", "--config", cfg, "--out", run, "--resume")
	took := time.Since(start)
	wantMsg := fmt.Sprintf("process %d is writing it", first.Process.Pid)
	if code != 3 || !strings.Contains(e, wantMsg) {
		t.Fatalf("second writer: exit %d, stderr %q; want exit 3 and %q", code, e, wantMsg)
	}
	t.Logf("second `train --resume` on the locked folder: exit %d after %v:\n%s", code, took.Round(time.Millisecond), strings.TrimSpace(e))

	// compare waits for the folder.
	cmp := exec.Command(binPath, "--log-format", "json", "compare", "--env", "reacher", "--controllers", "hypercontroller", "--seeds", "0",
		"--config", cfg, "--jobs", "1", "--out", cmpOut)
	var cmpErr syncBuffer
	cmp.Stderr = &cmpErr
	if err := cmp.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmp.Process.Kill(); _ = cmp.Wait() })
	waitLine := fmt.Sprintf(`"pid":%d`, first.Process.Pid)
	if !pollUntil(3000, func() bool { return strings.Contains(cmpErr.String(), "waiting for it to end") }) || !strings.Contains(cmpErr.String(), waitLine) {
		t.Fatalf("compare did not wait for the locked folder:\n%s", cmpErr.String())
	}
	for _, l := range strings.Split(cmpErr.String(), "\n") {
		if strings.Contains(l, "waiting") {
			t.Logf("compare while the folder is locked: %s", l)
		}
	}
	if lockHolder(run) != first.Process.Pid {
		t.Fatal("compare started a writer on the locked folder")
	}
	// Stop the first writer as a scheduler would (SIGTERM): it checkpoints.
	_ = first.Process.Signal(syscall.SIGTERM)
	_ = first.Process.Signal(syscall.SIGCONT)
	_ = first.Wait()
	if !strings.Contains(firstErr.String(), "checkpoint written") {
		t.Fatalf("the first writer did not checkpoint on SIGTERM:\n%s", firstErr.String())
	}
	if err := cmp.Wait(); err != nil {
		t.Fatalf("compare: %v\n%s", err, cmpErr.String())
	}
	for _, f := range []string{"train.csv", "eval.csv"} {
		same, total, diff, err := rundir.CompareCSV(filepath.Join(run, f), filepath.Join(ref, f))
		if err != nil || diff != "" {
			t.Fatalf("%s: %d/%d identical, %s %v", f, same, total, diff, err)
		}
		t.Logf("%s after SIGTERM and compare's resume: %d/%d rows identical to the uninterrupted run", f, same, total)
	}
}

// TestCompareChildrenDieWithIt: SIGKILL of compare leaves no orphan: its
// `train` child gets SIGTERM (Pdeathsig), checkpoints and exits, releasing
// the run folder's lock, long before its 2000 iterations would end.
func TestCompareChildrenDieWithIt(t *testing.T) {
	dir := t.TempDir()
	cfg := writeTiny(t, dir, "iterations = 6", "iterations = 2000", "checkpoint_every = 5", "checkpoint_every = 50")
	cmpOut := filepath.Join(dir, "cmp")
	run := filepath.Join(cmpOut, "reacher", "random", "seed0")
	cmp := exec.Command(binPath, "--log-format", "json", "compare", "--env", "reacher", "--controllers", "random", "--seeds", "0",
		"--config", cfg, "--jobs", "1", "--out", cmpOut)
	if err := cmp.Start(); err != nil {
		t.Fatal(err)
	}
	var child int
	if !pollUntil(3000, func() bool { child = lockHolder(run); return child > 0 && rowsIn(filepath.Join(run, "train.csv")) >= 3 }) {
		_ = cmp.Process.Kill()
		_ = cmp.Wait()
		t.Fatal("compare's child never started writing")
	}
	t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })
	_ = cmp.Process.Signal(syscall.SIGKILL)
	_ = cmp.Wait()
	if !pollUntil(3000, func() bool { return lockHolder(run) == 0 }) {
		t.Fatalf("compare's child %d still holds %s after compare was killed", child, run)
	}
	rows := rowsIn(filepath.Join(run, "train.csv"))
	// The child says so once its run has returned, after the lock is
	// released: wait for the line.
	var log []byte
	pollUntil(3000, func() bool {
		log, _ = os.ReadFile(filepath.Join(run, "train.log"))
		return strings.Contains(string(log), "checkpoint written")
	})
	if !strings.Contains(string(log), "checkpoint written") {
		t.Fatalf("the child did not checkpoint on its parent's death:\n%s", log)
	}
	if rows >= 2000 {
		t.Fatal("the child ran to the end: no parent-death signal")
	}
	t.Logf("compare (pid %d) killed with SIGKILL; its child %d stopped after %d of 2000 iterations and released the lock", cmp.Process.Pid, child, rows)
	// The folder resumes from the child's checkpoint.
	ck, _, err := rundir.ReadCheckpoint(run)
	if err != nil || ck == nil || ck.Progress.Iteration != rows {
		t.Fatalf("checkpoint after the parent's death: %+v, %v (rows %d)", ck, err, rows)
	}
}
