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
// IntervalRecommender; the bilevel controller's inner-horizon rule).
type Interval int

// IntervalAuto is interval = "auto".
const IntervalAuto Interval = -1

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

// IntervalRecommender is implemented by controller settings that can
// recommend a decision interval for interval = "auto", given the run's
// iteration budget and the gradient steps of one training iteration.
type IntervalRecommender interface {
	RecommendInterval(iterations, stepsPerIteration int) (int, error)
}

// RunAdapter is implemented by controller settings that take defaults from
// the run they control (settings left at 0 meaning "from the run"):
// WithRun returns adapted settings and leaves the receiver unchanged.
type RunAdapter interface {
	WithRun(iterations, interval, stepsPerIteration int) controller.Settings
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

// DecisionInterval resolves controller.interval: the configured number, or
// for "auto" the controller's recommendation for this run's iterations.
func (r *Run) DecisionInterval() (int, error) {
	c := &r.Controller
	if c.Interval != IntervalAuto {
		if c.Interval < 1 {
			return 0, fmt.Errorf("controller.interval: want an integer >= 1 or \"auto\", got %d", int(c.Interval))
		}
		return int(c.Interval), nil
	}
	if c.Name == Fixed {
		return 1, nil
	}
	s, err := c.MethodSettings(c.Name)
	if err != nil {
		return 0, err
	}
	rec, ok := s.(IntervalRecommender)
	if !ok {
		return 0, fmt.Errorf("controller.interval: \"auto\" needs a controller that recommends its interval (bilevel); %s does not, set an integer", c.Name)
	}
	k, err := rec.RecommendInterval(r.Iterations, r.StepsPerIteration())
	if err != nil {
		return 0, fmt.Errorf("controller.interval = \"auto\": %w", err)
	}
	if k < 1 {
		return 0, fmt.Errorf("controller.interval = \"auto\": %s recommended %d", c.Name, k)
	}
	return k, nil
}

// ControllerSetup returns what building r's controller needs: its settings
// (adapted to the run when they implement RunAdapter) and the driver
// options, with interval = "auto" resolved. It is an error for the fixed
// controller.
func (r *Run) ControllerSetup() (controller.Settings, controller.Options, error) {
	c := &r.Controller
	if c.Name == Fixed {
		return nil, controller.Options{}, errors.New("controller: fixed has no controller to set up")
	}
	k, err := r.DecisionInterval()
	if err != nil {
		return nil, controller.Options{}, err
	}
	s, err := c.MethodSettings(c.Name)
	if err != nil {
		return nil, controller.Options{}, err
	}
	if a, ok := s.(RunAdapter); ok {
		s = a.WithRun(r.Iterations, k, r.StepsPerIteration())
	}
	return s, controller.Options{Interval: k, Objective: c.Objective, Seed: uint64(r.Seed), PerInterval: c.Observe == ObservePeriod}, nil
}
