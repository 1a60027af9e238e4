// Package controller is hyperctl's online hyperparameter control: one small
// Method interface that every algorithm implements, one driver, Controller,
// that any training loop embeds, the registry of methods (Register, Build)
// and the space of tuned hyperparameters (Space). The methods themselves live
// in their own packages: HyperController in controller/hypercontroller, the
// others in baselines/<name>; a blank import of baselines/all registers all
// of them.
//
// The training loop owns the loop. Each iteration it asks the controller for
// a configuration, trains with it, and reports the outcome:
//
//	for it := 0; it < n; it++ {
//		cfg, err := ctl.Suggest()         // hyperparameters for this iteration
//		reward := train(cfg)              // the trainer's own work
//		err = ctl.Observe(controller.Result{Reward: reward})
//	}
//
// The driver turns results into the objective (by default the paper's
// X_t = R_t − R_{t−1}), consults the method every Interval iterations, keeps
// the configuration in force in between, and snapshots everything, RNG
// included, so a restored controller continues exactly as one never stopped.
package controller

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// Method is one hyperparameter-control algorithm. The driver calls Init once,
// then Suggest at every decision point and Observe after every iteration that
// has an objective value. A Method must draw all its randomness from the rng
// given to Init: the driver snapshots that generator.
type Method interface {
	// Init prepares a fresh run over space.
	Init(space Space, rng *rand.Rand) error
	// Suggest writes the next configuration into dst (len(dst) ==
	// space.Dim()), in the parameters' natural units (an lr of 3e-4 is
	// 3e-4, a batch size an integer), each within its range: not the
	// [0, 1] of Space.ToUnit, which a method maps back with FromUnit.
	Suggest(dst Config) error
	// Observe records one iteration's outcome under the configuration that was
	// in force. o.Objective is finite.
	Observe(o Observation) error
	// MarshalBinary returns the method's full state (not the rng).
	MarshalBinary() ([]byte, error)
	// UnmarshalBinary restores a state from MarshalBinary, on a method that
	// was Init-ed over the same space with the same settings.
	UnmarshalBinary([]byte) error
}

// Result is what a trainer reports after one iteration.
type Result struct {
	// Reward is the iteration's mean training reward R_t, the quantity the
	// paper's objective is built from. It must be finite, and at most
	// MaxReward in magnitude.
	Reward float64
	// Frames is the number of environment frames collected this iteration
	// (required, > 0, by the DeltaPerKFrame objective).
	Frames int
	// Elapsed is the iteration's wall time (for per-time objectives).
	Elapsed time.Duration
	// Returns are the episode returns that finished this iteration (optional).
	Returns []float64
}

// Observation is what the driver hands a Method after an iteration.
type Observation struct {
	Iteration  int     // 0-based training iteration t
	Config     Config  // configuration in force during the iteration (do not retain)
	Objective  float64 // X_t, per the driver's Objective
	Reward     float64 // R_t, the raw mean training reward
	PrevReward float64 // R_{t−1} (equal to Reward at t = 0)
	Elapsed    float64 // the iteration's wall time in seconds
	Time       float64 // cumulative training wall time in seconds, through t
}

// Objective selects how a Result becomes the objective X_t that methods
// maximise.
type Objective int

const (
	// Delta is the paper's objective, X_t = R_t − R_{t−1}. The first
	// iteration has no predecessor and is not shown to the method.
	Delta Objective = iota
	// Reward is the raw reward, X_t = R_t.
	Reward
	// DeltaPerSecond is (R_t − R_{t−1}) / elapsed seconds, PB2's
	// improvement per unit time. The first iteration is not shown.
	DeltaPerSecond
	// DeltaPerKFrame is (R_t − R_{t−1}) · 1000 / F_t, the reward change per
	// 1000 frames of experience, F_t being the iteration's frames
	// (Result.Frames). Not in the HyperController paper: the paper's Delta
	// rewards a large batch for its size alone (more frames, more gradient
	// steps, a larger change per iteration), and under a frame budget what
	// counts is the change per frame. The first iteration is not shown.
	DeltaPerKFrame
)

// lastObjective is the last Objective value, for range checks.
const lastObjective = DeltaPerKFrame

