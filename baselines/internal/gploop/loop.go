// Package gploop is the one decision loop of the GP-UCB family: gpucb,
// pb2, bilevel and deltabo. A member is the loop plus what truly differs:
//
//   - its model (Member): what it fits to the data at a decision and how it
//     maximises its upper confidence bound μ + κσ. gpucb and bilevel share
//     Stationary (an exact GP with a stationary ARD kernel); pb2 fits
//     Ray Tune's time-varying GP on a selected window; deltabo fits the
//     difference to a source GP, whose posterior is its prior mean;
//   - its exploration multiplier κ_t (√β_t of Theorem 1 for gpucb and
//     deltabo, PB2's β for pb2, the bilevel schedule's β_t for bilevel);
//   - its stamp: the leading input columns a period records at its first
//     iteration (pb2: the time and the reward before the period; deltabo:
//     the training progress).
//
// The loop owns the rest, once: the decision periods (every period run
// under one configuration becomes one data point, the configuration in
// [0, 1]^d after the stamp and the period's mean objective), the window of
// the newest points, the round count, the ML-II restart schedule
// (Fitting.At), the fallback when a fit fails, the observation and
// destination checks, state encoding and restore checks, and the settings
// blocks the members embed (Model, Confidence, Fitting, Search), with their
// validation.
package gploop

import (
	"fmt"
	"math/rand/v2"

	"github.com/hyperctl/hyperctl/baselines/gp"
	"github.com/hyperctl/hyperctl/baselines/internal/common"
	"github.com/hyperctl/hyperctl/controller"
)

// Period is one decision period and its stamp.
type Period struct {
	common.Period
	Stamp []float64 // the member's leading input columns, taken at the period's first iteration
}

// State is the loop's part of a member's state; members embed it in the
// state their MarshalBinary saves.
type State struct {
	X      []float64 // inputs of the last Window points, row-major: the stamp, then the configuration in [0, 1]^d
	Y      []float64 // the mean objective of each point
	Aux    []float64 // per-point values the member keeps with each point (Config.Aux), row-major
	Acc    Period    // the open period
	Last   int       // iterations in the most recently closed period
	Rounds int       // decisions made so far (t of the last decision)
	// Hyper are the last fitted hyperparameters of a package gp model, the
	// next fit's warm start (nil before the first fit; deltabo's difference
	// GP keeps its own).
	Hyper *gp.Hyper
	// Failures counts the decisions whose fit failed (then the prior was
	// in force).
	Failures int
}

// Config is what a member tells the loop at Init.
type Config struct {
	// Name is the member's registered name, for errors.
	Name string
	// Window is the number of newest points kept.
	Window int
	// StampCols is the number of stamp columns per point, and Stamp (nil
	// when StampCols is 0) returns them for the first observation of a
	// period.
	StampCols int
	Stamp     func(o controller.Observation) []float64
	// AuxCols is the number of per-point values, and Aux (nil when AuxCols
	// is 0) returns them for a new point's input row.
	AuxCols int
	Aux     func(row []float64) []float64
}

// Loop runs a member's decision periods over its State.
type Loop struct {
	base common.Base
	cfg  Config
	st   *State
	u    []float64 // scratch
}

// Named returns the loop of the member registered as name, for the
// member's errors before Init.
func Named(name string) Loop { return Loop{base: common.NewBase(name)} }

// Init prepares a run over space, keeping the loop's state in st (which
// it resets).
func (l *Loop) Init(space controller.Space, rng *rand.Rand, st *State, cfg Config) error {
	l.base = common.NewBase(cfg.Name)
	if err := l.base.Init(space, rng); err != nil {
		return err
	}
	*st = State{}
	l.cfg, l.st = cfg, st
	return nil
}

// Space is the controlled space.
func (l *Loop) Space() controller.Space { return l.base.Space() }

// Rng is the run's random source (the driver's; nil before Init).
func (l *Loop) Rng() *rand.Rand { return l.base.Rng() }

// Cols is the width of an input row: the stamp, then the configuration.
func (l *Loop) Cols() int { return l.cfg.StampCols + l.Space().Dim() }

// Observe adds o to the open period; a new period is stamped. A bad
// observation is an error and changes nothing.
func (l *Loop) Observe(o controller.Observation) error {
	if err := l.base.Check(o); err != nil {
		return err
	}
	l.u = common.ToUnit(l.Space(), o.Config, l.u)
	a := &l.st.Acc
	if a.Add(l.u, o.Objective, l.close) && l.cfg.Stamp != nil {
		a.Stamp = append(a.Stamp[:0], l.cfg.Stamp(o)...)
	}
	return nil
}

// close turns the open period into a point and drops the oldest beyond the
// window.
func (l *Loop) close() {
	a := &l.st.Acc
	mean, ok := a.Mean()
	if !ok {
		a.Reset()
		return
	}
	st := l.st
	n := len(st.X)
	st.X = append(append(st.X, a.Stamp...), a.X...)
	st.Y = append(st.Y, mean)
	if l.cfg.Aux != nil {
		st.Aux = append(st.Aux, l.cfg.Aux(st.X[n:])...)
	}
	st.Last = a.Count
	st.X = common.Slide(st.X, l.Cols(), l.cfg.Window)
	st.Y = common.Slide(st.Y, 1, l.cfg.Window)
	if l.cfg.AuxCols > 0 {
		st.Aux = common.Slide(st.Aux, l.cfg.AuxCols, l.cfg.Window)
	}
	*a = Period{Period: common.Period{X: a.X[:0]}, Stamp: a.Stamp[:0]}
}

