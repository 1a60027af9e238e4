//go:build unix

package safefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestLockNamesFolderAndHolder(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir, ".lock", "state folder")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(dir, ".lock", "state folder")
	var le *LockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() {
		t.Fatalf("second holder: %v", err)
	}
	for _, want := range []string{"state folder " + dir, fmt.Sprintf("process %d", os.Getpid()), filepath.Join(dir, ".lock")} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if pid, held, err := Holder(dir, ".lock"); !held || pid != os.Getpid() || err != nil {
		t.Fatalf("Holder: %d %v %v", pid, held, err)
	}
	if st, err := os.Stat(filepath.Join(dir, ".lock")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("lock file mode: %v %v", st.Mode(), err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, held, _ := Holder(dir, ".lock"); held {
		t.Fatal("still held after Release")
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	for i, write := range []func(string, []byte) error{WritePrivate, WritePrivate} { // modes: TestWriteModes
		want := fmt.Sprintf("content %d", i)
		if err := write(p, []byte(want)); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		st, _ := os.Stat(p)
		if err != nil || string(b) != want || st.Mode().Perm() != 0o600 {
			t.Fatalf("write %d: %q %v mode %v", i, b, err, st.Mode())
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("temporary files left: %v", ents)
	}
	if err := WriteAtomic(filepath.Join(dir, "missing", "f"), nil); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "missing", "f")) {
		t.Fatalf("write into a missing folder: %v", err)
	}
}

// TestAcquireWaitsOutAProbe: a reader's shared probe held across the
// writer's first attempt does not refuse the writer (the probe ends during
// the first wait); a writer's lock refuses it after every retry.
func TestAcquireWaitsOutAProbe(t *testing.T) {
	dir := t.TempDir()
	probe, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := flock(probe, syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	waits := 0
	l, err := acquire(dir, ".lock", "run folder", func(int) { waits++; probe.Close() })
	if err != nil || waits != 1 {
		t.Fatalf("a reader's probe: %v after %d waits, want the lock after 1", err, waits)
	}
	waits = 0
	if _, err := acquire(dir, ".lock", "run folder", func(int) { waits++ }); err == nil || waits != probeRetries {
		t.Fatalf("a second writer: %v after %d waits, want refused after %d", err, waits, probeRetries)
	}
	l.Release()
}

// TestSharedLockAndBusy: shared locks on one file coexist (two holders),
// Busy sees them while any is held and not after the last is released,
// and a file that does not exist is not busy.
func TestSharedLockAndBusy(t *testing.T) {
	dir := t.TempDir()
	busy := func() bool {
		t.Helper()
		b, err := Busy(dir, "shared.lock")
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if busy() {
		t.Fatal("Busy before the file exists")
	}
	a, err := AcquireShared(dir, "shared.lock")
	if err != nil {
		t.Fatal(err)
	}
	b, err := AcquireShared(dir, "shared.lock")
	if err != nil {
		t.Fatalf("a second shared holder: %v", err)
	}
	steps := []struct {
		release *Lock
		busy    bool
	}{{nil, true}, {a, true}, {b, false}}
	for i, s := range steps {
		if err := s.release.Release(); err != nil {
			t.Fatal(err)
		}
		if got := busy(); got != s.busy {
			t.Errorf("step %d: Busy = %v, want %v", i, got, s.busy)
		}
	}
}
