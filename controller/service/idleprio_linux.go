package service

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// setIdlePriority gives the calling thread the SCHED_IDLE policy (the
// caller has locked its goroutine to it).
func setIdlePriority() error {
	attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_IDLE}
	if err := unix.SchedSetAttr(0, &attr, 0); err != nil {
		return fmt.Errorf("sched_setattr SCHED_IDLE: %w", err)
	}
	return nil
}
