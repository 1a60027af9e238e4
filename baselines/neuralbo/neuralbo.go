// Package neuralbo is NeuralBO (Phan-Trong, Tran-The and Gupta, "NeuralBO:
// A Black-box Optimization Algorithm using Deep Neural Networks",
// Algorithm 1), registered as controller "neuralbo".
//
// A two-layer ReLU network h(x; θ) = √m W2 ReLU(W1 x) of width m models the
// objective. Each decision is one round t of Algorithm 1:
//
//  1. σ_t²(x) = λ g(x; θ0)ᵀ U_{t−1}⁻¹ g(x; θ0) / m, with g(x; θ0) the
//     gradient of the network at its FIXED initial parameters θ0;
//  2. a Thompson sample f̃_t(x) ~ N(h(x; θ_{t−1}), ν² σ_t²(x)), drawn
//     independently at every candidate x;
//  3. x_t = argmax of f̃_t over a finite candidate set;
//  4. after x_t's outcome y_t: θ_t = TrainNN(all data) (Algorithm 2) and
//     U_t = U_{t−1} + g(x_t; θ0) g(x_t; θ0)ᵀ / m, U_0 = λI.
//
// U⁻¹ is maintained directly by the Sherman–Morrison rank-one update, so a
// round costs O(p²) for the update and O(C p²) for the variances of C
// candidates, p = m(d+1) + m the number of network parameters.
//
// # Mapping to one online training run
//
// As for GP-UCB (package baselines), each decision period is one round: the
// configuration in force, mapped to [0, 1]^d in each parameter's own scale,
// and the mean objective over the period's iterations form one data point
// (x_t, y_t).
//
// # Settings and deviations from the paper, all deliberate
//
//   - Defaults are the paper's practical ones (Section 7): SGD with batch
//     size 50, 50 epochs, learning rate η = 0.001, λ = 0.01, every weight
//     initialised N(0, 1/m), ν = 1 (the middle of the paper's grid
//     {0.1, 1, 10}) — except the width: m = 100 instead of 500, because
//     U⁻¹ is p×p (p = 600 for the paper's four hyperparameters at m = 100,
//     3000 at m = 500: 72 MB) and a decision costs O(C p²): measured 16–42 ms
//     at m = 100 and 0.36–0.93 s at m = 500 (BenchmarkDecision, shared
//     2-core machine; results/more-controllers/neuralbo-deltabo.md).
//     width = 500 is the paper's value.
//   - Input embedding: the paper's network has no biases, so h(cx) = c·h(x)
//     and a network fed the unit box cannot put a maximum inside it. The
//     network input is z = (2u − 1, 1)/‖(2u − 1, 1)‖ for u ∈ [0, 1]^d: a
//     constant coordinate (equivalent to a first-layer bias) and unit norm
//     (the NTK analyses' ‖x‖ = 1, within the paper's a ≤ ‖x‖ ≤ b); the
//     map u → z is one-to-one.
//   - Targets are standardised (mean 0, standard deviation 1 over the data;
//     a constant target gets scale 1) before training, since η and λ are
//     scale-dependent; the argmax of f̃ is unchanged by the affine map.
//   - TrainNN's loss L(θ) = ½Σ(h − y)² + ½mλ‖θ − θ0‖² is minimised as
//     L(θ)/n (same minimiser) with the minibatch mean of the data term, as
//     a framework's mean-reduced loss does; summing instead would make the
//     step size grow with the batch and diverge at η = 0.001, m = 500.
//   - Warm start (warm_start = true, the default): each round's TrainNN
//     starts from θ_{t−1} instead of θ0 (the regulariser still pulls
//     towards θ0, so the minimiser is the same). Algorithm 2 is analysed
//     with J steps large enough that (1 − ηmλ)^J is small, J ≳ 1/(ηmλ)
//     (200 at the paper's η, m, λ), but the practical 50 epochs over t < 50
//     points are 50 steps; starting from θ_{t−1} accumulates the steps
//     across rounds and brings θ_t close to the converged solution. From
//     θ0 every round the network underfits: on TestFindsMaximum1D's
//     function and seeds, the median regret (against 1) of rounds 31–40
//     was 0.06–0.49 from θ0 and below 0.005 with the warm start (measured
//     once during development, 128 candidates). warm_start = false is
//     Algorithm 1 line 6 as written.
//   - Candidates: the argmax is over candidates = 256 points drawn
//     uniformly in [0, 1]^d afresh each decision, plus the observed point
//     with the highest network prediction h(x; θ_{t−1}) (the incumbent).
//     The paper's analysis uses a discretisation of the domain; its code
//     optimises over random points as well.
//   - The round-1 decision (no data) is the same rule with θ_{t−1} = θ0.
//
// State: MarshalBinary saves θ0, θ, the data and the open period. U⁻¹ is a
// deterministic function of θ0 and the observed inputs, and UnmarshalBinary
// rebuilds it by the same sequence of rank-one updates, bit for bit (this
// keeps snapshots O(p + n d) instead of O(p²)).
package neuralbo

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hyperctl/hyperctl/baselines/gp"
	"github.com/hyperctl/hyperctl/baselines/internal/common"
	"github.com/hyperctl/hyperctl/controller"
)

