package matrix

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWriteFolderTable(t *testing.T) {
	root := "/study"
	runs := []FolderRun{
		{Dir: "/study/pop/halfcheetah/random-8/seed5/halfcheetah/random/seed40", Env: "halfcheetah", Controller: "random-8", Seed: 40, State: FolderFinished, FramesDone: 1001472, Frames: 1000000, Detail: "179 s wall time"},
		{Dir: "/study/pop/halfcheetah/random-8/seed5/halfcheetah/random/seed41", Env: "halfcheetah", Controller: "random-8", Seed: 41, State: FolderStopped, Done: 12, Iterations: 489, Detail: "continue with: hyperctl train --out /study/pop/halfcheetah/random-8/seed5/halfcheetah/random/seed41 --resume"},
		{Dir: "/study/r", Env: "reacher", Controller: "fixed", Seed: 0, State: FolderRunning, Done: 3, Iterations: 50, Detail: "pid 7"},
	}
	for _, tc := range []struct {
		width  int
		header string   // the table's first line
		note   string   // in the line after the table ("" for none)
		has    []string // in the table
	}{
		{0, "RUN", "", []string{"halfcheetah/random/seed41  halfcheetah  random-8    41    stopped", "--resume", "12/489 iterations", "1001472/1000000 frames"}},
		{400, "RUN", "", []string{"random-8    41", "--resume"}},
		{120, "RUN", "no ENV, CONTROLLER, SEED; % PROGRESS; cut RUN", []string{"…ed5/halfcheetah/random/seed41  stopped   12/489", "continue with: hyperctl train", "100%", "179 s wall time"}},
		{80, "RUN", "no ENV, CONTROLLER, SEED; % PROGRESS; cut RUN, DETAIL", []string{"…ed5/halfcheetah/random/seed41  stopped   12/489", "continue with: hyperctl tr…", "\nr "}},
	} {
		var b bytes.Buffer
		if err := WriteFolderTable(&b, root, runs, tc.width); err != nil {
			t.Fatal(err)
		}
		checkTable(t, b.String(), tc.width, tc.header, "status: 3 runs: 1 finished, 1 running, 1 stopped", tc.note, tc.has)
	}
}

func TestWriteStatusTable(t *testing.T) {
	st := Status{Runs: []RunStatus{
		{Env: "inverteddoublependulum", Controller: "hypercontroller@hc-narrow", Seed: 3, State: Finished, FramesDone: 1001472, Frames: 1000000, Detail: "186 s wall time"},
		{Env: "halfcheetah", Controller: "fixed", Seed: 4, State: Failed, Done: 12, Iterations: 489, Detail: "exit status 1: see halfcheetah/fixed/seed4/train.log"},
	}}
	for _, tc := range []struct {
		task  string // the runs' Slurm task
		width int
		note  string
		has   []string
	}{
		{"", 0, "", []string{"SLURM TASK", "hypercontroller@hc-narrow", "see halfcheetah/fixed/seed4/train.log"}},
		{"", 100, "no SLURM TASK; % PROGRESS", []string{"inverteddoublependulum  hypercontroller@hc-narrow  3     finished  100%      186 s wall time"}},
		{"", 80, "no SLURM TASK; % PROGRESS; cut DETAIL, ENV", []string{"inverteddou…  hypercontroller@hc-narrow  3     finished  100%", "12/489", "exit status…"}},
		{"77_3", 80, "% PROGRESS; cut DETAIL, ENV, CONTROLLER", []string{"SLURM TASK", "77_3", "…oller@hc-narrow"}},
		{"", 56, "no SLURM TASK, DETAIL; % PROGRESS; cut ENV, CONTROLLER", []string{"inverteddou…  …hc-narrow"}},
	} {
		for i := range st.Runs {
			st.Runs[i].Task = tc.task
		}
		var b bytes.Buffer
		if err := WriteStatusTable(&b, st, tc.width); err != nil {
			t.Fatal(err)
		}
		checkTable(t, b.String(), tc.width, "ENV", "status: 2 runs: ", tc.note, tc.has)
	}
}

// checkTable checks a status table written for width columns: its header,
// its counts line, no line wider than width − 1, the fitting note (none
// when note is ""), and the texts has.
func checkTable(t *testing.T, out string, width int, header, counts, note string, has []string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if !strings.HasPrefix(lines[0], header) || !strings.Contains(out, counts) {
		t.Errorf("width %d: table\n%s", width, out)
	}
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); width > 0 && n > width-1 {
			t.Errorf("width %d: line %d has %d columns: %q", width, i, n, l)
		}
	}
	joined := strings.Join(strings.Fields(out), " ")
	if note == "" && strings.Contains(joined, " cols: ") || note != "" && !strings.Contains(joined, note) {
		t.Errorf("width %d: %q, want a note %q", width, out, note)
	}
	for _, h := range has {
		if !strings.Contains(out, h) {
			t.Errorf("width %d: table lacks %q:\n%s", width, h, out)
		}
	}
}
