// Package slurm is the Slurm backend of `hyperctl compare` (whose scripts
// `hyperctl population` uses for its chain of generations), and the per-run
// status of a compare folder (`hyperctl status`).
//
// A compare is a matrix of independent, resumable `hyperctl train` runs, one
// run folder each. The backend writes them as one Slurm job array: array task
// i runs the i-th unfinished run of the submission, recorded in the compare
// manifest (compare.json, field slurm_jobs) in the same order as in the batch
// script. Slurm is the scheduler; nothing here schedules.
//
// Each array task:
//   - runs `hyperctl train --resume` into its own run folder, with threads =
//     --cpus-per-task, appending its output to the folder's train.log;
//   - traps TERM in the batch shell (--signal=B:TERM@60 before the time
//     limit, or preemption) and passes it to train, which writes a
//     checkpoint and exits; when Slurm still lists the task as RUNNING (a
//     time-limit or preemption notice, not a cancellation) and the attempt
//     made progress, the task requeues itself (--requeue) and the next
//     attempt resumes from the checkpoint;
//   - records each attempt's outcome in the run folder's slurm-task.txt
//     (TaskFile), where `hyperctl status` reads the reason of a failure.
//
// Status never depends on sacct: without slurmdbd (as on a one-node test
// cluster) accounting is disabled. It combines the run folders with squeue
// (queued and running tasks) and `scontrol show job` (the end state of tasks
// that left the queue less than MinJobAge ago).
package slurm

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/internal/ground/words"
)

// SignalLead is how long before its time limit Slurm sends TERM to a task's
// batch shell (sbatch --signal=B:TERM@SignalLead). Slurm may send it up to
// 60 s earlier than asked.
const SignalLead = 60

// minTimeLimitS is the shortest --time accepted: the TERM notice comes
// SignalLead s before the limit, and up to 60 s earlier than that; a shorter
// limit would interrupt every attempt before it trains.
const minTimeLimitS = 3 * 60

// Options are the sbatch settings of a submission.
type Options struct {
	Partition   string   // --partition; empty: the cluster's default
	Time        string   // --time per task; empty: the partition's default
	CPUsPerTask int      // --cpus-per-task, also the threads of each run (>= 1)
	Mem         string   // --mem per task (e.g. 4G); empty: the cluster's default
	MaxParallel int      // array throttle (%K); 0: no limit
	SbatchArgs  []string // extra #SBATCH lines, verbatim
	JobName     string   // --job-name
}

var (
	memRe  = regexp.MustCompile(`^[0-9]+[KMGT]?$`)
	timeRe = regexp.MustCompile(`^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$`)
	nameRe = regexp.MustCompile(`^[A-Za-z0-9_.,:+=@-]+$`)
)

// TimeLimitSeconds parses a Slurm time limit ("minutes", "minutes:seconds",
// "hours:minutes:seconds", "days-hours", "days-hours:minutes",
// "days-hours:minutes:seconds") into seconds.
func TimeLimitSeconds(s string) (int, error) {
	m := timeRe.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q is not a Slurm time limit (want HH:MM:SS, MM, MM:SS, D-HH, D-HH:MM or D-HH:MM:SS)", s)
	}
	n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
	days := m[1] != ""
	switch {
	case days && m[4] != "": // D-HH:MM:SS
		return ((n(1)*24+n(2))*60+n(3))*60 + n(4), nil
	case days && m[3] != "": // D-HH:MM
		return ((n(1)*24+n(2))*60 + n(3)) * 60, nil
	case days: // D-HH
		return (n(1)*24 + n(2)) * 3600, nil
	case m[4] != "": // HH:MM:SS
		if n(3) > 59 || n(4) > 59 {
			return 0, fmt.Errorf("%q: minutes and seconds must be below 60", s)
		}
		return (n(2)*60+n(3))*60 + n(4), nil
	case m[3] != "": // MM:SS
		if n(3) > 59 {
			return 0, fmt.Errorf("%q: seconds must be below 60", s)
		}
		return n(2)*60 + n(3), nil
	default: // minutes
		return n(2) * 60, nil
	}
}