// String returns the objective's config name.
func (o Objective) String() string {
	switch o {
	case Delta:
		return "delta"
	case Reward:
		return "reward"
	case DeltaPerSecond:
		return "delta_per_second"
	case DeltaPerKFrame:
		return "delta_per_kframe"
	}
	return fmt.Sprintf("Objective(%d)", int(o))
}

// ObjectiveNames lists the objectives' config names.
func ObjectiveNames() []string {
	out := make([]string, 0, lastObjective+1)
	for o := Delta; o <= lastObjective; o++ {
		out = append(out, o.String())
	}
	return out
}

// ParseObjective parses an objective's config name (ObjectiveNames;
// case-insensitive; "" means delta).
func ParseObjective(s string) (Objective, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	if name == "" {
		return Delta, nil
	}
	for o := Delta; o <= lastObjective; o++ {
		if name == o.String() {
			return o, nil
		}
	}
	return 0, fmt.Errorf("objective %q: want one of %s", s, strings.Join(ObjectiveNames(), ", "))
}

// UnmarshalText decodes an objective's config name (see ParseObjective), so
// a TOML or JSON decoder reads it once, naming the key in its error.
func (o *Objective) UnmarshalText(b []byte) error {
	v, err := ParseObjective(string(b))
	if err != nil {
		return err
	}
	*o = v
	return nil
}

// MarshalText writes the objective's config name.
func (o Objective) MarshalText() ([]byte, error) {
	if o < Delta || o > lastObjective {
		return nil, fmt.Errorf("unknown objective %d", int(o))
	}
	return []byte(o.String()), nil
}

// Value is the objective X_t of the iteration whose result is r (its mean
// training reward R_t = r.Reward, its wall time, its frames), given the
// previous iteration's reward prev (R_{t−1}; havePrev is false at a run's
// first iteration). ok is false where the objective is undefined: every
// objective but Reward at the first iteration, and DeltaPerKFrame for a
// result without frames (x is then 0). This is the one definition of the
// objective: the driver shows it to methods, and `hyperctl train` logs it in
// train.csv, from which DeltaBO transfers.
func (o Objective) Value(r Result, prev float64, havePrev bool) (x float64, ok bool) {
	switch o {
	case Reward:
		return r.Reward, true
	case Delta:
		if havePrev {
			return r.Reward - prev, true
		}
	case DeltaPerSecond:
		if havePrev {
			return (r.Reward - prev) / math.Max(r.Elapsed.Seconds(), 1e-9), true
		}
	case DeltaPerKFrame:
		if havePrev && r.Frames > 0 {
			return (r.Reward - prev) * 1000 / float64(r.Frames), true
		}
	}
	return 0, false
}

// MaxReward bounds the magnitude of a reward (Result.Reward): Observe
// refuses a larger one and leaves the state unchanged. Every objective of
// rewards within it is finite, at most 2e109 in magnitude (DeltaPerSecond
// divides a difference of two rewards by at least 1e-9 s), so the methods'
// statistics (sums of squared objectives) stay finite: a reward of 1e160
// would put 1e320 into a sum of squares. No training reward comes near it.
// The bound is on the reward itself, not only on the objective, because the
// driver keeps the last reward for the next objective (R_t − R_{t−1}): a
// huge first reward, which no method sees, would make every later
// objective huge.
const MaxReward = 1e100

// Options configure the driver.
type Options struct {
	// Interval is the decision interval: a new configuration is chosen every
	// Interval iterations (the paper's code: 5). 0 means 1.
	Interval int
	// Objective turns results into X_t (default Delta).
	Objective Objective
	// Seed seeds the driver's generator, from which the method draws.
	Seed uint64
	// PerInterval shows the method one observation per decision period
	// instead of one per iteration: the objective of the period's mean
	// reward (and its frames and time) against the previous period's mean.
	// The per-iteration delta of a noisy reward is mean-reverting (lag-1
	// autocorrelation about −0.5 in the study), so most of what a method
	// sees per iteration is noise; the period's mean averages Interval
	// iterations. Not in the papers (false).
	PerInterval bool
	// Start is the configuration in force during the first decision
	// period, in place of the method's first suggestion: a trainer's own
	// defaults, so that control starts from them (the method observes the
	// period like any other). nil lets the method choose, as the papers'
	// methods do. It must lie in the space.
	Start Config
}

