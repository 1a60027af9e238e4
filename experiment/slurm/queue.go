package slurm

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// Runner runs Slurm's client commands. ExecRunner is the real one; tests
// pass a fake that replays output recorded from real daemons.
type Runner interface {
	// LookPath reports whether a command is installed (nil) or not.
	LookPath(name string) error
	// Run runs a command and returns its standard output. A failure's error
	// holds the command's standard error.
	Run(ctx context.Context, name string, args ...string) ([]byte, error)
}

// ExecRunner runs the commands found on PATH.
type ExecRunner struct{}

// LookPath implements Runner.
func (ExecRunner) LookPath(name string) error {
	_, err := exec.LookPath(name)
	return err
}

// Run implements Runner.
func (ExecRunner) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return out, fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
		}
		return out, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, msg)
	}
	return out, nil
}

// ErrNoSlurm is returned (wrapped) when a Slurm command is not installed.
var ErrNoSlurm = errors.New("Slurm client commands not found")

// ParseJobID reads the output of `sbatch --parsable`: "ID" or "ID;CLUSTER".
func ParseJobID(out string) (string, error) {
	s := strings.TrimSpace(out)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 { // a warning may come first
		s = strings.TrimSpace(s[i+1:])
	}
	id, _, _ := strings.Cut(s, ";")
	if id == "" || strings.Trim(id, "0123456789") != "" {
		return "", fmt.Errorf("sbatch --parsable printed %q, want a job id", strings.TrimSpace(out))
	}
	return id, nil
}

// TaskKey names one array task.
type TaskKey struct {
	Job  string // the array job id
	Task int    // the array task id
}

// String is the key as Slurm writes it: JOB_TASK.
func (k TaskKey) String() string { return k.Job + "_" + strconv.Itoa(k.Task) }

// TaskState is what Slurm knows about one array task.
type TaskState struct {
	State    string // Slurm's job state: PENDING, RUNNING, COMPLETED, FAILED, ...
	Reason   string // the pending reason, or why it ended ("None" dropped)
	ExitCode string // "code:signal", when known
	Restarts int    // requeues so far, when known
	InQueue  bool   // listed by squeue (pending, running or completing)
}

// squeueFormat is what QueueOf asks squeue for: array job id, array task
// id, state, reason.
const squeueFormat = "%F|%K|%T|%r"

// ParseSqueue reads `squeue --noheader --array --format='%F|%K|%T|%r'`.
// Lines of jobs that are not arrays (task "N/A") are skipped.
func ParseSqueue(out []byte) (map[TaskKey]TaskState, error) {
	m := map[TaskKey]TaskState{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		f := strings.SplitN(line, "|", 4)
		if len(f) != 4 {
			return nil, fmt.Errorf("squeue line %d: %q: want 4 fields separated by |", n, line)
		}
		if f[1] == "N/A" {
			continue
		}
		task, err := strconv.Atoi(f[1])
		if err != nil {
			return nil, fmt.Errorf("squeue line %d: array task id %q is not an integer", n, f[1])
		}
		st := TaskState{State: f[2], InQueue: true}
		if f[3] != "None" {
			st.Reason = f[3]
		}
		m[TaskKey{f[0], task}] = st
	}
	return m, sc.Err()
}

// ParseScontrolJobs reads `scontrol --oneliner show job ID`: one record per
// line. A pending array's unsplit record names a set of tasks
// ("ArrayTaskId=2-5%2" or "1,3,7-9"); each gets the record's state.
func ParseScontrolJobs(out []byte) (map[TaskKey]TaskState, error) {
	m := map[TaskKey]TaskState{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		kv := map[string]string{}
		for _, tok := range strings.Fields(line) {
			k, v, ok := strings.Cut(tok, "=")
			if _, seen := kv[k]; ok && !seen {
				kv[k] = v
			}
		}
		job, tasks := kv["ArrayJobId"], kv["ArrayTaskId"]
		if job == "" || tasks == "" {
			continue // not an array job
		}
		ids, err := expandTaskIDs(tasks)
		if err != nil {
			return nil, fmt.Errorf("scontrol line %d: %w", n, err)
		}
		st := TaskState{State: kv["JobState"], ExitCode: kv["ExitCode"]}
		if r := kv["Reason"]; r != "None" {
			st.Reason = r
		}
		st.Restarts, _ = strconv.Atoi(kv["Restarts"])
		for _, id := range ids {
			m[TaskKey{job, id}] = st
		}
	}
	return m, sc.Err()
}