// Validate checks the options; an error names the field, in words.Words'
// placeholders (a command names its flag: words.Say).
func (o Options) Validate() error {
	if o.CPUsPerTask < 1 {
		return &words.AdviceError{Msg: fmt.Sprintf("{cpus-per-task}: want an integer >= 1, got %d", o.CPUsPerTask)}
	}
	if o.MaxParallel < 0 {
		return &words.AdviceError{Msg: fmt.Sprintf("{max-parallel}: want an integer >= 0 (0: no limit), got %d", o.MaxParallel)}
	}
	if o.Partition != "" && !nameRe.MatchString(o.Partition) {
		return &words.AdviceError{Msg: fmt.Sprintf("{partition} %q: want a partition name (letters, digits, _ . , - ...)", o.Partition)}
	}
	if o.Mem != "" && !memRe.MatchString(o.Mem) {
		return &words.AdviceError{Msg: fmt.Sprintf("{mem} %q: want a size like 4000, 4000M or 4G", o.Mem)}
	}
	if o.Time != "" {
		s, err := TimeLimitSeconds(o.Time)
		if err != nil {
			return &words.AdviceError{Msg: "{time}: ", Err: err}
		}
		if s < minTimeLimitS {
			return &words.AdviceError{Msg: fmt.Sprintf("{time} %s: want at least %d minutes: Slurm sends the checkpoint signal %d s before the limit and up to 60 s earlier", o.Time, minTimeLimitS/60, SignalLead)}
		}
	}
	for _, a := range o.SbatchArgs {
		if !strings.HasPrefix(a, "-") || strings.ContainsAny(a, "\n\r") {
			return &words.AdviceError{Msg: fmt.Sprintf("{sbatch-arg} %q: want one sbatch option starting with '-' (e.g. --account=proj), on one line", a)}
		}
		for _, own := range []string{"--array", "--output", "--error", "--open-mode", "--requeue", "--no-requeue", "--signal", "--parsable"} {
			if a == own || strings.HasPrefix(a, own+"=") {
				return &words.AdviceError{Msg: fmt.Sprintf("{sbatch-arg} %q: the backend sets %s itself", a, own)}
			}
		}
	}
	return nil
}

// resourceLines writes the #SBATCH lines of the memory, time limit and
// partition that are set.
func (o Options) resourceLines(w func(format string, a ...any)) {
	if o.Mem != "" {
		w("#SBATCH --mem=%s\n", o.Mem)
	}
	if o.Time != "" {
		w("#SBATCH --time=%s\n", o.Time)
	}
	if o.Partition != "" {
		w("#SBATCH --partition=%s\n", o.Partition)
	}
}

// Task is one array task: a run folder and the `hyperctl train` arguments
// (or those of Script.Command) that (re)start it there. Args must not hold
// --threads: the task passes --cpus-per-task.
type Task struct {
	Dir  string   // absolute run folder
	Args []string // train arguments after "train", including --out Dir and --resume
}

// Script is everything the batch script needs.
type Script struct {
	Binary  string // absolute path of hyperctl, reachable from the compute nodes
	LogDir  string // absolute folder of Slurm's per-task output files
	WorkDir string // absolute working folder of the tasks (the compare folder)
	Tasks   []Task // index = array task id
	Options Options
	// Command is the hyperctl subcommand every task runs (nil: train). It
	// must exit 0 only when the task's work is done (train: the run
	// finished), which the task records as finished.
	Command []string
}

// TaskFile is the file in a run folder where each Slurm attempt records its
// outcome, as key=value lines (see ReadTaskRecord).
const TaskFile = "slurm-task.txt"

// Render writes the batch script.
func Render(s Script) (string, error) {
	if err := s.Options.Validate(); err != nil {
		return "", err
	}
	if len(s.Tasks) == 0 {
		return "", fmt.Errorf("slurm: no runs to submit")
	}
	for _, p := range []string{s.Binary, s.LogDir, s.WorkDir} {
		if !strings.HasPrefix(p, "/") {
			return "", fmt.Errorf("slurm: %q is not an absolute path: the tasks run on other machines, in other folders", p)
		}
	}
	o := s.Options
	var b bytes.Buffer
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("#!/bin/bash\n")
	w("# Written by hyperctl's Slurm backend of compare: one array task per run.\n")
	w("# The runs, in array-task order, are also in the compare manifest (compare.json, slurm_jobs).\n")
	array := fmt.Sprintf("0-%d", len(s.Tasks)-1)
	if o.MaxParallel > 0 {
		array += fmt.Sprintf("%%%d", o.MaxParallel)
	}
	if o.JobName != "" {
		w("#SBATCH --job-name=%s\n", o.JobName)
	}
	w("#SBATCH --array=%s\n", array)
	w("#SBATCH --ntasks=1\n")
	w("#SBATCH --cpus-per-task=%d\n", o.CPUsPerTask)
	o.resourceLines(w)
	w("#SBATCH --requeue\n")
	w("#SBATCH --open-mode=append\n")
	w("#SBATCH --signal=B:TERM@%d\n", SignalLead)
	w("#SBATCH --chdir=%s\n", shellQuoteSbatch(s.WorkDir))
	w("#SBATCH --output=%s\n", shellQuoteSbatch(s.LogDir+"/%A_%a.out"))
	for _, a := range o.SbatchArgs {
		w("#SBATCH %s\n", a)
	}
	w("\nset -u\n")
	w("HYPERCTL=%s\n", shellQuote(s.Binary))
	w("threads=\"${SLURM_CPUS_PER_TASK:-%d}\"\n", o.CPUsPerTask)
	command := s.Command
	if command == nil {
		command = []string{"train"}
	}
	w("command=(%s)\n", shellJoin(command))
	w("case \"${SLURM_ARRAY_TASK_ID:-}\" in\n")
	for i, t := range s.Tasks {
		if !strings.HasPrefix(t.Dir, "/") {
			return "", fmt.Errorf("slurm: run folder %q is not absolute", t.Dir)
		}
		for _, a := range t.Args {
			if a == "--threads" || strings.HasPrefix(a, "--threads=") {
				return "", fmt.Errorf("slurm: task %d: Args hold %s, but a task's threads are Options.CPUsPerTask", i, a)
			}
		}
		w("  %d) dir=%s; args=(%s) ;;\n", i, shellQuote(t.Dir), shellJoin(t.Args))
	}
	w("  *) echo \"hyperctl: array task '${SLURM_ARRAY_TASK_ID:-}' has no run in this script\" >&2; exit 2 ;;\n")
	w("esac\n")
	b.WriteString(taskBodyNames.Replace(taskBody))
	return b.String(), nil
}

