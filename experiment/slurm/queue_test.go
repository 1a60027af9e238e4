package slurm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The testdata fixtures are the output of Slurm 22.05.8's clients against
// the one-node cluster of scripts/slurm-local.sh:
//
//	squeue-mixed.txt, scontrol-mixed.txt: an array 0-6%3 of 'sleep 60'
//	  where task 0 exits 0, task 1 exits 3, task 2 was cancelled while
//	  pending, task 3 was requeued with 'scontrol requeue', task 4 was
//	  cancelled while running, tasks 5 and 6 run:
//	  squeue --noheader --array --jobs=20,9999 --format='%F|%K|%T|%r'
//	  scontrol --oneliner show job 20
//	squeue-throttled.txt, scontrol-throttled.txt: an array 0-4%1 just
//	  submitted, all pending in one record (ArrayTaskId=0-4%1).

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseJobID(t *testing.T) {
	cases := []struct {
		in, want string
		bad      bool
	}{
		{"26\n", "26", false},
		{"26;cluster\n", "26", false},
		{"sbatch: warning: something\n31\n", "31", false},
		{"", "", true},
		{"Submitted batch job 26\n", "", true},
	}
	for _, c := range cases {
		got, err := ParseJobID(c.in)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("ParseJobID(%q) = %q, %v; want %q, error %v", c.in, got, err, c.want, c.bad)
		}
	}
}

func TestParseSqueueFixture(t *testing.T) {
	m, err := ParseSqueue(fixture(t, "squeue-mixed.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[TaskKey]TaskState{
		{"20", 3}: {State: "PENDING", Reason: "BeginTime", InQueue: true},
		{"20", 5}: {State: "RUNNING", InQueue: true},
		{"20", 6}: {State: "RUNNING", InQueue: true},
	}
	if fmt.Sprint(m) != fmt.Sprint(want) {
		t.Fatalf("got %v\nwant %v", m, want)
	}
	m, err = ParseSqueue(fixture(t, "squeue-throttled.txt"))
	if err != nil || len(m) != 5 || m[TaskKey{"26", 4}].State != "PENDING" {
		t.Fatalf("throttled: %v, %v", m, err)
	}
	for _, bad := range []string{"20|3|PENDING\n", "20|x|RUNNING|None\n"} {
		if _, err := ParseSqueue([]byte(bad)); err == nil {
			t.Errorf("ParseSqueue(%q): no error", bad)
		}
	}
	if m, err := ParseSqueue([]byte("27|N/A|RUNNING|None\n")); err != nil || len(m) != 0 {
		t.Errorf("a job that is not an array: %v, %v", m, err)
	}
}

func TestParseScontrolFixture(t *testing.T) {
	m, err := ParseScontrolJobs(fixture(t, "scontrol-mixed.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]TaskState{
		0: {State: "COMPLETED", ExitCode: "0:0"},
		1: {State: "FAILED", Reason: "NonZeroExitCode", ExitCode: "3:0"},
		3: {State: "PENDING", Reason: "BeginTime", ExitCode: "0:0", Restarts: 1},
		4: {State: "CANCELLED", ExitCode: "0:15"},
		5: {State: "RUNNING", ExitCode: "0:0"},
		6: {State: "RUNNING", ExitCode: "0:0"},
	}
	if len(m) != len(want) {
		t.Fatalf("got %d tasks %v, want %d (a task cancelled while pending leaves no record)", len(m), m, len(want))
	}
	for task, w := range want {
		if got := m[TaskKey{"20", task}]; got != w {
			t.Errorf("task %d: got %+v, want %+v", task, got, w)
		}
	}
	m, err = ParseScontrolJobs(fixture(t, "scontrol-throttled.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 5 || m[TaskKey{"26", 0}].State != "PENDING" || m[TaskKey{"26", 4}].State != "PENDING" {
		t.Fatalf("throttled record 0-4%%1: %v", m)
	}
}

func TestExpandTaskIDs(t *testing.T) {
	cases := map[string]string{"5": "[5]", "0-3%2": "[0 1 2 3]", "1,3,7-9": "[1 3 7 8 9]"}
	for in, want := range cases {
		got, err := expandTaskIDs(in)
		if err != nil || fmt.Sprint(got) != want {
			t.Errorf("%q: %v %v, want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "a", "5-3", "1-x"} {
		if _, err := expandTaskIDs(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// fakeRunner replays recorded output per command name.
type fakeRunner struct {
	missing map[string]bool
	out     map[string][]byte // by "name arg0 arg1..." prefix
	errs    map[string]error
	calls   []string
}

func (f *fakeRunner) LookPath(name string) error {
	if f.missing[name] {
		return fmt.Errorf("exec: %q: executable file not found in $PATH", name)
	}
	return nil
}

func (f *fakeRunner) Run(_ context.Context, name string, args ...string) ([]byte, error) {
	call := strings.Join(append([]string{name}, args...), " ")
	f.calls = append(f.calls, call)
	for k, err := range f.errs {
		if strings.HasPrefix(call, k) {
			return nil, err
		}
	}
	for k, b := range f.out {
		if strings.HasPrefix(call, k) {
			return b, nil
		}
	}
	return nil, nil
}

func TestQueryMergesSqueueAndScontrol(t *testing.T) {
	r := &fakeRunner{
		out: map[string][]byte{
			"scontrol --oneliner show job 20": fixture(t, "scontrol-mixed.txt"),
			"squeue":                          fixture(t, "squeue-mixed.txt"),
		},
		errs: map[string]error{
			"scontrol --oneliner show job 7": errors.New("scontrol --oneliner show job 7: exit status 1: slurm_load_jobs error: Invalid job id specified"),
		},
	}
	m, err := Query(context.Background(), r, []string{"7", "20"})
	if err != nil {
		t.Fatal(err)
	}
	if got := m[TaskKey{"20", 3}]; !got.InQueue || got.State != "PENDING" || got.Restarts != 1 || got.Reason != "BeginTime" {
		t.Errorf("requeued task: %+v", got)
	}
	if got := m[TaskKey{"20", 1}]; got.InQueue || got.State != "FAILED" || got.ExitCode != "3:0" {
		t.Errorf("failed task: %+v", got)
	}
	if want := "squeue --noheader --array --jobs=7,20 --format=%F|%K|%T|%r"; r.calls[len(r.calls)-1] != want {
		t.Errorf("squeue call %q, want %q", r.calls[len(r.calls)-1], want)
	}
	// A task scontrol saw running that squeue (asked after) no longer lists
	// has ended: it is not reported as active.
	r.out["squeue"] = []byte("20|3|PENDING|BeginTime\n20|6|RUNNING|None\n")
	m, err = Query(context.Background(), r, []string{"20"})
	if err != nil {
		t.Fatal(err)
	}
	if got := m[TaskKey{"20", 5}]; IsActive(got.State) {
		t.Errorf("task 5 left the queue but is reported %+v", got)
	}
	// No squeue: ErrNoSlurm.
	r.missing = map[string]bool{"squeue": true}
	if _, err := Query(context.Background(), r, []string{"20"}); !errors.Is(err, ErrNoSlurm) {
		t.Errorf("without squeue: %v", err)
	}
}
