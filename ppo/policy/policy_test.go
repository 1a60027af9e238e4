package policy_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/hyperctl/hyperctl/envs/all"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/internal/ground/statecodec"
	"github.com/hyperctl/hyperctl/internal/ground/words"
	"github.com/hyperctl/hyperctl/ppo/policy"
	"github.com/hyperctl/hyperctl/ppo/policy/policytest"
)

var randomPolicy = policytest.Random

func TestSaveLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	p := randomPolicy(1, "Reacher-v4", 10, 2, []int{64, 64}, "tanh")
	if err := p.Save(dir, policy.Best); err != nil {
		t.Fatal(err)
	}
	q, err := policy.Load(dir, policy.Best)
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Actor) != 3 || len(q.Critic) != 3 {
		t.Fatalf("loaded %d actor and %d critic layers, want 3 and 3", len(q.Actor), len(q.Critic))
	}
	for k := range p.Actor {
		for i := range p.Actor[k].W {
			if p.Actor[k].W[i] != q.Actor[k].W[i] {
				t.Fatalf("actor layer %d weight %d: %v != %v", k, i, p.Actor[k].W[i], q.Actor[k].W[i])
			}
		}
	}
	if *q.Meta.EvalReturn != 12.5 || q.Meta.Frames != 6144 || q.Meta.Architecture.Layout != policy.LayoutCleanRL {
		t.Fatalf("sidecar not restored: %+v", q.Meta)
	}
	if got := q.Meta.Architecture.Actor; len(got) != 4 || got[0] != 10 || got[3] != 2 {
		t.Fatalf("architecture.actor = %v, want [10 64 64 2]", got)
	}
	rng := rand.New(rand.NewPCG(2, 2))
	a1, a2 := make([]float64, 2), make([]float64, 2)
	for k := 0; k < 50; k++ {
		o := make([]float64, 10)
		for i := range o {
			o[i] = 3 * rng.NormFloat64()
		}
		if err := p.Act(o, a1); err != nil {
			t.Fatal(err)
		}
		if err := q.Act(o, a2); err != nil {
			t.Fatal(err)
		}
		if a1[0] != a2[0] || a1[1] != a2[1] {
			t.Fatalf("actions differ after the round trip: %v vs %v", a1, a2)
		}
	}
}

// TestSafetensorsLayout reads the weights file by hand, as the published
// format describes it.
func TestSafetensorsLayout(t *testing.T) {
	dir := t.TempDir()
	p := randomPolicy(3, "HalfCheetah-v4", 17, 6, []int{64, 64}, "tanh")
	if err := p.Save(dir, policy.Final); err != nil {
		t.Fatal(err)
	}
	w, _ := policy.Paths(dir, policy.Final)
	b, err := os.ReadFile(w)
	if err != nil {
		t.Fatal(err)
	}
	n := binary.LittleEndian.Uint64(b[:8])
	if 8+n > uint64(len(b)) || b[8] != '{' {
		t.Fatalf("header length %d in a %d-byte file, first byte %q", n, len(b), b[8])
	}
	var hdr map[string]json.RawMessage
	if err := json.Unmarshal(b[8:8+n], &hdr); err != nil {
		t.Fatal(err)
	}
	data := b[8+n:]
	var meta map[string]string
	if err := json.Unmarshal(hdr["__metadata__"], &meta); err != nil || meta["format"] != "pt" {
		t.Fatalf("__metadata__ = %s (%v), want format pt", hdr["__metadata__"], err)
	}
	want := map[string][]int{
		"actor_mean.0.weight": {64, 17}, "actor_mean.0.bias": {64},
		"actor_mean.2.weight": {64, 64}, "actor_mean.2.bias": {64},
		"actor_mean.4.weight": {6, 64}, "actor_mean.4.bias": {6},
		"actor_logstd":    {1, 6},
		"critic.0.weight": {64, 17}, "critic.0.bias": {64},
		"critic.2.weight": {64, 64}, "critic.2.bias": {64},
		"critic.4.weight": {1, 64}, "critic.4.bias": {1},
	}
	if len(hdr) != len(want)+1 {
		t.Fatalf("header has %d entries, want %d tensors and __metadata__", len(hdr), len(want))
	}
	covered := 0
	for name, shape := range want {
		var info struct {
			DType       string   `json:"dtype"`
			Shape       []int    `json:"shape"`
			DataOffsets [2]int64 `json:"data_offsets"`
		}
		if err := json.Unmarshal(hdr[name], &info); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if info.DType != "F32" || len(info.Shape) != len(shape) {
			t.Fatalf("%s: dtype %s shape %v, want F32 %v", name, info.DType, info.Shape, shape)
		}
		size := 4
		for i := range shape {
			if info.Shape[i] != shape[i] {
				t.Fatalf("%s: shape %v, want %v", name, info.Shape, shape)
			}
			size *= shape[i]
		}
		if int(info.DataOffsets[1]-info.DataOffsets[0]) != size {
			t.Fatalf("%s: offsets %v for %d bytes", name, info.DataOffsets, size)
		}
		covered += size
		if name == "actor_mean.4.weight" {
			// Row 2, column 5 of PyTorch's [out, in] is W[2*in+5].
			off := info.DataOffsets[0] + 4*(2*64+5)
			got := math.Float32frombits(binary.LittleEndian.Uint32(data[off:]))
			if got != p.Actor[2].W[2*64+5] {
				t.Fatalf("actor_mean.4.weight[2][5] = %v, want %v", got, p.Actor[2].W[2*64+5])
			}
		}
	}
	if covered != len(data) {
		t.Fatalf("tensors cover %d bytes of %d", covered, len(data))
	}
}

