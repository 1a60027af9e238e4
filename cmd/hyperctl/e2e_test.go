package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hyperctl/hyperctl/configs/rundir"
)

// tinyConfig is a small, fast Reacher run for end-to-end tests.
const tinyConfig = `env = "reacher"
seed = 0
iterations = 6
eval_every = 2
checkpoint_every = 5

[ppo]
num_envs = 2
batch_size = 200
minibatch_size = 100
epochs = 2

[controller]
name = "hypercontroller"
interval = 2

[[controller.tune]]
name = "batch_size"
low = 100.0
high = 300.0
integer = true

[[controller.tune]]
name = "lr"
low = 1e-4
high = 1e-3
`

func writeTiny(t *testing.T, dir string, replace ...string) string {
	t.Helper()
	text := tinyConfig
	for i := 0; i+1 < len(replace); i += 2 {
		text = strings.Replace(text, replace[i], replace[i+1], 1)
	}
	p := filepath.Join(dir, "tiny.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// csvIterations returns the first column of a CSV's data rows.
func csvIterations(t *testing.T, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		n, err := strconv.Atoi(strings.SplitN(l, ",", 2)[0])
		if err != nil {
			t.Fatalf("%s: bad row %q", path, l)
		}
		out = append(out, n)
	}
	return out
}

func wantSeq(t *testing.T, what string, got []int, want []int) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s rows %v, want %v", what, got, want)
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func TestTrainEndToEnd(t *testing.T) {
	dir := t.TempDir()
	cfg := writeTiny(t, dir)
	out := filepath.Join(dir, "run")
	o, e, code := runCLI(t, "train", "--config", cfg, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, o, e)
	}
	if !strings.Contains(o, "train: done: reacher with hypercontroller, seed 0: 6 iterations") {
		t.Fatalf("stdout: %s", o)
	}
	wantSeq(t, "train.csv", csvIterations(t, filepath.Join(out, "train.csv")), seq(6))
	wantSeq(t, "eval.csv", csvIterations(t, filepath.Join(out, "eval.csv")), []int{1, 3, 5})
	for _, f := range []string{"config.toml", "summary.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Fatalf("missing %s: %v", f, err)
		}
	}
	// A finished run is not overwritten without --force; --resume does nothing.
	if _, e, code := runCLI(t, "train", "--config", cfg, "--out", out); code != 2 || !strings.Contains(e, "finished run") {
		t.Fatalf("re-run without --force: exit %d, %s", code, e)
	}
	if o, _, code := runCLI(t, "train", "--config", cfg, "--out", out, "--resume"); code != 0 || !strings.Contains(o, "already finished") {
		t.Fatalf("--resume on a finished run: exit %d, %s", code, o)
	}
	// ... but only with the config it ran with.
	if _, e, code := runCLI(t, "train", "--config", cfg, "--out", out, "--resume", "--controller", "random"); code != 2 || !strings.Contains(e, "different config") || !strings.Contains(e, "--controller random would change it") || !strings.Contains(e, `+ controller.name = "random"`) {
		t.Fatalf("--resume on a finished run with another controller: exit %d, %s", code, e)
	}
	if o, _, code := runCLI(t, "train", "--out", out, "--resume"); code != 0 || !strings.Contains(o, "already finished") {
		t.Fatalf("--out --resume on a finished run: exit %d, %s", code, o)
	}
	if _, _, code := runCLI(t, "train", "--config", cfg, "--out", out, "--force", "--iterations", "2"); code != 0 {
		t.Fatalf("--force: exit %d", code)
	}
	wantSeq(t, "train.csv after --force", csvIterations(t, filepath.Join(out, "train.csv")), seq(2))
}