// Controller drives one Method over one training run. It is not safe for
// concurrent use.
type Controller struct {
	name   string
	method Method
	space  Space
	opts   Options
	pcg    *rand.PCG
	rng    *rand.Rand

	st      driverState
	scratch Config
}

// driverState is everything the driver itself must snapshot.
type driverState struct {
	Iteration  int     // next iteration to run
	Pending    bool    // Suggest was called for Iteration, Observe not yet
	Current    Config  // configuration in force
	HaveConfig bool    // Current is set
	PrevReward float64 // R_{t−1}
	HavePrev   bool
	Time       float64 // cumulative seconds
	Decided    bool    // Pending: the iteration is a decision point
	// With Options.PerInterval: the open period's sums, and the mean
	// reward of the previous period.
	Period     periodSums
	PrevMean   float64
	HavePeriod bool
}

// periodSums accumulate one decision period's results.
type periodSums struct {
	Reward  float64
	N       int
	Frames  int
	Elapsed float64
}

// New builds a driver for method over space and calls method.Init.
func New(name string, method Method, space Space, opts Options) (*Controller, error) {
	if method == nil {
		return nil, errors.New("controller: nil method")
	}
	if space.Dim() == 0 {
		return nil, errors.New("controller: space: no parameters")
	}
	if opts.Interval < 0 {
		return nil, fmt.Errorf("controller: interval: must be >= 1, got %d", opts.Interval)
	}
	if opts.Interval == 0 {
		opts.Interval = 1
	}
	if opts.Objective < Delta || opts.Objective > lastObjective {
		return nil, fmt.Errorf("controller: objective: unknown objective %d", int(opts.Objective))
	}
	if opts.Start != nil {
		if err := space.Validate(opts.Start); err != nil {
			return nil, fmt.Errorf("controller: start: %w", err)
		}
		opts.Start = slices.Clone(opts.Start)
	}
	pcg := rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)
	c := &Controller{
		name: name, method: method, space: space, opts: opts,
		pcg: pcg, rng: rand.New(pcg),
		scratch: make(Config, space.Dim()),
	}
	c.st.Current = make(Config, space.Dim())
	if err := method.Init(space, c.rng); err != nil {
		return nil, fmt.Errorf("controller %s: init: %w", name, err)
	}
	return c, nil
}

// Name is the method's registered name.
func (c *Controller) Name() string { return c.name }

// Space is the controlled space.
func (c *Controller) Space() Space { return c.space }

// Options returns the driver's options (with defaults filled in).
func (c *Controller) Options() Options { return c.opts }

// Iteration is the index of the next iteration to run (the number observed).
func (c *Controller) Iteration() int { return c.st.Iteration }

// Current returns a copy of the configuration in force: the one the last
// Suggest returned, and so the one the last observed iteration ran with.
// Unlike Suggest it never consults the method. ok is false before the first
// Suggest.
func (c *Controller) Current() (cfg Config, ok bool) {
	if !c.st.HaveConfig {
		return nil, false
	}
	return slices.Clone(c.st.Current), true
}

// Previous returns R_{t−1}: the reward of the last observed iteration, the
// one the next Observe's objective is taken against. ok is false before the
// first Observe. The driver's state is the one home of this value in a run
// with a controller (it is saved and restored with Snapshot and Restore).
func (c *Controller) Previous() (reward float64, ok bool) {
	return c.st.PrevReward, c.st.HavePrev
}

// Method returns the underlying method.
func (c *Controller) Method() Method { return c.method }

