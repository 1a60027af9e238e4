package envs

import "syscall"

// osYield gives the calling thread's core to another runnable thread, if
// the kernel has one (sched_yield). Spinning Vec goroutines call it between
// polls, so that when the machine's cores are oversubscribed a spinning
// worker does not take CPU time from the goroutine that is stepping copies.
func osYield() { syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