// Settings configure NeuralBO. Keys are the TOML keys of
// [controller.neuralbo].
type Settings struct {
	// Width is the network width m (the paper: 500; default 100, see the
	// package comment).
	Width int `toml:"width"`
	// Lambda is the regulariser λ > 0 of TrainNN and of U_0 = λI (0.01).
	Lambda float64 `toml:"lambda"`
	// Nu is the exploration scale ν_t = ν of the Thompson sample (1).
	Nu float64 `toml:"nu"`
	// LR is the SGD learning rate η (0.001).
	LR float64 `toml:"lr"`
	// Epochs is the number of passes over the data per retraining (50).
	Epochs int `toml:"epochs"`
	// Batch is the SGD minibatch size (50).
	Batch int `toml:"batch"`
	// WarmStart retrains from the previous θ instead of θ0 (true; see
	// the package comment).
	WarmStart bool `toml:"warm_start"`
	// Candidates is the number of uniform random candidates per decision
	// (256), besides the incumbent.
	Candidates int `toml:"candidates"`
}

// DefaultSettings returns the paper's Section 7 settings with width 100
// and the warm start.
func DefaultSettings() Settings {
	return Settings{Width: 100, Lambda: 0.01, Nu: 1, LR: 0.001, Epochs: 50, Batch: 50, WarmStart: true, Candidates: 256}
}

func finitePos(v float64) bool { return v > 0 && !math.IsInf(v, 0) }

// MaxFeatures bounds the network's parameter count width·(d+2), the size
// of the features and of the side of U⁻¹ (4096² float64 = 128 MiB).
const MaxFeatures = 4096

// Validate reports the first invalid field, naming its TOML key.
func (s *Settings) Validate() error {
	switch {
	case s.Width < 1 || s.Width > 4096:
		return fmt.Errorf("width: want an integer in [1, 4096] (network width m), got %d", s.Width)
	case !finitePos(s.Lambda):
		return fmt.Errorf("lambda: want a finite number > 0 (regulariser), got %v", s.Lambda)
	case !(s.Nu >= 0) || math.IsInf(s.Nu, 0):
		return fmt.Errorf("nu: want a finite number >= 0 (exploration scale), got %v", s.Nu)
	case !finitePos(s.LR):
		return fmt.Errorf("lr: want a finite number > 0 (SGD learning rate), got %v", s.LR)
	case s.Epochs < 0 || s.Epochs > 100000:
		return fmt.Errorf("epochs: want an integer in [0, 100000], got %d", s.Epochs)
	case s.Batch < 1 || s.Batch > 100000:
		return fmt.Errorf("batch: want an integer in [1, 100000] (minibatch size), got %d", s.Batch)
	case s.Candidates < 1 || s.Candidates > 100000:
		return fmt.Errorf("candidates: want an integer in [1, 100000], got %d", s.Candidates)
	}
	return nil
}

// New returns a fresh NeuralBO.
func (s *Settings) New() (controller.Method, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("neuralbo: %w", err)
	}
	return &NeuralBO{set: *s}, nil
}

// NeuralBO is Algorithm 1 of the NeuralBO paper over decision periods.
type NeuralBO struct {
	set   Settings
	space controller.Space
	rng   *rand.Rand
	net   net
	tr    *trainer
	inv   *invU
	st    state

	// scratch
	u, z, pre, g []float64
}

