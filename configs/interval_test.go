package configs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/controller"
)

// autoSettings is a registered stand-in whose settings recommend an
// interval (iterations / (10·steps), at least 1) and take the run's
// decision count.
type autoSettings struct {
	Rounds int `toml:"rounds"`
}

func (s *autoSettings) Validate() error                 { return nil }
func (s *autoSettings) New() (controller.Method, error) { return nil, nil }
func (s *autoSettings) RecommendInterval(iterations, steps int) (int, error) {
	if steps < 1 {
		return 0, fmt.Errorf("no steps")
	}
	return max(1, iterations/(10*steps)), nil
}
func (s *autoSettings) WithRun(iterations, interval, steps int) controller.Settings {
	c := *s
	if c.Rounds == 0 {
		c.Rounds = (iterations + interval - 1) / interval
	}
	return &c
}

func init() {
	_ = controller.Register(controller.Entry{Name: "cfgauto", Summary: "test only", Defaults: func() controller.Settings { return &autoSettings{} }})
}

// interval accepts integers and "auto"; "auto" resolves through the
// controller's recommendation for the run (iterations and PPO gradient
// steps per iteration), the settings take the run's decision count, and a
// config with "auto" round-trips through Encode.
func TestIntervalAuto(t *testing.T) {
	base := "env = \"reacher\"\niterations = 6400\n[ppo]\nbatch_size = 2048\nminibatch_size = 64\nepochs = 10\n[controller]\nname = \"cfgauto\"\n"
	r, err := Parse("cfg.toml", base+"interval = \"auto\"\n")
	if err != nil {
		t.Fatal(err)
	}
	if r.Controller.Interval != IntervalAuto || r.Controller.Interval.String() != "auto" {
		t.Fatalf("interval = %v", r.Controller.Interval)
	}
	if got := r.StepsPerIteration(); got != 320 {
		t.Errorf("steps per iteration = %d, want 10 × 2048/64 = 320", got)
	}
	k, err := r.DecisionInterval()
	if err != nil || k != 2 { // 6400 / 3200
		t.Fatalf("DecisionInterval = %d, %v; want 2", k, err)
	}
	s, opts, err := r.ControllerSetup()
	if err != nil {
		t.Fatal(err)
	}
	if opts.Interval != 2 || opts.Objective != controller.Delta || s.(*autoSettings).Rounds != 3200 {
		t.Errorf("setup: interval %d objective %v rounds %d; want 2, delta, 3200", opts.Interval, opts.Objective, s.(*autoSettings).Rounds)
	}
	// A minibatch that does not divide the batch counts the partial one.
	r.PPO.BatchSize = 2050
	if got := r.StepsPerIteration(); got != 330 {
		t.Errorf("steps per iteration = %d, want 10 × ⌈2050/64⌉ = 330", got)
	}
	r.PPO.BatchSize = 2048

	enc, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(enc, "interval = \"auto\"") {
		t.Fatalf("encoded config lacks interval = \"auto\":\n%s", enc)
	}
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(enc), 0o644); err != nil {
		t.Fatal(err)
	}
	r2, err := Load(p)
	if err != nil || r2.Controller.Interval != IntervalAuto {
		t.Fatalf("re-load: %v, interval %v", err, r2.Controller.Interval)
	}

	// An integer interval: the configured value, settings still adapted.
	r3, err := Parse("cfg.toml", base+"interval = 7\n")
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := r3.DecisionInterval(); k != 7 || r3.Controller.Interval != 7 {
		t.Errorf("interval 7 resolved to %d", k)
	}
	s3, opts3, err := r3.ControllerSetup()
	if err != nil || opts3.Interval != 7 || s3.(*autoSettings).Rounds != 915 {
		t.Errorf("setup with interval 7: %v, %+v, %+v; want interval 7, rounds ⌈6400/7⌉ = 915", err, opts3, s3)
	}
	if enc3, _ := r3.Encode(); !strings.Contains(enc3, "interval = 7\n") {
		t.Errorf("encoded integer interval:\n%s", enc3)
	}
	// fixed accepts auto (nothing to decide).
	rf, err := Parse("cfg.toml", "env = \"reacher\"\n[controller]\nname = \"fixed\"\ninterval = \"auto\"\n")
	if err != nil {
		t.Errorf("fixed with auto: %v", err)
	} else if _, _, err := rf.ControllerSetup(); err == nil {
		t.Error("ControllerSetup of the fixed controller succeeded")
	}
}

// Bad intervals are errors naming controller.interval.
func TestIntervalErrors(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"zero", "interval = 0\n", []string{"controller.interval", ">= 1", "auto"}},
		{"negative", "interval = -3\n", []string{"controller.interval", "-3"}},
		{"float", "interval = 2.5\n", []string{"controller.interval", "2.5"}},
		{"word", "interval = \"soon\"\n", []string{"controller.interval", "soon"}},
		{"auto without a recommender", "name = \"cfgtest\"\ninterval = \"auto\"\n", []string{"controller.interval", "auto", "cfgtest", "bilevel"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("cfg.toml", "env = \"reacher\"\n[controller]\n"+c.text)
			if err == nil {
				t.Fatal("want an error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
