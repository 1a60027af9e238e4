package mujoco

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/envs"
)

// rssBytes is the resident set size from /proc/self/statm (0 if
// unavailable).
func rssBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// TestMemoryFlat runs 10,000 resets and 10,000 steps spread over the
// environments, and makes and closes 100 environments of each kind (each
// HalfCheetah mjData alone holds a 2.4 MB stack), then checks that neither
// the process's resident memory nor the Go heap grew: models and data are
// freed and stepping allocates nothing.
func TestMemoryFlat(t *testing.T) {
	if rssBytes() == 0 {
		t.Skip("/proc/self/statm not available")
	}
	// Stay on one OS thread: glibc malloc keeps per-thread arenas, and a
	// goroutine hopping threads would spread freed chunks over several of
	// them, which looks like growth without being a leak.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cycle := func(rounds, resets int) {
		for r := 0; r < rounds; r++ {
			for _, c := range constructors {
				e, err := c.make()
				if err != nil {
					t.Fatal(err)
				}
				a := ones(e.Spec().Action.Dim(), 0.5)
				for k := 0; k < resets; k++ {
					if _, err := e.Reset(envs.NoSeed); err != nil {
						t.Fatal(err)
					}
					if _, err := e.Step(a); err != nil {
						t.Fatal(err)
					}
				}
				if err := e.Close(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	cycle(5, 25) // warm up the allocators
	rss0, heap0 := rssBytes(), heapInUse()
	cycle(100, 25) // 100 x 4 envs made and closed; 10,000 resets and steps
	rss1, heap1 := rssBytes(), heapInUse()
	t.Logf("RSS %.1f -> %.1f MB, Go heap in use %.1f -> %.1f MB", float64(rss0)/1e6, float64(rss1)/1e6, float64(heap0)/1e6, float64(heap1)/1e6)
	// A leaked HalfCheetah model+data is over 2.4 MB: 100 of them would add
	// 240 MB. Allow 16 MB of allocator noise.
	if rss1-rss0 > 16<<20 {
		t.Fatalf("RSS grew by %.1f MB over 400 make/close cycles and 10,000 resets and steps", float64(rss1-rss0)/1e6)
	}
	if heap1 > heap0+4<<20 {
		t.Fatalf("Go heap grew by %.1f MB", float64(heap1-heap0)/1e6)
	}
}
