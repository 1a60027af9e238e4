package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/experiment/population"
	"github.com/hyperctl/hyperctl/ppo/policy"
	"github.com/hyperctl/hyperctl/ppo/policy/policytest"
)

// fakeRun makes a run folder for env with the default config and random
// policies (no training).
func fakeRun(t *testing.T, env string) string {
	t.Helper()
	dir := t.TempDir()
	run, err := configs.Default(env)
	if err != nil {
		t.Fatal(err)
	}
	text, err := run.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := envs.Lookup(env)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{policy.Best, policy.Final} {
		if err := policytest.ForEnv(spec, 1).Save(dir, name); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestEvalCommand(t *testing.T) {
	dir := fakeRun(t, "reacher")
	o, e, code := runCLI(t, "eval", dir, "--episodes", "3", "--seed", "5", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	var res struct {
		Env      string
		Episodes int
		Returns  []float64
		Mean     float64
		Std      float64
		Min, Max float64
		Policy   string
	}
	if err := json.Unmarshal([]byte(o), &res); err != nil {
		t.Fatalf("%v: %s", err, o)
	}
	if res.Env != "Reacher-v4" || len(res.Returns) != 3 || res.Policy != policy.Best || !(res.Min <= res.Mean && res.Mean <= res.Max) {
		t.Fatalf("result %+v", res)
	}
	o, _, code = runCLI(t, "eval", dir, "--policy", "final", "--episodes", "2")
	if code != 0 || !strings.Contains(o, "2 deterministic episodes (seeds 0-1): return") || !strings.Contains(o, "±") {
		t.Fatalf("exit %d, output %q", code, o)
	}

	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"bad policy name", []string{"eval", dir, "--policy", "middle"}, 2, "want best or final"},
		{"bad episodes", []string{"eval", dir, "--episodes", "0"}, 2, "--episodes"},
		{"too many episodes", []string{"eval", dir, "--episodes", "1000001"}, 2, "--episodes: want an integer in [1, 1000000], got 1000001"},
		{"episodes not an integer", []string{"eval", dir, "--episodes", "1e300"}, 2, `--episodes "1e300": want an integer`},
		{"negative seed", []string{"eval", dir, "--seed", "-1"}, 2, "--seed: want an integer in [0, 9223372036854775798] for 10 episodes"},
		{"seed+k overflows", []string{"eval", dir, "--seed", "9223372036854775807", "--episodes", "2"}, 2, "--seed: want an integer in [0, 9223372036854775806] for 2 episodes (episode k uses seed+k), got 9223372036854775807"},
		{"render: seed+k overflows", []string{"render", dir, "--still", filepath.Join(t.TempDir(), "x.png"), "--seed", "9223372036854775807", "--episodes", "2"}, 2, "--seed: want an integer in [0, 9223372036854775806]"},
		{"render: negative still step", []string{"render", dir, "--still", filepath.Join(t.TempDir(), "x.png"), "--still-step", "-1"}, 2, "--still-step: want an integer >= 0, got -1"},
		{"not a run", []string{"eval", t.TempDir()}, 1, "holds no run"},
		{"a file", []string{"eval", filepath.Join(dir, "config.toml")}, 1, "is a file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, e, code := runCLI(t, c.args...)
			if code != c.code || !strings.Contains(o+e, c.want) {
				t.Fatalf("exit %d (want %d), output %q, want %q", code, c.code, o+e, c.want)
			}
		})
	}

	// A policy for another environment is refused, naming both.
	other := fakeRun(t, "halfcheetah")
	for _, ext := range []string{policy.WeightsExt, policy.MetaExt} {
		b, err := os.ReadFile(filepath.Join(other, policy.Best+ext))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, policy.Best+ext), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, e, code = runCLI(t, "eval", dir)
	if code != 1 || !strings.Contains(e, "HalfCheetah-v4 (observation size 17, action size 6)") || !strings.Contains(e, "Reacher-v4 (observation size 11, action size 2)") {
		t.Fatalf("exit %d, stderr %q", code, e)
	}
	if err := os.Remove(filepath.Join(dir, policy.Best+policy.MetaExt)); err != nil {
		t.Fatal(err)
	}
	if _, e, code = runCLI(t, "eval", dir); code != 1 || !strings.Contains(e, "has no policy-best: the run stopped before its first evaluation") {
		t.Fatalf("exit %d, stderr %q", code, e)
	}
}

