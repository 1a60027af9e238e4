package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBenchRegret(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := runCLI(t, "bench", "regret", "--h", "2", "--n", "40", "--seeds", "2", "--d", "5", "--out", dir, "--tag", "t", "--controllers", "hypercontroller")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"| hypercontroller |", "| ref:random-grid |", "| ref:kalman-oracle |", "| ref:best-fixed |", "| ref:grid-optimum |"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{"t_h2.csv", "t_h2.png", "t.md"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	_, _, code = runCLI(t, "bench", "regret", "--h", "2", "--n", "30", "--seeds", "1", "--out", dir, "--tag", "sw", "--sweep-d", "3,4", "--sweep-s", "1")
	if code != 0 {
		t.Fatalf("sweep: exit %d", code)
	}
	for _, f := range []string{"sw_sweep_h2.csv", "sw_sweep_h2.png", "sw_sweep.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	for _, args := range [][]string{
		{"--d", "1"}, {"--controllers", "nosuch"}, {"--rho", "1"}, {"--h", "9"}, {"--tag", "a/b"}, {"--sweep-d", "1"},
	} {
		_, e, code := runCLI(t, append([]string{"bench", "regret", "--out", ""}, args...)...)
		if code != 2 || !strings.Contains(e, strings.TrimPrefix(args[0], "--")) {
			t.Errorf("%v: exit %d, stderr %q; want a usage error naming the flag", args, code, e)
		}
	}
}

// bench serve measures the three latencies in one run and writes the
// report with the command; bad counts are usage errors.
func TestBenchServe(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "r.md")
	out, e, code := runCLI(t, "bench", "serve", "--rounds", "40", "--chunks", "2", "--dir", dir, "--out", report)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	for _, want := range []string{"command: hyperctl bench serve --rounds 40", "| fdatasync of 60 bytes", "| empty round trip (Health) |", "| durable round", "× fdatasync p50", "disk: "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if b, err := os.ReadFile(report); err != nil || string(b) != out {
		t.Errorf("--out: %v\n%s", err, b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left in --dir: %v", ents)
	}
	if _, e, code := runCLI(t, "bench", "serve", "--rounds", "41", "--chunks", "2"); code != 2 || !strings.Contains(e, "--rounds") {
		t.Errorf("bad rounds: exit %d, %s", code, e)
	}
}
