//go:build !linux

package service

import "errors"

// setIdlePriority: SCHED_IDLE is Linux's; elsewhere the awaker stays off.
func setIdlePriority() error { return errors.New("no SCHED_IDLE on this system") }
