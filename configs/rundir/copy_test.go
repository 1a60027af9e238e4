package rundir

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// CopyRun copies a run's files byte for byte, replaces the destination's
// run (its stale events file and summary included) and leaves the
// destination's own log, lock and Slurm record.
func TestCopyRun(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	write := func(root, rel, text string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copied := map[string]string{
		ConfigFile: "seed = 1\n", TrainCSV: "iteration,frames\n0,64\n", EvalCSV: "iteration\n0\n", EpisodesCSV: "iteration,frames,return\n0,64,-1.5\n",
		"checkpoint/checkpoint.bin": "new", "checkpoint/policy-best.json": "{}", "checkpoint/prev/checkpoint.bin": "old",
		"policy-final.safetensors": "w", "policy-final.json": "m", EventsPrefix + "1.hyperctl": "events",
	}
	for rel, text := range copied {
		write(src, rel, text)
	}
	write(src, LogFile, "src log")
	write(src, LockFile, "1")
	write(dst, ConfigFile, "seed = 2\n")
	write(dst, SummaryFile, "{}")
	write(dst, EventsPrefix+"2.hyperctl", "stale")
	write(dst, "checkpoint/prev/stale.bin", "stale")
	write(dst, LogFile, "dst log")
	write(dst, "slurm-task.txt", "state=finished")
	if err := CopyRun(src, dst); err != nil {
		t.Fatal(err)
	}
	for rel, text := range copied {
		b, err := os.ReadFile(filepath.Join(dst, rel))
		if err != nil || !bytes.Equal(b, []byte(text)) {
			t.Errorf("%s: %q, %v; want %q", rel, b, err, text)
		}
	}
	for rel, want := range map[string]string{LogFile: "dst log", "slurm-task.txt": "state=finished"} {
		if b, _ := os.ReadFile(filepath.Join(dst, rel)); string(b) != want {
			t.Errorf("%s: %q, want the destination's own %q", rel, b, want)
		}
	}
	for _, rel := range []string{SummaryFile, EventsPrefix + "2.hyperctl", "checkpoint/prev/stale.bin", LockFile} {
		if _, err := os.Stat(filepath.Join(dst, rel)); err == nil {
			t.Errorf("%s is still in the destination", rel)
		}
	}
	if err := CopyRun(filepath.Join(dir, "none"), dst); err == nil {
		t.Error("copying an empty folder succeeded")
	}
}