// taskBody runs one task; see the package comment. It records every attempt
// in $dir/slurm-task.txt (written through a rename, so status never reads a
// torn file).
const taskBody = `
task="${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}"
attempt="${SLURM_RESTART_COUNT:-0}"
record() { # state exit reason
  {
    printf 'job=%s\nattempt=%s\nstate=%s\nexit=%s\nnode=%s\ntime=%s\n' "$task" "$attempt" "$1" "$2" "$(hostname -s)" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    printf 'reason=%s\n' "$(printf '%s' "$3" | tr '\n' ' ')"
  } >"$dir/.slurm-task.tmp" && mv -f "$dir/.slurm-task.tmp" "$dir/@TASKFILE@"
}
rows() { if [ -f "$dir/@CSV@" ]; then wc -l <"$dir/@CSV@"; else echo 0; fi; }
mkdir -p "$dir" || { echo "hyperctl: cannot create $dir" >&2; exit 1; }
echo "hyperctl: task $task attempt $attempt on $(hostname -s): $dir"
record running 0 ""
log_start=$(stat -c %s "$dir/@LOG@" 2>/dev/null || echo 0)
rows_start=$(rows)
term=0
child=
trap 'term=1; [ -n "$child" ] && kill -TERM "$child" 2>/dev/null' TERM
GOMAXPROCS="$threads" OMP_NUM_THREADS="$threads" "$HYPERCTL" --log-format json "${command[@]}" "${args[@]}" --threads "$threads" >>"$dir/@LOG@" 2>&1 &
child=$!
if [ "$term" = 1 ]; then kill -TERM "$child" 2>/dev/null; fi
wait "$child"
rc=$?
while kill -0 "$child" 2>/dev/null; do wait "$child"; rc=$?; done
if [ -f "$dir/@SUMMARY@" ] || { [ "$rc" = 0 ] && [ "$term" = 0 ]; }; then
  record finished 0 ""
  echo "hyperctl: task $task finished"
  exit 0
fi
reason=$(tail -c +"$((log_start + 1))" "$dir/@LOG@" 2>/dev/null | grep -a '^hyperctl: ' | tail -n 1)
reason="${reason:-train exited with status $rc; see @LOG@}"
if [ "$term" = 1 ]; then
  qstate=$(squeue -h -j "$task" -o %T 2>/dev/null | head -n 1)
  if [ "$qstate" = RUNNING ]; then
    if [ "$(rows)" -le "$rows_start" ]; then
      record failed "$rc" "TERM before the time limit and no iteration done in this attempt; not requeued (raise the time limit). ${reason}"
      exit 1
    fi
    # Requeuing ends this attempt: Slurm signals the job's processes,
    # scontrol included, so TERM is ignored from here (an ignored signal
    # stays ignored in children) and the record comes first.
    trap '' TERM
    record requeued "$rc" "TERM before the time limit or preemption: checkpoint written, task requeued. ${reason}"
    if err=$(scontrol requeue "$task" 2>&1); then
      echo "hyperctl: task $task requeued"
      exit 0
    fi
    record failed "$rc" "TERM before the time limit, but scontrol requeue failed: ${err}. ${reason}"
    exit 1
  fi
  record cancelled "$rc" "stopped by Slurm (job state ${qstate:-gone}). ${reason}"
  exit "$rc"
fi
record failed "$rc" "$reason"
exit "$rc"
`

// taskBodyNames puts the run folder's file names into taskBody.
var taskBodyNames = strings.NewReplacer("@LOG@", rundir.LogFile, "@CSV@", rundir.TrainCSV, "@SUMMARY@", rundir.SummaryFile, "@TASKFILE@", TaskFile)

// shellQuote quotes s for bash.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// shellQuoteSbatch quotes a path on an #SBATCH line, which sbatch splits on
// white space unless quoted with double quotes.
func shellQuoteSbatch(s string) string {
	if strings.ContainsAny(s, " \t\"") {
		return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
	}
	return s
}
