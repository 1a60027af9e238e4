// Package words lets an error that asks its caller to change a setting
// name that setting in the caller's words: a library error names Go's
// (an option's field, a function, a config key) and a command line names
// its flags. An error that names settings implements Worded; its Error is
// In(Go), and a command prints Say(err, its own Words) instead. It imports
// nothing of the project, so every layer may use it.
package words

import (
	"errors"
	"fmt"
	"strings"
)

// Words name the settings that a refusal or a stop asks its caller to
// change. Each field is one setting; the placeholders that AdviceError and
// Fill replace with it are in braces.
type Words struct {
	// Resume, Force and Out ({resume}, {force}, {out}) continue a run,
	// start it over and choose its folder (run.Options; Out also
	// population.Options').
	Resume, Force, Out string
	// Continue ({continue}) is how to continue the run in a folder: a
	// format with one %s, the folder.
	Continue string
	// ResumeIn and ForceIn continue the run in a folder and start it
	// over: formats with one %s, the folder.
	ResumeIn, ForceIn string
	// Resuming ({resuming}) names a training that continues a run, as the
	// start of an error.
	Resuming string
	// Retrain ({retrain}) is how to train a run again from its config
	// into a new folder: a format with one %s, the config file.
	Retrain string
	// Kernels ({kernels}) chooses the float kernels a process computes
	// with.
	Kernels string
	// Population ({population}) is what trains a population's members,
	// and RunPopulation ({run-population}) how to have it do so for a
	// population folder.
	Population, RunPopulation string
	// Policy ({policy}) chooses which policy of a run to load: a format
	// with one %s, the policy's short name (best or final).
	Policy string
	// Video ({video}) asks a run to record videos of its evaluations.
	Video string

	// Set ({set}) applies KEY=VALUE assignments to a config
	// (configs.WithSet).
	Set string
	// Controller ({controller}) chooses a run's controller over its
	// config's.
	Controller string
	// TransferFrom ({transfer-from}) gives a transferring controller the
	// folder of its source runs (configs.SetTransferFrom).
	TransferFrom string
	// Episodes and Seed ({episodes}, {seed}) are the episodes of an
	// evaluation or a recording and the seed of the first
	// (policy.CheckEpisodes).
	Episodes, Seed string
	// Ready ({ready}) is a population's frames per generation
	// (population.Spec).
	Ready string
	// CPUsPerTask, MaxParallel, Partition, Mem, Time and SbatchArg
	// ({cpus-per-task}, {max-parallel}, {partition}, {mem}, {time},
	// {sbatch-arg}) are the Slurm backend's options (slurm.Options).
	CPUsPerTask, MaxParallel, Partition, Mem, Time, SbatchArg string
	// DryRun ({dry-run}) has the Slurm backend print its batch script
	// and submit nothing (slurm.Backend).
	DryRun string
	// Listen, TokenFile and AddrFile ({listen}, {token-file},
	// {addr-file}) are a server's address, the file of the token it
	// requires, and the file it writes its bound address to
	// (service.RunConfig).
	Listen, TokenFile, AddrFile string
}

// Go are the settings' Go names, the words of the errors' own text.
var Go = Words{Resume: "Options.Resume", Force: "Options.Force", Out: "Options.Out",
	Continue: "run.Train with Options.Out = %s and Options.Resume set",
	ResumeIn: "Options.Out = %s and Options.Resume set", ForceIn: "Options.Out = %s and Options.Force set",
	Resuming: "train: resume", Retrain: "run.Train of the plan of %s with a new Options.Out",
	Kernels:    "ppo.ApplyKernels with ppo.KernelsPinned or ppo.KernelsNative",
	Population: "population.Run", RunPopulation: "call it with Options.Out the population folder",
	Policy: "LoadPolicy with the name policy-%s", Video: "Options.Video",
	Set: "configs.WithSet", Controller: "an Override that sets Controller.Name", TransferFrom: "configs.SetTransferFrom",
	Episodes: "episodes", Seed: "seed", Ready: "Spec.Ready",
	CPUsPerTask: "slurm.Options.CPUsPerTask", MaxParallel: "slurm.Options.MaxParallel", Partition: "slurm.Options.Partition",
	Mem: "slurm.Options.Mem", Time: "slurm.Options.Time", SbatchArg: "slurm.Options.SbatchArgs", DryRun: "slurm.Backend.DryRun",
	Listen: "RunConfig.Listen", TokenFile: "RunConfig.TokenFile", AddrFile: "RunConfig.AddrFile"}

// pairs are the placeholders of w's plain words (the formats aside) and
// their replacements, for strings.NewReplacer.
func (w Words) pairs() []string {
	return []string{"{resume}", w.Resume, "{force}", w.Force, "{out}", w.Out,
		"{resuming}", w.Resuming, "{kernels}", w.Kernels, "{population}", w.Population,
		"{run-population}", w.RunPopulation, "{video}", w.Video,
		"{set}", w.Set, "{controller}", w.Controller, "{transfer-from}", w.TransferFrom,
		"{episodes}", w.Episodes, "{seed}", w.Seed, "{ready}", w.Ready,
		"{cpus-per-task}", w.CPUsPerTask, "{max-parallel}", w.MaxParallel, "{partition}", w.Partition,
		"{mem}", w.Mem, "{time}", w.Time, "{sbatch-arg}", w.SbatchArg, "{dry-run}", w.DryRun,
		"{listen}", w.Listen, "{token-file}", w.TokenFile, "{addr-file}", w.AddrFile}
}

// Fill is s with the placeholders of w's words ({force}, {set}, ...: every
// field's but the formats Continue, ResumeIn, ForceIn, Retrain and Policy)
// replaced by them: the text of an error that implements Worded with a
// message of its own.
func (w Words) Fill(s string) string { return strings.NewReplacer(w.pairs()...).Replace(s) }

// Say is err's text with the advice of the first Worded error in its
// chain in w's words (err.Error() when it has none).
func Say(err error, w Words) string {
	msg, wd := err.Error(), Worded(nil)
	if errors.As(err, &wd) {
		msg = strings.Replace(msg, wd.Error(), wd.In(w), 1)
	}
	return msg
}

// Worded is an error whose advice names settings; In says it in w's words.
type Worded interface {
	error
	In(w Words) string
}

// AdviceError is an error whose advice names settings as placeholders:
// Fill's in Msg and After, and {continue} and {retrain}, w's Continue and
// Retrain of Path, and {policy}, w's Policy of Policy. Err, if any,
// follows Msg, in w's words too (Say), and is what it wraps; After follows
// Err.
type AdviceError struct {
	Msg    string
	Err    error
	After  string
	Path   string // the folder of {continue}, the config file of {retrain}
	Policy string // the short policy name of {policy}
}

// Error is the error in Go's words.
func (e *AdviceError) Error() string { return e.In(Go) }

// In is the error in w's words.
func (e *AdviceError) In(w Words) string {
	r := strings.NewReplacer(append(w.pairs(),
		"{continue}", fmt.Sprintf(w.Continue, e.Path), "{retrain}", fmt.Sprintf(w.Retrain, e.Path),
		"{policy}", fmt.Sprintf(w.Policy, e.Policy))...)
	s := r.Replace(e.Msg)
	if e.Err != nil {
		s += Say(e.Err, w)
	}
	return s + r.Replace(e.After)
}

// Unwrap returns Err.
func (e *AdviceError) Unwrap() error { return e.Err }
