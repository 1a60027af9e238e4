// Package kladaptive is the KL-adaptive learning rate that PPO
// practitioners use (rsl_rl's schedule = "adaptive", which Isaac Lab
// trains with; rl_games' and skrl's KL-adaptive scheduler), registered as
// "kladaptive".
//
// It acts inside the update, not between iterations: the trainer measures
// the mean analytic KL divergence of the current policy from the one that
// collected the batch, over a minibatch's frames before that minibatch's
// gradient step (rsl_rl; measure = "minibatch"), or as the mean over an
// epoch's minibatches after the epoch (rl_games, skrl; measure = "epoch"),
// and the rule moves the learning rate:
//
//	KL > 2·desired_kl:            lr ← max(lr_min, lr / factor)
//	0 < KL < desired_kl / 2:      lr ← min(lr_max, lr · factor)
//	otherwise (and KL NaN):       lr unchanged
//
// The new lr is that step's (or the next epoch's) and carries over to the
// later minibatches and iterations. The method is the rule
// (controller.LRRule); the KL and the steps are the trainer's (ppo.Run).
// The lr lives in the driver's configuration in force, so it is saved and
// restored with the controller's snapshot.
//
// It controls lr alone, never annealed: a run's config tunes lr over
// [lr_min, lr_max] with tuned_lr = "replace" (configs fits the run to
// it). Observations are checked and otherwise unused.
package kladaptive

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/hyperctl/hyperctl/baselines/internal/common"
	"github.com/hyperctl/hyperctl/controller"
)

// Name is the registered controller name.
const Name = "kladaptive"

// The values of Settings.Measure.
const (
	MeasureMinibatch = "minibatch" // before every minibatch's step (rsl_rl)
	MeasureEpoch     = "epoch"     // after every epoch (rl_games, skrl)
)

// Settings configure the rule ([controller.kladaptive]).
type Settings struct {
	DesiredKL float64 `toml:"desired_kl"` // target KL; the lr falls above 2× it and rises below half of it
	Factor    float64 `toml:"factor"`     // the lr is divided or multiplied by it
	LRMin     float64 `toml:"lr_min"`     // lowest lr
	LRMax     float64 `toml:"lr_max"`     // highest lr
	Measure   string  `toml:"measure"`    // "minibatch" (rsl_rl) or "epoch" (rl_games, skrl)
	// InitialLR is the method's own first lr, in force when the run's
	// controller.start is "method" (`--preset paper`): rsl_rl's PPO
	// default. With start = "ppo" the run starts from [ppo] lr instead.
	InitialLR float64 `toml:"initial_lr"`
}

// DefaultSettings are rsl_rl's values: desired KL 0.01, factor 1.5, lr in
// [1e-5, 1e-2], measured per minibatch, and rsl_rl's initial lr 1e-3 for a
// run that lets the method choose its start.
func DefaultSettings() Settings {
	return Settings{DesiredKL: 0.01, Factor: 1.5, LRMin: 1e-5, LRMax: 1e-2, Measure: MeasureMinibatch, InitialLR: 1e-3}
}

// PaperSettings are the settings of rsl_rl's PPO (algorithms/ppo.py,
// schedule = "adaptive"): the defaults, which are already its values.
func PaperSettings() Settings { return DefaultSettings() }

// Validate reports every invalid field, naming its key.
func (s *Settings) Validate() error {
	var errs []error
	if !(s.DesiredKL > 0 && s.DesiredKL <= 10) {
		errs = append(errs, fmt.Errorf("desired_kl: want a value in (0, 10], got %v", s.DesiredKL))
	}
	if !(s.Factor > 1 && s.Factor <= 100) {
		errs = append(errs, fmt.Errorf("factor: want a value in (1, 100], got %v", s.Factor))
	}
	if !(s.LRMin > 0 && s.LRMin <= 1) {
		errs = append(errs, fmt.Errorf("lr_min: want a value in (0, 1], got %v", s.LRMin))
	}
	if !(s.LRMax > 0 && s.LRMax <= 1) {
		errs = append(errs, fmt.Errorf("lr_max: want a value in (0, 1], got %v", s.LRMax))
	} else if s.LRMin > 0 && s.LRMax <= s.LRMin {
		errs = append(errs, fmt.Errorf("lr_max: want a value > lr_min = %v, got %v", s.LRMin, s.LRMax))
	}
	if _, err := s.measure(); err != nil {
		errs = append(errs, err)
	}
	if !(s.InitialLR >= s.LRMin && s.InitialLR <= s.LRMax) {
		errs = append(errs, fmt.Errorf("initial_lr: want a value in [lr_min, lr_max] = [%v, %v], got %v", s.LRMin, s.LRMax, s.InitialLR))
	}
	return errors.Join(errs...)
}

