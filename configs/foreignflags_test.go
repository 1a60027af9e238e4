package configs

import (
	"strings"
	"testing"
)

// A CleanRL or SB3 flag name (- or _, any case) gets hyperctl's form among
// the command's flags: --frames, --seed or --seeds, --env, or the config
// key by --set (else by --config); a name of neither, or a form the
// command lacks, gets none.
func TestForeignFlag(t *testing.T) {
	train := []string{"env", "config", "set", "seed", "frames"}
	for _, c := range []struct {
		name  string
		flags []string
		want  string // "" for no hint; else a part of it
	}{
		{"total-timesteps", train, "hyperctl's --frames N is the total of environment frames"},
		{"total_timesteps", train, "--frames N"},
		{"total-timesteps", []string{"set"}, ""},
		{"learning-rate", train, "hyperctl sets it as a config key: --set ppo.lr=VALUE"},
		{"Learning_Rate", train, "--set ppo.lr=VALUE"},
		{"learning-rate", []string{"config"}, "hyperctl sets it as a config key: ppo.lr in --config FILE"},
		{"learning-rate", []string{"env"}, ""},
		{"n_envs", train, "--set ppo.num_envs=VALUE"},
		{"num-steps", train, "--set ppo.batch_size=VALUE; hyperctl's batch_size counts the frames of all environment copies: num_steps x num_envs"},
		{"batch-size", train, "--set ppo.minibatch_size=VALUE; SB3's batch_size is the minibatch"},
		{"seeds", train, "did you mean --seed?"},
		{"seed", []string{"seeds"}, "did you mean --seeds?"},
		{"random-seed", train, "did you mean --seed?"},
		{"env-id", train, "did you mean --env? (a short name or Gymnasium id, see 'hyperctl envs')"},
		{"env-id", []string{"set"}, ""},
		{"exp-name", []string{"out"}, "hyperctl names a run by its folder: --out DIR"},
		{"exp-name", train, ""},
		{"cuda", train, "hyperctl trains on the CPU"},
		{"track", train, "TensorBoard events into its folder"},
		{"torch-deterministic", train, "already deterministic"},
		{"iters", train, ""},
	} {
		got := ForeignFlag(c.name, c.flags)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("ForeignFlag(%q, %v) = %q; want %q", c.name, c.flags, got, c.want)
		}
	}
}

// FlagWants words each pflag type a flag of hyperctl's has.
func TestFlagWants(t *testing.T) {
	for _, c := range []struct{ typ, want string }{
		{"int", "an integer"}, {"int64", "an integer"}, {"uint", "an integer"}, {"count", "an integer"},
		{"float64", "a number"}, {"duration", "a duration such as 500ms, 30s or 2m"},
		{"bool", "true or false"}, {"string", "a string"},
	} {
		if got := FlagWants(c.typ); got != c.want {
			t.Errorf("FlagWants(%q) = %q, want %q", c.typ, got, c.want)
		}
	}
}