// debianPython returns Debian's interpreter when it can import the given
// modules; otherwise the test is skipped with the reason.
func debianPython(t *testing.T, modules ...string) string {
	t.Helper()
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skipf("%s is absent (scripts/setup.sh installs it)", py)
	}
	if out, err := exec.Command(py, "-c", "import "+strings.Join(modules, ", ")).CombinedOutput(); err != nil {
		t.Skipf("%s cannot import %v (scripts/setup.sh installs python3-torch and python3-numpy): %s", py, modules, out)
	}
	return py
}

// PythonActions runs scripts/load_policy.py on the policy prefix and the
// observations and returns its actions.
func PythonActions(t *testing.T, prefix string, obs [][]float64) [][]float64 {
	t.Helper()
	py := debianPython(t, "numpy", "torch")
	of := filepath.Join(t.TempDir(), "obs.json")
	b, _ := json.Marshal(obs)
	if err := os.WriteFile(of, b, 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "load_policy.py"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, script, prefix, "--obs", of)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("load_policy.py: %v\n%s", err, stderr.String())
	}
	var res struct{ Actions [][]float64 }
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("load_policy.py output %q: %v", out, err)
	}
	return res.Actions
}

// TestPythonLoadsPolicy: Debian's NumPy and PyTorch, with no hyperctl code,
// load the files and act on 100 observations like the Go policy.
func TestPythonLoadsPolicy(t *testing.T) {
	for _, tc := range []struct {
		name       string
		obs, act   int
		hidden     []int
		activation string
		normOff    bool
	}{
		{"halfcheetah-tanh-64x64", 17, 6, []int{64, 64}, "tanh", false},
		{"bipedal-relu-3x32-no-norm", 24, 4, []int{32, 32, 32}, "relu", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := randomPolicy(11, "X-v0", tc.obs, tc.act, tc.hidden, tc.activation)
			p.Meta.ObsNorm.Enabled = !tc.normOff
			if err := p.Save(dir, policy.Best); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(5, 5))
			obs := make([][]float64, 100)
			for k := range obs {
				obs[k] = make([]float64, tc.obs)
				for i := range obs[k] {
					obs[k][i] = 4 * rng.NormFloat64() // past the clip sometimes
				}
			}
			got := PythonActions(t, filepath.Join(dir, policy.Best), obs)
			if len(got) != len(obs) {
				t.Fatalf("python returned %d actions, want %d", len(got), len(obs))
			}
			var maxDiff float64
			clipped := 0
			act := make([]float64, tc.act)
			for k, o := range obs {
				if err := p.Act(o, act); err != nil {
					t.Fatal(err)
				}
				for j := range act {
					maxDiff = math.Max(maxDiff, math.Abs(act[j]-got[k][j]))
					if act[j] == p.Meta.ActionLow[j] || act[j] == p.Meta.ActionHigh[j] {
						clipped++
					}
				}
			}
			t.Logf("max |action(Go) - action(PyTorch)| over 100 observations = %.3g (%d of %d values at a bound)", maxDiff, clipped, 100*tc.act)
			if maxDiff > 1e-5 {
				t.Fatalf("max action difference %.3g > 1e-5", maxDiff)
			}
			if clipped == 0 || clipped == 100*tc.act {
				t.Fatalf("%d of %d values at a bound: the test should exercise both the clip and the interior", clipped, 100*tc.act)
			}
		})
	}
}

