// Package configs holds hyperctl's run configuration: the TOML schema, its
// strict loader, and one default config per environment (the *.toml files in
// this folder, embedded in the binary).
//
// Decoding is strict: an unknown key, a wrong type or an out-of-range value
// is an error that names the file, the key and what is allowed.
package configs

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/internal/ground/safefile"
	"github.com/hyperctl/hyperctl/internal/ground/suggest"
	"github.com/hyperctl/hyperctl/internal/ground/words"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

//go:embed *.toml
var defaults embed.FS

// Fixed is the controller name for training with fixed hyperparameters (no
// controller): the reference baseline.
const Fixed = "fixed"

// Population is the controller name of a member of a population run
// (`hyperctl population`): its tuned keys are set between generations by
// the population's method (PBT or PB2), not by a registered controller, so
// a member trains only under `hyperctl population`, which gives it its
// configuration for each generation.
const Population = "population"

// Run is one training run's configuration.
type Run struct {
	Env             string           `toml:"env"`              // environment short name or Gymnasium id
	Seed            int64            `toml:"seed"`             // seed for environments, networks and controller
	Iterations      int              `toml:"iterations"`       // PPO iterations (the run's length; with a frame budget, its cap)
	Frames          int64            `toml:"frames"`           // frame budget: stop after the first iteration that reaches it (0: none); see FrameBudget
	EvalEvery       int              `toml:"eval_every"`       // deterministic evaluation every K iterations (0: never)
	CheckpointEvery int              `toml:"checkpoint_every"` // checkpoint every K iterations
	PPO             ppoconfig.Config `toml:"ppo"`
	Controller      Controller       `toml:"controller"`

	preset string   // set by WithPreset, applied by Parse after the overrides
	sets   []string // set by WithSet, applied by Parse to the text before decoding
}

// Controller is the [controller] table.
type Controller struct {
	Name      string               `toml:"name"`      // registered controller name, or "fixed"
	Interval  Interval             `toml:"interval"`  // decision interval in iterations, or "auto"
	Objective controller.Objective `toml:"objective"` // controller.ObjectiveNames: delta | reward | delta_per_second | delta_per_kframe
	Tune      []TuneParam          `toml:"tune"`      // [[controller.tune]]: the tuned hyperparameters
	Observe   string               `toml:"observe"`   // "iteration": the method sees every iteration's objective (the papers); "period": one objective per decision period, from the period's mean reward
	Start     string               `toml:"start"`     // "ppo": the first configuration is [ppo]'s values; "method": the method's own first choice (the papers)
	TunedLR   string               `toml:"tuned_lr"`  // "anneal": a tuned lr v runs as v · anneal(t); "replace": v replaces the annealed lr (the papers)

	// Settings holds each method's own table, [controller.<name>], decoded
	// over that method's defaults. Methods without a table use defaults.
	Settings map[string]controller.Settings `toml:"-"`
}

// TuneParam is one [[controller.tune]] entry.
type TuneParam struct {
	Name    string           `toml:"name"`    // a per-iteration key of ppoconfig.Hyper (ppoconfig.HyperNames)
	Low     float64          `toml:"low"`     // lower bound
	High    float64          `toml:"high"`    // upper bound
	Scale   controller.Scale `toml:"scale"`   // "linear" or "log"
	Integer bool             `toml:"integer"` // round to integers (always for integer keys such as batch_size)
}

// Error is a configuration error that names the file and the key. The
// settings it names beyond the config (WithSet's assignments) are
// words.Words' placeholders: it is a words.Worded error.
type Error struct {
	File string // config file ("<default:halfcheetah>" for embedded ones)
	Key  string // dotted TOML key, may be empty for file-level errors
	Msg  string // what is wrong and what is allowed
}

// Error is the problem in Go's words.
func (e *Error) Error() string { return e.In(words.Go) }

// In is the problem in w's words.
func (e *Error) In(w words.Words) string {
	if e.Key == "" {
		return w.Fill(fmt.Sprintf("config %s: %s", e.File, e.Msg))
	}
	return w.Fill(fmt.Sprintf("config %s: %s: %s", e.File, e.Key, e.Msg))
}

