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
		{120, "RUN", "dropped ENV, CONTROLLER, SEED; cut RUN, DETAIL", []string{"…ed5/halfcheetah/random/seed41  stopped", "continue with:", "179 s wall time"}},
		{80, "RUN", "dropped ENV, CONTROLLER, SEED; cut RUN, DETAIL", []string{"…ed5/halfcheetah/random/seed41  stopped   12/489 iterations", "continue", "\nr "}},
	} {
		var b bytes.Buffer
		if err := WriteFolderTable(&b, root, runs, tc.width); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
		if !strings.HasPrefix(lines[0], tc.header) || !strings.HasSuffix(lines[len(lines)-1], "status: 3 runs: 1 finished, 1 running, 1 stopped") {
			t.Errorf("width %d: table\n%s", tc.width, b.String())
		}
		for i, l := range lines {
			if n := utf8.RuneCountInString(l); tc.width > 0 && n > tc.width-1 {
				t.Errorf("width %d: line %d has %d columns: %q", tc.width, i, n, l)
			}
		}
		note := lines[len(lines)-2]
		if tc.note == "" && strings.HasPrefix(note, "(") || tc.note != "" && !strings.Contains(note, tc.note) {
			t.Errorf("width %d: note line %q, want %q", tc.width, note, tc.note)
		}
		for _, h := range tc.has {
			if !strings.Contains(b.String(), h) {
				t.Errorf("width %d: table lacks %q:\n%s", tc.width, h, b.String())
			}
		}
	}
}
