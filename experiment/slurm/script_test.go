package slurm

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hyperctl/hyperctl/internal/ground/words"
)

func TestTimeLimitSeconds(t *testing.T) {
	cases := []struct {
		in   string
		want int
		bad  bool
	}{
		{"02:00:00", 7200, false},
		{"00:03:00", 180, false},
		{"90", 5400, false},
		{"10:30", 630, false},
		{"1-00", 86400, false},
		{"1-02:30", 95400, false},
		{"2-00:00:10", 172810, false},
		{"00:61:00", 0, true},
		{"1:2:3:4", 0, true},
		{"2h", 0, true},
		{"", 0, true},
	}
	for _, c := range cases {
		got, err := TimeLimitSeconds(c.in)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("TimeLimitSeconds(%q) = %d, %v; want %d, error %v", c.in, got, err, c.want, c.bad)
		}
	}
}

// TestOptionsValidate: a bad option is refused with an error that names
// its field in Go and, in a command line's words, its flag.
func TestOptionsValidate(t *testing.T) {
	ok := Options{CPUsPerTask: 2, Time: "01:00:00", Mem: "4G", Partition: "cpu", MaxParallel: 4, SbatchArgs: []string{"--account=proj", "--qos=low"}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid options: %v", err)
	}
	flags := words.Words{CPUsPerTask: "--cpus-per-task", MaxParallel: "--max-parallel", Partition: "--partition",
		Mem: "--mem", Time: "--time", SbatchArg: "--sbatch-arg"}
	cases := []struct {
		name       string
		edit       func(*Options)
		goText     string // the error's start
		flagsText  string // its start in flags
		standalone string // in both
	}{
		{"cpus", func(o *Options) { o.CPUsPerTask = 0 }, "slurm.Options.CPUsPerTask: want an integer >= 1", "--cpus-per-task: want", ""},
		{"max parallel", func(o *Options) { o.MaxParallel = -1 }, "slurm.Options.MaxParallel: want an integer >= 0", "--max-parallel: want", ""},
		{"mem", func(o *Options) { o.Mem = "4 GB" }, `slurm.Options.Mem "4 GB": want a size`, `--mem "4 GB": want`, ""},
		{"time format", func(o *Options) { o.Time = "1h" }, `slurm.Options.Time: "1h" is not a Slurm time limit`, `--time: "1h"`, ""},
		{"time too short", func(o *Options) { o.Time = "00:02:00" }, "slurm.Options.Time 00:02:00: want", "--time 00:02:00: want", "at least 3 minutes"},
		{"partition", func(o *Options) { o.Partition = "a b" }, `slurm.Options.Partition "a b": want a partition name`, `--partition "a b": want`, ""},
		{"sbatch arg not an option", func(o *Options) { o.SbatchArgs = []string{"account=x"} }, `slurm.Options.SbatchArgs "account=x": want one sbatch option`, `--sbatch-arg "account=x": want`, ""},
		{"sbatch arg newline", func(o *Options) { o.SbatchArgs = []string{"--comment=a\nb"} }, "slurm.Options.SbatchArgs ", "--sbatch-arg ", "on one line"},
		{"sbatch arg owned", func(o *Options) { o.SbatchArgs = []string{"--array=0-3"} }, "slurm.Options.SbatchArgs ", "--sbatch-arg ", "sets --array itself"},
		{"sbatch arg owned signal", func(o *Options) { o.SbatchArgs = []string{"--signal=B:USR1@30"} }, "slurm.Options.SbatchArgs ", "--sbatch-arg ", "sets --signal itself"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := ok
			c.edit(&o)
			err := o.Validate()
			if err == nil {
				t.Fatal("no error")
			}
			if got := err.Error(); !strings.HasPrefix(got, c.goText) || !strings.Contains(got, c.standalone) {
				t.Errorf("%q, want it to start with %q and hold %q", got, c.goText, c.standalone)
			}
			if got := words.Say(fmt.Errorf("compare: %w", err), flags); !strings.HasPrefix(got, "compare: "+c.flagsText) || !strings.Contains(got, c.standalone) {
				t.Errorf("in flags %q, want it to start with %q and hold %q", got, "compare: "+c.flagsText, c.standalone)
			}
		})
	}
}

func testScript(dir, binary string) Script {
	return Script{
		Binary:  binary,
		LogDir:  filepath.Join(dir, "slurm", "logs"),
		WorkDir: dir,
		Tasks: []Task{
			{Dir: filepath.Join(dir, "reacher/hypercontroller/seed0"), Args: []string{"--env", "reacher", "--seed", "0", "--out", filepath.Join(dir, "reacher/hypercontroller/seed0"), "--resume"}},
			{Dir: filepath.Join(dir, "it's here/seed1"), Args: []string{"--config", "/a b/c's.toml", "--out", filepath.Join(dir, "it's here/seed1"), "--resume"}},
		},
		Options: Options{CPUsPerTask: 2, MaxParallel: 3, Time: "01:30:00", Mem: "2G", Partition: "cpu", JobName: "hyperctl-cmp", SbatchArgs: []string{"--account=proj"}},
	}
}

