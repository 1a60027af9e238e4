package population

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// WelchResult is Welch's unequal-variances t-test of two samples x and y.
type WelchResult struct {
	// T is (mean(x) − mean(y)) / √(s²x/nx + s²y/ny), with the unbiased
	// sample variances; ±Inf when both variances are 0 and the means
	// differ, 0 when both are 0 and the means agree.
	T float64
	// DF is the Welch–Satterthwaite degrees of freedom,
	// (s²x/nx + s²y/ny)² / ((s²x/nx)²/(nx−1) + (s²y/ny)²/(ny−1)); NaN
	// when both variances are 0.
	DF float64
	// P is the two-sided p-value, 2·P(T_DF > |T|) under Student's t
	// distribution with DF degrees of freedom (gonum's distuv.StudentsT):
	// 0 when T is infinite, 1 when T is 0 with no variance.
	P float64
}

// Welch runs Welch's t-test on x and y (each at least 2 finite values);
// errors name the sample.
func Welch(x, y []float64) (WelchResult, error) {
	for _, s := range []struct {
		name string
		v    []float64
	}{{"x", x}, {"y", y}} {
		if len(s.v) < 2 {
			return WelchResult{}, fmt.Errorf("welch t-test: sample %s has %d values; want at least 2", s.name, len(s.v))
		}
		if err := finite(s.v); err != nil {
			return WelchResult{}, fmt.Errorf("welch t-test: sample %s: %w", s.name, err)
		}
	}
	mx, vx := stat.MeanVariance(x, nil)
	my, vy := stat.MeanVariance(y, nil)
	nx, ny := float64(len(x)), float64(len(y))
	ax, ay := vx/nx, vy/ny
	se := math.Sqrt(ax + ay)
	if se == 0 {
		if mx == my {
			return WelchResult{T: 0, DF: math.NaN(), P: 1}, nil
		}
		return WelchResult{T: math.Copysign(math.Inf(1), mx-my), DF: math.NaN(), P: 0}, nil
	}
	r := WelchResult{T: (mx - my) / se, DF: (ax + ay) * (ax + ay) / (ax*ax/(nx-1) + ay*ay/(ny-1))}
	r.P = math.Min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: r.DF}.Survival(math.Abs(r.T)))
	return r, nil
}

// SignificantlyBetter reports whether the returns of a donor are
// significantly better than a member's: the donor's mean is higher and
// Welch's two-sided p-value is below level (so, one-sided, at level/2).
// Each sample is the last episodes values of its slice (all of it when
// shorter); with fewer than 2 in either, it is false.
func SignificantlyBetter(member, donor []float64, episodes int, level float64) (bool, error) {
	a, b := last(member, episodes), last(donor, episodes)
	if len(a) < 2 || len(b) < 2 {
		return false, nil
	}
	if err := finite(a); err != nil {
		return false, fmt.Errorf("the member's returns: %w", err)
	}
	if err := finite(b); err != nil {
		return false, fmt.Errorf("the donor's returns: %w", err)
	}
	r, err := Welch(b, a)
	if err != nil {
		return false, err
	}
	return r.T > 0 && r.P < level, nil
}

// finite checks that every value of v is a finite number.
func finite(v []float64) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("value %d is %v; want a finite number", i, x)
		}
	}
	return nil
}

// last returns the last k values of v (all of v when shorter).
func last(v []float64, k int) []float64 {
	if len(v) > k {
		return v[len(v)-k:]
	}
	return v
}

// TTestSelection is Jaderberg et al.'s t-test selection (2017, section
// 4.1.1): every member, in member order, draws another member uniformly
// with rng and copies it (donor[i] = j) when j's latest returns are
// significantly better than its own (SignificantlyBetter with episodes and
// level); otherwise donor[i] = −1. returns[i] are member i's episode
// returns, oldest first. A draw is made for every member, also one without
// enough returns, so the draws do not depend on the data.
//
// Jaderberg et al.'s population is asynchronous: a member compares itself
// with the other's state when it becomes ready. Here all members are at the
// same ready point and a member copies its donor's weights as they are at
// that point, before any copy of the step; a donor may itself copy another
// member in the same step (CopyOrder orders such copies).
func TTestSelection(returns [][]float64, episodes int, level float64, rng *rand.Rand) ([]int, error) {
	n := len(returns)
	donor := make([]int, n)
	for i := range donor {
		donor[i] = -1
	}
	if n < 2 {
		return donor, nil
	}
	for i := range n {
		j := rng.IntN(n - 1)
		if j >= i {
			j++
		}
		ok, err := SignificantlyBetter(returns[i], returns[j], episodes, level)
		if err != nil {
			return nil, fmt.Errorf("t-test selection: member %d against member %d: %w", i, j, err)
		}
		if ok {
			donor[i] = j
		}
	}
	return donor, nil
}
