package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestForeignFlags: the flags of CleanRL's and Stable-Baselines3's PPO
// (with - or _) are usage errors that give hyperctl's form: --frames, --seed
// or --seeds, or the config key to --set (in --config for population).
func TestForeignFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "--total-timesteps", "1000000"}, "unknown flag --total-timesteps; hyperctl's --frames N is the total of environment frames"},
		{[]string{"train", "--total_timesteps=1000000"}, "--frames N"},
		{[]string{"train", "--learning-rate", "3e-4"}, "--set ppo.lr=VALUE"},
		{[]string{"train", "--num-envs", "8"}, "--set ppo.num_envs=VALUE"},
		{[]string{"train", "--n_envs", "8"}, "--set ppo.num_envs=VALUE"},
		{[]string{"train", "--seeds", "3"}, "did you mean --seed?"},
		{[]string{"train", "--random-seed", "3"}, "did you mean --seed?"},
		{[]string{"compare", "--seed", "3"}, "did you mean --seeds?"},
		{[]string{"train", "--env-id", "HalfCheetah-v4"}, "did you mean --env?"},
		{[]string{"train", "--ent-coef", "0.01"}, "--set ppo.entropy_coef=VALUE"},
		{[]string{"train", "--gamma", "0.99"}, "--set ppo.gamma=VALUE"},
		{[]string{"train", "--gae-lambda", "0.95"}, "--set ppo.gae_lambda=VALUE"},
		{[]string{"train", "--clip-coef", "0.2"}, "--set ppo.clip=VALUE"},
		{[]string{"train", "--clip_range", "0.2"}, "--set ppo.clip=VALUE"},
		{[]string{"train", "--num-steps", "2048"}, "--set ppo.batch_size=VALUE; hyperctl's batch_size counts the frames of all environment copies: num_steps x num_envs"},
		{[]string{"train", "--n-steps", "2048"}, "--set ppo.batch_size=VALUE; hyperctl's batch_size counts the frames of all environment copies: n_steps x n_envs"},
		{[]string{"train", "--update-epochs", "10"}, "--set ppo.epochs=VALUE"},
		{[]string{"train", "--n_epochs", "10"}, "--set ppo.epochs=VALUE"},
		{[]string{"train", "--num-minibatches", "32"}, "--set ppo.minibatch_size=VALUE; hyperctl sets the minibatch's size: ppo.batch_size / num_minibatches"},
		{[]string{"train", "--batch-size", "64"}, "--set ppo.minibatch_size=VALUE; SB3's batch_size is the minibatch"},
		{[]string{"train", "--vf-coef", "0.5"}, "--set ppo.value_coef=VALUE"},
		{[]string{"train", "--max-grad-norm", "0.5"}, "--set ppo.max_grad_norm=VALUE"},
		{[]string{"train", "--target-kl", "0.02"}, "--set ppo.target_kl=VALUE"},
		{[]string{"compare", "--learning-rate", "3e-4"}, "--set ppo.lr=VALUE"},
		{[]string{"population", "--learning-rate", "3e-4"}, "ppo.lr in --config FILE"},
		{[]string{"train", "--exp-name", "cheetah"}, "unknown flag --exp-name; hyperctl names a run by its folder: --out DIR"},
		{[]string{"train", "--cuda"}, "unknown flag --cuda; hyperctl trains on the CPU"},
		{[]string{"train", "--track"}, "TensorBoard events into its folder"},
		{[]string{"train", "--torch-deterministic"}, "a run is already deterministic"},
		{[]string{"train", "--iters", "5"}, "unknown flag --iters (did you mean --iterations?)"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			cmd := newRootCmd()
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			cmd.SetArgs(c.args)
			err := cmd.ExecuteContext(withDryRun(context.Background()))
			var ue *usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v (usage error: %v), want one with %q", err, ue != nil, c.want)
			}
		})
	}
}
