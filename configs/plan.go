package configs

import (
	"fmt"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// Plan is a run's config resolved once: every fact training needs,
// derived from the TOML in one place (Resolve), so a trainer consumes the
// plan and never goes back to the config.
type Plan struct {
	// Text is config.toml's text, the record of the run (Encode).
	Text string
	// Comparable is Text with machine-only settings (threads) neutralised:
	// two runs with the same Comparable train the same way (the resume
	// check).
	Comparable string

	Env             string
	Seed            int64
	CheckpointEvery int
	PPO             ppoconfig.Config
	// Run is the length, the evaluations and the lr schedule (ppo.Run's
	// options).
	Run ppoconfig.RunOptions
	// Logged are the hyperparameters train.csv logs per iteration
	// (LoggedHyper).
	Logged []string
	// Objective turns iterations into the objective train.csv logs, the
	// controller's when there is one.
	Objective controller.Objective
	// Controller is nil for the fixed controller.
	Controller *ControllerPlan
}

// ControllerPlan is what building a run's controller takes. A population
// member's (Name Population) has no settings: its method is the
// configuration training is given for each generation.
type ControllerPlan struct {
	Name     string
	Space    controller.Space
	Settings controller.Settings // adapted to the run
	Options  controller.Options  // interval resolved, the start configuration, one observation per period
	// IntervalAuto: controller.interval was "auto" (Options.Interval is
	// the recommendation).
	IntervalAuto bool
}

// RecordSettings records the settings of r's controller in its config
// (their defaults, unless the config sets them), so that config.toml alone
// reproduces the run.
func (r *Run) RecordSettings() error {
	if name := r.Controller.Name; name != Fixed && name != Population {
		s, err := r.Controller.MethodSettings(name)
		if err != nil {
			return err
		}
		r.Controller.Settings[name] = s
	}
	return nil
}

// ResolveRecorded is r's resolved config as config.toml records it
// (RecordSettings), which is what a resume compares.
func (r Run) ResolveRecorded() (*Plan, error) {
	if err := r.RecordSettings(); err != nil {
		return nil, err
	}
	return r.Resolve()
}

// Resolve turns a validated config into its Plan.
func (r Run) Resolve() (*Plan, error) {
	text, err := r.Encode()
	if err != nil {
		return nil, err
	}
	comparable := r
	comparable.PPO.Threads = 0
	ctext, err := comparable.Encode()
	if err != nil {
		return nil, err
	}
	p := &Plan{
		Text: text, Comparable: ctext,
		Env: r.Env, Seed: r.Seed, CheckpointEvery: r.CheckpointEvery, PPO: r.PPO,
		Run:       ppoconfig.RunOptions{Iterations: r.Iterations, EvalEvery: r.EvalEvery, Frames: r.Frames},
		Logged:    r.LoggedHyper(),
		Objective: r.Controller.Objective,
	}
	if r.Controller.Name == Fixed {
		return p, nil
	}
	space, err := r.Controller.Space()
	if err != nil {
		return nil, err
	}
	p.Run.AnnealTunedLR = r.Controller.TunedLR == TunedLRAnneal
	if r.Controller.Name == Population {
		// Interval 1 and no start: the configuration the population gives
		// the member is in force at every iteration, from the first one
		// after a pause.
		p.Controller = &ControllerPlan{Name: Population, Space: space,
			Options: controller.Options{Interval: 1, Objective: r.Controller.Objective, Seed: uint64(r.Seed)}}
		return p, nil
	}
	settings, opts, err := r.ControllerSetup()
	if err != nil {
		return nil, err
	}
	if opts.Start, err = r.StartConfig(space); err != nil {
		return nil, err
	}
	p.Controller = &ControllerPlan{Name: r.Controller.Name, Space: space, Settings: settings, Options: opts,
		IntervalAuto: r.Controller.Interval == IntervalAuto}
	return p, nil
}

// ControllerName returns the plan's controller name ("fixed" without one).
func (p *Plan) ControllerName() string {
	if p.Controller == nil {
		return Fixed
	}
	return p.Controller.Name
}

// ResolveFile loads the config file at path and resolves it (the config
// of an existing run folder, for the resume check).
func ResolveFile(path string) (*Plan, error) {
	r, err := Load(path)
	if err != nil {
		return nil, err
	}
	p, err := r.Resolve()
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return p, nil
}