func TestRenderHeaderAndTasks(t *testing.T) {
	text, err := Render(testScript("/shared/cmp", "/opt/bin/hyperctl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"#!/bin/bash\n",
		"#SBATCH --job-name=hyperctl-cmp\n",
		"#SBATCH --array=0-1%3\n",
		"#SBATCH --cpus-per-task=2\n",
		"#SBATCH --mem=2G\n",
		"#SBATCH --time=01:30:00\n",
		"#SBATCH --partition=cpu\n",
		"#SBATCH --requeue\n",
		"#SBATCH --open-mode=append\n",
		"#SBATCH --signal=B:TERM@60\n",
		"#SBATCH --chdir=/shared/cmp\n",
		"#SBATCH --output=/shared/cmp/slurm/logs/%A_%a.out\n",
		"#SBATCH --account=proj\n",
		"HYPERCTL=/opt/bin/hyperctl\n",
		"  0) dir=/shared/cmp/reacher/hypercontroller/seed0; args=(--env reacher --seed 0 --out /shared/cmp/reacher/hypercontroller/seed0 --resume) ;;\n",
		`  1) dir='/shared/cmp/it'\''s here/seed1'; args=(--config '/a b/c'\''s.toml' --out '/shared/cmp/it'\''s here/seed1' --resume) ;;` + "\n",
		`--threads "$threads"`,
		"trap '",
		`scontrol requeue "$task"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("script lacks %q", want)
		}
	}
	// Every #SBATCH line comes before the first command: sbatch stops
	// reading options at the first non-comment line.
	seenCmd := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "#SBATCH") && seenCmd {
			t.Errorf("#SBATCH line after a command: %q", l)
		}
		if l != "" && !strings.HasPrefix(l, "#") {
			seenCmd = true
		}
	}
	if out, err := exec.Command("bash", "-n", "-c", text).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	// No limit: no throttle suffix; optional lines absent.
	s := testScript("/shared/cmp", "/opt/bin/hyperctl")
	s.Options = Options{CPUsPerTask: 1}
	s.Options.SbatchArgs = nil
	text, err = Render(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "#SBATCH --array=0-1\n") || strings.Contains(text, "#SBATCH --mem") || strings.Contains(text, "#SBATCH --time") || strings.Contains(text, "#SBATCH --partition") || strings.Contains(text, "#SBATCH --job-name") {
		t.Errorf("minimal options:\n%s", text[:strings.Index(text, "set -u")])
	}
}

func TestRenderRefuses(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Script)
		want string
	}{
		{"no tasks", func(s *Script) { s.Tasks = nil }, "no runs"},
		{"relative binary", func(s *Script) { s.Binary = "bin/hyperctl" }, "not an absolute path"},
		{"relative run", func(s *Script) { s.Tasks[0].Dir = "cmp/x" }, "not absolute"},
		{"threads in args", func(s *Script) { s.Tasks[0].Args = append(s.Tasks[0].Args, "--threads", "4") }, "Args hold --threads, but a task's threads are Options.CPUsPerTask"},
		{"bad options", func(s *Script) { s.Options.CPUsPerTask = 0 }, "slurm.Options.CPUsPerTask"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := testScript("/shared/cmp", "/opt/bin/hyperctl")
			c.edit(&s)
			if _, err := Render(s); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

// fakeHyperctl stands in for `hyperctl train` in the batch script: it
// appends rows to train.csv, then finishes, fails, or waits for TERM
// (writing "checkpoint" and exiting 1 like train), as $FAKE_MODE says.
const fakeHyperctl = `#!/bin/bash
out=
while [ $# -gt 0 ]; do case "$1" in --out) out="$2"; shift;; --threads) echo "threads=$2" >"$out/threads";; esac; shift; done
printf 'iteration,x\n' >"$out/train.csv"
printf '0,1\n1,1\n' >>"$out/train.csv"
case "$FAKE_MODE" in
  finish) echo '{}' >"$out/summary.json"; exit 0 ;;
  fail) echo "hyperctl: train: config boom.toml: ppo.clip: want a value in (0, 1)" >&2; exit 1 ;;
  wait)
    trap 'echo "hyperctl: train: interrupted at iteration 2; checkpoint written" >&2; touch "$out/checkpoint"; exit 1' TERM
    touch "$out/started"
    while :; do sleep 0.05; done ;;
  stall)
    trap 'echo "hyperctl: train: interrupted at iteration 0" >&2; exit 1' TERM
    touch "$out/started"
    while :; do sleep 0.05; done ;;
esac
`

// fakeSlurm puts squeue (prints $FAKE_QSTATE) and scontrol (logs its
// arguments) first on PATH.
func fakeSlurm(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "fakebin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "squeue"), []byte("#!/bin/bash\necho \"$FAKE_QSTATE\"\n"), 0o755)
	// scontrol logs its arguments; FAKE_SCONTROL=term does what a real
	// requeue does to the job's processes (TERM to the batch shell and to
	// scontrol itself), FAKE_SCONTROL=fail refuses.
	os.WriteFile(filepath.Join(bin, "scontrol"), []byte(`#!/bin/bash
