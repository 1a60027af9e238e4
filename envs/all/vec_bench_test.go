package all

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/hyperctl/hyperctl/envs"
)

// BenchmarkVecAll steps every registered environment as an envs.Vec of 8
// copies with GOMAXPROCS workers and uniform random actions, and as a single
// environment, reporting env steps per second for both. Run:
//
//	go test -run '^$' -bench VecAll -benchtime 2s ./envs/all/
func BenchmarkVecAll(b *testing.B) {
	for _, spec := range envs.List() {
		b.Run(spec.Name, func(b *testing.B) {
			const n = 8
			v, err := envs.NewVec(spec.Name, n, 0)
			if err != nil {
				b.Fatal(err)
			}
			defer v.Close()
			if _, err := v.Reset(); err != nil {
				b.Fatal(err)
			}
			ad := spec.Action.Dim()
			rng := rand.New(rand.NewPCG(1, 2))
			acts := make([]float64, 1024*n*ad)
			for i := range acts {
				j := i % ad
				lo, hi := spec.Action.Low[j], spec.Action.High[j]
				acts[i] = lo + rng.Float64()*(hi-lo)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k := (i % 1024) * n * ad
				if _, err := v.Step(acts[k : k+n*ad]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "vec-env-steps/s")
			b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "workers")
		})
	}
}
