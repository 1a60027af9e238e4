package run

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/internal/ground/words"
	"github.com/hyperctl/hyperctl/ppo/policy"
)

// LoadPolicy loads policy name (policy.Best or policy.Final) of the run
// folder dir and checks it against the run's environment (config.toml).
// A missing policy is an error that says why the folder has none and what
// to do (evaluate the other one, continue a stopped run, train a finished
// one again).
func LoadPolicy(dir, name string) (*policy.Policy, error) {
	cfg, err := configs.Load(filepath.Join(dir, rundir.ConfigFile))
	if err != nil {
		return nil, err
	}
	spec, err := envs.Lookup(cfg.Env)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, rundir.ConfigFile), err)
	}
	if !policy.Exists(dir, name) {
		return nil, missingPolicy(dir, name)
	}
	p, err := policy.Load(dir, name)
	if err != nil {
		return nil, err
	}
	if err := p.CheckEnv(spec.ID, spec.Observation.Dim(), spec.Action.Dim()); err != nil {
		return nil, fmt.Errorf("%s in %s does not fit the run's config.toml: %w", name, dir, err)
	}
	return p, nil
}

// missingPolicy is the error for the run in dir without policy name: why
// it has none, as far as the folder tells (training still, stopped, or
// finished without it), and what to do: --policy final when that one is
// there, continuing a stopped run, training a finished one again.
func missingPolicy(dir, name string) error {
	other := policy.Final
	if name == policy.Final {
		other = policy.Best
	}
	alt, short := "", strings.TrimPrefix(other, "policy-")
	if policy.Exists(dir, other) {
		alt = fmt.Sprintf(" {policy} evaluates its %s.", other)
	}
	st, _ := rundir.Inspect(dir)
	pid, held, _ := rundir.Holder(dir)
	switch {
	case st == rundir.Finished:
		return &words.AdviceError{Msg: fmt.Sprintf("%s has no %s: the run finished, but its %s was not kept (a run copied without its policy files, such as a study run whose policies were not committed).%s To get one, train the run again from its config: {retrain}",
			dir, name, name, alt), Path: filepath.Join(dir, rundir.ConfigFile), Policy: short}
	case held:
		when := "from its first evaluation on"
		if name == policy.Final {
			when = "at every evaluation and at the end"
		}
		return &words.AdviceError{Msg: fmt.Sprintf("%s has no %s yet: the run is training (pid %d) and writes it %s.%s", dir, name, pid, when, alt), Policy: short}
	}
	return &words.AdviceError{Msg: fmt.Sprintf("%s has no %s: the run stopped before its first evaluation.%s Continue it with: {continue}", dir, name, alt), Path: dir, Policy: short}
}