func TestLoadRefusesBadFiles(t *testing.T) {
	save := func(t *testing.T) (string, *policy.Policy) {
		dir := t.TempDir()
		p := randomPolicy(1, "Reacher-v4", 10, 2, []int{8}, "tanh")
		if err := p.Save(dir, policy.Final); err != nil {
			t.Fatal(err)
		}
		return dir, p
	}
	t.Run("torn pair", func(t *testing.T) {
		dir, _ := save(t)
		w, _ := policy.Paths(dir, policy.Final)
		b, _ := os.ReadFile(w)
		b[len(b)-1] ^= 1
		if err := os.WriteFile(w, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := policy.Load(dir, policy.Final); !errors.Is(err, policy.ErrTorn) {
			t.Fatalf("err = %v, want ErrTorn", err)
		}
	})
	t.Run("unknown sidecar key", func(t *testing.T) {
		dir, _ := save(t)
		_, m := policy.Paths(dir, policy.Final)
		b, _ := os.ReadFile(m)
		body, _, err := statecodec.OpenJSON(b)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatal(err)
		}
		v["bogus"] = 1
		if b, err = statecodec.SealJSON(v); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(m, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := policy.Load(dir, policy.Final); err == nil || !strings.Contains(err.Error(), "bogus") {
			t.Fatalf("err = %v, want one naming the unknown key", err)
		}
	})
	t.Run("sizes disagree", func(t *testing.T) {
		dir, p := save(t)
		p.Meta.ObsSize = 11
		_, m := policy.Paths(dir, policy.Final)
		b, _ := statecodec.SealJSON(p.Meta)
		if err := os.WriteFile(m, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := policy.Load(dir, policy.Final); err == nil || !strings.Contains(err.Error(), "want input 11") {
			t.Fatalf("err = %v, want a layer size error", err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		if _, err := policy.Load(t.TempDir(), policy.Best); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("err = %v, want not-exist", err)
		}
	})
}

func TestCheckEnvNamesBoth(t *testing.T) {
	p := randomPolicy(1, "HalfCheetah-v4", 17, 6, []int{8}, "tanh")
	err := p.CheckEnv("Reacher-v4", 10, 2)
	if err == nil || !strings.Contains(err.Error(), "HalfCheetah-v4 (observation size 17, action size 6)") ||
		!strings.Contains(err.Error(), "Reacher-v4 (observation size 10, action size 2)") {
		t.Fatalf("err = %v, want both envs and sizes named", err)
	}
	env, err := envs.Make("reacher")
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if _, _, err := policy.Episode(context.Background(), p, env, 0, nil); err == nil {
		t.Fatal("Episode accepted a policy for another environment")
	}
}

func TestEvaluateIsDeterministic(t *testing.T) {
	spec, err := envs.Lookup("reacher")
	if err != nil {
		t.Fatal(err)
	}
	p := policytest.ForEnv(spec, 9)
	r1, err := policy.Evaluate(context.Background(), p, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := policy.Evaluate(context.Background(), p, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(r1.Returns) != 3 || r1.Lengths[0] != spec.MaxEpisodeSteps {
		t.Fatalf("returns %v lengths %v, want 3 full episodes of %d steps", r1.Returns, r1.Lengths, spec.MaxEpisodeSteps)
	}
	for k := range r1.Returns {
		if r1.Returns[k] != r2.Returns[k] {
			t.Fatalf("episode %d: %v then %v", k, r1.Returns[k], r2.Returns[k])
		}
	}
	if r1.Returns[0] == r1.Returns[1] {
		t.Fatalf("episodes 0 and 1 have the same return %v: seeds not applied", r1.Returns[0])
	}
	if !(r1.Min <= r1.Mean && r1.Mean <= r1.Max) || r1.Std <= 0 {
		t.Fatalf("stats %+v inconsistent", r1)
	}
	if _, err := policy.Evaluate(context.Background(), p, 0, 0); err == nil {
		t.Fatal("0 episodes accepted")
	}
}

// TestEpisodeDependsOnItsSeedAlone: episode k of an evaluation from seed S
// is the episode of an evaluation from seed S+k, even on BipedalWalker,
// whose Box2D world outlives resets.
func TestEpisodeDependsOnItsSeedAlone(t *testing.T) {
	for _, name := range []string{"bipedalwalker", "halfcheetah"} {
		spec, err := envs.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		p := policytest.ForEnv(spec, 4)
		all, err := policy.Evaluate(context.Background(), p, 3, 0)
		if err != nil {
			t.Fatal(err)
		}
		one, err := policy.Evaluate(context.Background(), p, 1, 2)
		if err != nil {
			t.Fatal(err)
		}
		if all.Returns[2] != one.Returns[0] || all.Lengths[2] != one.Lengths[0] {
			t.Fatalf("%s: episode 2 from seed 0 returned %v in %d steps, seed 2 alone %v in %d", name, all.Returns[2], all.Lengths[2], one.Returns[0], one.Lengths[0])
		}
	}
}

// Describe names the environment, the file, the iteration and frames, and
// the training evaluation when there was one.
func TestDescribe(t *testing.T) {
	ret := 12.345
	for _, c := range []struct {
		meta policy.Meta
		want string
	}{
		{policy.Meta{Env: "Reacher-v4", Iteration: 3, Frames: 6144}, "Reacher-v4 policy-final: iteration 3, 6144 frames"},
		{policy.Meta{Env: "Reacher-v4", Iteration: 3, Frames: 6144, EvalReturn: &ret}, "Reacher-v4 policy-final: iteration 3, 6144 frames, training evaluation 12.35"},
	} {
		p := &policy.Policy{Meta: c.meta}
		if got := p.Describe(policy.Final); got != c.want {
			t.Errorf("Describe = %q, want %q", got, c.want)
		}
	}
}

// CheckEpisodes takes 1 to MaxEpisodes episodes and a first seed that
// keeps seed+k a valid int64 for every episode k.
func TestCheckEpisodes(t *testing.T) {
	flags := words.Words{Episodes: "--episodes", Seed: "--seed"}
	for _, c := range []struct {
		episodes int
		seed     int64
		err      string
	}{
		{1, 0, ""},
		{policy.MaxEpisodes, math.MaxInt64 - (policy.MaxEpisodes - 1), ""},
		{0, 0, "episodes: want an integer in [1, 1000000], got 0"},
		{policy.MaxEpisodes + 1, 0, "episodes: "},
		{1, -1, "seed: want an integer in [0, 9223372036854775807] for 1 episodes"},
		{3, math.MaxInt64 - 1, "seed: want an integer in [0, 9223372036854775805] for 3 episodes (episode k uses seed+k)"},
	} {
		err := policy.CheckEpisodes(c.episodes, c.seed)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.HasPrefix(err.Error(), c.err)) {
			t.Errorf("CheckEpisodes(%d, %d) = %v; want %q", c.episodes, c.seed, err, c.err)
		}
		// The parameter in Go's words, the flag in a command line's.
		if err != nil && words.Say(err, flags) != "--"+err.Error() {
			t.Errorf("CheckEpisodes(%d, %d) in flags: %q, want --%s", c.episodes, c.seed, words.Say(err, flags), err)
		}
	}
}
