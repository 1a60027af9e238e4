package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCaptureVideoFlags: the flag errors of --capture-video-every, and a
// clear error before training when ffmpeg is not on PATH.
func TestCaptureVideoFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"every without capture", []string{"train", "--env", "reacher", "--out", out, "--capture-video-every", "3"}, "--capture-video-every: only with --capture-video"},
		{"every 0", []string{"train", "--env", "reacher", "--out", out, "--capture-video", "--capture-video-every", "0"}, "--capture-video-every: want an integer >= 1, got 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, e, code := runCLI(t, c.args...); code != 2 || !strings.Contains(e, c.want) {
				t.Fatalf("exit %d, stderr %q, want exit 2 and %q", code, e, c.want)
			}
		})
	}

	// No ffmpeg on PATH: refused at start, the folder holds no run.
	cmd := exec.Command(binPath, "train", "--env", "reacher", "--iterations", "2", "--out", out, "--capture-video")
	cmd.Env = append(os.Environ(), "PATH="+t.TempDir())
	b, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(b), "--capture-video: ffmpeg not found on PATH") {
		t.Fatalf("without ffmpeg: %v, output %q", err, b)
	}
	if _, err := os.Stat(filepath.Join(out, "config.toml")); !os.IsNotExist(err) {
		t.Fatalf("the refused run wrote config.toml: %v", err)
	}
}