// TestEvalSaysWhatToDo: without the policy asked for, eval and render say
// why (the run is training, stopped, or finished without keeping it) and
// what to do; on a folder of runs, which runs it holds and the command that
// picks one.
func TestEvalSaysWhatToDo(t *testing.T) {
	noBest := func(t *testing.T, finished bool) string {
		dir := fakeRun(t, "reacher")
		for _, ext := range []string{policy.WeightsExt, policy.MetaExt} {
			if err := os.Remove(filepath.Join(dir, policy.Best+ext)); err != nil {
				t.Fatal(err)
			}
		}
		if finished {
			if err := os.WriteFile(filepath.Join(dir, rundir.SummaryFile), []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	finished, stopped, training := noBest(t, true), noBest(t, false), noBest(t, false)
	lock, err := rundir.Acquire(training) // this process trains it, as far as eval can tell
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	cmp := t.TempDir()
	for i, seed := range []string{"seed0", "seed1"} {
		d := filepath.Join(cmp, "reacher", "fixed", seed)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		files := []string{rundir.TrainCSV}
		if i == 1 {
			files = append(files, rundir.SummaryFile)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(d, f), []byte("iteration\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Only seed0 keeps a policy-best (its files' contents do not matter
	// to the suggestion); a second compare keeps none.
	for _, ext := range []string{policy.WeightsExt, policy.MetaExt} {
		if err := os.WriteFile(filepath.Join(cmp, "reacher", "fixed", "seed0", policy.Best+ext), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bare := t.TempDir()
	if err := os.MkdirAll(filepath.Join(bare, "reacher", "fixed", "seed0"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{rundir.TrainCSV, rundir.SummaryFile} {
		if err := os.WriteFile(filepath.Join(bare, "reacher", "fixed", "seed0", f), []byte("iteration\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	still := filepath.Join(t.TempDir(), "x.png")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"finished without policy-best", []string{"eval", finished},
			finished + " has no policy-best: the run finished, but its policy-best was not kept (a run copied without its policy files, such as a study run whose policies were not committed). --policy final evaluates its policy-final. To get one, train the run again from its config: hyperctl train --config " + filepath.Join(finished, "config.toml") + " --out NEW_FOLDER"},
		{"stopped without policy-best", []string{"eval", stopped},
			stopped + " has no policy-best: the run stopped before its first evaluation. --policy final evaluates its policy-final. Continue it with: hyperctl train --out " + stopped + " --resume"},
		{"training, no policy-best yet", []string{"render", training, "--still", still},
			training + " has no policy-best yet: the run is training (pid "},
		{"a compare folder: a run that keeps its policy", []string{"eval", cmp, "--episodes", "3"},
			cmp + " holds no run itself (no config.toml) but 2 runs below it, 1 with its policy-best: reacher/fixed/seed0 (unfinished). Give one of them, e.g.\n  hyperctl eval " + filepath.Join(cmp, "reacher", "fixed", "seed0") + " --episodes 3"},
		{"a compare folder, render", []string{"render", cmp, "--still", still},
			"hyperctl render " + filepath.Join(cmp, "reacher", "fixed", "seed0") + " --still " + still},
		{"a compare folder whose runs keep no policy", []string{"eval", bare},
			bare + " holds no run itself (no config.toml) but 1 run below it, none of which keeps its policy-best (a study that committed no policy files): reacher/fixed/seed0. Give a run folder that keeps one (docs/run-folder.md names committed runs that do)"},
		{"an empty folder", []string{"eval", t.TempDir()},
			"holds no run: a run folder holds the config.toml that train writes first, and none is below it either"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, e, code := runCLI(t, c.args...)
			if code != 1 || !strings.Contains(e, c.want) {
				t.Fatalf("exit %d (want 1), stderr does not say %q\nstdout: %s\nstderr: %s", code, c.want, o, e)
			}
		})
	}
}

func TestRenderCommand(t *testing.T) {
	if _, err := exec.LookPath("ffprobe"); err != nil {
		t.Skip("ffprobe is absent (scripts/setup.sh installs Debian's ffmpeg)")
	}
	dir := fakeRun(t, "reacher")
	out := filepath.Join(t.TempDir(), "r.mp4")
	still := filepath.Join(t.TempDir(), "r.png")
	o, e, code := runCLI(t, "render", dir, "--out", out, "--size", "160x120", "--still", still, "--still-step", "10")
	if code != 0 || !strings.Contains(o, "51 frames of 160x120 at 50 fps") {
		t.Fatalf("exit %d: %s %s", code, o, e)
	}
	p, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames,width,height", "-of", "csv=p=0", out).Output()
	if err != nil || strings.TrimSpace(string(p)) != "160,120,51" {
		t.Fatalf("ffprobe: %q %v", p, err)
	}
	withVideo, err := os.ReadFile(still)
	if err != nil {
		t.Fatal(err)
	}
	// A still alone: no video, the same frame.
	alone := filepath.Join(t.TempDir(), "alone.png")
	o, e, code = runCLI(t, "render", dir, "--size", "160x120", "--still", alone, "--still-step", "10")
	if code != 0 || !strings.Contains(o, "wrote "+alone+": step 10 of the episode with seed 0, 160x120") || strings.Contains(o, ".mp4") {
		t.Fatalf("still alone: exit %d: %s %s", code, o, e)
	}
	if b, err := os.ReadFile(alone); err != nil || !bytes.Equal(b, withVideo) {
		t.Fatalf("the still alone differs from the still taken with the video (%v)", err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"render", dir}, "want --out FILE.mp4 (a video), --still FILE.png (one frame), or both"},
		{[]string{"render", dir, "--out", "x.avi"}, "want a .mp4"},
		{[]string{"render", dir, "--out", out, "--size", "641x480"}, "even sizes"},
		{[]string{"render", dir, "--out", out, "--size", "big"}, "WIDTHxHEIGHT"},
	} {
		if _, e, code := runCLI(t, c.args...); code != 2 || !strings.Contains(e, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, e, c.want)
		}
	}
}

// TestEvalPopulation: eval on a finished population folder evaluates its
// best member and says so; on an unfinished one it says how to name a
// member.
func TestEvalPopulation(t *testing.T) {
	pop := t.TempDir()
	member := filepath.Join(pop, "reacher", "pb2", "seed1")
	if err := os.MkdirAll(filepath.Dir(member), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(fakeRun(t, "reacher"), member); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pop, population.DefinitionFile), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ret := func(v float64) *float64 { return &v }
	if err := population.WriteResult(pop, population.Result{Best: 1, Members: []population.ResultMember{
		{Dir: "reacher/pb2/seed0", FinalEvalReturn: ret(-7)},
		{Dir: "reacher/pb2/seed1", FinalEvalReturn: ret(-4)},
	}}); err != nil {
		t.Fatal(err)
	}
	o, e, code := runCLI(t, "eval", pop, "--episodes", "2", "--json")
	var res struct {
		RunDir   string `json:"run_dir"`
		Episodes int
	}
	if code != 0 || json.Unmarshal([]byte(o), &res) != nil {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, o, e)
	}
	if res.RunDir != member || res.Episodes != 2 || !strings.Contains(e, "is a population: using its best member, member 1 (final evaluation return -4.00): "+member) {
		t.Fatalf("result %+v, stderr %q", res, e)
	}

	if err := os.Remove(filepath.Join(pop, population.ResultFile)); err != nil {
		t.Fatal(err)
	}
	_, e, code = runCLI(t, "eval", pop)
	if code != 1 || !strings.Contains(e, "is not finished (no result.json yet)") || !strings.Contains(e, "'hyperctl status "+pop+"' lists them") {
		t.Fatalf("exit %d, stderr %q", code, e)
	}
}
