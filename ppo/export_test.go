package ppo

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	_ "github.com/hyperctl/hyperctl/envs/all"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/ppo/policy"
)

// TestPolicyActsAsEvaluate trains HalfCheetah for two iterations, exports
// the policy, and checks it against the trainer: on 100 observations of
// an evaluation rollout its action equals the clipped libtorch mean that
// Evaluate steps with (within 1e-5), an evaluation episode replayed with
// the policy returns what Evaluate returned, and Debian's PyTorch loads
// the saved files and acts the same.
func TestPolicyActsAsEvaluate(t *testing.T) {
	cfg := toyConfig()
	cfg.BatchSize = 1024
	tr := newToyTrainer(t, "halfcheetah", cfg, 3)
	ctx := context.Background()
	for it := 0; it < 2; it++ {
		if _, err := tr.Iterate(ctx, cfg.Hyper); err != nil {
			t.Fatal(err)
		}
	}
	p, err := tr.Policy()
	if err != nil {
		t.Fatal(err)
	}
	if p.Meta.Env != "HalfCheetah-v4" || p.Meta.Iteration != 1 || p.Meta.Frames != 2048 || !p.Meta.ObsNorm.Enabled {
		t.Fatalf("meta = %+v", p.Meta)
	}

	// 100 observations along a deterministic episode, acted on by both.
	env, err := envs.Make("halfcheetah")
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	o, err := env.Reset(5)
	if err != nil {
		t.Fatal(err)
	}
	obs32 := make([]float32, tr.od)
	mean := make([]float32, tr.ad)
	act := make([]float64, tr.ad)
	var observations [][]float64
	var maxDiff float64
	for k := 0; k < 100; k++ {
		observations = append(observations, append([]float64(nil), o...))
		normalizeObs(&tr.obsRMS, cfg.NormObs, cfg.ObsClip, o, obs32)
		if err := tr.ln.infer(obs32, 1, mean, nil); err != nil {
			t.Fatal(err)
		}
		if err := p.Act(o, act); err != nil {
			t.Fatal(err)
		}
		for j := range act {
			want := math.Max(tr.spec.Action.Low[j], math.Min(tr.spec.Action.High[j], float64(mean[j])))
			maxDiff = math.Max(maxDiff, math.Abs(act[j]-want))
		}
		st, err := env.Step(act)
		if err != nil {
			t.Fatal(err)
		}
		o = st.Obs
	}
	t.Logf("max |policy.Act - trainer's libtorch action| over 100 observations = %.3g", maxDiff)
	if maxDiff > 1e-5 {
		t.Fatalf("max action difference %.3g > 1e-5", maxDiff)
	}

	// Evaluate's first episode, replayed by the policy on its seed.
	es, err := tr.Evaluate(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	ret, steps, err := policy.Episode(ctx, p, env, derivedSeed(tr.seed, 2, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("evaluation return: trainer %.6f, policy %.6f (%d steps)", es.Returns[0], ret, steps)
	if steps != es.Lengths[0] || math.Abs(ret-es.Returns[0]) > 1e-3*math.Max(1, math.Abs(ret)) {
		t.Fatalf("policy episode: return %v in %d steps, Evaluate: %v in %d", ret, steps, es.Returns[0], es.Lengths[0])
	}

	// Debian's PyTorch, through scripts/load_policy.py.
	dir := t.TempDir()
	p.Meta.HyperctlVersion = "test"
	if err := p.Save(dir, policy.Final); err != nil {
		t.Fatal(err)
	}
	py := "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import numpy, torch").CombinedOutput(); err != nil {
		t.Skipf("%s cannot import numpy and torch (scripts/setup.sh installs python3-numpy and python3-torch): %v %s", py, err, out)
	}
	of := filepath.Join(dir, "obs.json")
	b, _ := json.Marshal(observations)
	if err := os.WriteFile(of, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, filepath.Join("..", "scripts", "load_policy.py"), filepath.Join(dir, policy.Final), "--obs", of).Output()
	if err != nil {
		t.Fatalf("load_policy.py: %v", err)
	}
	var res struct{ Actions [][]float64 }
	if err := json.Unmarshal(out, &res); err != nil || len(res.Actions) != 100 {
		t.Fatalf("load_policy.py output: %v (%d actions)", err, len(res.Actions))
	}
	maxDiff = 0
	for k, o := range observations {
		if err := p.Act(o, act); err != nil {
			t.Fatal(err)
		}
		for j := range act {
			maxDiff = math.Max(maxDiff, math.Abs(act[j]-res.Actions[k][j]))
		}
	}
	t.Logf("max |policy.Act - PyTorch (scripts/load_policy.py)| over 100 observations = %.3g", maxDiff)
	if maxDiff > 1e-5 {
		t.Fatalf("max action difference %.3g > 1e-5", maxDiff)
	}
}
