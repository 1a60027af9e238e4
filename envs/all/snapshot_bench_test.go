package all

import (
	"fmt"
	"testing"

	"github.com/hyperctl/hyperctl/envs"
)

// walkerStand is a constant BipedalWalker action that keeps the walker up
// (no game over) for the whole 1600-step episode from seed 0, so snapshots
// can be taken late in an episode.
var walkerStand = []float64{0.3, -1, -1, -1}

// BenchmarkSnapshot measures envs.Snapshot and envs.Restore (into another
// environment made with envs.Make) of each registered environment, `steps`
// steps into an episode (random actions; the walker holds walkerStand),
// and reports the snapshot's size. MuJoCo's cost does not depend on the
// position; the walker's restore replays the episode, so it is measured at
// several. Run:
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
				for i := 0; i < b.N; i++ {
					if _, err := envs.Snapshot(e); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(snap)), "bytes")
			})
			b.Run(name+"/restore", func(b *testing.B) {
				target, err := envs.Make(c.name)
				if err != nil {
					b.Fatal(err)
				}
				defer target.Close()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := envs.Restore(target, snap); err != nil {
						b.Fatal(err)
					}
				}
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
