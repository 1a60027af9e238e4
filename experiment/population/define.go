package population

import (
	"fmt"

	"github.com/hyperctl/hyperctl/baselines/pb2"
	popmethod "github.com/hyperctl/hyperctl/baselines/population"
	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// Spec is what a population is asked to be (the command line's flags).
type Spec struct {
	Method   string  // one of popmethod.Methods()
	Size     int     // members
	Seed     int64   // the population's seed
	Frames   int64   // every member's frame budget
	Ready    int64   // frames per generation; ignored by random search and halving, which set their own
	Quantile float64 // PBT and PB2's (others use their own); 0: the default (0.25)
	Resample float64 // PBT's resample probability; < 0: the default (0.25); other methods ignore it
	// FirstExploit and Selection are PBT and PB2's options against early
	// selection (popmethod.Settings); zero values keep them off.
	// Selection popmethod.SelectTTest takes the t-test's defaults; other
	// methods ignore Selection.
	FirstExploit int64
	Selection    string
	// Eta and MinFrames are successive halving's (0: the defaults); other
	// methods ignore them.
	Eta       int
	MinFrames int64
	// SameStart starts every member from base's [ppo] values (they differ
	// only in seed) instead of member 0 there and the others at random.
	SameStart bool
	Command   string
}

// SpecError is a refusal of Define that the spec alone explains with the
// members' config, which the command line's flags can change: fewer
// frames per generation, in the last generation or per rung than one
// iteration may collect. hyperctl reports it as a usage error.
type SpecError struct{ Err error }

func (e *SpecError) Error() string { return e.Err.Error() }

// Unwrap returns the refusal.
func (e *SpecError) Unwrap() error { return e.Err }

// Define returns the population of spec whose members train with base:
// base with controller name configs.Population (interval 1)
// and the frame budget spec.Frames, validated. PB2's GP settings are
// base's [controller.pb2] table, or PB2's defaults.
func Define(base configs.Run, spec Spec) (Definition, configs.Run, error) {
	run := base
	run.Controller.Name = configs.Population
	run.Controller.Interval = 1 // a member's configuration is the plan's at every iteration
	run.Frames = spec.Frames
	run.Controller.Settings = nil
	if err := run.Validate(); err != nil {
		return Definition{}, run, err
	}
	set := popmethod.DefaultSettings(spec.Method)
	// The fields of other methods are ignored. The resample probability
	// is PBT's alone: MF-PBT perturbs without resampling (its own default,
	// 0), and a command line's --resample default must not reach it.
	switch spec.Method {
	case popmethod.PBT:
		spec.Eta, spec.MinFrames = 0, 0
	case popmethod.PB2:
		spec.Resample, spec.Eta, spec.MinFrames = -1, 0, 0
	case popmethod.MFPBT:
		spec.Quantile, spec.Resample, spec.Selection, spec.Eta, spec.MinFrames = 0, -1, "", 0, 0
	case popmethod.Halving:
		spec.Ready, spec.Quantile, spec.Resample, spec.Selection = 0, 0, -1, ""
	default:
		spec.Ready, spec.Quantile, spec.Resample, spec.Selection, spec.Eta, spec.MinFrames = 0, 0, -1, "", 0, 0
	}
	if spec.Quantile != 0 {
		set.Quantile = spec.Quantile
	}
	if spec.Resample >= 0 {
		set.ResampleProbability = spec.Resample
	}
	set.FirstExploit = spec.FirstExploit
	switch spec.Selection {
	case "", popmethod.SelectTruncation:
	case popmethod.SelectTTest:
		set = set.WithTTest()
	default:
		set.Selection = spec.Selection // refused by Validate, naming the field
	}
	if spec.Eta != 0 {
		set.Eta = spec.Eta
	}
	if spec.MinFrames != 0 {
		set.MinFrames = spec.MinFrames
	}
	set.SameStart = spec.SameStart
	if spec.Method == popmethod.PB2 {
		s, err := base.Controller.MethodSettings(pb2.Name)
		if err != nil {
			return Definition{}, run, err
		}
		p, ok := s.(*pb2.Settings)
		if !ok {
			return Definition{}, run, fmt.Errorf("controller.pb2: settings of type %T", s)
		}
		set.PB2 = *p
	}
	sp, err := run.Controller.Space()
	if err != nil {
		return Definition{}, run, err
	}
	// Every generation must train each member at least one iteration, or
	// a step would rank scores that did not move; and the last generation
	// must span at least one iteration, or a member crossing the last
	// ready point in its largest iteration could reach its whole budget
	// there and finish instead of pausing for the step.
	per := largestIteration(run, sp)
	switch spec.Method {
	case popmethod.RandomSearch: // one generation: no step, members never pause
		spec.Ready = spec.Frames
	case popmethod.Halving:
		return defineHalving(run, spec, set, sp, per)
	}
	if spec.Ready < per {
		return Definition{}, run, &SpecError{fmt.Errorf("ready: %d frames per generation is less than one iteration may collect (%d frames, the largest batch size); raise it%s", spec.Ready, per, readyExample(spec.Frames, per))}
	}
	if last := spec.Frames % spec.Ready; spec.Frames > spec.Ready && last > 0 && last < per {
		return Definition{}, run, &SpecError{fmt.Errorf("ready: the last generation spans frames mod ready = %d frames, less than one iteration may collect (%d frames, the largest batch size), so a member could reach its budget before the last ready point; choose frames and ready so that it is 0 or at least %d%s", last, per, per, readyExample(spec.Frames, per))}
	}
	return finishDefine(run, spec, set, sp)
}

// largestIteration is the most frames one iteration of run's members may
// collect: the batch size, or the tuned batch size's upper bound, rounded
// up to the environments.
func largestIteration(run configs.Run, sp controller.Space) int64 {
	hi := run.PPO.BatchSize
	if i := sp.Index("batch_size"); i >= 0 {
		hi = int(sp.Param(i).High)
	}
	return int64(ppoconfig.IterationFrames(hi, run.PPO.NumEnvs))
}

// DefaultGenerations is how many generations SuggestReady aims at: the
// command line's defaults, a million frames in generations of 50,000.
const DefaultGenerations = 20

// SuggestReady returns frames per generation that Define accepts for
// members of base with a budget of frames each: frames over the most
// generations, at most DefaultGenerations, of which each one, the last
// included, spans at least one iteration. ok is false when frames is less
// than one iteration of the members (the largest batch size), where no
// generation fits.
func SuggestReady(base configs.Run, frames int64) (ready int64, ok bool, err error) {
	run := base
	run.Controller.Name = configs.Population
	sp, err := run.Controller.Space()
	if err != nil {
		return 0, false, err
	}
	ready = fitReady(frames, largestIteration(run, sp))
	return ready, ready > 0, nil
}

// fitReady is SuggestReady's value for an iteration of at most per
// frames, 0 when frames < per.
func fitReady(frames, per int64) int64 {
	if per < 1 || frames < per {
		return 0
	}
	for g := min(DefaultGenerations, frames/per); g > 1; g-- {
		r := (frames + g - 1) / g
		if last := frames % r; r >= per && (last == 0 || last >= per) {
			return r
		}
	}
	return frames
}

// readyExample is ", e.g. N" with fitReady's N, when there is one.
func readyExample(frames, per int64) string {
	if r := fitReady(frames, per); r > 0 {
		return fmt.Sprintf(", e.g. %d", r)
	}
	return fmt.Sprintf("; frames %d is less than that, so no generation fits: raise frames", frames)
}

// defineHalving is Define's end for successive halving: every rung must
// train its members at least one iteration past the previous rung (per
// frames), for the reasons Define gives for generations.
func defineHalving(run configs.Run, spec Spec, set popmethod.Settings, sp controller.Space, per int64) (Definition, configs.Run, error) {
	rungs, err := popmethod.Rungs(spec.Size, set.Eta, set.MinFrames, spec.Frames)
	if err != nil {
		return Definition{}, run, fmt.Errorf("settings: %w", err)
	}
	prev := int64(0)
	for k, r := range rungs {
		if r.Frames-prev < per {
			return Definition{}, run, &SpecError{fmt.Errorf("min frames: rung %d trains %d frames (to %d), less than one iteration may collect (%d frames, the largest batch size); raise min frames or frames", k, r.Frames-prev, r.Frames, per)}
		}
		prev = r.Frames
	}
	spec.Ready = rungs[0].Frames
	return finishDefine(run, spec, set, sp)
}

// finishDefine builds and validates the definition.
func finishDefine(run configs.Run, spec Spec, set popmethod.Settings, sp controller.Space) (Definition, configs.Run, error) {
	text, err := Neutral(run)
	if err != nil {
		return Definition{}, run, err
	}
	def := Definition{Format: FormatVersion, Env: run.Env, Settings: set, Size: spec.Size, Seed: spec.Seed,
		Frames: spec.Frames, Ready: spec.Ready, Tuned: sp.Names(), Config: text, Command: spec.Command,
		ReceiverRandom: ReceiverRandomOf(set.Method)}
	if err := def.Validate(); err != nil {
		return def, run, err
	}
	return def, run, nil
}