// MaxErrors bounds the problems one error reports; the rest are counted.
const MaxErrors = 20

// Errors are several problems of one config, each an *Error.
type Errors struct {
	File string
	List []*Error // the first MaxErrors problems
	More int      // problems beyond MaxErrors
}

// Error is the problems in Go's words.
func (e *Errors) Error() string { return e.In(words.Go) }

// In is the problems in w's words (Error.In).
func (e *Errors) In(w words.Words) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "config %s: %d problems:", e.File, len(e.List)+e.More)
	for _, p := range e.List {
		if p.Key == "" {
			fmt.Fprintf(&sb, "\n  %s", p.Msg)
		} else {
			fmt.Fprintf(&sb, "\n  %s: %s", p.Key, p.Msg)
		}
	}
	if e.More > 0 {
		fmt.Fprintf(&sb, "\n  (and %d more)", e.More)
	}
	return w.Fill(sb.String())
}

// Unwrap returns the problems, so errors.As finds the first *Error.
func (e *Errors) Unwrap() []error {
	out := make([]error, len(e.List))
	for i, p := range e.List {
		out[i] = p
	}
	return out
}

// collect turns problems into nil, one *Error, or *Errors, with the file
// set.
func collect(file string, ps []*Error) error {
	for _, p := range ps {
		p.File = file
	}
	switch {
	case len(ps) == 0:
		return nil
	case len(ps) == 1:
		return ps[0]
	case len(ps) > MaxErrors:
		return &Errors{File: file, List: ps[:MaxErrors], More: len(ps) - MaxErrors}
	}
	return &Errors{File: file, List: ps}
}

// leaves flattens errors joined with errors.Join.
func leaves(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, leaves(e)...)
		}
		return out
	}
	return []error{err}
}

// DefaultController is the controller of a run whose config names none
// (and the one the default configs name): fixed, because no controller
// passed the rule of the control study's deciding matrix (docs/study.md).
const DefaultController = Fixed

// Base returns the built-in defaults that every file is decoded over: the
// controller is DefaultController; the other controller settings, and the
// run's seed and iterations, are controller.DefaultSetup's.
func Base() Run {
	d := controller.DefaultSetup()
	return Run{
		Seed:            d.Seed,
		Iterations:      d.Iterations,
		EvalEvery:       10,
		CheckpointEvery: 10,
		PPO:             ppoconfig.DefaultConfig(),
		Controller: Controller{
			Name:      DefaultController,
			Interval:  Interval(d.Interval),
			Objective: d.Objective,
			Tune:      PaperSpace(),
			Observe:   ObserveIteration,
			Start:     StartPPO,
			TunedLR:   TunedLRAnneal,
		},
	}
}

// PaperSpace returns the paper's four tuned hyperparameters with the bounds
// of the authors' code, all on a linear scale: batch size [1000, 6000]
// frames, clip [0.1, 0.5], GAE lambda [0.9, 1.0] and learning rate [1e-5,
// 1e-3]. They are the keys of ppoconfig.Hyper that declare paper bounds.
func PaperSpace() []TuneParam {
	var out []TuneParam
	for _, k := range ppoconfig.HyperKeys() {
		if k.InPaper() {
			out = append(out, TuneParam{Name: k.Name, Low: k.PaperLow, High: k.PaperHigh, Scale: controller.Linear, Integer: k.Integer})
		}
	}
	return out
}

// Override changes a decoded config before it is validated (a command-line
// flag, for example), so the run is validated once, as it will run.
type Override func(*Run)

// MaxFileBytes caps the size of a config file (the defaults are about 3 KB).
const MaxFileBytes = 1 << 20

