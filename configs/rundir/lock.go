//go:build unix

package rundir

import (
	"fmt"
	"os"

	"github.com/hyperctl/hyperctl/internal/ground/safefile"
)

// Lock is a held run-folder lock (safefile.Lock: an exclusive flock(2) on the
// folder's .lock file, released by the kernel when the holder dies).
type Lock = safefile.Lock

// LockedError is the error for a run folder whose lock another process
// holds; it names the holder's pid.
type LockedError = safefile.LockedError

// Acquire creates dir if needed and takes its writer lock without waiting.
// If another process holds it, the error is a *LockedError naming that
// process's pid. The holder's pid is written into the lock file. Every
// process that writes a run folder (train, a Slurm job) takes this lock for
// as long as it writes.
func Acquire(dir string) (*Lock, error) {
	if err := notAFile(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("output folder %s: cannot create: %w", dir, err)
	}
	return safefile.Acquire(dir, LockFile, "run folder")
}

// Holder reports whether another process holds dir's lock and, if so, its
// pid (0 when it has not recorded it yet). It must not be called by the
// holder itself.
func Holder(dir string) (pid int, held bool, err error) {
	return safefile.Holder(dir, LockFile)
}
