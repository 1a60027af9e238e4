package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
)

// runCLIIn runs hyperctl in the folder dir.
func runCLIIn(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return o.String(), e.String(), code
}

// TestTrainDefaultFolder: a run started without --out gets a folder of its
// own when the default one holds a finished run or one of another config,
// and says where it went; --out, --resume and a stopped run of the same
// config keep the strict rules. The steps run in order, in one folder.
func TestTrainDefaultFolder(t *testing.T) {
	cwd := t.TempDir()
	base := filepath.Join("runs", "reacher-fixed-seed0")
	for _, step := range []struct {
		name   string
		args   []string
		code   int
		want   []string // in stdout and stderr
		before func(t *testing.T)
	}{
		{"the first run takes the default folder", []string{"--iterations", "1"}, 0, []string{"outputs in " + base + "\n"}, nil},
		{"the same again gets a new folder", []string{"--iterations", "1"}, 0, []string{
			"the default folder " + base + " holds a finished run; this run goes to " + base + "-run2", "outputs in " + base + "-run2\n"}, nil},
		{"another config gets the next one", []string{"--iterations", "2"}, 0, []string{"outputs in " + base + "-run3\n"}, nil},
		{"--out keeps the strict rule", []string{"--iterations", "1", "--out", base}, 2, []string{base + " holds a finished run; use --force"}, nil},
		{"--resume keeps the strict rule", []string{"--iterations", "3", "--resume"}, 2, []string{base + " was started with a different config"}, nil},
		{"a stopped run of the same config is not skipped", []string{"--iterations", "2"}, 2, []string{
			"hyperctl train: " + base + " holds a stopped run of this config; continue it with --out " + base + " --resume, or start it over with --out " + base + " --force"},
			func(t *testing.T) {
				// Make the default folder hold a stopped run of
				// --iterations 2: run3's, without its summary.
				if err := os.RemoveAll(filepath.Join(cwd, base)); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(filepath.Join(cwd, base+"-run3"), filepath.Join(cwd, base)); err != nil {
					t.Fatal(err)
				}
				if err := os.Remove(filepath.Join(cwd, base, rundir.SummaryFile)); err != nil {
					t.Fatal(err)
				}
			}},
	} {
		t.Run(step.name, func(t *testing.T) {
			if step.before != nil {
				step.before(t)
			}
			o, e, code := runCLIIn(t, cwd, append([]string{"--log-format", "console", "train", "--env", "reacher", "--threads", "1"}, step.args...)...)
			if code != step.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, step.code, o, e)
			}
			for _, w := range step.want {
				if !strings.Contains(o+e, w) {
					t.Errorf("output does not say %q\nstdout: %s\nstderr: %s", w, o, e)
				}
			}
		})
	}
}

// TestResumeRefusals: every resume that would change its run, by any flag
// or by --config, on an unfinished or a finished run, is refused the same
// way: exit code 2, the flags named, and each changed key with its table.
func TestResumeRefusals(t *testing.T) {
	dir := t.TempDir()
	writeRun := func(name string, finished bool, seed int64) string {
		run, err := configs.Default("reacher", func(r *configs.Run) { r.Iterations, r.Seed = 6, seed })
		if err != nil {
			t.Fatal(err)
		}
		plan, err := run.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, name)
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, rundir.ConfigFile), []byte(plan.Text), 0o644); err != nil {
			t.Fatal(err)
		}
		if finished {
			if err := os.WriteFile(filepath.Join(out, rundir.SummaryFile), []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	unfinished, finished := writeRun("unfinished", false, 0), writeRun("finished", true, 0)
	other := filepath.Join(writeRun("other", false, 1), rundir.ConfigFile)
	for _, c := range []struct {
		name string
		out  string
		args []string
		want []string
	}{
		{"--env, unfinished", unfinished, []string{"--env", "halfcheetah"}, []string{"--env halfcheetah would change it", "- env = \"reacher\"\n+ env = \"halfcheetah\""}},
		{"--iterations, unfinished", unfinished, []string{"--iterations", "9"}, []string{"--iterations 9 would change it", "- iterations = 6\n+ iterations = 9"}},
		{"--seed, unfinished", unfinished, []string{"--seed", "4"}, []string{"--seed 4 would change it", "- seed = 0\n+ seed = 4"}},
		{"--set, unfinished", unfinished, []string{"--set", "controller.name=hoof"}, []string{"--set controller.name=hoof would change it",
			"- controller.name = \"fixed\"\n+ controller.name = \"hoof\"", "+ controller.hoof.k = 5"}},
		{"--iterations, finished", finished, []string{"--iterations", "9"}, []string{"--iterations 9 would change it", "- iterations = 6\n+ iterations = 9"}},
		{"--env and --seed, finished", finished, []string{"--env", "pusher", "--seed", "3"}, []string{"--env pusher, --seed 3 would change it", "+ env = \"pusher\"", "+ seed = 3"}},
		{"--config, unfinished", unfinished, []string{"--config", other}, []string{"--config " + other + " would change it", "- seed = 0\n+ seed = 1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, e, code := runCLI(t, append([]string{"train", "--out", c.out, "--resume"}, c.args...)...)
			want := append([]string{"hyperctl train: " + c.out + " was started with a different config; refusing to mix them: ",
				"use --force to start it over, or --out for another folder.\n(- in the folder, + now):\n", "Run 'hyperctl train --help' for usage."}, c.want...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			for _, w := range want {
				if !strings.Contains(e, w) {
					t.Errorf("stderr does not say %q\nstdout: %s\nstderr: %s", w, o, e)
				}
			}
		})
	}
}
