package configs

import (
	"strings"
	"testing"
)

// TestSet: --set assignments are decoded, checked and reported as the
// same keys in a file, and the result records them.
func TestSet(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		want string // "" = accepted
		ok   func(Run) bool
	}{
		{[]string{"ppo.lr=1e-4"}, "", func(r Run) bool { return r.PPO.LR == 1e-4 }},
		{[]string{"controller.hypercontroller.d=5", "seed=7"}, "", func(r Run) bool {
			s, _ := r.Controller.MethodSettings("hypercontroller")
			text, _ := r.Encode()
			return r.Seed == 7 && strings.Contains(text, "d = 5") && s != nil
		}},
		{[]string{"ppo.activation=relu", "ppo.hidden=[32, 32]"}, "", func(r Run) bool { return r.PPO.Activation == "relu" && len(r.PPO.Hidden) == 2 && r.PPO.Hidden[0] == 32 }},
		{[]string{"controller.tune[1].high=0.3"}, "", func(r Run) bool { return r.Controller.Tune[1].High == 0.3 }},
		{[]string{"controller.name=hoof", "controller.hoof.k=8"}, "", func(r Run) bool { return r.Controller.Name == "hoof" }},
		// The file's messages, under "FILE + --set".
		{[]string{"ppo.clip=1.5"}, "config <default:reacher> + --set: ppo.clip: want a value in (0, 1), got 1.5", nil},
		{[]string{"ppo.learning_rate=1e-4"}, "ppo.learning_rate: unknown key; allowed: ", nil},
		// The nearest key, written as --set takes it.
		{[]string{"ppo.clp=0.3"}, "config <default:reacher> + --set: ppo.clp: unknown key (did you mean ppo.clip?)", nil},
		{[]string{"itertions=5"}, "config <default:reacher> + --set: itertions: unknown key (did you mean iterations?)", nil},
		{[]string{"controller.hypercontroller.lamda=1"}, "controller.hypercontroller.lamda: unknown key (did you mean controller.hypercontroller.lambda?)", nil},
		{[]string{"controller.hypercontroler.d=5"}, "controller.hypercontroler: unknown key or controller table (did you mean controller.hypercontroller?)", nil},
		{[]string{"controller.tune[0].hihg=0.3"}, "controller.tune.hihg: unknown key (did you mean controller.tune.high?)", nil},
		// A value of the wrong type: the value as written and the type wanted.
		{[]string{"ppo.lr=abc"}, `config <default:reacher> + --set: ppo.lr: want a number, got "abc" (a string)`, nil},
		{[]string{"iterations=1e3"}, `config <default:reacher> + --set: iterations: want an integer, got 1e3 (a number)`, nil},
		{[]string{"ppo.norm_obs=1"}, `ppo.norm_obs: want true or false, got 1 (an integer)`, nil},
		{[]string{"ppo.hidden=64"}, `ppo.hidden: want an array, got 64 (an integer)`, nil},
		{[]string{"controller.hypercontroller.q=1"}, "controller.hypercontroller.q: unknown key", nil},
		// The assignment itself.
		{[]string{"ppo.lr"}, `--set "ppo.lr": want KEY=VALUE`, nil},
		{[]string{"controller.tune[9].low=1"}, "--set controller.tune[9].low: controller.tune has no element 9 (it has 4)", nil},
		{[]string{"seed.x=1"}, "--set seed.x: seed is a value, not a table", nil},
		{[]string{"ppo..lr=1"}, `key part ""`, nil},
	} {
		r, err := Default("reacher", WithSet(tc.sets...))
		if tc.want == "" {
			if err != nil || !tc.ok(r) {
				t.Errorf("%v: %v", tc.sets, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.sets, err, tc.want)
		}
	}
}
