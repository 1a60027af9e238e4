package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// binary builds hyperctl once per test binary run.
var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hyperctl-cli")
	if err != nil {
		panic(err)
	}
	binPath = filepath.Join(dir, "hyperctl")
	out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
	if err != nil {
		os.Stderr.Write(out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return o.String(), e.String(), code
}

func TestExitCodesAndHelp(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		want string // substring of stdout+stderr
	}{
		{"help", []string{"--help"}, 0, "controllers"},
		{"help lists the registered controllers", []string{"--help"}, 0, "bilevel, deltabo, goucb, gpucb, hoof, hyperband, kladaptive, neuralbo, pb2, random, randomstart."},
		{"help says what hyperctl is", []string{"--help"}, 0, "hyperctl trains PPO on the environments 'hyperctl envs' lists, and can tune\nits hyperparameters while it trains.\n\nBy default ('fixed') a run trains with the hyperparameters of its config"},
		{"train help", []string{"train", "--help"}, 0, "--resume"},
		{"version", []string{"version"}, 0, "mujoco    2.2.2"},
		{"controllers lists fixed", []string{"controllers"}, 0, "fixed"},
		{"unknown flag", []string{"train", "--bogus"}, 2, "unknown flag"},
		// Flag errors name the command once, suggest the nearest flag or
		// name, say what a value should be, and point to the command's help.
		{"nearest flag", []string{"train", "--iters", "5"}, 2, "hyperctl train: unknown flag --iters (did you mean --iterations?)\nRun 'hyperctl train --help' for usage."},
		{"flag named once", []string{"train", "--iters", "5"}, 2, "stderr: hyperctl train: unknown"},
		{"integer wanted", []string{"train", "--iterations", "abc"}, 2, `hyperctl train: --iterations "abc": want an integer`},
		{"duration wanted", []string{"serve", "--keep-awake", "5"}, 2, `hyperctl serve: --keep-awake "5": want a duration`},
		{"set checked as the file", []string{"train", "--env", "reacher", "--set", "ppo.clip=1.5"}, 2, "config <default:reacher> + --set: ppo.clip: want a value in (0, 1), got 1.5"},
		{"set syntax", []string{"train", "--env", "reacher", "--set", "ppo.lr"}, 2, `--set "ppo.lr": want KEY=VALUE`},
		{"compare set checked first", []string{"compare", "--env", "reacher", "--controllers", "fixed", "--set", "ppo.gamma=2", "--out", "/nonexistent/never"}, 2, "ppo.gamma: want a value in (0, 1], got 2"},
		{"nearest env", []string{"train", "--env", "halfcheta"}, 2, `--env: unknown environment "halfcheta" (did you mean halfcheetah?)`},
		{"nearest controller", []string{"train", "--env", "reacher", "--controller", "hyperctrl"}, 2, `--controller: unknown controller "hyperctrl" (did you mean hypercontroller?)`},
		{"nearest compare controller", []string{"compare", "--env", "reacher", "--controllers", "gpcub", "--out", "/nonexistent/never"}, 2, "hyperctl compare: --controllers: unknown controller \"gpcub\" (did you mean gpucb?)"},
		{"unknown command", []string{"nosuch"}, 2, "unknown command"},
		{"extra args", []string{"envs", "x"}, 2, "unknown command"},
		{"bad log level", []string{"--log-level", "loud", "envs"}, 2, "--log-level"},
		{"bad log format", []string{"--log-format", "xml", "envs"}, 2, "--log-format"},
		{"train needs env", []string{"train"}, 2, "--env or --config"},
		{"unknown env lists names", []string{"train", "--env", "nope"}, 2, "valid environments"},
		{"missing config file", []string{"train", "--config", "/nonexistent/x.toml"}, 1, "/nonexistent/x.toml: file not found"},
		{"negative frames", []string{"train", "--env", "reacher", "--frames", "-5"}, 2, `hyperctl train: --frames "-5": want a number of frames in [0, 10000000000], got -5`},
		{"fractional frames", []string{"train", "--env", "reacher", "--frames", "2.5e-1", "--out", "/nonexistent/never"}, 2, `--frames "2.5e-1": want a whole number of frames, got 2.5e-1`},
		{"frames not a number", []string{"compare", "--env", "reacher", "--frames", "lots"}, 2, `hyperctl compare: --frames "lots": want a number of frames: an integer such as 1000000, or 1e6`},
		{"ready beyond the range", []string{"population", "--env", "reacher", "--ready", "1e11"}, 2, `hyperctl population: --ready "1e11": want a number of frames in [0, 10000000000], got 1e11`},
		{"set: nearest key", []string{"train", "--env", "reacher", "--set", "ppo.clp=0.3"}, 2, "config <default:reacher> + --set: ppo.clp: unknown key (did you mean ppo.clip?)"},
		{"set: value of the wrong type", []string{"train", "--env", "reacher", "--set", "ppo.lr=abc"}, 2, `config <default:reacher> + --set: ppo.lr: want a number, got "abc" (a string)`},
		{"unknown preset", []string{"train", "--env", "reacher", "--preset", "rl+fast"}, 2, `--preset: preset rl+fast: unknown "fast"`},
		{"preset misfit", []string{"train", "--env", "reacher", "--controller", "gpucb", "--preset", "intercept", "--out", "/nonexistent/never"}, 2, "preset intercept: intercept: only hypercontroller has an intercept"},
		{"frames beyond the cap", []string{"train", "--env", "reacher", "--iterations", "10", "--frames", "100000", "--out", "/nonexistent/never"}, 2, "frames: 100000 frames may not be reached in iterations = 10"},
		{"train help lists presets", []string{"train", "--help"}, 0, "lr-scale    the tuned lr is replaced by lr_scale"},
		{"compare preset on fixed", []string{"compare", "--env", "reacher", "--controllers", "fixed@rl", "--out", "/nonexistent/never"}, 2, "fixed@rl: preset rl: presets change the controller, and fixed has none"},
		{"compare unknown preset", []string{"compare", "--env", "reacher", "--controllers", "hypercontroller@nope", "--out", "/nonexistent/never"}, 2, `hypercontroller@nope: preset nope: unknown "nope"`},
		{"compare twice", []string{"compare", "--env", "reacher", "--controllers", "random,random", "--out", "/nonexistent/never"}, 2, "random is listed twice"},
		{"compare checks every run first", []string{"compare", "--env", "reacher", "--controllers", "random,gpucb@intercept", "--out", "/nonexistent/never"}, 2, "compare: reacher/gpucb@intercept: config <default:reacher>: preset intercept"},
		{"serve negative keep-awake", []string{"serve", "--keep-awake", "-1ms"}, 2, "--keep-awake: want a duration >= 0 (0: off), got -1ms"},
		{"serve zero body timeout", []string{"serve", "--body-timeout", "0s"}, 2, "--body-timeout: want a duration > 0, got 0s"},
		{"serve negative handler timeout", []string{"serve", "--handler-timeout", "-1s"}, 2, "--handler-timeout: want a duration > 0, got -1s"},
		{"compare frames beyond the cap", []string{"compare", "--env", "reacher", "--controllers", "fixed", "--iterations", "3", "--frames", "100000", "--out", "/nonexistent/never"}, 2, "iterations >= 49"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, e, code := runCLI(t, c.args...)
			if code != c.code {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, c.code, o, e)
			}
			if !strings.Contains(o+"stderr: "+e, c.want) {
				t.Errorf("output does not mention %q\nstdout: %s\nstderr: %s", c.want, o, e)
			}
		})
	}
}