// Suggest returns the configuration for the current iteration. At decision
// points (every Interval iterations) it consults the method, except at the
// first when Options.Start is set, which puts Start in force, and after the
// first for a method with the Trials ability, whose trainer chooses among
// its Candidates (see Candidates and Choose), or with the LRRule ability,
// whose trainer moves the lr within the update (see LRRule); otherwise it
// returns the configuration in force. Calling it again before Observe returns
// the same configuration. The returned slice is owned by the controller and
// valid until the next Suggest.
func (c *Controller) Suggest() (Config, error) {
	if c.st.Pending {
		return c.st.Current, nil
	}
	// A method with the Trials or LRRule ability acts within each update:
	// it decides at every iteration, whatever the interval.
	inUpdate := isTrials(c.method) || isLRRule(c.method)
	c.st.Decided = !c.st.HaveConfig || c.st.Iteration%c.opts.Interval == 0 || inUpdate
	switch {
	case !c.st.Decided:
	case !c.st.HaveConfig && c.st.Iteration == 0 && c.opts.Start != nil:
		copy(c.st.Current, c.opts.Start)
		c.st.HaveConfig = true
	case c.st.HaveConfig && inUpdate:
		// The configuration in force stays: the trainer chooses among
		// the method's Candidates around it (Trials), or its update
		// moved the lr and put it in force with Choose (LRRule).
	default:
		if err := c.method.Suggest(c.scratch); err != nil {
			return nil, fmt.Errorf("controller %s: suggest at iteration %d: %w", c.name, c.st.Iteration, err)
		}
		if err := c.space.Validate(c.scratch); err != nil {
			return nil, fmt.Errorf("controller %s: suggested an invalid configuration at iteration %d: %w", c.name, c.st.Iteration, err)
		}
		copy(c.st.Current, c.scratch)
		c.st.HaveConfig = true
	}
	c.st.Pending = true
	return c.st.Current, nil
}

// Observe reports the outcome of the iteration whose configuration Suggest
// returned. A non-finite reward or elapsed time, or a reward beyond
// ±MaxReward, is an error and leaves the state unchanged; so is a result
// the method refuses.
func (c *Controller) Observe(r Result) error {
	if !c.st.Pending {
		return fmt.Errorf("controller %s: Observe at iteration %d without a preceding Suggest", c.name, c.st.Iteration)
	}
	el := r.Elapsed.Seconds()
	if el < 0 {
		return fmt.Errorf("controller %s: iteration %d: negative elapsed time %v", c.name, c.st.Iteration, r.Elapsed)
	}
	if c.opts.Objective == DeltaPerKFrame && r.Frames < 1 {
		return fmt.Errorf("controller %s: iteration %d: objective %s needs the iteration's frames (Result.Frames), got %d", c.name, c.st.Iteration, DeltaPerKFrame, r.Frames)
	}
	prev := r.Reward
	if c.st.HavePrev {
		prev = c.st.PrevReward
	}
	obs := Observation{
		Iteration:  c.st.Iteration,
		Config:     c.st.Current,
		Reward:     r.Reward,
		PrevReward: prev,
		Elapsed:    el,
		Time:       c.st.Time + el,
	}
	var show bool
	obs.Objective, show = c.opts.Objective.Value(r, prev, c.st.HavePrev)
	if err := CheckObservation(c.space, obs); err != nil {
		return fmt.Errorf("controller %s: %w", c.name, err)
	}
	if c.opts.PerInterval {
		return c.observePeriod(r, el)
	}
	if show {
		if err := c.method.Observe(obs); err != nil {
			return fmt.Errorf("controller %s: observe at iteration %d: %w", c.name, c.st.Iteration, err)
		}
	}
	c.st.PrevReward, c.st.HavePrev = r.Reward, true
	c.st.Time = obs.Time
	c.st.Iteration++
	c.st.Pending = false
	return nil
}

// observePeriod is Observe with Options.PerInterval: it adds the
// iteration to the open decision period and, at the period's last
// iteration, shows the method the period's objective.
func (c *Controller) observePeriod(r Result, el float64) error {
	p := c.st.Period
	p.Reward += r.Reward
	p.N++
	p.Frames += r.Frames
	p.Elapsed += el
	next := c.st
	next.Period = p
	if (c.st.Iteration+1)%c.opts.Interval == 0 {
		mean := p.Reward / float64(p.N)
		prev := mean
		if c.st.HavePeriod {
			prev = c.st.PrevMean
		}
		res := Result{Reward: mean, Frames: p.Frames, Elapsed: time.Duration(p.Elapsed * float64(time.Second))}
		obs := Observation{Iteration: c.st.Iteration, Config: c.st.Current, Reward: mean, PrevReward: prev,
			Elapsed: p.Elapsed, Time: c.st.Time + el}
		var show bool
		obs.Objective, show = c.opts.Objective.Value(res, prev, c.st.HavePeriod)
		if err := CheckObservation(c.space, obs); err != nil {
			return fmt.Errorf("controller %s: period: %w", c.name, err)
		}
		if show {
			if err := c.method.Observe(obs); err != nil {
				return fmt.Errorf("controller %s: observe at iteration %d: %w", c.name, c.st.Iteration, err)
			}
		}
		next.PrevMean, next.HavePeriod, next.Period = mean, true, periodSums{}
	}
	next.PrevReward, next.HavePrev = r.Reward, true
	next.Time += el
	next.Iteration++
	next.Pending = false
	c.st = next
	return nil
}

