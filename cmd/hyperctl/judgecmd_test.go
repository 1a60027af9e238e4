package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/ppo/policy"
)

// TestJudgeCommand trains two tiny Reacher runs, judges one: 50 episodes
// from the fresh seed base, a judge.json that reads back as printed, a
// second judge that changes nothing; report --score judge scores the
// judged run by its judge.json mean and leaves the other out by name.
func TestJudgeCommand(t *testing.T) {
	root := t.TempDir()
	judged, other := filepath.Join(root, "judged"), filepath.Join(root, "other")
	for i, out := range []string{judged, other} {
		if _, e, code := runCLI(t, "train", "--env", "reacher", "--iterations", "2", "--frames", "0", "--threads", "1", "--seed", []string{"0", "1"}[i], "--out", out); code != 0 {
			t.Fatalf("train %s: exit %d: %s", out, code, e)
		}
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"too few episodes", []string{judged, "--episodes", "49"}, 2, "--episodes: want an integer in [50, 1000000], got 49"},
		{"no folder", []string{filepath.Join(root, "none")}, 1, "run folder " + filepath.Join(root, "none")},
		{"no run", []string{root}, 1, "holds no run itself"},
		{"unknown policy", []string{judged, "--policy", "last"}, 2, `--policy "last": want best or final`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, e, code := runCLI(t, append([]string{"judge"}, tc.args...)...)
			if code != tc.code || !strings.Contains(e, tc.want) {
				t.Fatalf("exit %d, want %d and %q\nstdout: %s\nstderr: %s", code, tc.code, tc.want, o, e)
			}
		})
	}
	o, e, code := runCLI(t, "judge", judged)
	if code != 0 || !strings.Contains(o, "wrote "+filepath.Join(judged, policy.JudgeFile)) {
		t.Fatalf("judge: exit %d\nstdout: %s\nstderr: %s", code, o, e)
	}
	j, err := policy.ReadJudgement(judged)
	if err != nil {
		t.Fatal(err)
	}
	if j.Episodes != 50 || len(j.Seeds) != 50 || len(j.Returns) != 50 || j.Policy != policy.Final || j.HyperctlVersion == "" {
		t.Fatalf("judgement %+v, want 50 episodes of policy-final with a version", j)
	}
	for k, s := range j.Seeds {
		if s < policy.FreshSeedBase || s != policy.FreshSeedBase+int64(k) {
			t.Fatalf("seed %d = %d, want FreshSeedBase+%d", k, s, k)
		}
	}
	raw, err := os.ReadFile(filepath.Join(judged, policy.JudgeFile))
	if err != nil {
		t.Fatal(err)
	}
	var back policy.Judgement
	if err := json.Unmarshal(raw, &back); err != nil || !reflect.DeepEqual(back, j) {
		t.Fatalf("judge.json round trip: %v\n%+v\nwant %+v", err, back, j)
	}
	if o, e, code := runCLI(t, "judge", judged); code != 0 || !strings.Contains(o, "unchanged") {
		t.Fatalf("judging again: exit %d\nstdout: %s\nstderr: %s", code, o, e)
	}
	if again, _ := os.ReadFile(filepath.Join(judged, policy.JudgeFile)); string(again) != string(raw) {
		t.Fatal("judging again changed judge.json")
	}

	// --policy best judges the other file, and replaces the judgement.
	if o, e, code := runCLI(t, "judge", judged, "--policy", "best"); code != 0 || !strings.Contains(o, policy.Best+" on 50 fresh episodes") {
		t.Fatalf("judge --policy best: exit %d\nstdout: %s\nstderr: %s", code, o, e)
	}
	if b, err := policy.ReadJudgement(judged); err != nil || b.Policy != policy.Best {
		t.Fatalf("after --policy best: %+v, %v; want a judgement of policy-best", b, err)
	}
	if o, e, code := runCLI(t, "judge", judged); code != 0 || !strings.Contains(o, "wrote") {
		t.Fatalf("judging policy-final again: exit %d\nstdout: %s\nstderr: %s", code, o, e)
	}

	o, e, code = runCLI(t, "report", root, "--score", "judge", "--format", "json", "--random-episodes", "2", "--resamples", "50", "--out", filepath.Join(root, "report"))
	if code != 0 {
		t.Fatalf("report --score judge: exit %d\nstderr: %s", code, e)
	}
	var tables struct {
		Score string
		Runs  []struct {
			Dir     string
			Score   *float64 `json:"eval_return_at_budget"`
			LeftOut string   `json:"left_out"`
		}
	}
	if err := json.Unmarshal([]byte(o), &tables); err != nil {
		t.Fatalf("report JSON: %v\n%s", err, o)
	}
	if tables.Score != "judge" || len(tables.Runs) != 2 {
		t.Fatalf("report: score %q, %d runs; want judge and 2", tables.Score, len(tables.Runs))
	}
	for _, r := range tables.Runs {
		switch r.Dir {
		case judged:
			if r.Score == nil || *r.Score != j.Mean {
				t.Fatalf("the judged run's score %v, want its judge mean %v", r.Score, j.Mean)
			}
		case other:
			if r.Score != nil || !strings.Contains(r.LeftOut, "no judge.json") || !strings.Contains(r.LeftOut, "hyperctl judge "+other) {
				t.Fatalf("the unjudged run: score %v, left out %q; want none and the judge command", r.Score, r.LeftOut)
			}
		default:
			t.Fatalf("report names run %s", r.Dir)
		}
	}
	if _, e, code := runCLI(t, "report", root, "--score", "best"); code != 2 || !strings.Contains(e, `--score "best": want budget or judge`) {
		t.Fatalf("report --score best: exit %d: %s", code, e)
	}
}