// Begin starts a decision: it checks that the member is initialised and
// dst's length, closes the open period into a point and counts the round.
func (l *Loop) Begin(dst controller.Config) error {
	if err := l.base.ReadyFor(dst); err != nil {
		return err
	}
	l.close()
	l.st.Rounds++
	return nil
}

// Member is what differs between the loop's members.
type Member interface {
	// Fit fits the member's posterior to the loop's points (at least one).
	// On error the prior stays in force.
	Fit() error
	// FlatPrior reports whether the member's prior ranks every
	// configuration alike (a zero-mean stationary GP: the UCB is flat), so
	// that a decision without a posterior draws uniformly.
	FlatPrior() bool
	// Maximize returns the configuration in [0, 1]^d with the highest
	// upper confidence bound μ + κσ under the posterior (fitted) or the
	// prior.
	Maximize(kappa float64, fitted bool) []float64
}

// Decide makes the decision Begin started and writes its configuration to
// dst. The member fits its posterior when there are points; a failed fit
// is counted (Failures) and leaves the prior in force. Without a posterior
// a member with a flat prior draws uniformly (in each parameter's own
// scale); otherwise dst maximises the UCB with multiplier kappa(), which
// is called only then.
func (l *Loop) Decide(dst controller.Config, m Member, kappa func() float64) error {
	fitted := false
	if len(l.st.Y) > 0 {
		if err := m.Fit(); err != nil {
			// The data are finite by construction, so this is a
			// numerically hopeless covariance.
			l.st.Failures++
		} else {
			fitted = true
		}
	}
	if !fitted && m.FlatPrior() {
		common.Uniform(l.Space(), l.Rng(), dst)
		return nil
	}
	common.FromUnit(l.Space(), m.Maximize(kappa(), fitted), dst)
	return nil
}

// check reports whether a restored state fits this loop's space and window
// (and the member's stamp and per-point widths).
func (l *Loop) check(st *State) error {
	n, d := len(st.Y), l.Space().Dim()
	if len(st.X) != n*l.Cols() || len(st.Aux) != n*l.cfg.AuxCols || n > l.cfg.Window || !st.Acc.Fits(d) ||
		(st.Acc.Open && len(st.Acc.Stamp) != l.cfg.StampCols) || st.Rounds < 0 || st.Last < 0 {
		return fmt.Errorf("%s: unmarshal state: inconsistent with this space and settings", l.cfg.Name)
	}
	return nil
}

// LoopState returns s; a member's state embeds State, and so has it too.
func (s *State) LoopState() *State { return s }

// Marshal encodes a member's state (State, or a struct that embeds it).
func (l *Loop) Marshal(st any) ([]byte, error) { return common.Encode(l.cfg.Name, st) }

// Unmarshal decodes a member's state saved by Marshal into a fresh value,
// checks the loop's part and, with check, the member's own, and only then
// stores it in *dst: on error the member is unchanged. The member must
// have been Init-ed over the same space with the same settings.
func Unmarshal[S any, P interface {
	*S
	LoopState() *State
}](l *Loop, b []byte, dst P, check func(P) error) error {
	if err := l.base.Ready(); err != nil {
		return err
	}
	var st S
	if err := common.Decode(l.cfg.Name, b, &st); err != nil {
		return err
	}
	if err := l.check(P(&st).LoopState()); err != nil {
		return err
	}
	if check != nil {
		if err := check(&st); err != nil {
			return err
		}
	}
	*dst = st
	return nil
}

// Stationary is the member of gpucb and bilevel: an exact GP with a
// constant mean and a stationary ARD kernel on the configuration (package
// gp, its default bounds), fitted by ML-II to the points at every decision,
// warm-started from the previous fit, and its UCB maximised by Search's
// Maximizer. Its prior is flat. The two methods differ only in κ_t.
type Stationary struct {
	Loop    *Loop
	Kind    gp.Kind
	Fitting Fitting
	Search  Search
	model   *gp.Model
}

// Fit fits the GP; the k-th decision's restarts follow Fitting.At with
// k = rounds − 1.
func (s *Stationary) Fit() error {
	st := s.Loop.st
	k := gp.Kernel{Kind: s.Kind, Dim: s.Loop.Space().Dim(), ARD: true}
	restarts := s.Fitting.At(st.Hyper != nil, len(st.Y), st.Rounds-1)
	model, err := gp.Fit(st.X, st.Y, gp.FitOptions{Kernel: k, Init: st.Hyper, Restarts: restarts}, s.Loop.Rng())
	if err != nil {
		return err
	}
	h := model.Hyper()
	st.Hyper, s.model = &h, model
	return nil
}

// FlatPrior is true: without data the UCB ranks nothing.
func (s *Stationary) FlatPrior() bool { return true }

// Maximize maximises μ + κσ of the fitted GP.
func (s *Stationary) Maximize(kappa float64, _ bool) []float64 {
	m := s.Search.Maximizer()
	u, _ := m.Maximize(s.model, nil, s.Loop.Space().Dim(), kappa, s.Loop.Rng(), nil)
	return u
}
