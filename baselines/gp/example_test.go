package gp_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hyperctl/hyperctl/baselines/gp"
)

// Fit chooses the kernel's hyperparameters by ML-II on noisy samples of
// sin(2πx) in [0, 0.8]. Between the samples the posterior is sure and
// right; beyond them (x = 0.95) its standard deviation grows to cover its
// error.
func ExampleFit() {
	rng := rand.New(rand.NewPCG(1, 2))
	var x, y []float64
	for i := range 12 {
		xi := float64(i) / 11 * 0.8 // samples in [0, 0.8] only
		x = append(x, xi)
		y = append(y, math.Sin(2*math.Pi*xi)+0.01*rng.NormFloat64())
	}
	model, err := gp.Fit(x, y, gp.FitOptions{
		Kernel:   gp.Kernel{Kind: gp.SquaredExp, Dim: 1},
		Restarts: 3,
	}, rng)
	if err != nil {
		fmt.Println(err)
		return
	}
	at := []float64{0.25, 0.95}
	mean, variance := make([]float64, 2), make([]float64, 2)
	if err := model.Predict(at, mean, variance); err != nil {
		fmt.Println(err)
		return
	}
	for i, xi := range at {
		fmt.Printf("x=%.2f: mean %5.2f ± %.2f (sin %5.2f)\n", xi, mean[i], math.Sqrt(variance[i]), math.Sin(2*math.Pi*xi))
	}
	// Output:
	// x=0.25: mean  0.99 ± 0.01 (sin  1.00)
	// x=0.95: mean -0.41 ± 0.15 (sin -0.31)
}
