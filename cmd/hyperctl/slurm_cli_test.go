package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompareBackendFlags(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cmp")
	base := []string{"compare", "--env", "reacher", "--controllers", "random", "--seeds", "0", "--iterations", "2", "--out", out}
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown backend", []string{"--backend", "k8s"}, 2, `--backend "k8s": want local or slurm`},
		{"slurm flag with local", []string{"--partition", "cpu"}, 2, "--partition: only with --backend slurm"},
		{"dry run with local", []string{"--dry-run"}, 2, "--dry-run: only with --backend slurm"},
		{"jobs with slurm", []string{"--backend", "slurm", "--jobs", "2"}, 2, "--jobs: only with --backend local"},
		{"bad time", []string{"--backend", "slurm", "--time", "2h"}, 2, "--time"},
		{"short time", []string{"--backend", "slurm", "--time", "00:01:00"}, 2, "at least 3 minutes"},
		{"bad mem", []string{"--backend", "slurm", "--mem", "lots"}, 2, "--mem"},
		{"bad cpus", []string{"--backend", "slurm", "--cpus-per-task", "0"}, 2, "--cpus-per-task"},
		{"owned sbatch arg", []string{"--backend", "slurm", "--sbatch-arg", "--array=0-9"}, 2, "sets --array itself"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, e, code := runCLI(t, append(base, c.args...)...)
			if code != c.code || !strings.Contains(e, c.want) {
				t.Fatalf("exit %d (want %d)\nstdout %s\nstderr %s\nwant %q", code, c.code, o, e, c.want)
			}
		})
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused compare created %s", out)
	}
}

func TestCompareSlurmDryRunAndNoSbatch(t *testing.T) {
	dir := t.TempDir()
	cfg := writeTiny(t, dir)
	out := filepath.Join(dir, "cmp")
	args := []string{"compare", "--env", "reacher,pusher", "--controllers", "hypercontroller,fixed", "--seeds", "0-2", "--config", cfg,
		"--out", out, "--backend", "slurm", "--cpus-per-task", "2", "--mem", "2G", "--time", "01:00:00", "--partition", "cpu",
		"--max-parallel", "4", "--sbatch-arg=--account=proj", "--sbatch-arg", "--qos=low"}
	// --dry-run: the script on stdout, nothing written.
	o, e, code := runCLI(t, append(args, "--dry-run")...)
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s", code, e)
	}
	self, _ := filepath.EvalSymlinks(binPath)
	absCfg, _ := filepath.Abs(cfg)
	for _, want := range []string{
		"#SBATCH --array=0-11%4\n", "#SBATCH --cpus-per-task=2\n", "#SBATCH --mem=2G\n", "#SBATCH --time=01:00:00\n",
		"#SBATCH --partition=cpu\n", "#SBATCH --account=proj\n", "#SBATCH --qos=low\n", "#SBATCH --job-name=hyperctl-cmp\n",
		"HYPERCTL=" + self + "\n",
		"  11) dir=" + filepath.Join(out, "pusher/fixed/seed2") + "; args=(--env pusher --controller fixed --seed 2 --out " + filepath.Join(out, "pusher/fixed/seed2") + " --resume --config " + absCfg + ") ;;\n",
	} {
		if !strings.Contains(o, want) {
			t.Errorf("dry-run script lacks %q", want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("--dry-run created %s", out)
	}
	// Without sbatch on PATH: a clear runtime error.
	cmd := exec.Command(binPath, args...)
	cmd.Env = append(os.Environ(), "PATH="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "sbatch is not on PATH") {
		t.Fatalf("no sbatch: %v\n%s", err, stderr.String())
	}
}

func TestStatusOfLocalCompare(t *testing.T) {
	dir := t.TempDir()
	cfg := writeTiny(t, dir, "iterations = 6", "iterations = 2")
	out := filepath.Join(dir, "cmp")
	if _, e, code := runCLI(t, "compare", "--env", "reacher", "--controllers", "random", "--seeds", "0", "--config", cfg, "--out", out); code != 0 {
		t.Fatalf("compare: %s", e)
	}
	// Widen the matrix without running it: the new seed is missing.
	o, e, code := runCLI(t, "compare", "--env", "reacher", "--controllers", "random", "--seeds", "0-1", "--config", cfg, "--out", out,
		"--force", "--backend", "slurm", "--dry-run")
	if code != 0 || !strings.Contains(o, "  0) dir="+filepath.Join(out, "reacher/random/seed1")+";") || strings.Contains(o, "  1) dir=") {
		t.Fatalf("dry run over a partly finished folder: exit %d\n%s\n%s", code, o, e)
	}
	o, e, code = runCLI(t, "status", out)
	if code != 0 || !strings.Contains(o, "status: 1 run: 1 finished, 0 running, 0 pending, 0 failed, 0 missing") {
		t.Fatalf("status: exit %d\n%s\n%s", code, o, e)
	}
	// Above the compare folder, without its manifest: the run folders found
	// below, as plain runs; a folder without any is an error.
	if o, e, code := runCLI(t, "status", dir); code != 0 || !strings.Contains(o, filepath.Join("cmp", "reacher", "random", "seed0")) || !strings.Contains(o, "status: 1 run: 1 finished, 0 running, 0 stopped") {
		t.Fatalf("status without a manifest: exit %d\n%s\n%s", code, o, e)
	}
	if _, e, code := runCLI(t, "status", t.TempDir()); code != 1 || !strings.Contains(e, "neither compare.json (a compare folder) nor a run folder") {
		t.Fatalf("status of a folder without runs: exit %d, %s", code, e)
	}
}
