package slurm

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/analysis"
)

// State is a run's state in a compare folder.
type State int

const (
	// Missing: not finished, not queued, not being written, no failure
	// recorded (never started, or stopped).
	Missing State = iota
	// Pending: a Slurm task for it waits in the queue.
	Pending
	// Running: a Slurm task for it runs, or a process writes its folder
	// now (it holds the folder's lock: `hyperctl train`, alone or as a
	// child of a local compare).
	Running
	// Failed: its last Slurm task ended without finishing it; Detail says why.
	Failed
	// Finished: summary.json exists.
	Finished
)

// States lists every state in display order.
var States = []State{Finished, Running, Pending, Failed, Missing}

func (s State) String() string {
	return [...]string{"missing", "pending", "running", "failed", "finished"}[s]
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

// RunDir is a run's folder relative to its compare folder.
func RunDir(env, ctrl string, seed int64) string {
	return filepath.Join(env, ctrl, fmt.Sprintf("seed%d", seed))
}

// TaskRecord is a run folder's slurm-task.txt: the last attempt of a Slurm
// task on the run.
type TaskRecord struct {
	Job     string // JOB_TASK
	Attempt int    // SLURM_RESTART_COUNT
	State   string // running, finished, requeued, cancelled or failed
	Exit    string // the batch shell's view of train's exit status
	Node    string
	Time    string
	Reason  string
}

// ReadTaskRecord reads dir's TaskFile; (nil, nil) when there is none.
func ReadTaskRecord(dir string) (*TaskRecord, error) {
	b, err := os.ReadFile(filepath.Join(dir, TaskFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	var r TaskRecord
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		switch k {
		case "job":
			r.Job = v
		case "attempt":
			r.Attempt, _ = strconv.Atoi(v)
		case "state":
			r.State = v
		case "exit":
			r.Exit = v
		case "node":
			r.Node = v
		case "time":
			r.Time = v
		case "reason":
			r.Reason = strings.TrimSpace(v)
		}
	}
	if r.Job == "" || r.State == "" {
		return nil, fmt.Errorf("status: %s: no job= or state= line", filepath.Join(dir, TaskFile))
	}
	return &r, nil
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

// Collect returns the state of every run of the manifest's matrix, from the
// run folders and, when the manifest holds Slurm jobs, from Slurm's queue
// (r may be nil: no queue).
func Collect(ctx context.Context, out string, man analysis.Manifest, r Runner) (Status, error) {
	var st Status
	// Every Slurm task that ever ran each run, oldest first.
	tasks := map[string][]TaskKey{}
	var jobs []string
	for _, j := range man.SlurmJobs {
		jobs = append(jobs, j.ID)
		for i, rel := range j.Runs {
			tasks[rel] = append(tasks[rel], TaskKey{j.ID, i})
		}
	}
	var q map[TaskKey]TaskState
	if len(jobs) > 0 {
		if r == nil {
			st.QueueErr = fmt.Errorf("%w: no Slurm client", ErrNoSlurm)
		} else if m, err := Query(ctx, r, jobs); err != nil {
			st.QueueErr = err
		} else {
			q = m
		}
	}
	for _, env := range man.Envs {
		for _, ctrl := range man.Controllers {
			for _, seed := range man.Seeds {
				rel := RunDir(env, ctrl, seed)
				rs, err := runStatus(filepath.Join(out, rel), tasks[rel], q, st.QueueErr != nil)
				if err != nil {
					return st, err
				}
				rs.Env, rs.Controller, rs.Seed, rs.Dir, rs.Iterations, rs.Frames = env, ctrl, seed, rel, man.Iterations, man.Frames
				rs.StateName = rs.State.String()
				st.Runs = append(st.Runs, rs)
			}
		}
	}
	return st, nil
}

// FolderStatus is the state of one run folder outside a compare's matrix
// (no Slurm task was asked to run it), decided as Collect decides a
// matrix's: finished, running (a process writes it) or missing (not
// started, or stopped). Env, Controller, Seed, Iterations and Frames are
// left to the caller, who knows the folder's config.
func FolderStatus(dir string) (RunStatus, error) {
	rs, err := runStatus(dir, nil, nil, false)
	if err != nil {
		return rs, err
	}
	rs.Dir = dir
	rs.StateName = rs.State.String()
	return rs, nil
}

// runStatus decides one run's state; see the State constants. tasks are the
// Slurm tasks that were asked to run it, oldest first; q is the queue (nil
// when unknown or when there are no jobs).
func runStatus(dir string, tasks []TaskKey, q map[TaskKey]TaskState, queueUnknown bool) (RunStatus, error) {
	var rs RunStatus
	state, err := rundir.Inspect(dir)
	if err != nil {
		return rs, fmt.Errorf("status: %w", err)
	}
	if len(tasks) > 0 {
		rs.Task = tasks[len(tasks)-1].String()
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
	// A task of any submission still queued or running.
	for i := len(tasks) - 1; i >= 0; i-- {
		ts, ok := q[tasks[i]]
		if !ok || !ts.InQueue || !IsActive(ts.State) {
			continue
		}
		rs.Task = tasks[i].String()
		rs.State = Pending
		if IsRunning(ts.State) {
			rs.State = Running
		}
		rs.Detail = ts.State
		if ts.Reason != "" {
			rs.Detail += " (" + ts.Reason + ")"
		}
		if ts.Restarts > 0 {
			rs.Detail += fmt.Sprintf(", requeued %d×", ts.Restarts)
		}
		return rs, nil
	}
	// A process writes it now (train, a local compare's child, or a Slurm
	// task the queue did not show): it holds the folder's lock.
	if pid, held, err := rundir.Holder(dir); err != nil {
		return rs, fmt.Errorf("status: %w", err)
	} else if held {
		rs.State = Running
		rs.Detail = "a process writes it (it holds " + rundir.LockFile + ")"
		if pid > 0 {
			rs.Detail = fmt.Sprintf("process %d writes it", pid)
		}
		return rs, nil
	}
	rec, err := ReadTaskRecord(dir)
	if err != nil {
		return rs, err
	}
	if len(tasks) > 0 {
		newest := tasks[len(tasks)-1]
		ts, known := q[newest]
		if (rec == nil || rec.Job != newest.String()) && known && ts.State != "" {
			// The newest task ended without running the script (cancelled
			// while pending, refused by the node, ...).
			rs.State = Failed
			rs.Detail = "Slurm: " + ts.State + slurmWhy(ts)
			return rs, nil
		}
	}
	if rec != nil {
		rs.Task = rec.Job
		switch rec.State {
		case "failed", "cancelled":
			rs.State = Failed
			rs.Detail = rec.State + ": " + rec.Reason
			return rs, nil
		case "running", "requeued":
			if queueUnknown {
				rs.State = Running
				rs.Detail = "per " + TaskFile + " (the queue could not be read)"
				if rec.State == "requeued" {
					rs.State = Pending
				}
				return rs, nil
			}
			rs.State = Failed
			rs.Detail = "the task left the queue without recording its end (killed, out of memory or node failure?)"
			if ts, ok := q[TaskKeyOf(rec.Job)]; ok && ts.State != "" {
				rs.Detail += "; Slurm: " + ts.State + slurmWhy(ts)
			}
			return rs, nil
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

func slurmWhy(ts TaskState) string {
	var p []string
	if ts.Reason != "" {
		p = append(p, ts.Reason)
	}
	if ts.ExitCode != "" && ts.ExitCode != "0:0" {
		p = append(p, "exit "+ts.ExitCode)
	}
	if len(p) == 0 {
		return ""
	}
	return " (" + strings.Join(p, ", ") + ")"
}

// TaskKeyOf parses "JOB_TASK"; the zero key when malformed.
func TaskKeyOf(s string) TaskKey {
	j, t, ok := strings.Cut(s, "_")
	n, err := strconv.Atoi(t)
	if !ok || err != nil {
		return TaskKey{}
	}
	return TaskKey{j, n}
}
