package matrix

import (
	"fmt"
	"path/filepath"

	"github.com/hyperctl/hyperctl/configs/rundir"
)

// State is a run's state in a compare folder.
type State int

const (
	// Missing: not finished, not queued, not being written, no failure
	// recorded (never started, or stopped).
	Missing State = iota
	// Pending: a task for it waits in a backend's queue, or it is a
	// member of a population that runs now and trains it when its turn
	// comes (population.MarkMembers decides that).
	Pending
	// Running: a task for it runs, or a process writes its folder now (it
	// holds the folder's lock: `hyperctl train`, alone or as a child of a
	// local compare).
	Running
	// Failed: its last task ended without finishing it; Detail says why.
	Failed
	// Finished: summary.json exists.
	Finished
	// Pruned: a population's method ended it before its budget, by
	// design (successive halving did not promote it past a rung); it
	// trains no more. Inspect never decides it: the population's status
	// does (population.MarkMembers).
	Pruned
)

// States lists every state in display order.
var States = []State{Finished, Pruned, Running, Pending, Failed, Missing}

// String is the state's name in status's tables and JSON.
func (s State) String() string {
	return [...]string{"missing", "pending", "running", "failed", "finished", "pruned"}[s]
}

// NeedsSubmit reports whether a new submission should run it.
func (s State) NeedsSubmit() bool { return s == Missing || s == Failed }

// RunStatus is one run of the matrix.
type RunStatus struct {
	Env        string `json:"env"`
	Controller string `json:"controller"`
	Seed       int64  `json:"seed"`
	Dir        string `json:"dir"` // relative to the compare folder
	State      State  `json:"-"`
	StateName  string `json:"state"`
	Done       int    `json:"iterations_done"` // rows in train.csv
	Iterations int    `json:"iterations"`
	FramesDone int64  `json:"frames_done"`          // frames column of train.csv's last row
	Frames     int64  `json:"frames,omitempty"`     // the frame budget (absent: none)
	Task       string `json:"slurm_task,omitempty"` // JOB_TASK that runs or last ran it
	Detail     string `json:"detail,omitempty"`
	// PID is the process that writes the folder (Running without a
	// queued task; 0 when its lock names none).
	PID int `json:"-"`
}

// Status is the state of every run of a compare folder.
type Status struct {
	Runs []RunStatus
	// QueueErr is set when the manifest holds Slurm jobs but the queue could
	// not be read; states then come from the run folders alone.
	QueueErr error
}

// Counts returns the number of runs per state.
func (s Status) Counts() map[State]int {
	c := map[State]int{}
	for _, r := range s.Runs {
		c[r.State]++
	}
	return c
}

// A Tracker is what a backend knows of one run beyond its folder: the
// tasks it was asked to run it with, a task waiting or running for it in a
// queue, and why its last task ended without finishing it. The local pool
// needs none: a run it trains holds its folder's lock, which Inspect reads
// itself. The Slurm backend's trackers read its queue and the record its
// tasks leave in the run folder.
type Tracker interface {
	// LastTask names the newest task asked to run the run ("": none).
	LastTask() string
	// Queued decides rs (Task, State, Detail) when a task of the run
	// waits or runs in the queue.
	Queued(rs *RunStatus) bool
	// Ended decides rs, a run neither finished nor written by any
	// process, when its last task ended without finishing it, from the
	// queue and what the task recorded in dir.
	Ended(dir string, rs *RunStatus) (bool, error)
}

// Inspect decides the state of the run in dir (see the State constants),
// the one rule that `hyperctl status`, the Slurm backend and the dashboard
// share: finished when summary.json exists; else pending or running when
// the tracker (nil: none) has a task queued for it; else running when a
// process holds its lock; else failed when the tracker says its last task
// failed; else missing. Done and FramesDone come from summary.json or the
// last row of train.csv. Env, Controller, Seed, Dir, Iterations and Frames
// are left to the caller.
func Inspect(dir string, t Tracker) (rs RunStatus, err error) {
	state, err := rundir.Inspect(dir)
	if err != nil {
		return rs, fmt.Errorf("status: %w", err)
	}
	defer func() { rs.StateName = rs.State.String() }()
	if t != nil {
		rs.Task = t.LastTask()
	}
	if state == rundir.Finished {
		rs.State = Finished
		if s, err := rundir.ReadSummary(dir); err == nil {
			rs.Done, rs.FramesDone = s.Iterations, s.Frames
			rs.Detail = fmt.Sprintf("%.0f s wall time", s.WallTimeS)
		} else {
			rs.Done, rs.FramesDone = progress(dir)
		}
		return rs, nil
	}
	rs.Done, rs.FramesDone = progress(dir)
	if t != nil && t.Queued(&rs) {
		return rs, nil
	}
	// A process writes it now (train, a local compare's child, or a Slurm
	// task the queue did not show): it holds the folder's lock.
	if pid, held, err := rundir.Holder(dir); err != nil {
		return rs, fmt.Errorf("its lock could not be probed: %w", err)
	} else if held {
		rs.State, rs.PID = Running, pid
		rs.Detail = "a process writes it (it holds " + rundir.LockFile + ")"
		if pid > 0 {
			rs.Detail = fmt.Sprintf("process %d writes it", pid)
		}
		return rs, nil
	}
	if t != nil {
		if decided, err := t.Ended(dir, &rs); err != nil || decided {
			return rs, err
		}
	}
	rs.State = Missing
	switch {
	case state == rundir.Empty:
		rs.Detail = "not started"
	default:
		rs.Detail = "unfinished and not queued"
	}
	return rs, nil
}

// progress returns the iteration count in a run folder's train.csv (the
// last row's iteration + 1) and its frames, reading only the file's tail.
func progress(dir string) (iterations int, frames int64) {
	it, fr, ok := rundir.LastRow(dir)
	if !ok {
		return 0, 0
	}
	return it + 1, fr
}

// Collect returns the state of every run of the manifest's matrix in the
// compare folder out, each decided by Inspect with the tracker track gives
// for its folder relative to out (track nil: none; a local compare's).
// While a local compare runs on out (LocalCompareRuns), a run Inspect
// calls missing waits for one of its workers: it is pending.
func Collect(out string, man Manifest, track func(rel string) Tracker) (Status, error) {
	var st Status
	for _, c := range man.Cells() {
		rel := c.Dir()
		var t Tracker
		if track != nil {
			t = track(rel)
		}
		rs, err := Inspect(filepath.Join(out, rel), t)
		if err != nil {
			return st, err
		}
		rs.Env, rs.Controller, rs.Seed, rs.Dir, rs.Iterations, rs.Frames = c.Env, c.Controller, c.Seed, rel, man.Iterations, man.Frames
		st.Runs = append(st.Runs, rs)
	}
	if st.Counts()[Missing] > 0 {
		runs, err := LocalCompareRuns(out)
		if err != nil {
			return st, fmt.Errorf("status: %w", err)
		}
		for i := range st.Runs {
			if r := &st.Runs[i]; runs && r.State == Missing {
				r.State, r.StateName, r.Detail = Pending, Pending.String(), waitsForCompare
			}
		}
	}
	return st, nil
}
