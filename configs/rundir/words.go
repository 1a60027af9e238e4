package rundir

import (
	"errors"
	"fmt"
	"strings"
)

// Words name the settings that a refusal or a stop asks its caller to
// change, so that a library error speaks Go and a command line speaks
// flags: an error that names settings implements Worded, its Error is
// In(GoWords), and a command prints In(its own words) instead.
type Words struct {
	Resume, Force, Out string
	// Continue is how to continue the run in a folder: a format with one
	// %s, the folder.
	Continue string
	// ResumeIn and ForceIn continue the run in a folder and start it
	// over: formats with one %s, the folder.
	ResumeIn, ForceIn string
	// Resuming names a training that continues a run, as the start of
	// an error.
	Resuming string
	// Retrain is how to train a run again from its config into a new
	// folder: a format with one %s, the config file.
	Retrain string
	// Kernels chooses the float kernels a process computes with.
	Kernels string
	// Population is what trains a population's members, and
	// RunPopulation how to have it do so for a population folder.
	Population, RunPopulation string
	// Policy chooses which policy of a run to load: a format with one
	// %s, the policy's short name (best or final).
	Policy string
	// Video asks a run to record videos of its evaluations.
	Video string
}

// GoWords are run.Options' fields, the words of the errors' own text.
var GoWords = Words{Resume: "Options.Resume", Force: "Options.Force", Out: "Options.Out",
	Continue: "run.Train with Options.Out = %s and Options.Resume set",
	ResumeIn: "Options.Out = %s and Options.Resume set", ForceIn: "Options.Out = %s and Options.Force set",
	Resuming: "train: resume", Retrain: "run.Train of the plan of %s with a new Options.Out",
	Kernels:    "ppo.ApplyKernels with ppo.KernelsPinned or ppo.KernelsNative",
	Population: "population.Run", RunPopulation: "call it with Options.Out the population folder",
	Policy: "LoadPolicy with the name policy-%s", Video: "Options.Video"}

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

// ReuseError refuses a folder that holds a run the caller did not ask to
// reuse (Decide): a finished run without Force, or an unfinished one
// without Resume or Force.
type ReuseError struct {
	Dir      string
	Finished bool
}

// Error is the refusal in GoWords.
func (e *ReuseError) Error() string { return e.In(GoWords) }

// In is the refusal in w's words.
func (e *ReuseError) In(w Words) string {
	if e.Finished {
		return fmt.Sprintf("%s holds a finished run; use %s to overwrite it or %s for another folder", e.Dir, w.Force, w.Out)
	}
	return fmt.Sprintf("%s holds an unfinished run; use %s to continue it or %s to start over", e.Dir, w.Resume, w.Force)
}

// StoppedError reports a run stopped before its end (interrupted) with its
// checkpoint written at Iteration: what it is, and how to continue it.
type StoppedError struct {
	Dir       string
	Iteration int
}

// Error is the stop in GoWords.
func (e *StoppedError) Error() string { return e.In(GoWords) }

// In is the stop in w's words.
func (e *StoppedError) In(w Words) string {
	return fmt.Sprintf("interrupted at iteration %d; checkpoint written; continue with: %s", e.Iteration, fmt.Sprintf(w.Continue, e.Dir))
}

// AdviceError is an error whose advice names settings as placeholders:
// {resume}, {force}, {out}, {resuming}, {kernels}, {population},
// {run-population} and {video} in Msg and After become w's words, {continue} and
// {retrain} w's Continue and Retrain of Path, {policy} w's Policy of
// Policy; Err, if any, follows Msg,
// in w's words too (Say), and is what it wraps; After follows Err.
type AdviceError struct {
	Msg    string
	Err    error
	After  string
	Path   string // the folder of {continue}, the config file of {retrain}
	Policy string // the short policy name of {policy}
}

// Error is the error in GoWords.
func (e *AdviceError) Error() string { return e.In(GoWords) }

// In is the error in w's words.
func (e *AdviceError) In(w Words) string {
	r := strings.NewReplacer("{resume}", w.Resume, "{force}", w.Force, "{out}", w.Out,
		"{resuming}", w.Resuming, "{kernels}", w.Kernels, "{population}", w.Population,
		"{run-population}", w.RunPopulation, "{video}", w.Video,
		"{continue}", fmt.Sprintf(w.Continue, e.Path), "{retrain}", fmt.Sprintf(w.Retrain, e.Path),
		"{policy}", fmt.Sprintf(w.Policy, e.Policy))
	s := r.Replace(e.Msg)
	if e.Err != nil {
		s += Say(e.Err, w)
	}
	return s + r.Replace(e.After)
}

// Unwrap returns Err.
func (e *AdviceError) Unwrap() error { return e.Err }
