package population

import (
	"fmt"

	"github.com/hyperctl/hyperctl/baselines/pb2"
	popmethod "github.com/hyperctl/hyperctl/baselines/population"
	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// Spec is what a population is asked to be (the command line's flags).
type Spec struct {
	Method   string  // popmethod.PBT or popmethod.PB2
	Size     int     // members
	Seed     int64   // the population's seed
	Frames   int64   // every member's frame budget
	Ready    int64   // frames per generation
	Quantile float64 // 0: the default (0.25)
	Resample float64 // PBT's resample probability; < 0: the default (0.25)
	Command  string
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
	if spec.Quantile != 0 {
		set.Quantile = spec.Quantile
	}
	if spec.Resample >= 0 {
		set.ResampleProbability = spec.Resample
	}
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
	if spec.Ready < per {
		return Definition{}, run, fmt.Errorf("ready: %d frames per generation is less than one iteration may collect (%d frames, the largest batch size); raise it", spec.Ready, per)
	}
	if last := spec.Frames % spec.Ready; spec.Frames > spec.Ready && last > 0 && last < per {
		return Definition{}, run, fmt.Errorf("ready: the last generation spans frames mod ready = %d frames, less than one iteration may collect (%d frames, the largest batch size), so a member could reach its budget before the last ready point; choose frames and ready so that it is 0 or at least %d", last, per, per)
	}
	text, err := Neutral(run)
	if err != nil {
		return Definition{}, run, err
	}
	def := Definition{Format: FormatVersion, Env: run.Env, Settings: set, Size: spec.Size, Seed: spec.Seed,
		Frames: spec.Frames, Ready: spec.Ready, Tuned: sp.Names(), Config: text, Command: spec.Command}
	if err := def.Validate(); err != nil {
		return def, run, err
	}
	return def, run, nil
}
