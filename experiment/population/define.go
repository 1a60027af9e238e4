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
	hi := run.PPO.BatchSize
	if i := sp.Index("batch_size"); i >= 0 {
		hi = int(sp.Param(i).High)
	}
	per := int64(ppoconfig.IterationFrames(hi, run.PPO.NumEnvs))
	switch spec.Method {
	case popmethod.RandomSearch: // one generation: no step, members never pause
		spec.Ready = spec.Frames
	case popmethod.Halving:
		return defineHalving(run, spec, set, sp, per)
	}
	if spec.Ready < per {
		return Definition{}, run, fmt.Errorf("ready: %d frames per generation is less than one iteration may collect (%d frames, the largest batch size); raise it", spec.Ready, per)
	}
	if last := spec.Frames % spec.Ready; spec.Frames > spec.Ready && last > 0 && last < per {
		return Definition{}, run, fmt.Errorf("ready: the last generation spans frames mod ready = %d frames, less than one iteration may collect (%d frames, the largest batch size), so a member could reach its budget before the last ready point; choose frames and ready so that it is 0 or at least %d", last, per, per)
	}
	return finishDefine(run, spec, set, sp)
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
			return Definition{}, run, fmt.Errorf("min frames: rung %d trains %d frames (to %d), less than one iteration may collect (%d frames, the largest batch size); raise min frames or frames", k, r.Frames-prev, r.Frames, per)
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
