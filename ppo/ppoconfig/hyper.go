package ppoconfig

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Hyper holds the per-iteration hyperparameters: the [ppo] keys that may
// change before every iteration, so the keys a controller may tune.
// ppo.Trainer.Iterate takes one; Config embeds one, whose values are in
// force where a key is not tuned.
//
// Each field is the only declaration of its key. Its tags give
//   - toml: the key, as in the config file, train.csv's column and the
//     controller's space;
//   - range: the values Validate and Set accept, as an interval such as
//     "(0,1]" or "[1,inf)";
//   - paper (optional): the bounds "low,high" over which the HyperController
//     paper tunes the key, on a linear scale (configs.PaperSpace);
//   - collect:"true" (optional): the key is read while the batch is
//     collected, so trial updates on a collected batch
//     (ppo.Trainer.IterateTrials) cannot vary it (CollectDiff).
//
// The tunable names, train.csv's hyperparameter columns, the "not tunable"
// error and the paper's space are derived from these tags. To make another
// setting tunable, move its field from Config into Hyper with these tags and
// have the trainer read it from the Hyper of the iteration.
//
// Two rules relate keys (Validate checks them, naming both):
//   - minibatch_size <= batch_size: an iteration always has at least one
//     full minibatch (configs checks the same for every value a tuned range
//     allows);
//   - lr × lr_scale <= 1. The trainer's Adam step size is lr × lr_scale:
//     lr_scale (default 1) multiplies the learning rate, annealed or not, so
//     a controller that tunes lr_scale instead of lr keeps the annealed
//     schedule and scales it (lr_t = lr · anneal(t) · lr_scale).
type Hyper struct {
	BatchSize   int     `toml:"batch_size" range:"[1,1048576]" paper:"1000,6000" collect:"true"` // frames collected and trained on per iteration
	Clip        float64 `toml:"clip" range:"(0,1)" paper:"0.1,0.5"`                              // PPO clip ε
	GAELambda   float64 `toml:"gae_lambda" range:"[0,1]" paper:"0.9,1.0"`                        // GAE λ
	LR          float64 `toml:"lr" range:"(0,1]" paper:"1e-5,1e-3"`                              // Adam learning rate (before lr_scale; annealed by ppo.Run when anneal_lr is set and lr is not tuned)
	Gamma       float64 `toml:"gamma" range:"(0,1]" collect:"true"`                              // discount γ, of GAE and of the reward scaler's running return
	EntropyCoef float64 `toml:"entropy_coef" range:"[0,1]"`                                      // entropy bonus coefficient
	ValueCoef   float64 `toml:"value_coef" range:"[0,100]"`                                      // value loss coefficient
	Epochs      int     `toml:"epochs" range:"[1,1000]"`                                         // passes over the batch per iteration
	// MinibatchSize is the frames per minibatch (at most batch_size; the
	// last minibatch of an epoch holds the remainder when it does not divide
	// the iteration's frames).
	MinibatchSize int     `toml:"minibatch_size" range:"[1,1048576]"`
	MaxGradNorm   float64 `toml:"max_grad_norm" range:"[0,1000]"` // global gradient-norm clip (0 disables)
	TargetKL      float64 `toml:"target_kl" range:"[0,10]"`       // stop the epochs early above this approximate KL (0 disables)
	LRScale       float64 `toml:"lr_scale" range:"(0,1000]"`      // multiplier of lr (default 1); see the type's doc
}

// HyperKey describes one per-iteration hyperparameter, a field of Hyper.
type HyperKey struct {
	Name    string // TOML key, e.g. "clip"
	Integer bool   // an integer setting: Set rounds values to the nearest integer
	// PaperLow and PaperHigh are the bounds over which the HyperController
	// paper tunes the key; both 0 when the paper does not tune it.
	PaperLow, PaperHigh float64
	// Collect: the key is read while the batch is collected (batch_size,
	// gamma, through the reward scaler), so it is the same for every
	// candidate of ppo.Trainer.IterateTrials.
	Collect bool
}

// InPaper reports whether the HyperController paper tunes the key (it has
// paper bounds).
func (k HyperKey) InPaper() bool { return k.PaperLow != 0 || k.PaperHigh != 0 }

