package controller

import (
	"fmt"
	"math"
)

// Setup is what building a run's controller takes besides its space: the
// method and its settings, the decision interval and the objective, and
// the facts of the run the settings may adapt to. A run's config
// (configs.Run.ControllerSetup) and a service request (hyperctl serve) both
// resolve through it.
type Setup struct {
	// Method is the registered method's name.
	Method string
	// Settings are the method's settings; nil means its registered
	// defaults.
	Settings Settings
	// Interval is the decision interval in iterations (>= 1), or
	// IntervalAuto for the settings' recommendation (IntervalRecommender).
	Interval int
	// Objective turns results into the objective X_t.
	Objective Objective
	// Seed seeds the driver's generator: an integer in [0, MaxSeed].
	Seed int64
	// Iterations is the run's iteration budget: an integer in [1,
	// MaxIterations].
	Iterations int
	// StepsPerIteration is the gradient steps of one training iteration,
	// or 0 when the trainer's are unknown.
	StepsPerIteration int
	// PerInterval is Options.PerInterval: one observation per decision
	// period.
	PerInterval bool
}

// IntervalAuto is Setup.Interval's request for a recommended interval.
const IntervalAuto = -1

// DefaultMethod is the method a Setup names by default: a service session,
// which always has a controller, uses it when its request names none. (A
// training run's default is configs.DefaultController.)
const DefaultMethod = "hypercontroller"

// Bounds of the run a controller is set up for.
const (
	// MaxIterations bounds a run's iterations.
	MaxIterations = 10_000_000
	// MaxSeed is the largest run seed (2^61 − 1): one seed drives the
	// environments, the networks and the controller, and the seeds derived
	// from it stay below 2^63.
	MaxSeed = math.MaxInt64 / 4
)

// DefaultSetup returns the setup a config starts from and a service
// request's unset fields take: DefaultMethod with its default settings,
// deciding every 5 iterations (the paper's code) on the Delta objective,
// over a run of 1000 iterations with seed 0.
func DefaultSetup() Setup {
	return Setup{Method: DefaultMethod, Interval: 5, Objective: Delta, Iterations: 1000}
}

// IntervalRecommender is implemented by method settings that can recommend
// a decision interval for IntervalAuto, given the run's iteration budget
// and the gradient steps of one training iteration (0: unknown).
type IntervalRecommender interface {
	RecommendInterval(iterations, stepsPerIteration int) (int, error)
}

// RunAdapter is implemented by method settings that take defaults from the
// run they control (settings left at 0 meaning "from the run"): WithRun
// returns adapted settings and leaves the receiver unchanged.
type RunAdapter interface {
	WithRun(iterations, interval, stepsPerIteration int) Settings
}

// CheckSeed checks a run seed against [0, MaxSeed].
func CheckSeed(seed int64) error {
	if seed < 0 || seed > MaxSeed {
		return fmt.Errorf("want an integer in [0, %d], got %d", int64(MaxSeed), seed)
	}
	return nil
}

// CheckIterations checks a run's iteration budget against [1,
// MaxIterations].
func CheckIterations(n int) error {
	if n < 1 || n > MaxIterations {
		return fmt.Errorf("want an integer in [1, %d], got %d", MaxIterations, n)
	}
	return nil
}

// settings returns s.Settings, or the method's registered defaults.
func (s *Setup) settings() (Settings, error) {
	if s.Settings != nil {
		return s.Settings, nil
	}
	e, err := Lookup(s.Method)
	if err != nil {
		return nil, err
	}
	return e.Defaults(), nil
}

// DecisionInterval resolves Interval: the number itself, or for
// IntervalAuto the settings' recommendation for the run.
func (s *Setup) DecisionInterval() (int, error) {
	if s.Interval != IntervalAuto {
		if s.Interval < 1 {
			return 0, fmt.Errorf("controller.interval: want an integer >= 1 or \"auto\", got %d", s.Interval)
		}
		return s.Interval, nil
	}
	set, err := s.settings()
	if err != nil {
		return 0, err
	}
	rec, ok := set.(IntervalRecommender)
	if !ok {
		return 0, fmt.Errorf("controller.interval: \"auto\" needs a controller that recommends its interval (bilevel); %s does not, set an integer", s.Method)
	}
	k, err := rec.RecommendInterval(s.Iterations, s.StepsPerIteration)
	if err != nil {
		return 0, fmt.Errorf("controller.interval = \"auto\": %w", err)
	}
	if k < 1 {
		return 0, fmt.Errorf("controller.interval = \"auto\": %s recommended %d", s.Method, k)
	}
	return k, nil
}

// Resolve checks the setup and returns what Build takes: the settings
// (adapted to the run when they implement RunAdapter) and the driver
// options, with IntervalAuto resolved. Errors start with the config key
// they concern (seed, iterations, controller.interval).
func (s *Setup) Resolve() (Settings, Options, error) {
	if err := CheckSeed(s.Seed); err != nil {
		return nil, Options{}, fmt.Errorf("seed: %w", err)
	}
	if err := CheckIterations(s.Iterations); err != nil {
		return nil, Options{}, fmt.Errorf("iterations: %w", err)
	}
	k, err := s.DecisionInterval()
	if err != nil {
		return nil, Options{}, err
	}
	set, err := s.settings()
	if err != nil {
		return nil, Options{}, err
	}
	if a, ok := set.(RunAdapter); ok {
		set = a.WithRun(s.Iterations, k, s.StepsPerIteration)
	}
	return set, Options{Interval: k, Objective: s.Objective, Seed: uint64(s.Seed), PerInterval: s.PerInterval}, nil
}
