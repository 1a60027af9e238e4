//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair of cols columns through /dev/ptmx:
// the master, which reads what is written to the terminal, and the
// terminal itself.
func openPTY(t *testing.T, cols uint16) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock the pty: %v", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open the pty: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: cols}); err != nil {
		t.Fatalf("set the pty's size: %v", err)
	}
	return master, tty
}

// runOnPTY runs the hyperctl binary with args and its stderr (and its
// stdout too, with both) on a pseudo-terminal of cols columns, and returns
// what the terminal received, its "\r\n" turned into "\n", and stdout
// when it is not on the terminal.
func runOnPTY(t *testing.T, cols uint16, both bool, args ...string) (text, stdout string) {
	t.Helper()
	master, tty := openPTY(t, cols)
	defer master.Close()
	cmd := exec.Command(binPath, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, tty
	if both {
		cmd.Stdout = tty
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the child has its copy; the master reads EIO once it exits
	got := make(chan []byte)
	go func() {
		var b bytes.Buffer
		_, err := io.Copy(&b, master)
		if err != nil && !errors.Is(err, syscall.EIO) {
			b.WriteString("\nread error: " + err.Error())
		}
		got <- b.Bytes()
	}()
	err := cmd.Wait()
	term := string(<-got)
	if err != nil {
		t.Fatalf("%v: %v\n%s%s", args, err, out.String(), term)
	}
	// The terminal turns \n into \r\n; a line is what lies between them.
	return strings.ReplaceAll(term, "\r\n", "\n"), out.String()
}

// escapes are the terminal's escape sequences (the console log's colours),
// which take no column.
var escapes = regexp.MustCompile("\x1b\\[[0-9;?]*[@-~]")

// wideWrites reports every write between \r and \n wider than cols
// columns (runes other than escape sequences).
func wideWrites(t *testing.T, text string, cols int) {
	t.Helper()
	for _, seg := range regexp.MustCompile("[\r\n]").Split(text, -1) {
		if n := utf8.RuneCountInString(escapes.ReplaceAllString(seg, "")); n > cols {
			t.Errorf("a write of %d columns, wider than the terminal: %q", n, seg)
		}
	}
}

// TestProgressLineFitsTerminal runs train (12 iterations, the real binary)
// with its stderr on an 80-column pseudo-terminal: every update of the
// progress line returns to the line's start with \r and fits in 79
// columns, so the terminal shows one line however many updates there are,
// and only the end of the run moves to a new line.
func TestProgressLineFitsTerminal(t *testing.T) {
	const iterations = 12
	text, _ := runOnPTY(t, 80, false, "--log-level", "warn", "train", "--env", "reacher", "--iterations", fmt.Sprint(iterations), "--threads", "1",
		"--out", filepath.Join(t.TempDir(), "run"))
	wideWrites(t, text, 80)
	updates := regexp.MustCompile(`\rit \d+/12`).FindAllString(text, -1)
	if len(updates) < iterations {
		t.Errorf("%d updates in place (\\r), want at least %d, one per iteration; output %q", len(updates), iterations, text)
	}
	if n := strings.Count(text, "\n"); n != 1 {
		t.Errorf("%d new lines, want 1 (after the last update); output %q", n, text)
	}
	if !strings.Contains(text, "\rit 12/12 100% | ETA 0s") {
		t.Errorf("no final update at 12/12; output %q", text)
	}
}

// TestPopulationOnATerminal: on an 80-column terminal a population shows a
// bar of its members' frames, generation by generation, and its summary
// and its log lines (at the default level, info) fold to the terminal; no
// write is wider than the terminal, and the bar never says "measuring".
func TestPopulationOnATerminal(t *testing.T) {
	out := filepath.Join(t.TempDir(), "pop")
	text, _ := runOnPTY(t, 80, true, "population", "--env", "reacher", "--method", "pbt", "--size", "2",
		"--frames", "24000", "--ready", "12000", "--iterations", "24", "--jobs", "1", "--out", out)
	wideWrites(t, text, 80)
	for _, want := range []string{"generation 1 of 2", "generation 2 of 2", "100% |", "population finished: " + out, "training score\n", "INF"} {
		if !strings.Contains(text, want) {
			t.Errorf("the terminal lacks %q: %q", want, text)
		}
	}
	if strings.Contains(text, "measuring") {
		t.Errorf("the bar says measuring: %q", text)
	}
}

// TestCompareProgressOnATerminal runs compare (4 tiny runs of 600
// frames, 2 jobs) with its stderr on an 80-column pseudo-terminal: its
// line is drawn as train's (the runs, the bar of "#" and "-", the
// percentage, then " | " fields), every update returns to the line's
// start and fits in 79 columns, and only the end moves to a new line, at
// all 4 runs, 100% and ETA 0s.
func TestCompareProgressOnATerminal(t *testing.T) {
	dir := t.TempDir()
	text, stdout := runOnPTY(t, 80, false, "--log-level", "warn", "compare", "--env", "reacher", "--controllers", "fixed,random", "--seeds", "0-1",
		"--config", writeTiny(t, dir), "--frames", "600", "--jobs", "2", "--out", filepath.Join(dir, "cmp"))
	wideWrites(t, text, 80)
	line := regexp.MustCompile(`^runs [0-4]/4( \[[#-]{20}\]| \[[#-]{10}\])? \d+% \| ETA [^|]+( \| \d+ f/s)? *$`)
	updates := strings.Split(strings.TrimSuffix(text, "\n"), "\r")
	if len(updates) < 3 || updates[0] != "" {
		t.Fatalf("%d updates, want one at the start, one per run and one at the end, each after \\r: %q", len(updates)-1, text)
	}
	for _, u := range updates[1:] {
		if !line.MatchString(u) {
			t.Errorf("update %q is not compare's line", u)
		}
	}
	if n := strings.Count(text, "\n"); n != 1 {
		t.Errorf("%d new lines, want 1 (after the last update); output %q", n, text)
	}
	if last := updates[len(updates)-1]; !strings.HasPrefix(last, "runs 4/4 [####################] 100% | ETA 0s | ") {
		t.Errorf("last update %q, want all 4 runs done", last)
	}
	if !strings.Contains(stdout, "compare: 4 runs done") {
		t.Errorf("stdout %q", stdout)
	}
}

// TestTrainLogLinesFit: train's log lines at info level (its start line,
// the progress, the result) and at debug level (the time split, in
// milliseconds) fold on an 80-column terminal, so none wraps; the time
// split is not an info line.
func TestTrainLogLinesFit(t *testing.T) {
	for _, c := range []struct {
		level string
		split bool
	}{{"info", false}, {"debug", true}} {
		t.Run(c.level, func(t *testing.T) {
			text, _ := runOnPTY(t, 80, true, "--log-level", c.level, "train", "--env", "reacher", "--iterations", "2", "--threads", "1",
				"--out", filepath.Join(t.TempDir(), "run"))
			wideWrites(t, text, 80)
			plain := escapes.ReplaceAllString(text, "")
			if !strings.Contains(plain, "INF training") || !strings.Contains(plain, "train: done") {
				t.Errorf("no start line or result: %q", plain)
			}
			if got := strings.Contains(plain, "time split"); got != c.split {
				t.Errorf("time split shown: %v, want %v: %q", got, c.split, plain)
			}
			if long := regexp.MustCompile(`_s=\d+\.\d{4,}`).FindString(plain); long != "" {
				t.Errorf("a time of more digits than milliseconds: %q", long)
			}
		})
	}
}

// TestHelpFitsEightyColumns: on an 80-column terminal every command's
// --help fits: flags wrap under their column, long texts and the command
// list fold, and examples fold with a shell's " \" continuation.
func TestHelpFitsEightyColumns(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"train", "--help"}, {"compare", "--help"}, {"population", "--help"}, {"report", "--help"},
		{"status", "--help"}, {"serve", "--help"}, {"eval", "--help"}, {"judge", "--help"}, {"render", "--help"}, {"dashboard", "--help"}, {"bench", "--help"}} {
		text, _ := runOnPTY(t, 80, true, args...)
		for _, l := range strings.Split(text, "\n") {
			if n := utf8.RuneCountInString(l); n > 79 {
				t.Errorf("%v: a line of %d columns: %q", args, n, l)
			}
		}
		if !strings.Contains(text, "Usage:") {
			t.Errorf("%v: no usage in %q", args, text)
		}
	}
}

