package all

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/hyperctl/hyperctl/envs"
)

// threadCPU is the CPU time used so far by the calling OS thread
// (getrusage RUSAGE_THREAD); call it with the goroutine locked to its
// thread. Unlike wall time it does not count time spent descheduled, so it
// is steadier on a shared machine.
func threadCPU(b *testing.B) time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD on Linux
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// timed runs f b.N times on a locked thread and reports its thread CPU time
// per call as cpu-ns/op, besides the wall time of ns/op.
func timed(b *testing.B, f func() error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	c0 := threadCPU(b)
	for i := 0; i < b.N; i++ {
		if err := f(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(threadCPU(b)-c0)/float64(b.N), "cpu-ns/op")
}

// walkerStand is a constant BipedalWalker action that keeps the walker up
// (no game over) for the whole 1600-step episode from seed 0, so snapshots
// can be taken late in an episode.
var walkerStand = []float64{0.3, -1, -1, -1}

// BenchmarkSnapshot measures envs.Snapshot and envs.Restore (into another
// environment made with envs.Make) of each registered environment, `steps`
// steps into an episode (random actions; the walker holds walkerStand),
// and reports the snapshot's size, the wall time (ns/op) and the calling
// thread's CPU time (cpu-ns/op, steadier on a shared machine). MuJoCo's cost
// does not depend on the position; the walker's restore replays the
// episode, so it is measured at several. Run:
//
//	go test -run '^$' -bench Snapshot -benchtime 20x ./envs/all/
func BenchmarkSnapshot(b *testing.B) {
	for _, c := range envCases {
		positions := []int{5} // IDP's first episode is 6 steps long here
		if c.name == "bipedalwalker" {
			positions = []int{0, 100, 400, 1599}
		}
		for _, steps := range positions {
			e, err := envs.Make(c.name)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := e.Reset(0); err != nil {
				b.Fatal(err)
			}
			acts := actions(e.Spec(), 1, steps)
			for i, a := range acts {
				if c.name == "bipedalwalker" {
					a = walkerStand
				}
				st, err := e.Step(a)
				if err != nil {
					b.Fatal(err)
				}
				if (st.Terminated || st.Truncated) && i+1 < steps {
					b.Fatalf("%s: the episode ended at step %d, before %d", c.name, i+1, steps)
				}
			}
			snap, err := envs.Snapshot(e)
			if err != nil {
				b.Fatal(err)
			}
			name := fmt.Sprintf("%s/steps=%d", c.name, steps)
			b.Run(name+"/save", func(b *testing.B) {
				timed(b, func() error {
					_, err := envs.Snapshot(e)
					return err
				})
				b.ReportMetric(float64(len(snap)), "bytes")
			})
			b.Run(name+"/restore", func(b *testing.B) {
				target, err := envs.Make(c.name)
				if err != nil {
					b.Fatal(err)
				}
				defer target.Close()
				timed(b, func() error { return envs.Restore(target, snap) })
				b.ReportMetric(float64(len(snap)), "bytes")
			})
			e.Close()
		}
	}
}

// BenchmarkVecSnapshot measures Vec.Snapshot and Vec.Restore of 8 copies
// (GOMAXPROCS workers, registered time limits) after 300 steps of random
// actions, and reports the snapshot's size. Run:
//
//	go test -run '^$' -bench VecSnapshot -benchtime 20x ./envs/all/
func BenchmarkVecSnapshot(b *testing.B) {
	const n, steps = 8, 300
	for _, c := range envCases {
		v, err := envs.NewVec(c.name, n, 0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := v.Reset(); err != nil {
			b.Fatal(err)
		}
		vecTrace(b, v, vecActions(v.Spec(), n, 2, steps), nil)
		snap, err := v.Snapshot()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name+"/save", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := v.Snapshot(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(snap)), "bytes")
		})
		b.Run(c.name+"/restore", func(b *testing.B) {
			target, err := envs.NewVec(c.name, n, 0)
			if err != nil {
				b.Fatal(err)
			}
			defer target.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := target.Restore(snap); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(snap)), "bytes")
		})
		v.Close()
	}
}
