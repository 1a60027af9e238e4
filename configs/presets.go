package configs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hyperctl/hyperctl/baselines/hoof"
	"github.com/hyperctl/hyperctl/baselines/kladaptive"
	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/controller/hypercontroller"
)

// A preset is a named set of documented deviations from the HyperController
// paper that a run switches on with one flag (`hyperctl train --preset NAME`,
// or `hyperctl compare --controllers NAME@PRESET`). Presets are applied to
// the resolved config, after the file and the other flags, so they override
// both; config.toml records the result, not the preset's name.
//
// Each option addresses one handicap of Algorithm 1 on RL objectives that
// the study found (docs/study.md), and each is off in the paper-faithful
// configuration, the default:
//
//   - intercept: HyperController's ridge predictors get a constant term
//     ([controller.hypercontroller] intercept = true). Algorithm 1's score
//     Ĝᵀ Ξ has none, so after an iteration whose reward fell it picks the
//     value with the smallest learned gain.
//   - kframe: the objective is the reward change per 1000 frames
//     (controller.objective = "delta_per_kframe") instead of per iteration,
//     so a large batch is not rewarded for its size alone.
//   - lr-scale: the controller tunes a multiplier of the annealed learning
//     rate (lr_scale in [0.25, 4], log scale) instead of the learning rate
//     itself, so the annealing schedule that `fixed` enjoys is kept:
//     lr_t = lr · anneal(t) · m_t.
//   - period: the method observes one objective per decision period,
//     computed from the period's mean reward, instead of every iteration's
//     (the per-iteration delta of a noisy reward is mean-reverting).
//
// "rl" is the three together; "seven-keys" is no deviation but the
// configuration of the wrong-start study's hoof row
// (results/wrong-start/variants/configs/hoof.toml), shipped so that its
// advice (docs/advice.md) is one flag from any folder; "paper" switches all three off (Algorithm 1
// as the paper states it, with the paper's space), so that it stays one flag
// away whatever the defaults become. Names combine with "+", applied left to
// right: "intercept+kframe".

// LRScaleLow and LRScaleHigh are the lr-scale option's range for the
// tuned multiplier of the annealed learning rate (log scale).
const (
	LRScaleLow  = 0.25
	LRScaleHigh = 4.0
)

type preset struct {
	name, doc string
	apply     func(*Run) error
}

var presets = []preset{
	{"paper", "each method as its paper states it: the method's own first configuration, a tuned lr that replaces the annealed one, the delta objective, the paper's space (batch size, clip, λ, lr over its bounds), no intercept, HOOF's paper settings, kladaptive as rsl_rl (initial lr 1e-3, no annealing) (every option below off)", applyPaper},
	{"intercept", "HyperController's predictors get a constant term (intercept = true); HyperController only", applyIntercept},
	{"kframe", `the objective is the reward change per 1000 frames (objective = "delta_per_kframe")`, applyKFrame},
	{"lr-scale", fmt.Sprintf("the tuned lr is replaced by lr_scale in [%g, %g] (log), a multiplier of the annealed lr", LRScaleLow, LRScaleHigh), applyLRScale},
	{"period", `the controller observes one objective per decision period, from the period's mean reward (observe = "period")`, applyPeriod},
	{"rl", "intercept + kframe + lr-scale", nil},
	{"seven-keys", "HOOF only: every iteration, over the paper's four keys and entropy_coef, epochs and gamma (the wrong-start study's hoof row, docs/advice.md)", applySevenKeys},
}

// PresetNames lists the presets.
func PresetNames() []string {
	out := make([]string, len(presets))
	for i, p := range presets {
		out[i] = p.name
	}
	return out
}

// PresetDoc returns one line per preset: its name and what it changes, a
// two-column table (the names padded to the longest, then two spaces, so
// that a help folded to a terminal folds each description under its
// column).
func PresetDoc() string {
	w := 0
	for _, p := range presets {
		w = max(w, len(p.name))
	}
	var sb strings.Builder
	for _, p := range presets {
		fmt.Fprintf(&sb, "  %-*s  %s\n", w, p.name, p.doc)
	}
	return sb.String()
}

// expandPreset splits spec ("rl", "intercept+kframe") into known preset
// names, with "rl" expanded.
func expandPreset(spec string) ([]preset, error) {
	var out []preset
	for _, part := range strings.Split(spec, "+") {
		name := strings.ToLower(strings.TrimSpace(part))
		if name == "rl" {
			for _, p := range presets {
				if p.name == "intercept" || p.name == "kframe" || p.name == "lr-scale" {
					out = append(out, p)
				}
			}
			continue
		}
		found := false
		for _, p := range presets {
			if p.name == name && p.apply != nil {
				out, found = append(out, p), true
			}
		}
		if !found {
			return nil, fmt.Errorf("preset %s: unknown %q; want one of %s, or several joined by +", spec, part, strings.Join(PresetNames(), ", "))
		}
	}
	return out, nil
}

// CheckPreset reports whether spec names presets (see ApplyPreset),
// without applying them: a usage check for command-line flags.
func CheckPreset(spec string) error {
	_, err := expandPreset(spec)
	return err
}

// CheckPresetFor is CheckPreset for a run of the named controller: presets
// change a controller, so the fixed controller takes none.
func CheckPresetFor(controller, spec string) error {
	if err := CheckPreset(spec); err != nil {
		return err
	}
	if controller == Fixed {
		return errFixedPreset(spec)
	}
	return nil
}

// errFixedPreset refuses presets on a run without a controller.
func errFixedPreset(spec string) error {
	return fmt.Errorf("preset %s: presets change the controller, and %s has none; name a controller", spec, Fixed)
}

