package policy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/internal/ground/statecodec"
	"github.com/hyperctl/hyperctl/ppo/policy"
	"github.com/hyperctl/hyperctl/ppo/policy/policytest"
)

// JudgeRun evaluates on fresh seeds, writes judge.json that reads back
// equal, leaves it alone for the same policy, replaces it for a changed
// one, and refuses too few or too many episodes.
func TestJudgeRun(t *testing.T) {
	spec, err := envs.Lookup("reacher")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := policytest.ForEnv(spec, 3).Save(dir, policy.Best); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		episodes int
		want     string
	}{
		{"zero", 0, "want an integer in [50, 1000000]"},
		{"one below the minimum", policy.MinJudgeEpisodes - 1, "episodes: want an integer in [50, 1000000], got 49"},
		{"above the maximum", policy.MaxJudgeEpisodes + 1, "got 1000001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := policy.JudgeRun(ctx, dir, policy.Best, tc.episodes, "test")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("JudgeRun(%d episodes) = %v, want an error saying %q", tc.episodes, err, tc.want)
			}
		})
	}
	if _, err := policy.ReadJudgement(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a refused judgement left judge.json: %v", err)
	}

	j, written, err := policy.JudgeRun(ctx, dir, policy.Best, policy.MinJudgeEpisodes, "test")
	if err != nil || !written {
		t.Fatalf("JudgeRun: written %v, %v", written, err)
	}
	if j.Episodes != 50 || len(j.Seeds) != 50 || len(j.Returns) != 50 || j.Env != spec.ID {
		t.Fatalf("judgement of %d episodes, %d seeds, %d returns on %q, want 50 on %s", j.Episodes, len(j.Seeds), len(j.Returns), j.Env, spec.ID)
	}
	for k, s := range j.Seeds {
		if s != policy.FreshSeedBase+int64(k) {
			t.Fatalf("seed %d = %d, want FreshSeedBase+%d", k, s, k)
		}
	}
	p, err := policy.Load(dir, policy.Best)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := policy.Evaluate(ctx, p, 50, policy.FreshSeedBase)
	if err != nil {
		t.Fatal(err)
	}
	if j.Mean != ev.Mean || j.Std != ev.Std || !reflect.DeepEqual(j.Returns, ev.Returns) {
		t.Fatalf("judgement mean %v std %v, Evaluate from the base %v %v", j.Mean, j.Std, ev.Mean, ev.Std)
	}
	back, err := policy.ReadJudgement(dir)
	if err != nil || !reflect.DeepEqual(back, j) {
		t.Fatalf("judge.json read back %+v, %v; want %+v", back, err, j)
	}
	before, err := os.ReadFile(filepath.Join(dir, policy.JudgeFile))
	if err != nil {
		t.Fatal(err)
	}

	again, written, err := policy.JudgeRun(ctx, dir, policy.Best, policy.MinJudgeEpisodes, "other")
	if err != nil || written || !reflect.DeepEqual(again, j) {
		t.Fatalf("judging the same policy again: written %v, %v; want the judgement kept", written, err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, policy.JudgeFile)); string(after) != string(before) {
		t.Fatal("judging the same policy again changed judge.json")
	}

	if err := policytest.ForEnv(spec, 4).Save(dir, policy.Best); err != nil {
		t.Fatal(err)
	}
	changed, written, err := policy.JudgeRun(ctx, dir, policy.Best, policy.MinJudgeEpisodes, "test")
	if err != nil || !written || changed.WeightsSHA256 == j.WeightsSHA256 || changed.Mean == j.Mean {
		t.Fatalf("a changed policy: written %v, %v, weights %s then %s, mean %v then %v", written, err, j.WeightsSHA256, changed.WeightsSHA256, j.Mean, changed.Mean)
	}
}

// judged returns a new folder holding a Reacher policy-best and its
// judge.json.
func judged(t *testing.T) string {
	t.Helper()
	spec, err := envs.Lookup("reacher")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := policytest.ForEnv(spec, 5).Save(dir, policy.Best); err != nil {
		t.Fatal(err)
	}
	if _, _, err := policy.JudgeRun(context.Background(), dir, policy.Best, policy.MinJudgeEpisodes, "test"); err != nil {
		t.Fatal(err)
	}
	return dir
}

// ReadJudgement refuses a judge.json that does not hold together.
func TestReadJudgementRefuses(t *testing.T) {
	dir := judged(t)
	good, err := os.ReadFile(filepath.Join(dir, policy.JudgeFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"training seeds", func(m map[string]any) { m["seed_base"] = 0 }, "below the fresh seed base"},
		{"a wrong mean", func(m map[string]any) { m["mean"] = 1e9 }, "differ from the returns'"},
		{"another format", func(m map[string]any) { m["format"] = "other" }, `format "other"`},
		{"a seed out of order", func(m map[string]any) { m["seeds"].([]any)[3] = 1 }, "seeds[3] = 1"},
		{"too few episodes", func(m map[string]any) { m["episodes"] = 10 }, "episodes 10"},
		{"an unknown field", func(m map[string]any) { m["score"] = 1 }, "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m map[string]any
			dec := json.NewDecoder(bytes.NewReader(good))
			dec.UseNumber() // seeds above 2^53 stay exact
			if err := dec.Decode(&m); err != nil {
				t.Fatal(err)
			}
			tc.edit(m)
			delete(m, statecodec.SealKey)
			bad, err := statecodec.SealJSON(m) // sealed again: the damage is in the content
			if err != nil {
				t.Fatal(err)
			}
			d := t.TempDir()
			if err := os.WriteFile(filepath.Join(d, policy.JudgeFile), bad, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := policy.ReadJudgement(d); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), d) {
				t.Fatalf("ReadJudgement = %v, want an error naming the file and saying %q", err, tc.want)
			}
		})
	}
}
