package rundir

import (
	"fmt"

	"github.com/hyperctl/hyperctl/internal/ground/words"
)

// ReuseError refuses a folder that holds a run the caller did not ask to
// reuse (Decide): a finished run without Force, or an unfinished one
// without Resume or Force. It is a words.Worded error.
type ReuseError struct {
	Dir      string
	Finished bool
}

// Error is the refusal in Go's words.
func (e *ReuseError) Error() string { return e.In(words.Go) }

// In is the refusal in w's words.
func (e *ReuseError) In(w words.Words) string {
	if e.Finished {
		return fmt.Sprintf("%s holds a finished run; use %s to overwrite it or %s for another folder", e.Dir, w.Force, w.Out)
	}
	return fmt.Sprintf("%s holds an unfinished run; use %s to continue it or %s to start over", e.Dir, w.Resume, w.Force)
}

// StoppedError reports a run stopped before its end (interrupted) with its
// checkpoint written at Iteration: what it is, and how to continue it. It
// is a words.Worded error.
type StoppedError struct {
	Dir       string
	Iteration int
}

// Error is the stop in Go's words.
func (e *StoppedError) Error() string { return e.In(words.Go) }

// In is the stop in w's words.
func (e *StoppedError) In(w words.Words) string {
	return fmt.Sprintf("interrupted at iteration %d; checkpoint written; continue with: %s", e.Iteration, fmt.Sprintf(w.Continue, e.Dir))
}