// TestCompareWarnsUpdateThreads: a compare whose runs use two update threads
// while --jobs leaves each run one CPU warns before any run starts (here the
// unwritable --out then stops it), and says nothing with update_threads = 1.
func TestCompareWarnsUpdateThreads(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("..", "..", "configs", "reacher.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(base, []byte("update_threads = 1")) {
		t.Fatal("configs/reacher.toml: no update_threads = 1 line to change")
	}
	jobs := strconv.Itoa(runtime.NumCPU())
	for _, c := range []struct {
		name  string
		value string
		warn  bool
	}{{"two threads", "update_threads = 2", true}, {"one thread", "update_threads = 1", false}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := filepath.Join(t.TempDir(), "reacher.toml")
			if err := os.WriteFile(cfg, bytes.Replace(base, []byte("update_threads = 1"), []byte(c.value), 1), 0o644); err != nil {
				t.Fatal(err)
			}
			// A folder under a regular file cannot be created, even by root.
			file := filepath.Join(t.TempDir(), "file")
			if err := os.WriteFile(file, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(file, "out")
			_, e, code := runCLI(t, "compare", "--env", "reacher", "--config", cfg, "--controllers", "fixed", "--jobs", jobs, "--out", out)
			if code != 1 || !strings.Contains(e, out) {
				t.Fatalf("exit %d, want 1 for the unwritable --out; stderr:\n%s", code, e)
			}
			want := "ppo.update_threads = 2 with --jobs " + jobs
			if got := strings.Contains(e, want); got != c.warn {
				t.Fatalf("warning %q present: %v, want %v; stderr:\n%s", want, got, c.warn, e)
			}
		})
	}
}