func TestTrainKillAndResume(t *testing.T) {
	dir := t.TempDir()
	cfg := writeTiny(t, dir, "iterations = 6", "iterations = 40", "checkpoint_every = 5", "checkpoint_every = 4")
	out := filepath.Join(dir, "run")
	cmd := exec.Command(binPath, "--log-format", "json", "train", "--config", cfg, "--out", out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait (bounded in polls) until a checkpoint exists and a few rows follow it.
	ck := filepath.Join(out, "checkpoint", "checkpoint.bin")
	ready := false
	for i := 0; i < 3000 && !ready; i++ {
		time.Sleep(10 * time.Millisecond)
		if _, err := os.Stat(ck); err == nil {
			if b, err := os.ReadFile(filepath.Join(out, "train.csv")); err == nil && strings.Count(string(b), "\n") >= 7 {
				ready = true
			}
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	killedAt := rowsIn(filepath.Join(out, "train.csv"))
	if !ready {
		t.Fatal("no checkpoint appeared before the kill")
	}
	if _, err := os.Stat(filepath.Join(out, "summary.json")); err == nil {
		t.Skip("the run finished before it could be killed")
	}
	// Resuming with another config is refused and shows the difference.
	other := writeTiny(t, t.TempDir(), "iterations = 6", "iterations = 40", "checkpoint_every = 5", "checkpoint_every = 4", "seed = 0", "seed = 1")
	if _, e, code := runCLI(t, "train", "--config", other, "--out", out, "--resume"); code != 2 || !strings.Contains(e, "different config") || !strings.Contains(e, "--config "+other+" would change it") || !strings.Contains(e, "+ seed = 1") {
		t.Fatalf("resume with another config: exit %d\n%s", code, e)
	}
	// --out DIR --resume alone takes the env and config from DIR/config.toml.
	o, e, code := runCLI(t, "train", "--out", out, "--resume")
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", code, o, e)
	}
	if !strings.Contains(e, "resuming from checkpoint") {
		t.Fatalf("resume did not use the checkpoint:\n%s", e)
	}
	wantSeq(t, "train.csv", csvIterations(t, filepath.Join(out, "train.csv")), seq(40))
	var evals []int
	for i := 1; i < 40; i += 2 {
		evals = append(evals, i)
	}
	wantSeq(t, "eval.csv", csvIterations(t, filepath.Join(out, "eval.csv")), evals)
	// The events and the policies agree with the CSVs: no step twice, the
	// best policy is the best of eval.csv's rows (not of the lost ones).
	checkEvents(t, out)
	checkPolicies(t, out, 40)
	// Exact: the resumed run's logs equal an uninterrupted run's, timing
	// columns aside.
	ref := filepath.Join(dir, "ref")
	if _, e, code := runCLI(t, "train", "--config", cfg, "--out", ref); code != 0 {
		t.Fatalf("uninterrupted run: exit %d\n%s", code, e)
	}
	for _, f := range []string{"train.csv", "eval.csv"} {
		same, total, diff, err := rundir.CompareCSV(filepath.Join(out, f), filepath.Join(ref, f))
		if err != nil || diff != "" {
			t.Fatalf("%s: %d/%d rows identical to the uninterrupted run: %s %v", f, same, total, diff, err)
		}
		t.Logf("%s: SIGKILL at iteration %d, resumed: %d/%d rows identical to the uninterrupted run", f, killedAt, same, total)
	}
}

func TestTrainErrorsLeaveNoFolder(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		cfg  string
		args []string
		code int
		want string
	}{
		{"invalid config", "env = \"reacher\"\n[ppo]\nclip = 3.0\n", nil, 1, "ppo.clip"},
		{"unknown controller", "", []string{"--env", "reacher", "--controller", "nope"}, 2, "valid controllers"},
		{"bad iterations", "", []string{"--env", "reacher", "--iterations", "0"}, 2, "--iterations"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"))
			args := append([]string{"train", "--out", out}, c.args...)
			if c.cfg != "" {
				p := filepath.Join(dir, "bad.toml")
				os.WriteFile(p, []byte(c.cfg), 0o644)
				args = append(args, "--config", p)
			}
			_, e, code := runCLI(t, args...)
			if code != c.code || !strings.Contains(e, c.want) {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", code, c.code, e, c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Fatalf("%s was created", out)
			}
		})
	}
	// An unwritable output folder fails before training starts.
	file := filepath.Join(dir, "a-file")
	os.WriteFile(file, nil, 0o644)
	cfg := writeTiny(t, dir)
	if _, e, code := runCLI(t, "train", "--config", cfg, "--out", filepath.Join(file, "run")); code != 1 || !strings.Contains(e, file+" is a file, not a folder") {
		t.Fatalf("--out under a file: exit %d, %s", code, e)
	}
	if _, e, code := runCLI(t, "train", "--config", cfg, "--out", file); code != 1 || !strings.Contains(e, "output folder "+file+" is a file, not a folder") {
		t.Fatalf("--out is a file: exit %d, %s", code, e)
	}
	// --resume without --env or --config needs the folder's config.toml.
	if _, e, code := runCLI(t, "train", "--out", filepath.Join(dir, "nothing-here"), "--resume"); code != 2 || !strings.Contains(e, "has no config.toml") {
		t.Fatalf("--out --resume on an empty folder: exit %d, %s", code, e)
	}
}