case "$FAKE_SCONTROL" in
  term) kill -TERM "$PPID" $$; sleep 0.1 ;;
  fail) echo "scontrol: error: Requested operation is presently disabled" >&2; exit 1 ;;
esac
echo "$*" >>"`+filepath.Join(dir, "scontrol.log")+`"
`), 0o755)
	return bin
}

// TestTaskBody runs the rendered batch script with bash as Slurm would, with
// a fake hyperctl and fake squeue/scontrol, and checks what each ending
// records in the run folder.
func TestTaskBody(t *testing.T) {
	cases := []struct {
		name, mode, qstate, scontrol string
		term                         bool
		exit                         int
		state, reason                string
		requeue                      bool
	}{
		{"finished", "finish", "RUNNING", "", false, 0, "finished", "", false},
		{"train fails", "fail", "RUNNING", "", false, 1, "failed", "hyperctl: train: config boom.toml: ppo.clip", false},
		{"time limit: requeued", "wait", "RUNNING", "", true, 0, "requeued", "checkpoint written, task requeued. hyperctl: train: interrupted at iteration 2", true},
		{"requeue signals the job", "wait", "RUNNING", "term", true, 0, "requeued", "checkpoint written, task requeued.", true},
		{"requeue refused", "wait", "RUNNING", "fail", true, 1, "failed", "scontrol requeue failed: scontrol: error: Requested operation is presently disabled", false},
		{"scancel: cancelled", "wait", "COMPLETING", "", true, 1, "cancelled", "stopped by Slurm (job state COMPLETING). hyperctl: train: interrupted", false},
		{"no progress: not requeued", "stall", "RUNNING", "", true, 1, "failed", "no iteration done in this attempt; not requeued", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			bin := fakeSlurm(t, dir)
			hc := filepath.Join(dir, "hyperctl")
			os.WriteFile(hc, []byte(fakeHyperctl), 0o755)
			s := testScript(dir, hc)
			text, err := Render(s)
			if err != nil {
				t.Fatal(err)
			}
			script := filepath.Join(dir, "array.sbatch")
			os.WriteFile(script, []byte(text), 0o644)
			run := s.Tasks[1].Dir // the folder with quotes and spaces
			if c.mode == "stall" {
				// An earlier attempt left two rows; this one adds none.
				os.MkdirAll(run, 0o755)
				os.WriteFile(filepath.Join(run, "train.csv"), []byte("iteration,x\n0,1\n1,1\n"), 0o644)
			}
			cmd := exec.Command("bash", script)
			cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "FAKE_MODE="+c.mode, "FAKE_QSTATE="+c.qstate, "FAKE_SCONTROL="+c.scontrol,
				"SLURM_ARRAY_JOB_ID=41", "SLURM_ARRAY_TASK_ID=1", "SLURM_CPUS_PER_TASK=3", "SLURM_RESTART_COUNT=2")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if c.term {
				started := false
				for i := 0; i < 1000 && !started; i++ { // bounded: 10 s
					time.Sleep(10 * time.Millisecond)
					_, err := os.Stat(filepath.Join(run, "started"))
					started = err == nil
				}
				if !started {
					cmd.Process.Kill()
					t.Fatalf("the fake train never started:\n%s", out.String())
				}
				// --signal=B:TERM: the batch shell only.
				cmd.Process.Signal(syscall.SIGTERM)
			}
			err = cmd.Wait()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != c.exit {
				t.Errorf("exit %d, want %d\n%s", code, c.exit, out.String())
			}
			rec, err := ReadTaskRecord(run)
			if err != nil || rec == nil {
				t.Fatalf("task record: %v %v\n%s", rec, err, out.String())
			}
			if rec.Job != "41_1" || rec.Attempt != 2 || rec.State != c.state || !strings.Contains(rec.Reason, c.reason) {
				t.Errorf("record %+v, want job 41_1, attempt 2, state %s, reason containing %q", rec, c.state, c.reason)
			}
			if b, _ := os.ReadFile(filepath.Join(run, "threads")); string(b) != "threads=3\n" {
				t.Errorf("threads: %q, want --threads from SLURM_CPUS_PER_TASK", b)
			}
			log, _ := os.ReadFile(filepath.Join(dir, "scontrol.log"))
			if requeued := strings.Contains(string(log), "requeue 41_1"); requeued != c.requeue {
				t.Errorf("scontrol calls %q: requeue %v, want %v", log, requeued, c.requeue)
			}
			if c.term && c.mode == "wait" {
				if _, err := os.Stat(filepath.Join(run, "checkpoint")); err != nil {
					t.Errorf("TERM was not passed on to train (no checkpoint)")
				}
			}
			if b, _ := os.ReadFile(filepath.Join(run, "train.log")); c.mode == "fail" && !strings.Contains(string(b), "ppo.clip") {
				t.Errorf("train.log lacks train's output: %q", b)
			}
		})
	}
}
