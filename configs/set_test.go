package configs

import (
	"errors"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/internal/ground/words"
)

// TestSet: WithSet assignments are decoded, checked and reported as the
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
		// The file's messages, under "FILE + configs.WithSet".
		{[]string{"ppo.clip=1.5"}, "config <default:reacher> + configs.WithSet: ppo.clip: want a value in (0, 1), got 1.5", nil},
		{[]string{"ppo.learning_rate=1e-4"}, "ppo.learning_rate: unknown key; allowed: ", nil},
		// The nearest key, written as WithSet takes it.
		{[]string{"ppo.clp=0.3"}, "config <default:reacher> + configs.WithSet: ppo.clp: unknown key (did you mean ppo.clip?)", nil},
		{[]string{"itertions=5"}, "config <default:reacher> + configs.WithSet: itertions: unknown key (did you mean iterations?)", nil},
		{[]string{"controller.hypercontroller.lamda=1"}, "controller.hypercontroller.lamda: unknown key (did you mean controller.hypercontroller.lambda?)", nil},
		{[]string{"controller.hypercontroler.d=5"}, "controller.hypercontroler: unknown key or controller table (did you mean controller.hypercontroller?)", nil},
		{[]string{"controller.tune[0].hihg=0.3"}, "controller.tune.hihg: unknown key (did you mean controller.tune.high?)", nil},
		// A value of the wrong type: the value as written and the type wanted.
		{[]string{"ppo.lr=abc"}, `config <default:reacher> + configs.WithSet: ppo.lr: want a number, got "abc" (a string)`, nil},
		{[]string{"iterations=1e3"}, `config <default:reacher> + configs.WithSet: iterations: want an integer, got 1e3 (a number)`, nil},
		{[]string{"ppo.norm_obs=1"}, `ppo.norm_obs: want true or false, got 1 (an integer)`, nil},
		{[]string{"ppo.hidden=64"}, `ppo.hidden: want an array, got 64 (an integer)`, nil},
		{[]string{"controller.hypercontroller.q=1"}, "controller.hypercontroller.q: unknown key", nil},
		// The assignment itself.
		{[]string{"ppo.lr"}, `config <default:reacher>: configs.WithSet "ppo.lr": want KEY=VALUE`, nil},
		{[]string{"controller.tune[9].low=1"}, "configs.WithSet controller.tune[9].low: controller.tune has no element 9 (it has 4)", nil},
		{[]string{"seed.x=1"}, "configs.WithSet seed.x: seed is a value, not a table", nil},
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

// TestConfigWords: a config's errors name WithSet and the controller's
// override in Go by themselves, and a command line's flags through
// words.Say, one problem or several.
func TestConfigWords(t *testing.T) {
	flags := words.Words{Set: "--set", Controller: "--controller"}
	tuned := "[[controller.tune]]\nname = \"lr\"\nlow = 1e-5\nhigh = 1e-3\nscale = \"log\"\n"
	for _, tc := range []struct {
		name         string
		err          error
		goText, flag string
	}{
		{"assignment", second(Default("reacher", WithSet("ppo.lr"))),
			`config <default:reacher>: configs.WithSet "ppo.lr": want KEY=VALUE, e.g. ppo.lr=1e-4`,
			`config <default:reacher>: --set "ppo.lr": want KEY=VALUE, e.g. ppo.lr=1e-4`},
		{"assigned key", second(Default("reacher", WithSet("seed.x=1"))),
			"config <default:reacher>: configs.WithSet seed.x: seed is a value, not a table",
			"config <default:reacher>: --set seed.x: seed is a value, not a table"},
		{"the file's check", second(Default("reacher", WithSet("ppo.clip=1.5"))),
			"config <default:reacher> + configs.WithSet: ppo.clip: want a value in (0, 1), got 1.5",
			"config <default:reacher> + --set: ppo.clip: want a value in (0, 1), got 1.5"},
		{"several problems", second(Default("reacher", WithSet("ppo.clip=1.5", "ppo.gamma=2"))),
			"config <default:reacher> + configs.WithSet: 2 problems:",
			"config <default:reacher> + --set: 2 problems:"},
		{"tuned without a controller", second(Parse("t.toml", tuned)),
			"or an Override that sets Controller.Name), or name",
			"or --controller), or name"},
	} {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		var wd words.Worded
		if !errors.As(tc.err, &wd) {
			t.Errorf("%s: %T is not words.Worded", tc.name, tc.err)
		}
		if got := tc.err.Error(); !strings.Contains(got, tc.goText) || strings.Contains(got, "--") {
			t.Errorf("%s: %q, want %q and no flag", tc.name, got, tc.goText)
		}
		if got := words.Say(tc.err, flags); !strings.Contains(got, tc.flag) {
			t.Errorf("%s: in flags %q, want %q", tc.name, got, tc.flag)
		}
	}
}

// second is the error of a (value, error) pair.
func second[T any](_ T, err error) error { return err }
