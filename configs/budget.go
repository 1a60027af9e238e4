package configs

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// This file holds the rules that relate a run's keys to each other: the
// frame budget against the iteration cap, the tuned ranges against the
// rules between ppoconfig.Hyper's keys, and which hyperparameters train.csv logs.

// tuned returns the [[controller.tune]] entry named name and its index, or
// -1 (none when the run has no controller).
func (r *Run) tuned(name string) (TuneParam, int) {
	if r.Controller.Name == Fixed {
		return TuneParam{}, -1
	}
	for i, t := range r.Controller.Tune {
		if t.Name == name {
			return t, i
		}
	}
	return TuneParam{}, -1
}

// valueRange is the smallest and largest value key takes in the run: its
// tuned bounds (integer keys rounded inwards, as the space rounds them)
// when a controller tunes it, else its [ppo] value twice.
func (r *Run) valueRange(key string) (lo, hi float64) {
	if t, i := r.tuned(key); i >= 0 {
		lo, hi = t.Low, t.High
		if k, err := ppoconfig.LookupHyperKey(key); err == nil && (k.Integer || t.Integer) {
			lo, hi = math.Ceil(lo), math.Floor(hi)
		}
		return lo, hi
	}
	v, err := r.PPO.Hyper.Get(key)
	if err != nil {
		panic(fmt.Sprintf("configs: %v", err)) // a key of this file that ppoconfig.Hyper lost: caught by any test
	}
	return v, v
}

// MinFramesPerIteration is the fewest frames an iteration of the run can
// collect: the smallest batch size it may use, rounded up to a multiple of
// num_envs as the trainer rounds it.
func (r *Run) MinFramesPerIteration() int64 {
	lo, _ := r.valueRange("batch_size")
	n := int64(max(r.PPO.NumEnvs, 1))
	b := int64(max(lo, 1))
	return (b + n - 1) / n * n
}

// checkFrames: frames >= 0, and a budget must be reachable within the
// iteration cap whatever batch sizes the controller picks, so that every
// run of a comparison trains on at least the budget.
func (r *Run) checkFrames() *Error {
	if r.Frames < 0 || r.Frames > MaxFrames {
		return &Error{Key: "frames", Msg: fmt.Sprintf("want an integer in [0, %d] (0: no frame budget), got %d", int64(MaxFrames), r.Frames)}
	}
	if r.Frames == 0 || r.Iterations < 1 {
		return nil
	}
	per := r.MinFramesPerIteration()
	if need := (r.Frames + per - 1) / per; int64(r.Iterations) < need {
		return &Error{Key: "frames", Msg: fmt.Sprintf("%d frames may not be reached in iterations = %d: an iteration may collect as few as %d frames; set iterations >= %d",
			r.Frames, r.Iterations, per, need)}
	}
	return nil
}

// checkTunedRules checks ppoconfig.Hyper's rules between keys (minibatch_size <=
// batch_size, lr × lr_scale <= 1) for every value the tuned ranges allow,
// so a controller can never pick an invalid combination; and that lr and
// lr_scale are not both tuned. The [ppo] values alone are checked by
// ppoconfig.Config.Validate.
func (r *Run) checkTunedRules() *Error {
	bad := func(key, msg string) *Error { return &Error{Key: key, Msg: msg} }
	at := func(name string) string {
		if _, i := r.tuned(name); i >= 0 {
			return fmt.Sprintf("controller.tune[%d]", i)
		}
		return "ppo." + name
	}
	_, il := r.tuned("lr")
	_, is := r.tuned("lr_scale")
	if il >= 0 && is >= 0 {
		return bad(fmt.Sprintf("controller.tune[%d]", max(il, is)), "lr and lr_scale are both tuned; tune lr (the controller replaces the learning rate) or lr_scale (it scales the annealed schedule), not both")
	}
	_, mbHi := r.valueRange("minibatch_size")
	bLo, _ := r.valueRange("batch_size")
	if mbHi > bLo {
		what := "ppo.batch_size"
		if _, i := r.tuned("batch_size"); i >= 0 {
			what = "the lower bound of the tuned batch_size"
		}
		if _, i := r.tuned("minibatch_size"); i < 0 {
			return bad(at("minibatch_size"), fmt.Sprintf("want an integer <= %g, the smallest batch this run can use (%s), got %g", bLo, what, mbHi))
		}
		return bad(at("minibatch_size"), fmt.Sprintf("minibatch_size may reach %g but batch_size may be as low as %g (%s); want minibatch_size <= batch_size for every value the tuned ranges allow", mbHi, bLo, what))
	}
	_, lrHi := r.valueRange("lr")
	_, scHi := r.valueRange("lr_scale")
	if lrHi*scHi > 1 {
		key := at("lr_scale")
		if _, i := r.tuned("lr_scale"); i < 0 {
			key = at("lr")
		}
		return bad(key, fmt.Sprintf("lr may reach %g and lr_scale %g; want lr × lr_scale <= 1 for every value the tuned ranges allow", lrHi, scHi))
	}
	return nil
}

// LoggedHyper lists the hyperparameters train.csv logs every iteration, in
// ppoconfig.HyperNames' order: the paper's four (the keys with paper bounds,
// tuned or not) and every other tuned key. The keys left out are constant
// over the run and recorded in config.toml. With the paper's space and with
// `fixed` this is the four columns train.csv has always had, so earlier
// runs keep their header (and resume with a newer binary).
func (r *Run) LoggedHyper() []string {
	var out []string
	for _, k := range ppoconfig.HyperKeys() {
		if _, i := r.tuned(k.Name); i >= 0 || k.PaperLow != 0 || k.PaperHigh != 0 {
			out = append(out, k.Name)
		}
	}
	return slices.Clip(out)
}

// ParseFrames reads a number of frames as the command line writes it: an
// integer, or a float with no fractional part (1e6, 2.5e5), in [0,
// MaxFrames]; the error says what is wanted.
func ParseFrames(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		if n < 0 || n > MaxFrames {
			return 0, fmt.Errorf("want a number of frames in [0, %d], got %d", int64(MaxFrames), n)
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("want a number of frames: an integer such as 1000000, or 1e6")
	}
	if f != math.Trunc(f) {
		return 0, fmt.Errorf("want a whole number of frames, got %s (not an integer)", t)
	}
	if f < 0 || f > MaxFrames {
		return 0, fmt.Errorf("want a number of frames in [0, %d], got %s", int64(MaxFrames), t)
	}
	return int64(f), nil
}

// FramesValue is a command-line flag value (a pflag.Value) that holds a
// number of frames (train's and compare's --frames; population's --frames,
// --ready, --first-exploit and --min-frames): an integer, written out
// (1000000) or as an integral float (1e6, 2.5e5), in [0, MaxFrames]. It is
// the one parser of frame counts on the command line; a command checks its
// own lower bound beyond 0.
type FramesValue struct{ p *int64 }

// NewFramesValue sets *p to def and returns the flag value that sets it.
func NewFramesValue(p *int64, def int64) *FramesValue {
	*p = def
	return &FramesValue{p}
}

// Set parses s (ParseFrames).
func (v *FramesValue) Set(s string) error {
	n, err := ParseFrames(s)
	if err != nil {
		return err
	}
	*v.p = n
	return nil
}

// String is the value in decimal.
func (v *FramesValue) String() string { return strconv.FormatInt(*v.p, 10) }

// Type names the value in --help.
func (v *FramesValue) Type() string { return "frames" }
