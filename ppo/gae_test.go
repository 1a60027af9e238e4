package ppo

import (
	"math"
	"testing"
)

// TestGAE checks GAE against a hand-computed rollout of 3 steps × 2
// environments with γ = 0.9, λ = 0.8 (γλ = 0.72).
//
// env 0: steps 0, 1, 2 with rewards 1, 2, 3; values 0.5, 1.0, 1.5; the
// episode is TRUNCATED after step 1 (final observation's value 4.0) and a
// new episode starts at step 2; V(s_3) = 2.0.
//
//	δ2 = 3 + 0.9·2.0 − 1.5 = 3.3                       A2 = 3.3
//	δ1 = 2 + 0.9·4.0 − 1.0 = 4.6 (bootstrap, cut)      A1 = 4.6
//	δ0 = 1 + 0.9·1.0 − 0.5 = 1.4                       A0 = 1.4 + 0.72·4.6 = 4.712
//
// env 1: rewards −1, 0, 5; values 0.2, 0.4, 0.6; TERMINATED after step 0
// (no bootstrap; the finalValues entry 99 must be ignored); V(s_3) = −1.
//
//	δ2 = 5 + 0.9·(−1) − 0.6 = 3.5                      A2 = 3.5
//	δ1 = 0 + 0.9·0.6 − 0.4 = 0.14                      A1 = 0.14 + 0.72·3.5 = 2.66
//	δ0 = −1 + 0 − 0.2 = −1.2 (terminal, cut)           A0 = −1.2
func TestGAE(t *testing.T) {
	in := gaeInput{
		steps: 3, envs: 2,
		// index t*2+e
		rewards:     []float64{1, -1, 2, 0, 3, 5},
		values:      []float64{0.5, 0.2, 1.0, 0.4, 1.5, 0.6},
		terminated:  []bool{false, true, false, false, false, false},
		truncated:   []bool{false, false, true, false, false, false},
		finalValues: []float64{0, 99, 4.0, 0, 0, 0},
		lastValues:  []float64{2.0, -1},
	}
	adv := make([]float64, 6)
	ret := make([]float64, 6)
	gae(in, 0.9, 0.8, adv, ret)
	want := []float64{4.712, -1.2, 4.6, 2.66, 3.3, 3.5}
	for i := range want {
		if math.Abs(adv[i]-want[i]) > 1e-12 {
			t.Errorf("adv[t=%d,e=%d] = %.12g, want %.12g", i/2, i%2, adv[i], want[i])
		}
		if math.Abs(ret[i]-(want[i]+in.values[i])) > 1e-12 {
			t.Errorf("ret[t=%d,e=%d] = %.12g, want %.12g", i/2, i%2, ret[i], want[i]+in.values[i])
		}
	}

	// Terminated and truncated at once counts as terminated.
	in.truncated[1] = true
	gae(in, 0.9, 0.8, adv, ret)
	if math.Abs(adv[1]-(-1.2)) > 1e-12 {
		t.Errorf("terminated+truncated: adv = %v, want -1.2 (no bootstrap)", adv[1])
	}

	// λ = 1, γ = 1 without episode ends: A_t = Σ rewards from t + V(s_T) − V(s_t).
	one := gaeInput{steps: 3, envs: 1, rewards: []float64{1, 2, 3}, values: []float64{0, 0, 0},
		terminated: make([]bool, 3), truncated: make([]bool, 3), finalValues: make([]float64, 3), lastValues: []float64{10}}
	adv, ret = make([]float64, 3), make([]float64, 3)
	gae(one, 1, 1, adv, ret)
	for i, w := range []float64{16, 15, 13} {
		if adv[i] != w {
			t.Errorf("λ=γ=1: adv[%d] = %v, want %v", i, adv[i], w)
		}
	}
}

// TestRunningMeanStd checks the parallel update against a direct
// computation, including Gymnasium's 1e-4 prior count.
func TestRunningMeanStd(t *testing.T) {
	r := NewRunningMeanStd(2)
	x := []float64{1, 10, 3, 20, 5, 30, 7, 40}
	r.Update(x[:4], 2)
	r.Update(x[4:], 2)
	// Prior (mean 0, var 1, count 1e-4) combined with the 4 samples.
	c0 := 1e-4
	for j, col := range [][]float64{{1, 3, 5, 7}, {10, 20, 30, 40}} {
		var m float64
		for _, v := range col {
			m += v
		}
		m /= 4
		var ss float64
		for _, v := range col {
			ss += (v - m) * (v - m)
		}
		tot := c0 + 4
		wantMean := m * 4 / tot
		wantVar := (c0*1 + ss + m*m*c0*4/tot) / tot
		if math.Abs(r.Mean[j]-wantMean) > 1e-9 || math.Abs(r.Var[j]-wantVar) > 1e-9 {
			t.Errorf("dim %d: mean %v var %v, want %v %v", j, r.Mean[j], r.Var[j], wantMean, wantVar)
		}
	}
	if math.Abs(r.Count-(4+c0)) > 1e-12 {
		t.Errorf("count %v", r.Count)
	}
	dst := make([]float32, 2)
	normalizeObs(&r, true, 0.5, []float64{1000, -1000}, dst)
	if dst[0] != 0.5 || dst[1] != -0.5 {
		t.Errorf("clipped normalised obs = %v, want [0.5 -0.5]", dst)
	}
}

// TestRewardScaler checks scaling by the running std of the discounted
// return and the reset at episode ends.
func TestRewardScaler(t *testing.T) {
	rs := NewRewardScaler(1)
	dst := make([]float64, 1)
	rs.Scale(0.5, 1e6, []float64{2}, []bool{false}, dst)
	// returns = 2; rms over {prior, 2}: mean 2·1/(1+1e-4)… var as in RunningMeanStd.
	ref := NewRunningMeanStd(1)
	ref.Update([]float64{2}, 1)
	if want := 2 / math.Sqrt(ref.Var[0]+1e-8); math.Abs(dst[0]-want) > 1e-12 {
		t.Fatalf("scaled %v, want %v", dst[0], want)
	}
	rs.Scale(0.5, 1e6, []float64{4}, []bool{true}, dst) // return 0.5·2 + 4 = 5, then reset
	ref.Update([]float64{5}, 1)
	if want := 4 / math.Sqrt(ref.Var[0]+1e-8); math.Abs(dst[0]-want) > 1e-12 {
		t.Fatalf("scaled %v, want %v", dst[0], want)
	}
	if rs.Returns[0] != 0 {
		t.Fatalf("return not reset at episode end: %v", rs.Returns[0])
	}
	rs.Scale(0.5, 1e-3, []float64{4}, []bool{false}, dst)
	if dst[0] != 1e-3 {
		t.Fatalf("clipped reward %v, want 1e-3", dst[0])
	}
}