// ApplyPreset applies the presets of spec (names joined by "+") to r, in
// order. It needs r's final controller: apply it after the other overrides.
// Errors name the preset and what does not fit (e.g. intercept on a
// controller other than HyperController).
func ApplyPreset(r *Run, spec string) error {
	ps, err := expandPreset(spec)
	if err != nil {
		return err
	}
	if r.Controller.Name == Fixed {
		return errFixedPreset(spec)
	}
	for _, p := range ps {
		if err := p.apply(r); err != nil {
			return fmt.Errorf("preset %s: %s: %w", spec, p.name, err)
		}
	}
	return nil
}

// WithPreset is an Override that makes Load, Default or Parse apply the
// presets of spec (see ApplyPreset) after every other override and before
// the one validation; an unknown or unfitting preset is an Error naming the
// file and the preset.
func WithPreset(spec string) Override {
	return func(r *Run) { r.preset = spec }
}

// hyperControllerSettings returns r's HyperController settings, stored in
// r so changes stick.
func hyperControllerSettings(r *Run) (*hypercontroller.Settings, error) {
	s, err := r.Controller.MethodSettings(hypercontroller.Name)
	if err != nil {
		return nil, err
	}
	hs, ok := s.(*hypercontroller.Settings)
	if !ok {
		return nil, fmt.Errorf("%s settings are %T", hypercontroller.Name, s)
	}
	if r.Controller.Settings == nil {
		r.Controller.Settings = map[string]controller.Settings{}
	}
	r.Controller.Settings[hypercontroller.Name] = hs
	return hs, nil
}

func applyIntercept(r *Run) error {
	if r.Controller.Name != hypercontroller.Name {
		return fmt.Errorf("only %s has an intercept; this run's controller is %s", hypercontroller.Name, r.Controller.Name)
	}
	hs, err := hyperControllerSettings(r)
	if err != nil {
		return err
	}
	hs.Intercept = true
	return nil
}

func applyPeriod(r *Run) error {
	r.Controller.Observe = ObservePeriod
	return nil
}

func applyKFrame(r *Run) error {
	r.Controller.Objective = controller.DeltaPerKFrame
	return nil
}

// applyLRScale replaces the tuned lr by lr_scale, in place in the tune list.
func applyLRScale(r *Run) error {
	if r.Controller.Name == kladaptive.Name {
		return fmt.Errorf("%s moves lr itself within the update; it tunes no multiplier", kladaptive.Name)
	}
	r.Controller.Tune = slices.Clone(r.Controller.Tune)
	for i, t := range r.Controller.Tune {
		switch t.Name {
		case "lr_scale":
			return nil // already scaled
		case "lr":
			r.Controller.Tune[i] = TuneParam{Name: "lr_scale", Low: LRScaleLow, High: LRScaleHigh, Scale: controller.Log}
			r.PPO.AnnealLR = true
			return nil
		}
	}
	return fmt.Errorf("the run does not tune lr, so there is no tuned lr to turn into a multiplier")
}

// applyPaper switches every option off: no intercept, the delta objective,
// the paper's space (its four keys and bounds, whatever the config tunes:
// lr in place of lr_scale, and a narrowed range widened), the method's own
// first configuration and a tuned lr that replaces the annealed one; for
// HOOF, the paper's settings; for kladaptive, rsl_rl's settings and no
// annealing.
func applyPaper(r *Run) error {
	r.Controller.Objective = controller.Delta
	r.Controller.Start = StartMethod
	r.Controller.Observe = ObserveIteration
	r.Controller.TunedLR = TunedLRReplace
	r.Controller.Tune = PaperSpace()
	r.PPO.LRScale = 1
	if r.Controller.Name == hoof.Name {
		if r.Controller.Settings == nil {
			r.Controller.Settings = map[string]controller.Settings{}
		}
		ps := hoof.PaperSettings()
		r.Controller.Settings[hoof.Name] = &ps
	}
	if r.Controller.Name == kladaptive.Name {
		// rsl_rl's PPO: its rule and initial lr (the method's first
		// configuration), never annealed (fitLRRule tunes lr alone).
		if r.Controller.Settings == nil {
			r.Controller.Settings = map[string]controller.Settings{}
		}
		ps := kladaptive.PaperSettings()
		r.Controller.Settings[kladaptive.Name] = &ps
		r.PPO.AnnealLR = false
	}
	if r.Controller.Name == hypercontroller.Name {
		hs, err := hyperControllerSettings(r)
		if err != nil {
			return err
		}
		hs.Intercept = false
	}
	return nil
}

// sevenKeys are the keys outside the paper's four that the wrong-start
// study's kept starts got wrong, each range holding the start and
// CleanRL's default: entropy_coef (0.1 / 0), epochs (1 / 10), gamma
// (0.9 / 0.99).
var sevenKeys = []TuneParam{
	{Name: "entropy_coef", Low: 0, High: 0.1, Scale: controller.Linear},
	{Name: "epochs", Low: 1, High: 10, Scale: controller.Linear, Integer: true},
	{Name: "gamma", Low: 0.9, High: 0.99, Scale: controller.Linear},
}

// applySevenKeys makes a HOOF run the wrong-start study's hoof row: a
// decision every iteration over the paper's space and sevenKeys.
func applySevenKeys(r *Run) error {
	if r.Controller.Name != hoof.Name {
		return fmt.Errorf("the wrong-start study ran it with %s alone; this run's controller is %s", hoof.Name, r.Controller.Name)
	}
	r.Controller.Interval = 1
	r.Controller.Tune = append(PaperSpace(), sevenKeys...)
	return nil
}
