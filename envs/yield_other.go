//go:build !linux

package envs

import "runtime"

// osYield lets other goroutines run (sched_yield is used on Linux; see
// yield_linux.go).
func osYield() { runtime.Gosched() }
