package termtext

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestFold(t *testing.T) {
	long := "lineages: the members' weights descend from 1 of 8 starting members (3, since the step after generation 12); by member: 3 3 3 3 3 3 3 3"
	for _, tc := range []struct {
		name, text string
		width      int
		want       string
	}{
		{"no width", long + "\n", 0, long + "\n"},
		{"short enough", "a short line\n", 80, "a short line\n"},
		{"exactly width-1", strings.Repeat("x", 79) + "\n", 80, strings.Repeat("x", 79) + "\n"},
		{"folded", long + "\n", 80, "lineages: the members' weights descend from 1 of 8 starting members (3, since\n  the step after generation 12); by member: 3 3 3 3 3 3 3 3\n"},
		{"indent kept", "  member 0  " + strings.TrimSpace(strings.Repeat("ab ", 30)) + "\n", 40, "  member 0  ab ab ab ab ab ab ab ab ab\n    ab ab ab ab ab ab ab ab ab ab ab ab\n    ab ab ab ab ab ab ab ab ab\n"},
		{"long word stays whole", "see " + strings.Repeat("y", 50) + " now", 20, "see\n  " + strings.Repeat("y", 50) + "\n  now"},
		{"width 1: a word a line", "ab cd  ef\n", 1, "ab\n  cd\n  ef\n"},
		{"width 3, indented", "   ab cd\n", 3, "   ab\n     cd\n"},
		// A coloured log line: the escapes take no column, so it folds
		// where its text reaches the width, not before.
		{"colours take no column", "\x1b[36mab=\x1b[0m1 \x1b[36mcd=\x1b[0m2 \x1b[36mef=\x1b[0m3\n", 10, "\x1b[36mab=\x1b[0m1 \x1b[36mcd=\x1b[0m2\n  \x1b[36mef=\x1b[0m3\n"},
		{"several lines, no final newline", "one\n" + long, 80, "one\nlineages: the members' weights descend from 1 of 8 starting members (3, since\n  the step after generation 12); by member: 3 3 3 3 3 3 3 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Fold(tc.text, tc.width)
			if got != tc.want {
				t.Errorf("Fold(%q, %d) =\n%q\nwant\n%q", tc.text, tc.width, got, tc.want)
			}
			for _, l := range strings.Split(got, "\n") {
				if tc.width > 3 && visible([]rune(l)) > tc.width-1 && !strings.Contains(l, "yyyy") {
					t.Errorf("line %q is longer than %d", l, tc.width-1)
				}
			}
		})
	}
}

func TestFoldAt(t *testing.T) {
	table := "NAME  SUMMARY\nhoof  HOOF (Paul et al. 2019): K random candidates each make a trial update\n"
	want := "NAME  SUMMARY\nhoof  HOOF (Paul et al. 2019): K random\n      candidates each make a trial\n      update\n"
	if got := FoldAt(table, 41, 6); got != want {
		t.Errorf("FoldAt =\n%q\nwant\n%q", got, want)
	}
}

func TestWidthOfAPipe(t *testing.T) {
	if w := Width(&bytes.Buffer{}); w != 0 {
		t.Errorf("Width of a buffer = %d, want 0", w)
	}
}

func TestFoldShell(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		width      int
		want       string
	}{
		{"fits", "  hyperctl train --env reacher\n", 80, "  hyperctl train --env reacher\n"},
		{"no width", "  hyperctl train --env halfcheetah --controller hypercontroller --set controller.hypercontroller.d=5\n", 0,
			"  hyperctl train --env halfcheetah --controller hypercontroller --set controller.hypercontroller.d=5\n"},
		{"folded with a continuation", "  hyperctl train --env halfcheetah --controller hypercontroller --set controller.hypercontroller.d=5\n", 80,
			"  hyperctl train --env halfcheetah --controller hypercontroller --set \\\n      controller.hypercontroller.d=5\n"},
		{"quotes stay whole", "  hyperctl report runs --format json | jq '.runs[] | {env, controller, seed, eval_return_at_budget}'\n", 60,
			"  hyperctl report runs --format json | jq \\\n      '.runs[] | {env, controller, seed, eval_return_at_budget}'\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FoldShell(tc.text, tc.width); got != tc.want {
				t.Errorf("FoldShell =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestWriterOfAPipe(t *testing.T) {
	var b bytes.Buffer
	if w := Writer(&b); w != io.Writer(&b) {
		t.Errorf("Writer of a buffer is %T, want the buffer itself", w)
	}
}

func TestFoldWriter(t *testing.T) {
	var b bytes.Buffer
	w := &foldWriter{w: &b, width: 20}
	for _, part := range []string{"compare: 4 runs ", "done. Next: hyperctl report runs/cmp\nsecond", " line\n"} {
		if n, err := w.Write([]byte(part)); err != nil || n != len(part) {
			t.Fatalf("Write(%q) = %d, %v", part, n, err)
		}
	}
	want := "compare: 4 runs\n  done. Next:\n  hyperctl report\n  runs/cmp\nsecond line\n"
	if b.String() != want {
		t.Errorf("folded\n%q\nwant\n%q", b.String(), want)
	}
}

// TestFoldColumns: a table's description folds under its column (a term
// and a description two or more spaces apart, an indented line continuing
// one), prose as Fold folds it.
func TestFoldColumns(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		width      int
		want       string
	}{
		{"a term and its description", "  checkpoint/    the two latest checkpoints, checksummed\n", 40,
			"  checkpoint/    the two latest\n                 checkpoints,\n                 checksummed\n"},
		{"a description's next line", "                 iterations and on SIGINT/SIGTERM\n", 40,
			"                 iterations and on\n                 SIGINT/SIGTERM\n"},
		{"a preset", "  paper      each method as its paper states it\n", 30,
			"  paper      each method as\n             its paper states\n             it\n"},
		{"prose", "a finished run, another config's run or one being written\n", 30,
			"a finished run, another\n  config's run or one being\n  written\n"},
		{"no width", "  a  b\n", 0, "  a  b\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FoldColumns(tc.text, tc.width); got != tc.want {
				t.Errorf("FoldColumns(%q, %d) =\n%q\nwant\n%q", tc.text, tc.width, got, tc.want)
			}
		})
	}
}
