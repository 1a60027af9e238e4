package configs

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hyperctl/hyperctl/controller"
)

// Interval is controller.interval: a decision interval of at least one
// iteration, or IntervalAuto, written "auto" in TOML, which asks the
// controller to recommend one for the run's iteration budget (see
// controller.IntervalRecommender; the bilevel controller's inner-horizon
// rule).
type Interval int

// IntervalAuto is interval = "auto" (controller.IntervalAuto).
const IntervalAuto = Interval(controller.IntervalAuto)

// String returns the interval as written in TOML: the number, or "auto".
func (i Interval) String() string {
	if i == IntervalAuto {
		return "auto"
	}
	return strconv.Itoa(int(i))
}

// UnmarshalTOML accepts an integer or the string "auto".
func (i *Interval) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case int64:
		if x < 1 || x > math.MaxInt32 {
			return fmt.Errorf("want an integer >= 1 or \"auto\", got %d", x)
		}
		*i = Interval(x)
		return nil
	case string:
		if strings.EqualFold(strings.TrimSpace(x), "auto") {
			*i = IntervalAuto
			return nil
		}
		return fmt.Errorf("want an integer >= 1 or \"auto\", got %q", x)
	}
	return fmt.Errorf("want an integer >= 1 or \"auto\", got %v (%T)", v, v)
}

// MarshalTOML writes the integer, or "auto".
func (i Interval) MarshalTOML() ([]byte, error) {
	if i == IntervalAuto {
		return []byte(`"auto"`), nil
	}
	return []byte(strconv.Itoa(int(i))), nil
}

// StepsPerIteration is the number of gradient steps PPO takes per
// iteration at the configured batch size: epochs × ⌈batch_size /
// minibatch_size⌉ (no target-KL early stop). When batch_size is tuned it
// varies; this is its value at the [ppo] setting.
func (r *Run) StepsPerIteration() int {
	p := r.PPO
	if p.Epochs < 1 || p.MinibatchSize < 1 || p.BatchSize < 1 {
		return 0
	}
	return p.Epochs * ((p.BatchSize + p.MinibatchSize - 1) / p.MinibatchSize)
}

// controllerSetup is r's controller setup (see controller.Setup).
func (r *Run) controllerSetup() controller.Setup {
	c := &r.Controller
	return controller.Setup{
		Method: c.Name, Settings: c.Settings[c.Name],
		Interval: int(c.Interval), Objective: c.Objective,
		Seed: r.Seed, Iterations: r.Iterations, StepsPerIteration: r.StepsPerIteration(),
		PerInterval: c.Observe == ObservePeriod,
	}
}

// DecisionInterval resolves controller.interval: the configured number, or
// for "auto" the controller's recommendation for this run's iterations
// (controller.Setup.DecisionInterval; 1 for the fixed controller).
func (r *Run) DecisionInterval() (int, error) {
	if r.Controller.Name == Fixed && r.Controller.Interval == IntervalAuto {
		return 1, nil
	}
	s := r.controllerSetup()
	return s.DecisionInterval()
}

// ControllerSetup returns what building r's controller needs: its settings
// (adapted to the run when they implement controller.RunAdapter) and the
// driver options, with interval = "auto" resolved (controller.Setup.Resolve).
// It is an error for the fixed controller.
func (r *Run) ControllerSetup() (controller.Settings, controller.Options, error) {
	if r.Controller.Name == Fixed {
		return nil, controller.Options{}, errors.New("controller: fixed has no controller to set up")
	}
	s := r.controllerSetup()
	return s.Resolve()
}
