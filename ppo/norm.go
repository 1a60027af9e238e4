package ppo

import (
	"math"

	"github.com/hyperctl/hyperctl/ppo/policy"
)

// normEps is the variance epsilon of Gymnasium's NormalizeObservation and
// NormalizeReward wrappers.
const normEps = policy.NormEpsilon

// RunningMeanStd tracks the mean and (population) variance of a stream of
// vectors with the parallel update of Chan et al., as Gymnasium's
// RunningMeanStd: it starts at mean 0, variance 1 and a pseudo-count of 1e-4.
type RunningMeanStd struct {
	Mean  []float64
	Var   []float64
	Count float64
}

// NewRunningMeanStd returns the statistics of dim-dimensional vectors.
func NewRunningMeanStd(dim int) RunningMeanStd {
	r := RunningMeanStd{Mean: make([]float64, dim), Var: make([]float64, dim), Count: 1e-4}
	for i := range r.Var {
		r.Var[i] = 1
	}
	return r
}

// Update folds in rows vectors stored row-major in x (len rows*dim).
func (r *RunningMeanStd) Update(x []float64, rows int) {
	dim := len(r.Mean)
	if rows <= 0 || dim == 0 {
		return
	}
	n := float64(rows)
	tot := r.Count + n
	for j := 0; j < dim; j++ {
		var s float64
		for i := 0; i < rows; i++ {
			s += x[i*dim+j]
		}
		bm := s / n
		var ss float64
		for i := 0; i < rows; i++ {
			d := x[i*dim+j] - bm
			ss += d * d
		}
		bv := ss / n
		delta := bm - r.Mean[j]
		m2 := r.Var[j]*r.Count + bv*n + delta*delta*r.Count*n/tot
		r.Mean[j] += delta * n / tot
		r.Var[j] = m2 / tot
	}
	r.Count = tot
}

func (r RunningMeanStd) clone() RunningMeanStd {
	return RunningMeanStd{Mean: append([]float64(nil), r.Mean...), Var: append([]float64(nil), r.Var...), Count: r.Count}
}

// normalizeObs writes clip((x − mean)/√(var + 1e-8), ±clip) for rows
// vectors into dst as float32. With enabled false it only converts. The
// formula is policy.ObsNorm.Apply, so a saved policy normalises as training
// did.
func normalizeObs(rms *RunningMeanStd, enabled bool, clip float64, x []float64, dst []float32) {
	policy.ObsNorm{Enabled: enabled, Mean: rms.Mean, Var: rms.Var, Clip: clip, Epsilon: normEps}.Apply(x, dst)
}

// RewardScaler divides rewards by the running standard deviation of the
// discounted return, as Gymnasium's NormalizeReward (then clips them). The
// per-environment discounted return is reset when an episode ends, whether
// terminated or truncated (CleanRL's gym version; Gymnasium ≥ 0.26 resets it
// only on termination).
type RewardScaler struct {
	RMS     RunningMeanStd
	Returns []float64 // discounted return so far, one per environment
}

// NewRewardScaler returns a scaler for n environments.
func NewRewardScaler(n int) RewardScaler {
	return RewardScaler{RMS: NewRunningMeanStd(1), Returns: make([]float64, n)}
}

// Scale updates the statistics with one vector step (rewards and episode
// ends of every environment) and writes the scaled, clipped rewards to dst.
func (rs *RewardScaler) Scale(gamma, clip float64, rewards []float64, done []bool, dst []float64) {
	for e, r := range rewards {
		rs.Returns[e] = rs.Returns[e]*gamma + r
	}
	rs.RMS.Update(rs.Returns, len(rs.Returns))
	std := math.Sqrt(rs.RMS.Var[0] + normEps)
	for e, r := range rewards {
		dst[e] = math.Max(-clip, math.Min(clip, r/std))
		if done[e] {
			rs.Returns[e] = 0
		}
	}
}
