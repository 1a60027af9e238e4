package matrix

import (
	"strconv"

	"github.com/hyperctl/hyperctl/configs"
)

// Spec is what every run of a compare shares beyond its cell: the config
// and the settings passed on to each run's `hyperctl train`.
type Spec struct {
	Config     string   // TOML config of every run (its env replaced per run; "": each environment's built-in one)
	Sets       []string // KEY=VALUE config overrides, as train --set
	Iterations int      // > 0: overrides the config's iterations
	Frames     int64    // the frame budget of every run, when FramesSet
	FramesSet  bool     // Frames overrides the config's (0 clears its budget)
	// TransferFrom is the absolute folder of finished runs passed to the
	// controllers that transfer from earlier runs (deltabo); "": none.
	TransferFrom string
}

// Length returns the iterations and the frame budget every run of the
// matrix gets (those the manifest records): the config's (the built-in
// base without Config), overridden by Iterations and Frames.
func (s Spec) Length() (iterations int, frames int64, err error) {
	iterations, frames = configs.Base().Iterations, configs.Base().Frames
	if s.Config != "" {
		r, err := configs.Load(s.Config)
		if err != nil {
			return 0, 0, err
		}
		iterations, frames = r.Iterations, r.Frames
	}
	if s.Iterations != 0 {
		iterations = s.Iterations
	}
	if s.FramesSet {
		frames = s.Frames
	}
	return iterations, frames, nil
}

// Resolve returns the config of the runs of env and the controller entry
// (NAME or NAME@PRESET) as their `hyperctl train` (TrainArgs) resolves it,
// so a compare checks every run's config before the first starts.
func (s Spec) Resolve(env, entry string) (configs.Run, error) {
	name, preset := SplitVariant(entry)
	set := []configs.Override{func(r *configs.Run) { r.Env, r.Controller.Name = env, name }}
	if s.Iterations > 0 {
		set = append(set, func(r *configs.Run) { r.Iterations = s.Iterations })
	}
	if s.FramesSet {
		set = append(set, func(r *configs.Run) { r.Frames = s.Frames })
	}
	if len(s.Sets) > 0 {
		set = append(set, configs.WithSet(s.Sets...))
	}
	if preset != "" {
		set = append(set, configs.WithPreset(preset))
	}
	if s.Config != "" {
		return configs.Load(s.Config, set...)
	}
	return configs.Default(env, set...)
}

// TrainArgs are the `hyperctl train` arguments (after "train", without
// --threads) of the cell c into its run folder dir, for every backend.
func (s Spec) TrainArgs(c Cell, dir string) []string {
	name, preset := SplitVariant(c.Controller)
	args := []string{"--env", c.Env, "--controller", name, "--seed", strconv.FormatInt(c.Seed, 10), "--out", dir, "--resume"}
	if s.Config != "" {
		args = append(args, "--config", s.Config)
	}
	if s.Iterations > 0 {
		args = append(args, "--iterations", strconv.Itoa(s.Iterations))
	}
	if s.FramesSet {
		args = append(args, "--frames", strconv.FormatInt(s.Frames, 10))
	}
	for _, a := range s.Sets {
		args = append(args, "--set", a)
	}
	if preset != "" {
		args = append(args, "--preset", preset)
	}
	if s.TransferFrom != "" && configs.SupportsTransfer(name) {
		args = append(args, "--transfer-from", s.TransferFrom)
	}
	return args
}