// expandTaskIDs expands "0-3%2", "1,3,7-9" or "5".
func expandTaskIDs(s string) ([]int, error) {
	s, _, _ = strings.Cut(s, "%")
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("ArrayTaskId %q: %q is not a task id", s, part)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("ArrayTaskId %q: %q is not a range", s, part)
			}
		}
		if b-a > 1_000_000 {
			return nil, fmt.Errorf("ArrayTaskId %q: range too large", s)
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out, nil
}

// invalidJob reports Slurm's answer for a job id it no longer knows (it
// forgets finished jobs MinJobAge after they end).
func invalidJob(err error) bool {
	return err != nil && strings.Contains(err.Error(), "Invalid job id")
}

// Query asks Slurm about the tasks of the given array jobs: squeue for the
// tasks still queued or running, `scontrol show job` for the end state of
// those that left the queue recently. Jobs Slurm has forgotten are absent
// from the map. sacct is not used: it needs slurmdbd. A missing squeue is
// ErrNoSlurm.
func Query(ctx context.Context, r Runner, jobs []string) (map[TaskKey]TaskState, error) {
	m := map[TaskKey]TaskState{}
	if len(jobs) == 0 {
		return m, nil
	}
	for _, c := range []string{"squeue", "scontrol"} {
		if err := r.LookPath(c); err != nil {
			return nil, fmt.Errorf("%w: %s is not on PATH, so the queue cannot be read", ErrNoSlurm, c)
		}
	}
	for _, j := range jobs {
		out, err := r.Run(ctx, "scontrol", "--oneliner", "show", "job", j)
		if invalidJob(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		ended, err := ParseScontrolJobs(out)
		if err != nil {
			return nil, err
		}
		for k, v := range ended {
			m[k] = v
		}
	}
	out, err := r.Run(ctx, "squeue", "--noheader", "--array", "--jobs="+strings.Join(jobs, ","), "--format="+squeueFormat)
	if err != nil && !invalidJob(err) {
		return nil, err
	}
	queued, err := ParseSqueue(out)
	if err != nil {
		return nil, err
	}
	// squeue is the authority on what is queued; scontrol fills in the
	// restarts and exit codes it does not print.
	for k, v := range queued {
		if old, ok := m[k]; ok {
			v.Restarts, v.ExitCode = old.Restarts, old.ExitCode
		}
		m[k] = v
	}
	for k, v := range m {
		if !v.InQueue && IsActive(v.State) {
			// scontrol still shows it active but squeue (asked after) does
			// not: it ended in between; treat it as gone.
			v.State = ""
			m[k] = v
		}
	}
	return m, nil
}

// IsActive reports whether a Slurm job state means the task is queued or
// running (it will run, or runs, without a new submission).
func IsActive(state string) bool {
	return IsRunning(state) || isPendingState(state)
}

// IsRunning reports whether a job state means the task holds its resources.
func IsRunning(state string) bool {
	switch state {
	case "RUNNING", "COMPLETING", "CONFIGURING", "SIGNALING", "STAGE_OUT", "SUSPENDED", "STOPPED", "RESIZING":
		return true
	}
	return false
}

func isPendingState(state string) bool {
	switch state {
	case "PENDING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD", "SPECIAL_EXIT":
		return true
	}
	return false
}