// hyperField is a HyperKey with what Validate and Set need.
type hyperField struct {
	HyperKey
	index          int // field index in Hyper
	lo, hi         float64
	loOpen, hiOpen bool
}

// hyperFields are read from Hyper's tags once. A malformed tag is a
// programming error in this file, caught by any test of the package.
var hyperFields = func() []hyperField {
	t := reflect.TypeFor[Hyper]()
	out := make([]hyperField, t.NumField())
	for i := range out {
		f := t.Field(i)
		hf := hyperField{HyperKey: HyperKey{Name: f.Tag.Get("toml")}, index: i}
		switch f.Type.Kind() {
		case reflect.Int:
			hf.Integer = true
		case reflect.Float64:
		default:
			panic(fmt.Sprintf("ppo: Hyper.%s: want an int or float64 field", f.Name))
		}
		r := f.Tag.Get("range")
		lo, hi, ok := strings.Cut(strings.Trim(r, "[]()"), ",")
		var err1, err2 error
		hf.lo, err1 = strconv.ParseFloat(strings.TrimSpace(lo), 64)
		hf.hi, err2 = strconv.ParseFloat(strings.TrimSpace(hi), 64)
		if hf.Name == "" || len(r) < 2 || !ok || err1 != nil || err2 != nil || !strings.ContainsAny(r[:1], "[(") || !strings.ContainsAny(r[len(r)-1:], "])") {
			panic(fmt.Sprintf("ppo: Hyper.%s: want tags toml:\"key\" and range:\"[lo,hi]\" (brackets open or closed), got %q", f.Name, f.Tag))
		}
		hf.loOpen, hf.hiOpen = r[0] == '(', r[len(r)-1] == ')'
		switch c := f.Tag.Get("collect"); c {
		case "":
		case "true":
			hf.Collect = true
		default:
			panic(fmt.Sprintf("ppo: Hyper.%s: collect tag %q: want \"true\" or none", f.Name, c))
		}
		if p := f.Tag.Get("paper"); p != "" {
			lo, hi, ok := strings.Cut(p, ",")
			hf.PaperLow, err1 = strconv.ParseFloat(strings.TrimSpace(lo), 64)
			hf.PaperHigh, err2 = strconv.ParseFloat(strings.TrimSpace(hi), 64)
			if !ok || err1 != nil || err2 != nil || !(hf.PaperLow < hf.PaperHigh) || hf.check(hf.PaperLow) != nil || hf.check(hf.PaperHigh) != nil {
				panic(fmt.Sprintf("ppo: Hyper.%s: paper bounds %q: want \"low,high\" inside the range %s", f.Name, p, r))
			}
		}
		out[i] = hf
	}
	return out
}()

// HyperKeys describes the fields of Hyper, in declaration order.
func HyperKeys() []HyperKey {
	out := make([]HyperKey, len(hyperFields))
	for i, f := range hyperFields {
		out[i] = f.HyperKey
	}
	return out
}

// HyperNames lists the keys of Hyper, in declaration order: the
// hyperparameters a controller may tune.
func HyperNames() []string {
	out := make([]string, len(hyperFields))
	for i, f := range hyperFields {
		out[i] = f.Name
	}
	return out
}

// LookupHyperKey returns the per-iteration hyperparameter named name, or an
// error saying that it is not tunable and listing the tunable ones.
func LookupHyperKey(name string) (HyperKey, error) {
	f, err := lookupField(name)
	return f.HyperKey, err
}

func lookupField(name string) (hyperField, error) {
	for _, f := range hyperFields {
		if f.Name == name {
			return f, nil
		}
	}
	return hyperField{}, fmt.Errorf("%q is not tunable; tunable: %s", name, strings.Join(HyperNames(), ", "))
}

// check reports whether v lies in the field's range, as Validate words it.
func (f hyperField) check(v float64) error {
	if !finite(v) || v < f.lo || v > f.hi || (f.loOpen && v == f.lo) || (f.hiOpen && v == f.hi) {
		return fmt.Errorf("ppo.%s: want %s, got %v", f.Name, f.want(), v)
	}
	return nil
}

