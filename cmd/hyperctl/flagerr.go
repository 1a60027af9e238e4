package main

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/ground/suggest"
	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/envs"
)

// usageError marks errors in how the command was called (exit code 2).
// cmd, when set, is the command path ("hyperctl train"): the message is
// then printed under that name, once, with a pointer to its help.
type usageError struct {
	cmd string
	err error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return &usageError{err: fmt.Errorf(format, a...)} }

// envError is the usage error of an unknown environment name given to
// flag, with the nearest registered one.
func envError(flag, name string) error {
	var names []string
	for _, s := range envs.List() {
		names = append(names, s.Name)
	}
	return usagef("%s: unknown environment %q%s; valid environments: %s", flag, name, suggest.DidYouMean(name, names, ""), strings.Join(names, ", "))
}

// controllerError is the usage error of an unknown controller name given
// to flag, with the nearest one (fixed included).
func controllerError(flag, name string) error {
	names := append(controller.Names(), configs.Fixed)
	return usagef("%s: unknown controller %q%s; valid controllers: %s", flag, name, suggest.DidYouMean(name, names, ""), strings.Join(names, ", "))
}

var (
	unknownFlag  = regexp.MustCompile(`^unknown flag: --(.+)$`)
	invalidValue = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?--([^"]+)" flag: (.*)$`)
)

// flagError rewords pflag's parse errors for cmd: an unknown flag names
// the nearest one, a value of the wrong type says what the flag wants
// instead of Go's parser message, and every one is printed once under the
// command's name with a pointer to its --help.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	var flags []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) { flags = append(flags, f.Name) })
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if !slices.Contains(flags, f.Name) {
			flags = append(flags, f.Name)
		}
	})
	if m := unknownFlag.FindStringSubmatch(msg); m != nil {
		if hint := foreignFlag(m[1], flags); hint != "" {
			return &usageError{cmd: cmd.CommandPath(), err: fmt.Errorf("unknown flag --%s; %s", m[1], hint)}
		}
		return &usageError{cmd: cmd.CommandPath(), err: fmt.Errorf("unknown flag --%s%s", m[1], suggest.DidYouMean(m[1], flags, "--"))}
	}
	if m := invalidValue.FindStringSubmatch(msg); m != nil {
		if f := cmd.Flags().Lookup(m[2]); f != nil {
			want := "want " + wantOf(f.Value.Type())
			if _, ok := f.Value.(*framesValue); ok {
				want = m[3] // its own words
			}
			return &usageError{cmd: cmd.CommandPath(), err: fmt.Errorf("--%s %q: %s", m[2], m[1], want)}
		}
	}
	return &usageError{cmd: cmd.CommandPath(), err: errors.New(msg)}
}

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

// foreignFlag words the hyperctl form of a CleanRL or SB3 flag name (- or
// _ between words) among a command's flags: "" when it is none of theirs.
func foreignFlag(name string, flags []string) string {
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

// wantOf words what a flag of pflag type typ accepts.
func wantOf(typ string) string {
	switch typ {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "count":
		return "an integer"
	case "float32", "float64":
		return "a number"
	case "duration":
		return "a duration such as 500ms, 30s or 2m"
	case "bool":
		return "true or false"
	}
	return "a " + typ
}

// framesValue is a flag that holds a number of frames (train's and
// compare's --frames; population's --frames, --ready, --first-exploit and
// --min-frames): an integer, written out (1000000) or as an integral float
// (1e6, 2.5e5), in [0, configs.MaxFrames]. It is the one parser of frame
// counts on the command line; a command checks its own lower bound beyond 0.
type framesValue struct{ p *int64 }

// newFramesValue sets *p to def and returns the flag value that sets it.
func newFramesValue(p *int64, def int64) *framesValue {
	*p = def
	return &framesValue{p}
}

// Set parses s (configs.ParseFrames).
func (v *framesValue) Set(s string) error {
	n, err := configs.ParseFrames(s)
	if err != nil {
		return err
	}
	*v.p = n
	return nil
}

// String is the value in decimal.
func (v *framesValue) String() string { return strconv.FormatInt(*v.p, 10) }

// Type names the value in --help.
func (v *framesValue) Type() string { return "frames" }