// snapshot is the serialised form of a Controller.
type snapshot struct {
	Version   int
	Name      string
	Dim       int
	Params    []string // parameter names, in order
	Interval  int
	Objective Objective
	Driver    driverState
	RNG       []byte
	Method    []byte
}

// Snapshot returns the controller's full state: driver, method and RNG.
func (c *Controller) Snapshot() ([]byte, error) {
	rngState, err := c.pcg.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("controller %s: snapshot rng: %w", c.name, err)
	}
	ms, err := c.method.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("controller %s: snapshot method: %w", c.name, err)
	}
	var buf bytes.Buffer
	s := snapshot{Version: 1, Name: c.name, Dim: c.space.Dim(), Params: c.space.Names(),
		Interval: c.opts.Interval, Objective: c.opts.Objective, Driver: c.st, RNG: rngState, Method: ms}
	if err := gob.NewEncoder(&buf).Encode(s); err != nil {
		return nil, fmt.Errorf("controller %s: snapshot: %w", c.name, err)
	}
	return buf.Bytes(), nil
}

// Restore replaces the state with one from Snapshot of a controller built
// with the same method, settings, space and options. On error the state is
// unchanged.
func (c *Controller) Restore(b []byte) error {
	var s snapshot
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&s); err != nil {
		return fmt.Errorf("controller %s: restore: %w", c.name, err)
	}
	if s.Version != 1 {
		return fmt.Errorf("controller %s: restore: snapshot version %d, want 1", c.name, s.Version)
	}
	if s.Name != c.name || s.Dim != c.space.Dim() {
		return fmt.Errorf("controller %s: restore: snapshot is of %q over %d parameters, this is %q over %d", c.name, s.Name, s.Dim, c.name, c.space.Dim())
	}
	if s.Params != nil && strings.Join(s.Params, ",") != strings.Join(c.space.Names(), ",") {
		return fmt.Errorf("controller %s: restore: snapshot tunes %s, this controller tunes %s", c.name, strings.Join(s.Params, ", "), strings.Join(c.space.Names(), ", "))
	}
	if s.Interval != 0 && (s.Interval != c.opts.Interval || s.Objective != c.opts.Objective) {
		return fmt.Errorf("controller %s: restore: snapshot has interval %d and objective %s, this controller has interval %d and objective %s", c.name, s.Interval, s.Objective, c.opts.Interval, c.opts.Objective)
	}
	if len(s.Driver.Current) != c.space.Dim() {
		return fmt.Errorf("controller %s: restore: snapshot config has %d values", c.name, len(s.Driver.Current))
	}
	if s.Driver.Iteration < 0 {
		return fmt.Errorf("controller %s: restore: snapshot iteration %d is negative", c.name, s.Driver.Iteration)
	}
	if s.Driver.HaveConfig {
		if err := c.space.Validate(s.Driver.Current); err != nil {
			return fmt.Errorf("controller %s: restore: snapshot configuration: %w", c.name, err)
		}
	}
	old, err := c.method.MarshalBinary()
	if err != nil {
		return fmt.Errorf("controller %s: restore: %w", c.name, err)
	}
	if err := c.method.UnmarshalBinary(s.Method); err != nil {
		_ = c.method.UnmarshalBinary(old)
		return fmt.Errorf("controller %s: restore method: %w", c.name, err)
	}
	if err := c.pcg.UnmarshalBinary(s.RNG); err != nil {
		_ = c.method.UnmarshalBinary(old)
		return fmt.Errorf("controller %s: restore rng: %w", c.name, err)
	}
	c.st = s.Driver
	return nil
}
