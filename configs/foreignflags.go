package configs

import (
	"fmt"
	"slices"
	"strings"
)

// foreignKeys are the PPO settings CleanRL's ppo_continuous_action.py and
// Stable-Baselines3's PPO take as flags (rl-zoo's --hyperparams names),
// by flag name with - for _, and hyperctl's config key of each, with what
// differs in meaning.
var foreignKeys = map[string]string{
	"learning-rate":   "ppo.lr",
	"lr":              "ppo.lr",
	"num-envs":        "ppo.num_envs",
	"n-envs":          "ppo.num_envs",
	"ent-coef":        "ppo.entropy_coef",
	"gamma":           "ppo.gamma",
	"gae-lambda":      "ppo.gae_lambda",
	"clip-coef":       "ppo.clip",
	"clip-range":      "ppo.clip",
	"update-epochs":   "ppo.epochs",
	"n-epochs":        "ppo.epochs",
	"vf-coef":         "ppo.value_coef",
	"max-grad-norm":   "ppo.max_grad_norm",
	"target-kl":       "ppo.target_kl",
	"norm-adv":        "ppo.norm_advantage",
	"clip-vloss":      "ppo.clip_value_loss",
	"anneal-lr":       "ppo.anneal_lr",
	"num-steps":       "ppo.batch_size",
	"n-steps":         "ppo.batch_size",
	"batch-size":      "ppo.minibatch_size",
	"num-minibatches": "ppo.minibatch_size",
}

// foreignNotes say where a CleanRL or SB3 setting means something else
// than the hyperctl key foreignKeys gives it.
var foreignNotes = map[string]string{
	"num-steps":       "; hyperctl's batch_size counts the frames of all environment copies: num_steps x num_envs",
	"n-steps":         "; hyperctl's batch_size counts the frames of all environment copies: n_steps x n_envs",
	"batch-size":      "; SB3's batch_size is the minibatch: hyperctl's ppo.batch_size is the frames collected per iteration",
	"num-minibatches": "; hyperctl sets the minibatch's size: ppo.batch_size / num_minibatches",
}

// ForeignFlag words the hyperctl form of a CleanRL or SB3 flag name (- or
// _ between words) among a command's flags (their names, without --), or
// why hyperctl needs none (a device, tracking, determinism): "" when it is
// none of theirs.
func ForeignFlag(name string, flags []string) string {
	n := strings.ReplaceAll(strings.ToLower(name), "_", "-")
	has := func(f string) bool { return slices.Contains(flags, f) }
	switch n {
	case "total-timesteps", "n-timesteps", "timesteps":
		if has("frames") {
			return "hyperctl's --frames N is the total of environment frames (CleanRL's --total-timesteps, SB3's total_timesteps)"
		}
	case "seed", "seeds", "random-seed", "env-seed":
		for _, f := range []string{"seed", "seeds"} {
			if has(f) && f != n {
				return "did you mean --" + f + "?"
			}
		}
	case "env-id", "env-name":
		if has("env") {
			return "did you mean --env? (a short name or Gymnasium id, see 'hyperctl envs')"
		}
	case "exp-name", "run-name":
		if has("out") {
			return "hyperctl names a run by its folder: --out DIR"
		}
	case "cuda", "device":
		return "hyperctl trains on the CPU (libtorch): there is no device to choose"
	case "track", "wandb-project-name", "wandb-entity", "tensorboard-log":
		return "every run writes TensorBoard events into its folder (tensorboard --logdir DIR); hyperctl has no Weights & Biases tracking"
	case "torch-deterministic":
		return "a run is already deterministic: the same config and seed give the same rows (docs/guarantees.md)"
	}
	key, ok := foreignKeys[n]
	if !ok {
		return ""
	}
	if has("set") {
		return fmt.Sprintf("hyperctl sets it as a config key: --set %s=VALUE%s", key, foreignNotes[n])
	}
	if has("config") {
		return fmt.Sprintf("hyperctl sets it as a config key: %s in --config FILE%s", key, foreignNotes[n])
	}
	return ""
}
