// Memory reuse (this file). A trainer's environments allocate large blocks: every
// copy of a MuJoCo model holds its whole stack (HalfCheetah's 300,000
// numbers, 2.4 MB), and New, Restore and Close build and free them. With
// glibc's defaults each block came from fresh pages of its own, and each of
// its pages then cost a page fault, which on this project's virtual
// machines is slow: a population member's resume for one generation (New,
// then Restore) took 0.3–0.5 s, mostly there, and a population of 8
// resumes 160 times. So a process that links this package sets malloc to
// keep freed memory and reuse it (the C constructor below), which took
// New and Restore from 20–85 ms to 6 ms each. The cost is that the process
// keeps its largest footprint until it exits. Setting any glibc.malloc
// tunable in GLIBC_TUNABLES leaves malloc to those settings instead.
// Neither changes a number the trainer computes: where a block lies in
// memory does not change the order of any float operation.

package ppo

/*
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

// hc_malloc_settings runs when the process loads, before the Go runtime
// starts its threads. It makes glibc's malloc keep freed memory for reuse:
// one arena for every thread (cgo calls come from many OS threads, each of
// which would otherwise get an arena of its own, trimmed back to the kernel
// on free), no mmap below 64 MiB and no trimming below 1 GiB. A user's own
// GLIBC_TUNABLES malloc settings win: then it changes nothing.
__attribute__((constructor)) static void hc_malloc_settings(void) {
	const char* t = getenv("GLIBC_TUNABLES");
	if (t != NULL && strstr(t, "glibc.malloc.") != NULL) {
		return;
	}
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
}
*/
import "C"