// measure parses Measure.
func (s *Settings) measure() (controller.KLMeasure, error) {
	switch strings.ToLower(strings.TrimSpace(s.Measure)) {
	case MeasureMinibatch:
		return controller.PerMinibatch, nil
	case MeasureEpoch:
		return controller.PerEpoch, nil
	}
	return 0, fmt.Errorf("measure: want %q (before every minibatch's step, rsl_rl) or %q (after every epoch, rl_games and skrl), got %q", MeasureMinibatch, MeasureEpoch, s.Measure)
}

// Space is the space the rule controls: lr over [lr_min, lr_max], on a log
// scale.
func (s *Settings) Space() controller.Param {
	return controller.Param{Name: controller.LRParam, Low: s.LRMin, High: s.LRMax, Scale: controller.Log}
}

// Next is the rule: the lr after a measurement kl, given lr.
func (s *Settings) Next(lr, kl float64) float64 {
	switch {
	case kl > 2*s.DesiredKL:
		return math.Max(s.LRMin, lr/s.Factor)
	case kl < s.DesiredKL/2 && kl > 0:
		return math.Min(s.LRMax, lr*s.Factor)
	}
	return lr
}

// New returns a fresh rule.
func (s *Settings) New() (controller.Method, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	m, _ := s.measure()
	return &KLAdaptive{set: *s, measure: m, base: common.NewBase(Name)}, nil
}

// KLAdaptive is the method: the rule, for trainers that measure the KL
// (controller.LRRule).
type KLAdaptive struct {
	set     Settings
	measure controller.KLMeasure
	base    common.Base
}

// Init prepares a run over space, which must be lr alone.
func (m *KLAdaptive) Init(space controller.Space, rng *rand.Rand) error {
	if names := space.Names(); len(names) != 1 || names[0] != controller.LRParam {
		return fmt.Errorf("%s: space tunes %s; want %s alone (the rule controls the learning rate)", Name, strings.Join(names, ", "), controller.LRParam)
	}
	return m.base.Init(space, rng)
}

// Suggest writes initial_lr: the first configuration, when the driver has
// no start configuration.
func (m *KLAdaptive) Suggest(dst controller.Config) error {
	if err := m.base.ReadyFor(dst); err != nil {
		return err
	}
	dst[0] = m.set.InitialLR
	return nil
}

// Measure is where the trainer measures the KL (the measure setting).
func (m *KLAdaptive) Measure() controller.KLMeasure { return m.measure }

// NextLR applies the rule (Settings.Next).
func (m *KLAdaptive) NextLR(lr, kl float64) float64 { return m.set.Next(lr, kl) }

// Observe validates o; the rule learns nothing from the objective.
func (m *KLAdaptive) Observe(o controller.Observation) error { return m.base.Check(o) }

// klState versions the method's (empty) state.
const klState = "kladaptive/v1"

// MarshalBinary returns the method's state: it has none besides the
// driver's configuration in force, which holds the lr.
func (m *KLAdaptive) MarshalBinary() ([]byte, error) { return []byte(klState), nil }

// UnmarshalBinary accepts a state from MarshalBinary.
func (m *KLAdaptive) UnmarshalBinary(b []byte) error {
	if string(b) != klState {
		return fmt.Errorf("%s: unmarshal state: not a %s state", Name, klState)
	}
	return nil
}

func init() {
	controller.MustRegister(controller.Entry{Name: Name,
		Defaults: func() controller.Settings { s := DefaultSettings(); return &s },
		Summary:  "KL-adaptive lr (rsl_rl, rl_games, skrl): within the update, lr / 1.5 when KL > 2x desired, x 1.5 when KL < desired / 2"})
}
