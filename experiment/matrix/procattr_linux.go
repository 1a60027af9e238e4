package matrix

import "syscall"

// childProcAttr makes a `train` child of compare receive SIGTERM when
// compare dies, however it dies (SIGKILL included), so no orphan keeps
// writing a run folder: the child checkpoints and exits, releasing the
// folder's lock for the next compare.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