// want words the range: "a value in (0, 1)", "an integer in [1, 1048576]",
// "a value >= 0".
func (f hyperField) want() string {
	what := "a value"
	if f.Integer {
		what = "an integer"
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	lb, rb, ge, le := "[", "]", ">=", "<="
	if f.loOpen {
		lb, ge = "(", ">"
	}
	if f.hiOpen {
		rb, le = ")", "<"
	}
	switch {
	case !math.IsInf(f.lo, 0) && !math.IsInf(f.hi, 0):
		return fmt.Sprintf("%s in %s%s, %s%s", what, lb, num(f.lo), num(f.hi), rb)
	case !math.IsInf(f.lo, 0):
		return fmt.Sprintf("%s %s %s", what, ge, num(f.lo))
	case !math.IsInf(f.hi, 0):
		return fmt.Sprintf("%s %s %s", what, le, num(f.hi))
	}
	return "a finite " + strings.TrimPrefix(strings.TrimPrefix(what, "an "), "a ")
}

func (h *Hyper) field(f hyperField) reflect.Value { return reflect.ValueOf(h).Elem().Field(f.index) }

// Validate reports every value outside its range (errors.Join), each named
// as in TOML (e.g. "ppo.clip: want a value in (0, 1), got 1.5"); when all
// are in range, the first broken rule between keys (see Hyper).
func (h Hyper) Validate() error {
	var errs []error
	for _, f := range hyperFields {
		if err := f.check(h.get(f)); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if h.MinibatchSize > h.BatchSize {
		return fmt.Errorf("ppo.minibatch_size: want an integer <= %d (ppo.batch_size), got %d", h.BatchSize, h.MinibatchSize)
	}
	if lr := h.LR * h.LRScale; lr > 1 {
		return fmt.Errorf("ppo.lr_scale: want lr × lr_scale <= 1, got %v × %v = %v", h.LR, h.LRScale, lr)
	}
	return nil
}

// StepLR is the Adam step size of the iteration: lr × lr_scale.
func (h Hyper) StepLR() float64 { return h.LR * h.LRScale }

func (h *Hyper) get(f hyperField) float64 {
	v := h.field(f)
	if f.Integer {
		return float64(v.Int())
	}
	return v.Float()
}

// CollectDiff returns the first key read while the batch is collected
// (HyperKey.Collect) on which h and o differ, with h's and o's values, and
// false when they agree on every such key: candidates trained on one
// collected batch (ppo.Trainer.IterateTrials) must agree on these keys.
func (h Hyper) CollectDiff(o Hyper) (name string, hv, ov float64, differ bool) {
	for _, f := range hyperFields {
		if a, b := h.get(f), o.get(f); f.Collect && a != b {
			return f.Name, a, b, true
		}
	}
	return "", 0, 0, false
}

// Get returns the value of the hyperparameter named name as a float64, or
// an error saying that it is not a per-iteration key.
func (h Hyper) Get(name string) (float64, error) {
	f, err := lookupField(name)
	if err != nil {
		return 0, fmt.Errorf("ppo: %w", err)
	}
	return h.get(f), nil
}

// Set assigns the hyperparameter named name, rounding integer ones to the
// nearest integer. An unknown name, a non-finite value or one outside the
// key's range is an error, and h is unchanged.
func (h *Hyper) Set(name string, v float64) error {
	f, err := lookupField(name)
	if err != nil {
		return fmt.Errorf("ppo: %w", err)
	}
	if !finite(v) {
		return fmt.Errorf("ppo: %s = %v is not finite", name, v)
	}
	if f.Integer {
		v = math.Round(v)
	}
	if err := f.check(v); err != nil {
		return err
	}
	if f.Integer {
		h.field(f).SetInt(int64(v))
	} else {
		h.field(f).SetFloat(v)
	}
	return nil
}

// Values returns the values in declaration order (HyperNames' order):
// int for integer keys, float64 for the others.
func (h Hyper) Values() []any {
	out := make([]any, len(hyperFields))
	for i, f := range hyperFields {
		out[i] = h.field(f).Interface()
	}
	return out
}

// ValuesOf returns the values of the named keys, in the order given: int
// for integer keys, float64 for the others. An unknown name is an error.
func (h Hyper) ValuesOf(names []string) ([]any, error) {
	out := make([]any, len(names))
	for i, name := range names {
		f, err := lookupField(name)
		if err != nil {
			return nil, fmt.Errorf("ppo: %w", err)
		}
		out[i] = h.field(f).Interface()
	}
	return out, nil
}