// period accumulates one decision period's observations.
// period is one decision period (see common.Period).
type period = common.Period

// state is everything MarshalBinary saves.
type state struct {
	Width, Dim int // shape, checked on restore
	Theta0     []float64
	Theta      []float64 // θ_{t−1}: trained on all closed points
	X          []float64 // n×d unit inputs of the closed points, in order
	Y          []float64 // mean objective per point
	Acc        period
	Rounds     int // decisions made
}

// Init prepares a run over space, drawing θ0 from rng.
func (m *NeuralBO) Init(space controller.Space, rng *rand.Rand) error {
	if rng == nil {
		return fmt.Errorf("neuralbo: init: nil rng")
	}
	d := space.Dim()
	if d < 1 {
		return fmt.Errorf("neuralbo: init: empty space")
	}
	if p := (net{m: m.set.Width, k: d + 1}).params(); p > MaxFeatures {
		return fmt.Errorf("neuralbo: width: %d units over %d hyperparameters give %d features, more than %d (U⁻¹ is features² values); want width <= %d for this space",
			m.set.Width, d, p, MaxFeatures, MaxFeatures/(d+2))
	}
	m.space, m.rng = space, rng
	m.net = net{m: m.set.Width, k: d + 1}
	m.tr = newTrainer(m.net)
	m.inv = newInvU(m.net.params(), m.set.Lambda)
	theta0 := m.net.initTheta(rng)
	m.st = state{Width: m.set.Width, Dim: d, Theta0: theta0, Theta: append([]float64(nil), theta0...)}
	m.u, m.z = make([]float64, d), make([]float64, d+1)
	m.pre, m.g = make([]float64, m.net.m), make([]float64, m.net.params())
	return nil
}

// embed maps u ∈ [0, 1]^d to the network input z = (2u − 1, 1)/‖·‖.
func embed(u, z []float64) {
	var s float64 = 1
	for i, v := range u {
		w := 2*v - 1
		z[i] = w
		s += w * w
	}
	z[len(u)] = 1
	inv := 1 / math.Sqrt(s)
	for i := range z {
		z[i] *= inv
	}
}

// features writes g(x; θ0) for unit input u into dst.
func (m *NeuralBO) features(u, dst []float64) {
	embed(u, m.z)
	m.net.forward(m.st.Theta0, m.z, m.pre)
	m.net.grad(m.st.Theta0, m.z, m.pre, dst)
}

// closePeriod turns the open period into a data point: U gets its rank-one
// update and the network is retrained on all points (Algorithm 1, lines 6–7).
func (m *NeuralBO) closePeriod() {
	a := &m.st.Acc
	mean, ok := a.Mean()
	if !ok {
		a.Reset()
		return
	}
	m.st.X = append(m.st.X, a.X...)
	m.st.Y = append(m.st.Y, mean)
	a.Reset()
	m.features(m.st.X[len(m.st.X)-m.st.Dim:], m.g)
	m.inv.update(m.g, m.net.m)
	m.retrain()
}

// retrain runs TrainNN on the standardised targets.
func (m *NeuralBO) retrain() {
	n, d := len(m.st.Y), m.st.Dim
	zs := make([]float64, n*(d+1))
	for i := range n {
		embed(m.st.X[i*d:(i+1)*d], zs[i*(d+1):(i+1)*(d+1)])
	}
	off, sc := gp.Standardize(m.st.Y)
	ys := make([]float64, n)
	for i, y := range m.st.Y {
		ys[i] = (y - off) / sc
	}
	if !m.set.WarmStart {
		copy(m.st.Theta, m.st.Theta0)
	}
	m.tr.train(m.st.Theta, m.st.Theta0, zs, ys, m.set.Lambda, m.set.LR, m.set.Epochs, m.set.Batch, m.rng)
	for _, v := range m.st.Theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			// SGD diverged (possible only with a learning rate far above the
			// default): fall back to θ0 rather than predict NaN.
			copy(m.st.Theta, m.st.Theta0)
			return
		}
	}
}

