package configs_test

import (
	"os"
	"reflect"
	"testing"

	_ "github.com/hyperctl/hyperctl/baselines/all"
	"github.com/hyperctl/hyperctl/configs"
)

// The seven-keys preset on a HOOF run is the wrong-start study's hoof row:
// the same controller section and PPO settings as its config file, on
// every environment, from CleanRL's defaults or from a wrong start; on
// another controller it is refused.
func TestSevenKeysIsTheStudysHoof(t *testing.T) {
	b, err := os.ReadFile("../results/wrong-start/variants/configs/hoof.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ env, set string }{
		{"halfcheetah", ""},
		{"reacher", "ppo.entropy_coef=0.1"},
		{"bipedalwalker", "ppo.epochs=1"},
	} {
		var sets []string
		if tc.set != "" {
			sets = append(sets, tc.set)
		}
		want, err := configs.Parse("hoof.toml", string(b), configs.WithSet(append([]string{"env=" + tc.env}, sets...)...))
		if err != nil {
			t.Fatal(err)
		}
		got, err := configs.Default(tc.env, configs.WithSet(append([]string{"controller.name=hoof"}, sets...)...), configs.WithPreset("seven-keys"))
		if err != nil {
			t.Fatal(err)
		}
		gs, err1 := got.Controller.MethodSettings("hoof")
		ws, err2 := want.Controller.MethodSettings("hoof")
		if err1 != nil || err2 != nil || !reflect.DeepEqual(gs, ws) {
			t.Errorf("%s: HOOF's settings %+v (%v), the study's file %+v (%v)", tc.env, gs, err1, ws, err2)
		}
		got.Controller.Settings, want.Controller.Settings = nil, nil // compared above; the other methods' are unused
		if !reflect.DeepEqual(got.Controller, want.Controller) {
			t.Errorf("%s: preset seven-keys gives\n%+v\nthe study's file\n%+v", tc.env, got.Controller, want.Controller)
		}
		if !reflect.DeepEqual(got.PPO, want.PPO) {
			t.Errorf("%s %s: PPO %+v, the study's file %+v", tc.env, tc.set, got.PPO, want.PPO)
		}
	}
	if _, err := configs.Default("reacher", configs.WithSet("controller.name=hypercontroller"), configs.WithPreset("seven-keys")); err == nil {
		t.Error("seven-keys accepted HyperController")
	}
}
