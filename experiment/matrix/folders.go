package matrix

import (
	"fmt"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/envs"
)

// Run-folder states of a run outside a compare's matrix.
const (
	FolderFinished = "finished" // summary.json exists
	FolderRunning  = "running"  // a process holds the folder's lock
	FolderStopped  = "stopped"  // unfinished and no process writes it
	// FolderPending: a cell of a compare folder that no process writes
	// now, while a local compare runs there (LocalCompareRuns), or a
	// population's member while its population runs (a process holds the
	// population's lock; the population's status decides that:
	// population.MarkMemberFolders): it is trained when its turn comes.
	FolderPending = "pending"
)

// FolderState is the state `hyperctl status` gives a run folder outside a
// compare's matrix, from its Inspect: finished, running, or stopped (an
// unfinished run no process writes; a matrix calls its cell missing). The
// dashboard names lone runs by it too.
func FolderState(rs RunStatus) string {
	switch rs.State {
	case Finished:
		return FolderFinished
	case Running:
		return FolderRunning
	case Pending:
		return FolderPending
	case Pruned:
		return Pruned.String()
	}
	return FolderStopped
}

// FolderRun is one run folder found outside a compare's matrix.
type FolderRun struct {
	Dir        string `json:"dir"`
	Env        string `json:"env"`
	Controller string `json:"controller"`
	Seed       int64  `json:"seed"`
	State      string `json:"state"`
	Done       int    `json:"iterations_done"`
	Iterations int    `json:"iterations"` // the config's (0: unknown)
	FramesDone int64  `json:"frames_done"`
	Frames     int64  `json:"frames,omitempty"` // the config's frame budget (absent: none)
	Detail     string `json:"detail,omitempty"`
}

// continueHint says how to continue the stopped run in dir, of the
// environment env: with hyperctl train, or, for an environment this
// process does not register (a user's own, trained by their program
// through experiment/run), from that program.
func continueHint(dir, env string) string {
	if _, err := envs.Lookup(env); err != nil && env != "?" {
		return fmt.Sprintf("continue it from the program that trained it: run.Train with Options{Out: %q, Resume: true} (environment %s is not one of hyperctl's)", dir, env)
	}
	return "continue with: hyperctl train --out " + dir + " --resume"
}

// Folders is the state of every run folder in root (rundir.Runs), decided
// by Inspect without a tracker: finished, running (a process holds its
// lock) or stopped, with the command that continues it (a population's
// member: its population's). Runs are named as report names them: a cell
// of a compare folder below root (such as a population's member) by its
// matrix, else by its config.toml (Matrices.RunName).
func Folders(root string) ([]FolderRun, error) {
	found, err := rundir.Runs(root)
	if err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	out := make([]FolderRun, 0, len(found))
	ms := Matrices{}
	compares := map[string]bool{} // compare folder → a local compare runs there
	for _, f := range found {
		r := FolderRun{Dir: f.Dir}
		if id, err := rundir.ReadIdentity(f.Dir); err == nil {
			r.Iterations, r.Frames = id.Iterations, id.Frames
		}
		if env, ctrl, seed, err := ms.RunName(root, f.Dir); err != nil {
			r.Env, r.Controller, r.Detail = "?", "?", err.Error()
		} else {
			r.Env, r.Controller, r.Seed = env, ctrl, seed
		}
		rs, err := Inspect(f.Dir, nil)
		r.Done, r.FramesDone = rs.Done, rs.FramesDone
		r.State = FolderState(rs)
		switch {
		case err != nil:
			r.State, r.Detail = FolderStopped, err.Error()
		case rs.State == Finished:
			if rs.Detail != "" { // summary.json read
				r.Detail = rs.Detail
			}
		case rs.State == Running:
			r.Detail = fmt.Sprintf("pid %d", rs.PID)
		default:
			r.State, r.Detail = FolderStopped, continueHint(f.Dir, r.Env)
			// A population's member continues with its population, never
			// alone (its next generation may copy it, or into it); a
			// compare's cell waits while a local compare runs there.
			top := CompareFolderOf(f.Dir)
			if IsPopulation(top) {
				if m, err := ms.at(top); err == nil && m != nil && m.Command != "" {
					r.Detail = "continue its population with: " + m.Command
				}
			} else if m, err := ms.at(top); err == nil && m.Holds(r.Env, r.Controller, r.Seed) {
				runs, ok := compares[top]
				if !ok {
					if runs, err = LocalCompareRuns(top); err != nil {
						return nil, fmt.Errorf("status: %w", err)
					}
					compares[top] = runs
				}
				if runs {
					r.State, r.Detail = FolderPending, waitsForCompare
				}
			}
		}
		out = append(out, r)
	}
	return out, nil
}
