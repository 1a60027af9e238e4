//go:build !linux

package matrix

import "syscall"

// childProcAttr: outside Linux there is no parent-death signal; a child of a
// compare killed with SIGKILL runs on, and the run folder's lock keeps a
// second compare from writing the folder until it ends.
func childProcAttr() *syscall.SysProcAttr { return nil }