// TestResumeTakesTheFolder: with --resume and no --config, a run continues
// with the settings in its folder, whatever the built-in defaults say; a
// flag that agrees with them is accepted, one that would change the run is
// refused by name.
func TestResumeTakesTheFolder(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r")
	if _, e, code := runCLI(t, "train", "--env", "reacher", "--iterations", "2", "--frames", "0", "--threads", "1", "--out", out); code != 0 {
		t.Fatalf("train: exit %d: %s", code, e)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"defaults are not brought back", []string{"--env", "reacher"}, 0, "already finished"},
		{"an agreeing flag", []string{"--env", "reacher", "--iterations", "2", "--threads", "2"}, 0, "already finished"},
		{"a conflicting flag", []string{"--env", "reacher", "--iterations", "5"}, 2, out + " was started with a different config; refusing to mix them: --iterations 5 would change it."},
		{"two conflicting flags", []string{"--env", "pusher", "--seed", "3"}, 2, "--env pusher, --seed 3 would change it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, e, code := runCLI(t, append([]string{"train", "--out", out, "--resume"}, tc.args...)...)
			if code != tc.code || !strings.Contains(o+e, tc.want) {
				t.Fatalf("exit %d, want %d and %q\nstdout: %s\nstderr: %s", code, tc.code, tc.want, o, e)
			}
		})
	}
}

// TestUsageRefusals: every refusal of how a command was called exits with
// code 2, the README's usage error, whether a flag's parser, a config the
// flags break or the run folder finds it: an unknown --set key (with the
// nearest one), a preset on fixed, a finished or unfinished --out the
// flags say nothing about, and --resume with --force.
func TestUsageRefusals(t *testing.T) {
	dir := t.TempDir()
	finished := filepath.Join(dir, "finished")
	if _, e, code := runCLI(t, "train", "--env", "reacher", "--iterations", "1", "--frames", "0", "--threads", "1", "--out", finished); code != 0 {
		t.Fatalf("train: exit %d: %s", code, e)
	}
	unfinished := filepath.Join(dir, "unfinished")
	if err := os.MkdirAll(unfinished, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("cp", filepath.Join(finished, "config.toml"), filepath.Join(finished, "train.csv"), unfinished).Run(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown --set key", []string{"train", "--env", "reacher", "--set", "ppo.lrr=1e-4"}, "ppo.lrr: unknown key (did you mean ppo.lr?)"},
		{"compare's unknown --set key", []string{"compare", "--env", "reacher", "--controllers", "fixed", "--set", "ppo.lrr=1e-4", "--out", filepath.Join(dir, "cmp")}, "ppo.lrr: unknown key (did you mean ppo.lr?)"},
		{"a preset on fixed", []string{"train", "--env", "reacher", "--preset", "rl"}, "presets change the controller, and fixed has none"},
		{"a finished --out without --force", []string{"train", "--env", "reacher", "--iterations", "1", "--frames", "0", "--out", finished}, finished + " holds a finished run; use --force"},
		{"an unfinished --out without --resume", []string{"train", "--env", "reacher", "--iterations", "1", "--frames", "0", "--out", unfinished}, unfinished + " holds an unfinished run; use --resume"},
		{"--force with --resume", []string{"train", "--env", "reacher", "--out", finished, "--force", "--resume"}, "--resume and --force contradict each other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, e, code := runCLI(t, tc.args...)
			if code != 2 || !strings.Contains(e, tc.want) || !strings.Contains(e, "--help' for usage") {
				t.Fatalf("exit %d, want 2 with %q and a pointer to --help\nstdout: %s\nstderr: %s", code, tc.want, o, e)
			}
		})
	}
}