// Load reads a config file (a regular file of at most MaxFileBytes),
// applies the overrides and validates the result.
func Load(path string, o ...Override) (Run, error) {
	b, err := safefile.ReadRegular(path, MaxFileBytes)
	if err != nil {
		var nr *safefile.NotRegularError
		var tl *safefile.TooLargeError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return Run{}, &Error{File: path, Msg: "file not found"}
		case errors.As(err, &nr):
			return Run{}, &Error{File: path, Msg: fmt.Sprintf("not a regular file (%s); want a TOML file", nr.Kind)}
		case errors.As(err, &tl):
			return Run{}, &Error{File: path, Msg: fmt.Sprintf("too large for a config (more than %d bytes); want a TOML file", MaxFileBytes)}
		}
		return Run{}, &Error{File: path, Msg: err.Error()}
	}
	return Parse(path, string(b), o...)
}

// Default returns the embedded default config for an environment short name
// (e.g. "halfcheetah"), with the overrides applied, validated.
func Default(env string, o ...Override) (Run, error) {
	name := strings.ToLower(strings.TrimSpace(env))
	b, err := defaults.ReadFile(name + ".toml")
	if err != nil {
		return Run{}, &Error{File: "<default:" + name + ">", Msg: fmt.Sprintf("no default config for environment %q; defaults exist for: %s", env, strings.Join(DefaultNames(), ", "))}
	}
	return Parse("<default:"+name+">", string(b), o...)
}

// LoadOrDefault is Load of file, or without one (file "") Default of env,
// with the overrides applied.
func LoadOrDefault(file, env string, o ...Override) (Run, error) {
	if file != "" {
		return Load(file, o...)
	}
	return Default(env, o...)
}

// OverridesBroke reports whether err, a failure of LoadOrDefault(file,
// env, overrides...), is the overrides' fault: the config loads without
// them. A config that is bad on its own is not (a command's usage error,
// the other a runtime error naming its file).
func OverridesBroke(file, env string, err error) bool {
	if err == nil {
		return false
	}
	_, bare := LoadOrDefault(file, env)
	return bare == nil
}