// Suggest closes the current period, then draws a Thompson sample at the
// candidates and returns its argmax.
func (m *NeuralBO) Suggest(dst controller.Config) error {
	if m.rng == nil {
		return fmt.Errorf("neuralbo: used before Init")
	}
	d := m.st.Dim
	if len(dst) != d {
		return fmt.Errorf("neuralbo: suggest: destination has %d values, space has %d parameters", len(dst), d)
	}
	m.closePeriod()
	m.st.Rounds++

	c := m.set.Candidates
	nc := c
	if len(m.st.Y) > 0 {
		nc++
	}
	us := make([]float64, nc*d)
	for i := range c * d {
		us[i] = m.rng.Float64()
	}
	if nc > c {
		// The incumbent: the observed point with the highest prediction.
		best, bestH := 0, math.Inf(-1)
		for i := range len(m.st.Y) {
			embed(m.st.X[i*d:(i+1)*d], m.z)
			if h := m.net.forward(m.st.Theta, m.z, m.pre); h > bestH {
				best, bestH = i, h
			}
		}
		copy(us[c*d:], m.st.X[best*d:(best+1)*d])
	}
	p := m.net.params()
	gs := make([]float64, nc*p)
	mean := make([]float64, nc)
	for j := range nc {
		u := us[j*d : (j+1)*d]
		m.features(u, gs[j*p:(j+1)*p])
		embed(u, m.z)
		mean[j] = m.net.forward(m.st.Theta, m.z, m.pre)
	}
	vr := make([]float64, nc)
	m.inv.quad(gs, nc, m.set.Lambda, m.net.m, make([]float64, nc*p), vr)
	best, bestV := 0, math.Inf(-1)
	for j := range nc {
		v := mean[j] + m.set.Nu*math.Sqrt(vr[j])*m.rng.NormFloat64()
		if v > bestV { // NaN never wins; j = 0 stands if all are NaN
			best, bestV = j, v
		}
	}
	for i := range dst {
		dst[i] = m.space.FromUnit(i, us[best*d+i])
	}
	return nil
}

// Observe adds o to the current period's data point. A non-finite
// objective, reward or configuration is an error and changes nothing.
func (m *NeuralBO) Observe(o controller.Observation) error {
	if m.rng == nil {
		return fmt.Errorf("neuralbo: used before Init")
	}
	if err := controller.CheckObservation(m.space, o); err != nil {
		return fmt.Errorf("neuralbo: observe: %w", err)
	}
	for i, v := range o.Config {
		m.u[i] = m.space.ToUnit(i, v)
	}
	m.st.Acc.Add(m.u, o.Objective, m.closePeriod)
	return nil
}

// Len is the number of closed data points.
func (m *NeuralBO) Len() int { return len(m.st.Y) }

// MarshalBinary returns θ0, θ, the data, the open period and the round
// count; U⁻¹ is rebuilt from them on UnmarshalBinary.
func (m *NeuralBO) MarshalBinary() ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(m.st); err != nil {
		return nil, fmt.Errorf("neuralbo: marshal state: %w", err)
	}
	return buf.Bytes(), nil
}

// UnmarshalBinary restores a state from MarshalBinary on a NeuralBO Init-ed
// over the same space with the same settings. On error the state is
// unchanged.
func (m *NeuralBO) UnmarshalBinary(b []byte) error {
	if m.rng == nil {
		return fmt.Errorf("neuralbo: used before Init")
	}
	var st state
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&st); err != nil {
		return fmt.Errorf("neuralbo: unmarshal state: %w", err)
	}
	d, p := m.space.Dim(), m.net.params()
	if st.Width != m.set.Width || st.Dim != d || len(st.Theta0) != p || len(st.Theta) != p ||
		len(st.X) != len(st.Y)*d || !st.Acc.Fits(d) || st.Rounds < 0 {
		return fmt.Errorf("neuralbo: unmarshal state: inconsistent with this space (%d parameters) and width %d", d, m.set.Width)
	}
	for _, v := range [][]float64{st.Theta0, st.Theta, st.X, st.Y} {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("neuralbo: unmarshal state: non-finite value")
			}
		}
	}
	// Replay Algorithm 1's line 7 over the observed inputs, in order.
	m.st = st
	m.inv = newInvU(p, m.set.Lambda)
	for i := range len(st.Y) {
		m.features(st.X[i*d:(i+1)*d], m.g)
		m.inv.update(m.g, m.net.m)
	}
	return nil
}
