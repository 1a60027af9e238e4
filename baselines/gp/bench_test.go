package gp

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkFit times one ML-II fit (one start, no restarts) of a 4-D
// Matérn-5/2 ARD GP as the data grows.
func BenchmarkFit(b *testing.B) {
	for _, n := range []int{25, 50, 100, 200} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			x, y := randomData(rng, n, 4)
			k := Kernel{Kind: Matern52, Dim: 4, ARD: true}
			b.ResetTimer()
			for range b.N {
				if _, err := Fit(x, y, FitOptions{Kernel: k}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLogLikelihoodGrad times one likelihood-and-gradient evaluation.
func BenchmarkLogLikelihoodGrad(b *testing.B) {
	for _, n := range []int{50, 100, 200} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			x, y := randomData(rng, n, 4)
			k := Kernel{Kind: Matern52, Dim: 4, ARD: true}
			h := Hyper{SignalVar: 1, Lengthscales: []float64{0.5, 0.5, 0.5, 0.5}, NoiseVar: 0.1}
			w := newWorkspace(k, x, y)
			g := make([]float64, k.NumParams())
			b.ResetTimer()
			for range b.N {
				if _, err := w.lml(h, g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