// DefaultNames lists the environments with an embedded default config.
func DefaultNames() []string {
	ents, _ := defaults.ReadDir(".")
	var out []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".toml"); ok {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Parse decodes TOML text over Base() strictly, applies the overrides and
// validates the result. file names the source in errors.
func Parse(file, text string, o ...Override) (Run, error) {
	var scratch Run // the overrides' assignments to the text (WithSet)
	for _, f := range o {
		f(&scratch)
	}
	if len(scratch.sets) > 0 {
		t, err := applySets(text, scratch.sets)
		var bad *Error // an assignment's own error
		if errors.As(err, &bad) {
			bad.File = file
			return Run{}, bad
		}
		if err != nil {
			return Run{}, decodeError(file, err, writtenValue(text, nil))
		}
		text, file = t, file+setSuffix
	}
	written := writtenValue(text, scratch.sets)
	run := Base()
	// Lists in the file replace the defaults whole: BurntSushi would decode
	// into the existing elements, so start them empty and restore the default
	// only when the file leaves the key out.
	run.Controller.Tune, run.PPO.Hidden = nil, nil
	md, err := toml.Decode(text, &run)
	if err != nil {
		return Run{}, decodeError(file, err, written)
	}
	if !md.IsDefined("controller", "tune") {
		run.Controller.Tune = PaperSpace()
	}
	if !md.IsDefined("ppo", "hidden") {
		run.PPO.Hidden = ppoconfig.DefaultConfig().Hidden
	}
	// Second pass: each [controller.<method>] table, decoded over that
	// method's registered defaults.
	var raw struct {
		Controller map[string]toml.Primitive `toml:"controller"`
	}
	md2, err := toml.Decode(text, &raw)
	if err != nil {
		return Run{}, decodeError(file, err, written)
	}
	run.Controller.Settings = map[string]controller.Settings{}
	var problems []*Error
	known := map[string]bool{"name": true, "interval": true, "objective": true, "tune": true, "observe": true, "start": true, "tuned_lr": true}
	methodKeys := map[string]bool{}
	names := make([]string, 0, len(raw.Controller))
	for k := range raw.Controller {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if known[k] {
			continue
		}
		e, err := controller.Lookup(k)
		if err != nil || e.Name != k {
			msg := fmt.Sprintf("unknown key or controller table; allowed keys: name, interval, objective, tune, observe, start, tuned_lr, and one table per controller: %s", strings.Join(controller.Names(), ", "))
			if hint := suggest.DidYouMean(k, allowedKeys(toml.Key{"controller", k}), "controller."); hint != "" {
				msg = "unknown key or controller table" + hint
			}
			problems = append(problems, &Error{Key: "controller." + k, Msg: msg})
			continue
		}
		s := e.Defaults()
		if err := md2.PrimitiveDecode(raw.Controller[k], s); err != nil {
			return Run{}, decodeError(file, err, written)
		}
		run.Controller.Settings[k] = s
		methodKeys[k] = true
	}
	// Unknown keys and invalid values are all reported, up to MaxErrors.
	for _, key := range md2.Undecoded() {
		if len(key) >= 3 && key[0] == "controller" && methodKeys[key[1]] {
			problems = append(problems, &Error{Key: key.String(), Msg: controller.UnknownSettingMsg(run.Controller.Settings[key[1]], key[2:].String(), key[:2].String()+".")})
		}
	}
	for _, key := range md.Undecoded() {
		if len(key) >= 2 && key[0] == "controller" && methodKeys[key[1]] {
			continue
		}
		problems = append(problems, &Error{Key: key.String(), Msg: unknownKeyMsg(key, allowedKeys(key))})
	}
	for _, f := range o {
		f(&run)
	}
	if md.IsDefined("controller", "tune") && !md.IsDefined("controller", "name") && run.Controller.Name == Fixed {
		problems = append(problems, &Error{Key: "controller.tune", Msg: fmt.Sprintf("tuned hyperparameters, but no controller.name: a config that names none trains %s, which tunes nothing; name the controller (e.g. name = \"hypercontroller\" under [controller], or {controller}), or name = \"%s\" to keep the list unused", DefaultController, Fixed)})
	}
	run.sets = nil
	if spec := run.preset; spec != "" {
		run.preset = ""
		if err := ApplyPreset(&run, spec); err != nil {
			problems = append(problems, &Error{Msg: err.Error()})
		}
	}
	fitLRRule(&run)
	if err := collect(file, append(problems, run.problems()...)); err != nil {
		return Run{}, err
	}
	return run, nil
}

// decodeError turns a BurntSushi error into an Error naming the key;
// written gives the value of a key as the user wrote it (writtenValue).
func decodeError(file string, err error, written func(key string, line int) string) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := pe.Message
		if pe.Position.Line > 0 && !strings.HasSuffix(file, setSuffix) { // --set's text is ours, its lines mean nothing
			msg = fmt.Sprintf("line %d: %s", pe.Position.Line, msg)
		}
		return &Error{File: file, Key: pe.LastKey, Msg: msg}
	}
	// BurntSushi reports a value of the wrong type as a plain error:
	// "toml: line 3 (last key "ppo.lr"): incompatible types: TOML value has
	// type string; destination has type float".
	if m := typeError.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		msg := controller.TypeMismatchMsg(written(m[2], line), m[3], m[4])
		if !strings.HasSuffix(file, setSuffix) {
			msg = "line " + m[1] + ": " + msg
		}
		return &Error{File: file, Key: m[2], Msg: msg}
	}
	return &Error{File: file, Msg: err.Error()}
}

var typeError = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]+)"\): incompatible types: TOML value has type (.*); destination has type (.*)$`)

