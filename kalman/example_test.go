package kalman_test

import (
	"fmt"
	"log"

	"gonum.org/v1/gonum/mat"

	"github.com/hyperctl/hyperctl/kalman"
)

// A scalar LGDS z_{t+1} = 0.5 z_t + ξ_t, ξ_t ~ N(0, 1), observed with noise
// variance 1: its stationary variance 1/(1 − 0.5²), then the one-step
// predictor after observing X_0 = 2: with gain K = Σ/(Σ + σ²) = 4/7, the
// prediction is Γ·K·2 = 4/7 and P becomes Γ²(1 − K)Σ + Q = 8/7.
func Example() {
	m, err := kalman.NewModel(mat.NewDense(1, 1, []float64{0.5}), mat.NewSymDense(1, []float64{1}), 1)
	if err != nil {
		log.Fatal(err)
	}
	sigma, err := m.StationaryCov()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("stationary variance %.4f\n", sigma.At(0, 0))
	f, err := kalman.NewFilter(m)
	if err != nil {
		log.Fatal(err)
	}
	c := []float64{1}
	fmt.Printf("before: predict %.4f, innovation variance %.4f\n", f.Predict(c), f.InnovationVar(c))
	if err := f.Update(c, 2); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("after X_0 = 2: predict %.4f, innovation variance %.4f\n", f.Predict(c), f.InnovationVar(c))
	// Output:
	// stationary variance 1.3333
	// before: predict 0.0000, innovation variance 2.3333
	// after X_0 = 2: predict 0.5714, innovation variance 2.1429
}
