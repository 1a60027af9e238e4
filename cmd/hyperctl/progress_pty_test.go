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

// TestProgressLineFitsTerminal runs train (12 iterations, the real binary)
// with its stderr on an 80-column pseudo-terminal: every update of the
// progress line returns to the line's start with \r and fits in 79
// columns, so the terminal shows one line however many updates there are,
// and only the end of the run moves to a new line.
func TestProgressLineFitsTerminal(t *testing.T) {
	master, tty := openPTY(t, 80)
	defer master.Close()
	const iterations = 12
	cmd := exec.Command(binPath, "--log-level", "warn", "train", "--env", "reacher", "--iterations", fmt.Sprint(iterations), "--threads", "1",
		"--out", filepath.Join(t.TempDir(), "run"))
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, tty
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
	if err := cmd.Wait(); err != nil {
		t.Fatalf("train: %v\n%s", err, stdout.String())
	}
	out := string(<-got)
	// The terminal turns \n into \r\n; a line is what lies between them.
	text := strings.ReplaceAll(out, "\r\n", "\n")
	for _, seg := range regexp.MustCompile("[\r\n]").Split(text, -1) {
		if n := utf8.RuneCountInString(seg); n > 80 {
			t.Errorf("a write of %d columns, wider than the terminal: %q", n, seg)
		}
	}
	updates := regexp.MustCompile(`\rit \d+/12`).FindAllString(text, -1)
	if len(updates) < iterations {
		t.Errorf("%d updates in place (\\r), want at least %d, one per iteration; output %q", len(updates), iterations, out)
	}
	if n := strings.Count(text, "\n"); n != 1 {
		t.Errorf("%d new lines, want 1 (after the last update); output %q", n, out)
	}
	if !strings.Contains(text, "\rit 12/12 100% | ETA 0s") {
		t.Errorf("no final update at 12/12; output %q", out)
	}
}
