//go:build unix

package safefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Lock is a held folder lock: an exclusive flock(2) on a lock file inside
// the folder. The kernel releases it when the holder's last descriptor of
// the file closes, so a process that dies in any way (SIGKILL included)
// leaves no stale lock. The file itself stays; its content is the pid of the
// last holder. Every hyperctl process that writes a folder takes its lock
// this way: a run folder (rundir.Acquire) and serve's --state folder.
type Lock struct {
	f    *os.File
	path string
}

// LockedError is the error for a folder whose lock another process holds.
type LockedError struct {
	What string // what the folder is: "run folder", "state folder"
	Dir  string
	Path string // the lock file
	PID  int    // the holder's pid as recorded in the lock file; 0 if it had not written it yet
}

func (e *LockedError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = fmt.Sprintf("process %d", e.PID)
	}
	return fmt.Sprintf("%s %s is in use: %s is writing it (it holds %s); wait for it to end or stop it, then retry",
		e.What, e.Dir, who, e.Path)
}

// Acquire takes the lock on dir/name (creating the file with mode 0600;
// dir must exist) without waiting for a writer (a reader's probe is waited
// out, see probeRetries), and writes the caller's pid into it. If another
// process holds it, the error is a *LockedError naming that
// process's pid; what names the folder's kind in it ("run folder").
func Acquire(dir, name, what string) (*Lock, error) {
	return acquire(dir, name, what, func(int) { time.Sleep(probeWait) })
}

// acquire is Acquire with wait called before each retry.
func acquire(dir, name, what string, wait func(try int)) (*Lock, error) {
	path := filepath.Join(dir, name)
	f, err := lockFile(path, syscall.LOCK_EX, wait)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, &LockedError{What: what, Dir: dir, Path: path, PID: readPID(path)}
	}
	if err != nil {
		return nil, err
	}
	pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt(pid, 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: write pid: %w", path, err)
	}
	return &Lock{f: f, path: path}, nil
}

// A refused Acquire tries again probeRetries times, probeWait apart, so a
// reader's momentary probe (Holder) never turns a writer away.
const (
	probeRetries = 5
	probeWait    = 20 * time.Millisecond
)

// Release gives the lock up (ending the process does too).
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the only descriptor releases the flock
	l.f = nil
	return err
}

// Holder reports whether another process holds the lock on dir/name and,
// if so, its pid (0 when it has not recorded it yet). It probes by taking
// the lock and releasing it at once, so it must not be called by the holder
// itself.
func Holder(dir, name string) (pid int, held bool, err error) {
	path := filepath.Join(dir, name)
	if held, err = probe(path, syscall.LOCK_SH); !held || err != nil {
		return 0, false, err
	}
	return readPID(path), true, nil
}

// probe reports whether a lock on path is in the way of taking it with
// how (syscall.LOCK_SH or LOCK_EX), taking it and releasing it at once; a
// missing file holds no lock.
func probe(path string, how int) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("lock %s: %w", path, err)
	}
	defer f.Close() // releases the probe's lock
	err = flock(f, how|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("lock %s: %w", path, err)
	}
	return false, nil
}

// AcquireShared takes a shared lock on dir/name (creating the file with
// mode 0600; dir must exist): any number of processes may hold one at
// once, and Busy tells that some do. A local compare holds one on its
// folder for its whole life, so that status can tell that its runs wait
// for its workers. A Busy probe of a moment is waited out as Acquire
// waits it out; the file's content is not touched.
func AcquireShared(dir, name string) (*Lock, error) {
	path := filepath.Join(dir, name)
	f, err := lockFile(path, syscall.LOCK_SH, func(int) { time.Sleep(probeWait) })
	if err != nil {
		return nil, err
	}
	return &Lock{f: f, path: path}, nil
}

// lockFile opens path (creating it with mode 0600) and locks it with how
// (syscall.LOCK_EX or LOCK_SH) without blocking. While another process's
// lock is in the way it calls wait and tries again, probeRetries times:
// Holder's and Busy's probes (a reader such as status or the dashboard)
// hold the lock for a moment, a holder for its whole life, and a few short
// waits tell them apart. A lock still in the way is an error that wraps
// syscall.EWOULDBLOCK.
func lockFile(path string, how int, wait func(try int)) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	err = flock(f, how|syscall.LOCK_NB)
	for try := 0; errors.Is(err, syscall.EWOULDBLOCK) && try < probeRetries; try++ {
		wait(try)
		err = flock(f, how|syscall.LOCK_NB)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}

// Busy reports whether any process holds a lock on dir/name, shared or
// exclusive. It probes by taking the lock exclusively and releasing it at
// once, so a holder that calls it finds its own lock.
func Busy(dir, name string) (bool, error) {
	return probe(filepath.Join(dir, name), syscall.LOCK_EX)
}

// flock retries on EINTR.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// readPID reads the pid recorded in a lock file (0 if none).
func readPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil || len(b) > 32 {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid < 0 {
		return 0
	}
	return pid
}