func TestCompareTwiceThenReport(t *testing.T) {
	dir := t.TempDir()
	cfg := writeTiny(t, dir, "iterations = 6", "iterations = 4")
	out := filepath.Join(dir, "cmp")
	args := []string{"compare", "--env", "reacher", "--controllers", "hypercontroller,random", "--seeds", "0-1", "--config", cfg, "--jobs", "2", "--out", out}
	o, e, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s\n%s", code, o, e)
	}
	var mtimes []time.Time
	for _, c := range []string{"hypercontroller", "random"} {
		for _, s := range []string{"seed0", "seed1"} {
			run := filepath.Join(out, "reacher", c, s)
			wantSeq(t, run, csvIterations(t, filepath.Join(run, "train.csv")), seq(4))
			st, err := os.Stat(filepath.Join(run, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			mtimes = append(mtimes, st.ModTime())
		}
	}
	// The second run does no work.
	o, _, code = runCLI(t, args...)
	if code != 0 || !strings.Contains(o, "nothing to do") {
		t.Fatalf("second compare: exit %d, %s", code, o)
	}
	k := 0
	for _, c := range []string{"hypercontroller", "random"} {
		for _, s := range []string{"seed0", "seed1"} {
			st, _ := os.Stat(filepath.Join(out, "reacher", c, s, "summary.json"))
			if !st.ModTime().Equal(mtimes[k]) {
				t.Fatalf("%s/%s was re-run", c, s)
			}
			k++
		}
	}
	// A different matrix in the same folder is refused.
	if _, e, code := runCLI(t, "compare", "--env", "reacher", "--controllers", "random", "--seeds", "0", "--config", cfg, "--out", out); code != 1 || !strings.Contains(e, "different matrix") {
		t.Fatalf("different matrix: exit %d, %s", code, e)
	}
	o, e, code = runCLI(t, "report", out)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s", code, e)
	}
	if !strings.Contains(o, "| hypercontroller | 2/2 |") || !strings.Contains(o, "| random | 2/2 |") {
		t.Fatalf("report table:\n%s", o)
	}
	for _, f := range []string{"report.md", "reacher_fig1_controller_time.png", "reacher_fig1_wall_time.png", "reacher_fig3_frames.png", "reacher_fig2_final.png"} {
		if st, err := os.Stat(filepath.Join(out, "report", f)); err != nil || st.Size() == 0 {
			t.Fatalf("report file %s: %v", f, err)
		}
	}
	// --focus names a controller of the folder; a typo is a usage error naming what is there.
	if _, e, code := runCLI(t, "report", out, "--focus", "hypercontrol"); code != 2 || !strings.Contains(e, "--focus") || !strings.Contains(e, "hypercontroller, random") {
		t.Fatalf("report --focus typo: exit %d, %s", code, e)
	}
	if _, e, code := runCLI(t, "report", out, "--reference", "fixd"); code != 2 || !strings.Contains(e, "--reference") || !strings.Contains(e, "hypercontroller, random") {
		t.Fatalf("report --reference typo: exit %d, %s", code, e)
	}
	if o, e, code := runCLI(t, "report", out, "--focus", "random"); code != 0 || !strings.Contains(o, "the rank is random's") {
		t.Fatalf("report --focus random: exit %d\n%s\n%s", code, o, e)
	}

	// A single run folder, as JSON: named by its config.toml.
	single := filepath.Join(out, "reacher", "random", "seed1")
	o, e, code = runCLI(t, "report", single, "--format", "json", "--random-episodes", "3", "--out", filepath.Join(dir, "single"))
	var js struct {
		Runs []struct {
			Env, Controller string
			Seed            int64
			Finished        bool
			EvalAtBudget    *float64 `json:"eval_return_at_budget"`
		}
	}
	if code != 0 || json.Unmarshal([]byte(o), &js) != nil || len(js.Runs) != 1 {
		t.Fatalf("report of one run as JSON: exit %d\n%s\n%s", code, o, e)
	}
	if r := js.Runs[0]; r.Env != "reacher" || r.Controller != "random" || r.Seed != 1 || !r.Finished || r.EvalAtBudget == nil {
		t.Fatalf("report of one run: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "single", "report.json")); err != nil {
		t.Fatal(err)
	}
	// The compare folder as CSV: the per-environment table on stdout, three
	// files beside report.md.
	o, e, code = runCLI(t, "report", out, "--format", "csv", "--random-episodes", "3")
	if code != 0 || !strings.HasPrefix(o, "env,controller,finished,expected,") || !strings.Contains(o, "\nreacher,hypercontroller,2,2,") {
		t.Fatalf("report --format csv: exit %d\n%s\n%s", code, o, e)
	}
	for _, f := range []string{"runs.csv", "controllers.csv", "aggregate.csv"} {
		if st, err := os.Stat(filepath.Join(out, "report", f)); err != nil || st.Size() == 0 {
			t.Fatalf("report file %s: %v", f, err)
		}
	}
	if _, e, code := runCLI(t, "report", out, "--format", "xml"); code != 2 || !strings.Contains(e, "want markdown, json or csv") {
		t.Fatalf("report --format xml: exit %d, %s", code, e)
	}
	// status of a single run folder.
	if o, e, code := runCLI(t, "status", single); code != 0 || !strings.Contains(o, "random") || !strings.Contains(o, "finished") {
		t.Fatalf("status of one run: exit %d\n%s\n%s", code, o, e)
	}
}

// TestCompareVariantsAtAFrameBudget: NAME@PRESET runs land in their own
// folders with the preset applied, every run stops at the frame budget, the
// manifest records it, and the report lists the variant as a row.
func TestCompareVariantsAtAFrameBudget(t *testing.T) {
	dir := t.TempDir()
	cfg := writeTiny(t, dir)
	out := filepath.Join(dir, "cmp")
	o, e, code := runCLI(t, "compare", "--env", "reacher", "--controllers", "hypercontroller@kframe+lr-scale,fixed", "--seeds", "0",
		"--config", cfg, "--frames", "500", "--jobs", "2", "--out", out)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s\n%s", code, o, e)
	}
	variant := filepath.Join(out, "reacher", "hypercontroller@kframe+lr-scale", "seed0")
	b, err := os.ReadFile(filepath.Join(variant, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`objective = "delta_per_kframe"`, `name = "lr_scale"`, "frames = 500", `name = "hypercontroller"`} {
		if !strings.Contains(string(b), want) {
			t.Fatalf("variant's config.toml lacks %q:\n%s", want, b)
		}
	}
	for _, run := range []string{variant, filepath.Join(out, "reacher", "fixed", "seed0")} {
		sb, err := os.ReadFile(filepath.Join(run, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(sb), `"frame_budget": 500`) {
			t.Fatalf("%s: summary %s", run, sb)
		}
	}
	// fixed: 200 frames per iteration reach 500 at the third.
	wantSeq(t, "fixed", csvIterations(t, filepath.Join(out, "reacher", "fixed", "seed0", "train.csv")), seq(3))
	mb, _ := os.ReadFile(filepath.Join(out, "compare.json"))
	if !strings.Contains(string(mb), `"frames": 500`) {
		t.Fatalf("manifest %s", mb)
	}
	o, e, code = runCLI(t, "report", out, "--focus", "hypercontroller@kframe+lr-scale", "--resamples", "200", "--random-episodes", "2", "--trace", "lr,entropy_coef")
	if code != 0 || !strings.Contains(o, "| hypercontroller@kframe+lr-scale | 1/1 |") || !strings.Contains(o, "a frame budget of 500 frames") {
		t.Fatalf("report: exit %d\n%s\n%s", code, o, e)
	}
	// With a fixed row: the aggregate table, the rule's verdict and the
	// performance profile (unless fixed's one run is below the random
	// policy, which the report then says).
	for _, want := range []string{"### Aggregate over environments", "**Verdict:**", "200 resamples", "| reacher | "} {
		if !strings.Contains(o, want) {
			t.Fatalf("report lacks %q:\n%s", want, o)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "report", "performance_profile.png")); err != nil && !strings.Contains(o, "is not above the random policy") {
		t.Fatalf("no performance profile and no reason: %v\n%s", err, o)
	}
	if _, e, code := runCLI(t, "report", out, "--resamples", "0"); code != 2 || !strings.Contains(e, "--resamples") {
		t.Fatalf("report --resamples 0: exit %d, %s", code, e)
	}
	for _, key := range []string{"lr", "entropy_coef"} { // entropy_coef: from config.toml, not logged
		if _, err := os.Stat(filepath.Join(out, "report", "reacher_trace_"+key+".png")); err != nil {
			t.Errorf("report --trace: %v", err)
		}
	}
	if _, e, code := runCLI(t, "report", out, "--trace", "lr,epoch"); code != 2 || !strings.Contains(e, "--trace epoch") || !strings.Contains(e, "epochs") {
		t.Fatalf("report --trace epoch: exit %d, %s", code, e)
	}
}

// TestTrainStopsOnSignals: SIGHUP (the terminal of a compare closed) ends
// a run as SIGTERM and SIGINT do: the checkpoint at the iteration reached,
// policy-final, and the "interrupted" line with the resume command.
func TestTrainStopsOnSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cfg := writeTiny(t, dir, "iterations = 6", "iterations = 400")
			out := filepath.Join(dir, "run")
			var stderr bytes.Buffer
			cmd := exec.Command(binPath, "--log-format", "json", "train", "--config", cfg, "--out", out)
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait, bounded in polls, for a few rows.
			for i := 0; i < 3000; i++ {
				if b, err := os.ReadFile(filepath.Join(out, "train.csv")); err == nil && strings.Count(string(b), "\n") >= 4 {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			_ = cmd.Process.Signal(sig)
			err := cmd.Wait()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				t.Fatalf("exit: %v\n%s", err, stderr.String())
			}
			if !strings.Contains(stderr.String(), "interrupted at iteration") || !strings.Contains(stderr.String(), "--resume") {
				t.Fatalf("no interrupted line:\n%s", stderr.String())
			}
			for _, f := range []string{filepath.Join("checkpoint", "checkpoint.bin"), "policy-final.json", "policy-final.safetensors"} {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Errorf("%s after %v: %v", f, sig, err)
				}
			}
		})
	}
}