// TestRenderNamesItsPolicyFirst: on a terminal, render names the policy
// it records before its bar draws the frames, not after them.
func TestRenderNamesItsPolicyFirst(t *testing.T) {
	dir := fakeRun(t, "reacher")
	text, _ := runOnPTY(t, 80, true, "render", dir, "--still", filepath.Join(t.TempDir(), "x.png"), "--still-step", "10", "--size", "160x120")
	wideWrites(t, text, 80)
	name, bar := strings.Index(text, "Reacher-v4 policy-best: iteration"), strings.Index(text, "rendering frame")
	if name < 0 || bar < 0 || name > bar {
		t.Errorf("the policy's name at %d, the bar at %d; want the name first: %q", name, bar, text)
	}
}

// TestHelpTablesFoldUnderTheirColumn: at 80 columns, train --help's table
// of files and its list of presets fold under their description column,
// never back at the term's.
func TestHelpTablesFoldUnderTheirColumn(t *testing.T) {
	text, _ := runOnPTY(t, 80, true, "train", "--help")
	for _, want := range []string{
		"  checkpoint/    the two latest checkpoints, checksummed (every\n                 checkpoint_every iterations and on SIGINT/SIGTERM)\n",
		"  paper       each method as its paper states it: the method's own first\n              configuration,",
		"  lr-scale    the tuned lr is replaced by lr_scale in [0.25, 4] (log), a\n              multiplier of the annealed lr\n",
		"  seven-keys  HOOF only: every iteration, over the paper's four keys and\n              entropy_coef,",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("train --help at 80 columns lacks %q:\n%s", want, text)
		}
	}
}