// writtenValue returns the function that finds a key's value as the user
// wrote it: in the --set assignments sets when one sets the key (an element
// of an array of tables matches without its index, as BurntSushi names
// it), else on the given line (from 1) of text, the config's; "" when
// neither holds it.
func writtenValue(text string, sets []string) func(key string, line int) string {
	return func(key string, line int) string {
		for i := len(sets) - 1; i >= 0; i-- { // the last assignment wins
			k, v, _ := strings.Cut(sets[i], "=")
			if arrayIndex.ReplaceAllString(strings.TrimSpace(k), "") == key {
				v = strings.TrimSpace(v)
				if x, err := setValue(v); err == nil && x == any(v) {
					v = strconv.Quote(v) // a bare word, read as a string
				}
				return v
			}
		}
		lines := strings.Split(text, "\n")
		if line < 1 || line > len(lines) {
			return ""
		}
		_, v, ok := strings.Cut(lines[line-1], "=")
		if !ok {
			return ""
		}
		v = strings.TrimSpace(v)
		if c := strings.Index(v, " #"); c >= 0 && !strings.ContainsAny(v[:1], "\"'") {
			v = strings.TrimSpace(v[:c]) // a comment after an unquoted value
		}
		return v
	}
}

var arrayIndex = regexp.MustCompile(`\[[0-9]+\]`)

// allowedKeys lists the valid keys of the table that holds key (nil when
// that table is not part of the schema).
func allowedKeys(key toml.Key) []string {
	switch {
	case len(key) == 1:
		return controller.TOMLKeys(Run{})
	case key[0] == "ppo":
		return controller.TOMLKeys(ppoconfig.Config{})
	case key[0] == "controller" && len(key) == 2:
		return append(controller.TOMLKeys(Controller{}), controller.Names()...)
	case key[0] == "controller" && key[1] == "tune":
		return controller.TOMLKeys(TuneParam{})
	}
	return nil
}

// unknownKeyMsg is the message for key, unknown in a table whose keys are
// allowed (suggest.UnknownKey: the nearest one, written in full, or else
// the list).
func unknownKeyMsg(key toml.Key, allowed []string) string {
	if len(allowed) == 0 {
		return "unknown key; this table is not part of the schema"
	}
	prefix := ""
	if len(key) > 1 {
		prefix = key[:len(key)-1].String() + "."
	}
	return suggest.UnknownKey(key[len(key)-1], allowed, prefix)
}

// Validate checks ranges and names. One problem is an *Error with the key
// set; several are an *Errors listing them (up to MaxErrors).
func (r *Run) Validate() error { return collect("", r.problems()) }

