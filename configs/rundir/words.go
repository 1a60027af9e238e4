package rundir

import (
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
}

// GoWords are run.Options' fields, the words of the errors' own text.
var GoWords = Words{Resume: "Options.Resume", Force: "Options.Force", Out: "Options.Out",
	Continue: "run.Train with Options.Out = %s and Options.Resume set"}

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
// {resume}, {force} and {out} in Msg become w's words; Err, if any,
// follows Msg and is what it wraps.
type AdviceError struct {
	Msg string
	Err error
}

// Error is the error in GoWords.
func (e *AdviceError) Error() string { return e.In(GoWords) }

// In is the error in w's words.
func (e *AdviceError) In(w Words) string {
	s := strings.NewReplacer("{resume}", w.Resume, "{force}", w.Force, "{out}", w.Out).Replace(e.Msg)
	if e.Err != nil {
		s += e.Err.Error()
	}
	return s
}

// Unwrap returns Err.
func (e *AdviceError) Unwrap() error { return e.Err }
