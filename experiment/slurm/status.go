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

	"github.com/hyperctl/hyperctl/experiment/matrix"
)

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

// Collect returns the state of every run of the manifest's matrix, each
// decided by matrix.Inspect with what Slurm knows of it: the tasks the
// manifest's jobs asked to run it, the queue (when the manifest holds
// Slurm jobs; r may be nil: no queue) and the record its last task left.
func Collect(ctx context.Context, out string, man matrix.Manifest, r Runner) (matrix.Status, error) {
	// Every Slurm task that ever ran each run, oldest first.
	tasks := map[string][]TaskKey{}
	for _, j := range man.SlurmJobs {
		for i, rel := range j.Runs {
			tasks[rel] = append(tasks[rel], TaskKey{j.ID, i})
		}
	}
	var q map[TaskKey]TaskState
	var queueErr error
	if jobs := man.JobIDs(); len(jobs) > 0 {
		if r == nil {
			queueErr = fmt.Errorf("%w: no Slurm client", ErrNoSlurm)
		} else if m, err := Query(ctx, r, jobs); err != nil {
			queueErr = err
		} else {
			q = m
		}
	}
	st, err := matrix.Collect(out, man, func(rel string) matrix.Tracker {
		return &tracker{tasks: tasks[rel], q: q, queueUnknown: queueErr != nil}
	})
	st.QueueErr = queueErr
	return st, err
}

// FolderStatus is the state of one run folder outside a compare's matrix
// (no Slurm task was asked to run it), decided as Collect decides a
// matrix's: finished, running (a process writes it), failed (the record of
// a Slurm task says so) or missing (not started, or stopped). Env,
// Controller, Seed, Iterations and Frames are left to the caller, who
// knows the folder's config.
func FolderStatus(dir string) (matrix.RunStatus, error) {
	rs, err := matrix.Inspect(dir, &tracker{})
	if err != nil {
		return rs, err
	}
	rs.Dir = dir
	return rs, nil
}

// tracker is what Slurm knows of one run: tasks are the Slurm tasks that
// were asked to run it, oldest first; q is the queue (nil when unknown or
// when there are no jobs).
type tracker struct {
	tasks        []TaskKey
	q            map[TaskKey]TaskState
	queueUnknown bool
}

// LastTask implements matrix.Tracker.
func (t *tracker) LastTask() string {
	if len(t.tasks) == 0 {
		return ""
	}
	return t.tasks[len(t.tasks)-1].String()
}

// Queued implements matrix.Tracker: a task of any submission still queued
// or running.
func (t *tracker) Queued(rs *matrix.RunStatus) bool {
	for i := len(t.tasks) - 1; i >= 0; i-- {
		ts, ok := t.q[t.tasks[i]]
		if !ok || !ts.InQueue || !IsActive(ts.State) {
			continue
		}
		rs.Task = t.tasks[i].String()
		rs.State = matrix.Pending
		if IsRunning(ts.State) {
			rs.State = matrix.Running
		}
		rs.Detail = ts.State
		if ts.Reason != "" {
			rs.Detail += " (" + ts.Reason + ")"
		}
		if ts.Restarts > 0 {
			rs.Detail += fmt.Sprintf(", requeued %d×", ts.Restarts)
		}
		return true
	}
	return false
}

// Ended implements matrix.Tracker: the newest task ended without running
// the script, or the run folder's slurm-task.txt records a failure, or a
// task that left the queue without recording its end.
func (t *tracker) Ended(dir string, rs *matrix.RunStatus) (bool, error) {
	rec, err := ReadTaskRecord(dir)
	if err != nil {
		return false, err
	}
	if len(t.tasks) > 0 {
		newest := t.tasks[len(t.tasks)-1]
		ts, known := t.q[newest]
		if (rec == nil || rec.Job != newest.String()) && known && ts.State != "" {
			// The newest task ended without running the script (cancelled
			// while pending, refused by the node, ...).
			rs.State = matrix.Failed
			rs.Detail = "Slurm: " + ts.State + slurmWhy(ts)
			return true, nil
		}
	}
	if rec == nil {
		return false, nil
	}
	rs.Task = rec.Job
	switch rec.State {
	case "failed", "cancelled":
		rs.State = matrix.Failed
		rs.Detail = rec.State + ": " + rec.Reason
		return true, nil
	case "running", "requeued":
		if t.queueUnknown {
			rs.State = matrix.Running
			rs.Detail = "per " + TaskFile + " (the queue could not be read)"
			if rec.State == "requeued" {
				rs.State = matrix.Pending
			}
			return true, nil
		}
		rs.State = matrix.Failed
		rs.Detail = "the task left the queue without recording its end (killed, out of memory or node failure?)"
		if ts, ok := t.q[TaskKeyOf(rec.Job)]; ok && ts.State != "" {
			rs.Detail += "; Slurm: " + ts.State + slurmWhy(ts)
		}
		return true, nil
	}
	return false, nil
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
