package configs

import (
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/kladaptive"
	"github.com/hyperctl/hyperctl/controller"
)

// TestKLAdaptiveRun: a kladaptive run tunes lr alone over the rule's
// bounds, never annealed, starting from [ppo] lr; `--preset paper` makes it
// rsl_rl's (its settings, the method's initial lr 1e-3, no annealing); its
// settings are checked with errors naming the key, and presets that do not
// fit it are refused.
func TestKLAdaptiveRun(t *testing.T) {
	for _, c := range []struct {
		name, preset string
		sets         []string
		low, high    float64
		start        string
		anneal       bool
		measure      string
	}{
		{"default", "", nil, 1e-5, 1e-2, StartPPO, true, "minibatch"},
		{"settings", "", []string{"controller.kladaptive.lr_min=1e-6", "controller.kladaptive.measure=\"epoch\"", "controller.kladaptive.desired_kl=0.008"}, 1e-6, 1e-2, StartPPO, true, "epoch"},
		{"paper", "paper", nil, 1e-5, 1e-2, StartMethod, false, "minibatch"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := []Override{WithSet(append([]string{"controller.name=kladaptive"}, c.sets...)...)}
			if c.preset != "" {
				o = append(o, WithPreset(c.preset))
			}
			r, err := Default("halfcheetah", o...)
			if err != nil {
				t.Fatal(err)
			}
			sp, err := r.Controller.Space()
			if err != nil {
				t.Fatal(err)
			}
			p := sp.Param(0)
			if sp.Dim() != 1 || p.Name != "lr" || p.Low != c.low || p.High != c.high || p.Scale != controller.Log {
				t.Fatalf("space %+v", sp.Params())
			}
			if r.Controller.TunedLR != TunedLRReplace || r.Controller.Start != c.start || r.PPO.AnnealLR != c.anneal {
				t.Fatalf("tuned_lr %q start %q anneal_lr %v", r.Controller.TunedLR, r.Controller.Start, r.PPO.AnnealLR)
			}
			s, _ := r.Controller.MethodSettings(kladaptive.Name)
			if ks := s.(*kladaptive.Settings); ks.Measure != c.measure {
				t.Fatalf("settings %+v", ks)
			}
			plan, err := r.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			if plan.Run.AnnealTunedLR {
				t.Fatal("a kladaptive lr would be annealed")
			}
			wantStart := r.PPO.LR
			if c.start == StartMethod {
				wantStart = 0 // the method's own: initial_lr
				if len(plan.Controller.Options.Start) != 0 {
					t.Fatalf("start %v with start = method", plan.Controller.Options.Start)
				}
			} else if got := plan.Controller.Options.Start; len(got) != 1 || got[0] != wantStart {
				t.Fatalf("start %v, want [ppo] lr %g", got, wantStart)
			}
			// config.toml records the fitted run, which loads to itself.
			text, _ := r.Encode()
			back, err := Parse("config.toml", text)
			if err != nil {
				t.Fatal(err)
			}
			if again, _ := back.Encode(); again != text {
				t.Fatalf("config.toml does not round-trip:\n%s\n---\n%s", text, again)
			}
		})
	}
	for _, c := range []struct {
		set, want string
	}{
		{"controller.kladaptive.desired_kl=0", "controller.kladaptive: desired_kl: want a value in (0, 10]"},
		{"controller.kladaptive.factor=0.5", "controller.kladaptive: factor: want a value in (1, 100]"},
		{"controller.kladaptive.lr_max=1e-6", "controller.kladaptive: lr_max: want a value > lr_min"},
		{"controller.kladaptive.measure=\"step\"", "controller.kladaptive: measure: want \"minibatch\""},
		{"controller.kladaptive.initial_lr=0.1", "controller.kladaptive: initial_lr: want a value in [lr_min, lr_max]"},
	} {
		_, err := Default("halfcheetah", WithSet("controller.name=kladaptive", c.set))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.set, err, c.want)
		}
	}
	if _, err := Default("halfcheetah", WithSet("controller.name=kladaptive"), WithPreset("lr-scale")); err == nil || !strings.Contains(err.Error(), "kladaptive moves lr itself") {
		t.Errorf("lr-scale on kladaptive: %v", err)
	}
}