// problems lists every range and name problem of r.
func (r *Run) problems() []*Error {
	var out []*Error
	bad := func(key, msg string) { out = append(out, &Error{Key: key, Msg: msg}) }
	if strings.TrimSpace(r.Env) == "" {
		bad("env", "missing; want an environment name such as halfcheetah")
	}
	if err := controller.CheckSeed(r.Seed); err != nil {
		bad("seed", err.Error())
	}
	if err := controller.CheckIterations(r.Iterations); err != nil {
		bad("iterations", err.Error())
	}
	if r.EvalEvery < 0 {
		bad("eval_every", fmt.Sprintf("want an integer >= 0 (0 disables), got %d", r.EvalEvery))
	}
	if r.CheckpointEvery < 1 {
		bad("checkpoint_every", fmt.Sprintf("want an integer >= 1, got %d", r.CheckpointEvery))
	}
	if err := r.PPO.Validate(); err != nil {
		for _, e := range leaves(err) {
			key, msg, _ := strings.Cut(e.Error(), ": ")
			bad(key, msg)
		}
	}
	c := &r.Controller
	if c.Name != Fixed && c.Name != Population {
		if _, err := controller.Lookup(c.Name); err != nil {
			bad("controller.name", fmt.Sprintf("unknown controller %q; valid: %s, %s", c.Name, strings.Join(controller.Names(), ", "), Fixed))
		}
	}
	if c.Name == Population && c.Interval == IntervalAuto {
		bad("controller.interval", fmt.Sprintf("want an integer >= 1 for a %s member (its configuration changes only between generations), got \"auto\"", Population))
	} else if c.Interval == IntervalAuto {
		if len(out) == 0 { // the horizon rule reads the other settings
			if _, err := r.DecisionInterval(); err != nil {
				key, msg, _ := strings.Cut(err.Error(), ": ")
				if key != "controller.interval" {
					key, msg = "controller.interval", err.Error()
				}
				bad(key, msg)
			}
		}
	} else if c.Interval < 1 {
		bad("controller.interval", fmt.Sprintf("want an integer >= 1 or \"auto\", got %d", int(c.Interval)))
	}
	if c.Observe != ObserveIteration && c.Observe != ObservePeriod {
		bad("controller.observe", fmt.Sprintf("want %q (every iteration's objective) or %q (one per decision period, from its mean reward), got %q", ObserveIteration, ObservePeriod, c.Observe))
	}
	if c.Start != StartPPO && c.Start != StartMethod {
		bad("controller.start", fmt.Sprintf("want %q (start from [ppo]'s values) or %q (the method's first choice), got %q", StartPPO, StartMethod, c.Start))
	}
	if c.TunedLR != TunedLRAnneal && c.TunedLR != TunedLRReplace {
		bad("controller.tuned_lr", fmt.Sprintf("want %q (a tuned lr scales ppo's annealed schedule) or %q (it replaces the lr), got %q", TunedLRAnneal, TunedLRReplace, c.TunedLR))
	}
	if c.Name != Fixed && len(c.Tune) == 0 {
		bad("controller.tune", "no hyperparameters to tune; add [[controller.tune]] entries or set controller.name = \"fixed\"")
	}
	seen := map[string]bool{}
	for i, t := range c.Tune {
		key := fmt.Sprintf("controller.tune[%d]", i)
		if _, err := ppoconfig.LookupHyperKey(t.Name); err != nil {
			bad(key+".name", err.Error())
			continue
		}
		if seen[t.Name] {
			bad(key+".name", fmt.Sprintf("%q is tuned twice", t.Name))
			continue
		}
		seen[t.Name] = true
		if _, err := c.spaceParam(t); err != nil {
			bad(key, err.Error())
			continue
		}
		if err := checkTunedRange(t); err != nil {
			bad(key, err.Error())
		}
	}
	if len(out) == 0 { // the rules between keys read valid values
		if err := r.checkTunedRules(); err != nil {
			out = append(out, err)
		} else if err := r.checkFrames(); err != nil {
			out = append(out, err)
		}
	}
	for _, name := range sortedNames(c.Settings) {
		if err := c.Settings[name].Validate(); err != nil {
			for _, e := range leaves(err) {
				bad("controller."+name, e.Error())
			}
		}
	}
	return append(out, r.batchProblems()...)
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Bounds on a run's length and work.
const (
	// MaxIterations bounds iterations (controller.MaxIterations).
	MaxIterations = controller.MaxIterations
	// MaxFrames bounds iterations × the largest batch the run can use, and
	// the frame budget frames.
	MaxFrames = 10_000_000_000
)

// batchProblems: the run trains on at most MaxFrames frames (iterations ×
// the largest batch it can use). The rules between batch_size and the other
// keys are ppoconfig.Hyper.Validate's and checkTunedRules'.
func (r *Run) batchProblems() []*Error {
	var out []*Error
	_, hi := r.valueRange("batch_size")
	if n := r.PPO.NumEnvs; n >= 1 && hi >= 1 && r.Iterations >= 1 {
		perIter := int64(ppoconfig.IterationFrames(int(hi), n)) // frames actually collected
		if total := int64(r.Iterations) * perIter; total > MaxFrames || total < 0 {
			out = append(out, &Error{Key: "iterations", Msg: fmt.Sprintf("iterations × the largest batch = %d × %d = %d frames, more than the limit of %d; lower iterations or the batch size", r.Iterations, perIter, total, int64(MaxFrames))})
		}
	}
	return out
}

// checkTunedRange keeps tuned bounds inside what PPO accepts, so every
// value a controller picks in the space is a valid ppoconfig.Hyper value.
func checkTunedRange(t TuneParam) error {
	var h ppoconfig.Hyper
	if err := h.Set(t.Name, t.Low); err != nil {
		return fmt.Errorf("low: %v", err)
	}
	if err := h.Set(t.Name, t.High); err != nil {
		return fmt.Errorf("high: %v", err)
	}
	return nil
}

func (c *Controller) spaceParam(t TuneParam) (controller.Param, error) {
	k, err := ppoconfig.LookupHyperKey(t.Name)
	if err != nil {
		return controller.Param{}, err
	}
	p := controller.Param{Name: t.Name, Low: t.Low, High: t.High, Scale: t.Scale, Integer: t.Integer || k.Integer}
	if _, err := controller.NewSpace(p); err != nil {
		return controller.Param{}, err
	}
	return p, nil
}

// The values of controller.observe, controller.start and
// controller.tuned_lr.
const (
	// ObserveIteration: the method observes every iteration's objective.
	ObserveIteration = "iteration"
	// ObservePeriod: the method observes one objective per decision
	// period, computed from the period's mean reward (see
	// controller.Options.PerInterval).
	ObservePeriod = "period"
	// StartPPO: a controller's first decision period runs [ppo]'s values
	// (clamped into the tuned ranges), so control starts from the defaults.
	StartPPO = "ppo"
	// StartMethod: the method chooses the first configuration, as the
	// papers' methods do (a random grid point for HyperController).
	StartMethod = "method"
	// TunedLRAnneal: with [ppo] anneal_lr, a tuned lr value v runs as
	// v · anneal(t): control acts on top of the default schedule, and v =
	// [ppo] lr is exactly the untuned run.
	TunedLRAnneal = "anneal"
	// TunedLRReplace: a tuned lr replaces the annealed lr (the papers).
	TunedLRReplace = "replace"
)

// StartConfig returns the configuration a controller over space starts
// from: nil with start = "method"; with start = "ppo", [ppo]'s value of
// each tuned key, clamped into its tuned range.
func (r *Run) StartConfig(space controller.Space) (controller.Config, error) {
	if r.Controller.Start != StartPPO {
		return nil, nil
	}
	cfg := make(controller.Config, space.Dim())
	for i, name := range space.Names() {
		v, err := r.PPO.Hyper.Get(name)
		if err != nil {
			return nil, fmt.Errorf("controller.start: %w", err)
		}
		cfg[i] = v
	}
	out, err := space.Clamp(cfg)
	if err != nil {
		return nil, fmt.Errorf("controller.start: %w", err)
	}
	return out, nil
}

// Space returns the tuned hyperparameters as a controller space.
func (c *Controller) Space() (controller.Space, error) {
	ps := make([]controller.Param, 0, len(c.Tune))
	for _, t := range c.Tune {
		p, err := c.spaceParam(t)
		if err != nil {
			return controller.Space{}, err
		}
		ps = append(ps, p)
	}
	return controller.NewSpace(ps...)
}

// MethodSettings returns the settings for a method: its table if the config
// has one, else its registered defaults.
func (c *Controller) MethodSettings(name string) (controller.Settings, error) {
	if s, ok := c.Settings[name]; ok {
		return s, nil
	}
	e, err := controller.Lookup(name)
	if err != nil {
		return nil, err
	}
	return e.Defaults(), nil
}

// Encode writes the resolved config as TOML (for DIR/config.toml). Method
// settings are written under [controller.<name>].
func (r Run) Encode() (string, error) {
	var sb strings.Builder
	enc := toml.NewEncoder(&sb)
	enc.Indent = ""
	if err := enc.Encode(r); err != nil {
		return "", fmt.Errorf("encode config: %w", err)
	}
	names := make([]string, 0, len(r.Controller.Settings))
	for n := range r.Controller.Settings {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		var tb strings.Builder
		e := toml.NewEncoder(&tb)
		e.Indent = ""
		if err := e.Encode(r.Controller.Settings[n]); err != nil {
			return "", fmt.Errorf("encode controller.%s: %w", n, err)
		}
		fmt.Fprintf(&sb, "\n[controller.%s]\n%s", n, tb.String())
	}
	return sb.String(), nil
}
