package kalman

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// BanditConfig describes a synthetic LGDS bandit: h hyperparameters on
// [0, 1] and a time-varying objective ψ_t(ζ) that is the output of an LGDS.
//
// # How the per-hyperparameter bandit maps to an LGDS over d^h configurations
//
// The paper's state z_t ∈ R^{d^h} holds ψ_t at every grid configuration
// (eq. 3); for h = 4, d = 10 that is 10^4 dimensions, and a dense Γ would be
// 10^8 entries. Here z_t is generated through a low-dimensional latent LGDS:
//
//	w_{t+1} = ρ w_t + ξ_t,  ξ_t ~ N(0, (1 − ρ²) diag(v)),
//	ψ_t(ζ) = Σ_i φ(ζ_i)ᵀ w_t^{(i)} + Σ_{i<h} φ(ζ_i)ᵀ W_t^{(i,i+1)} φ(ζ_{i+1}),
//
// with the cosine basis φ_k(x) = cos(kπx), k = 0…K−1, per-hyperparameter main
// effects w^{(i)} ∈ R^K and chain interactions W^{(i,i+1)} ∈ R^{K×K} between
// neighbouring hyperparameters (state dimension m = hK + (h−1)K², 224 for
// h = 4, K = 8). The weights v_k ∝ exp(−(πkℓ)²/2) (normalised to sum 1)
// make ψ_t a smooth random function with length scale ℓ whose values have
// stationary variance of order 1 per main effect; interactions are scaled by
// Interaction² v_k v_l. The process starts from its stationary distribution.
//
// For any grid D with d^h configurations, z_t = M w_t where row A of M is the
// feature vector c(ζ_A). When M has full column rank (d^h ≥ m and the
// features independent on the grid), z_t is exactly an LGDS of the paper's
// form (4) with the low-rank Γ_z = MΓM⁺ = ρMM⁺ (spectral radius ρ < 1,
// Assumption 1) and Q_z = MQMᵀ, observed through e_A (eq. 6): X_t =
// ⟨e_A, z_t⟩ + η_t = ⟨c(ζ_A), w_t⟩ + η_t. Q_z has rank m < d^h, so
// Assumption 2 (controllability) does not hold; nothing in Algorithm 1 needs
// it. Every reference (the Kalman oracle, the optimum) works in the
// m-dimensional w, never in R^{d^h}.
//
// ψ is defined on all of [0, 1]^h, so controllers that suggest off-grid
// values (GP-UCB, PB2, Random) are scored on the same function, and the
// per-round optimum ψ*_t = sup_ζ ψ_t(ζ) of eq. 7 is taken over a fine grid
// of Fine points per hyperparameter (exactly, by dynamic programming along
// the interaction chain), then refined by a local coordinate-wise
// golden-section search around the grid maximiser. Discretising to d values
// therefore costs regret, the O(n√(log n / d)) term of Theorem 1; a non-zero
// Interaction makes the per-hyperparameter greedy search of eq. 15 locally
// suboptimal, the O(n) term.
type BanditConfig struct {
	H           int     // number of hyperparameters, 1–8
	Basis       int     // K, cosine basis functions per hyperparameter, 1–32
	Lengthscale float64 // ℓ > 0, smoothness of ψ along each hyperparameter
	Rho         float64 // ρ ∈ [0, 1): persistence per round (Γ = ρI); near 1 = slow drift
	Interaction float64 // ≥ 0: scale of the chain interactions (0: separable ψ)
	Noise       float64 // σ ≥ 0: measurement-noise standard deviation
	Fine        int     // ≥ 2: grid points per hyperparameter for ψ*
}

// DefaultBanditConfig returns the benchmark's default bandit over h
// hyperparameters: K = 8, ℓ = 0.2, ρ = 0.95, Interaction = 0.5, σ = 0.3,
// Fine = 101.
func DefaultBanditConfig(h int) BanditConfig {
	return BanditConfig{H: h, Basis: 8, Lengthscale: 0.2, Rho: 0.95, Interaction: 0.5, Noise: 0.3, Fine: 101}
}

// Validate reports the first invalid field.
func (c BanditConfig) Validate() error {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	switch {
	case c.H < 1 || c.H > 8:
		return fmt.Errorf("h: want 1–8 hyperparameters, got %d", c.H)
	case c.Basis < 1 || c.Basis > 32:
		return fmt.Errorf("basis: want 1–32 basis functions, got %d", c.Basis)
	case bad(c.Lengthscale) || c.Lengthscale <= 0:
		return fmt.Errorf("lengthscale: want a finite number > 0, got %v", c.Lengthscale)
	case bad(c.Rho) || c.Rho < 0 || c.Rho >= 1:
		return fmt.Errorf("rho: want 0 <= rho < 1 (Assumption 1), got %v", c.Rho)
	case bad(c.Interaction) || c.Interaction < 0:
		return fmt.Errorf("interaction: want a finite number >= 0, got %v", c.Interaction)
	case bad(c.Noise) || c.Noise < 0:
		return fmt.Errorf("noise: want a finite number >= 0, got %v", c.Noise)
	case c.Fine < 2 || c.Fine > 2001:
		return fmt.Errorf("fine: want 2–2001 grid points, got %d", c.Fine)
	}
	return nil
}

// StateDim is m, the latent state dimension.
func (c BanditConfig) StateDim() int {
	m := c.H * c.Basis
	if c.Interaction > 0 {
		m += (c.H - 1) * c.Basis * c.Basis
	}
	return m
}

// Bandit is one seeded realisation of a BanditConfig over n rounds. The
// state path does not depend on the actions, so every controller run on the
// same Bandit meets the same ψ_1, …, ψ_n and the same measurement noise η_t
// (common random numbers). A Bandit is not safe for concurrent use.
type Bandit struct {
	cfg   BanditConfig
	n, m  int
	model *Model
	w     []float64 // n × m: w_t
	eta   []float64 // n: η_t
	best  []float64 // n: ψ*_t over the fine grid
	phi   []float64 // scratch h × K
	fine  *GridArgmax
}

// NewBandit simulates n rounds of the bandit from seed.
func NewBandit(cfg BanditConfig, n int, seed uint64) (*Bandit, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("kalman: bandit: %w", err)
	}
	if n < 1 {
		return nil, fmt.Errorf("kalman: bandit: n: want >= 1 rounds, got %d", n)
	}
	m := cfg.StateDim()
	K := cfg.Basis
	v := make([]float64, K)
	tot := 0.0
	for k := range v {
		x := math.Pi * float64(k) * cfg.Lengthscale
		v[k] = math.Exp(-x * x / 2)
		tot += v[k]
	}
	for k := range v {
		v[k] /= tot
	}
	variances := make([]float64, 0, m)
	for range cfg.H {
		variances = append(variances, v...)
	}
	if cfg.Interaction > 0 {
		for range cfg.H - 1 {
			for k := range K {
				for l := range K {
					variances = append(variances, cfg.Interaction*cfg.Interaction*v[k]*v[l])
				}
			}
		}
	}
	gamma := mat.NewDense(m, m, nil)
	q := mat.NewSymDense(m, nil)
	for j, vj := range variances {
		gamma.Set(j, j, cfg.Rho)
		q.SetSym(j, j, (1-cfg.Rho*cfg.Rho)*vj)
	}
	model, err := NewModel(gamma, q, cfg.Noise*cfg.Noise)
	if err != nil {
		return nil, fmt.Errorf("kalman: bandit: %w", err)
	}
	sim, err := NewSim(model, seed)
	if err != nil {
		return nil, fmt.Errorf("kalman: bandit: %w", err)
	}
	b := &Bandit{cfg: cfg, n: n, m: m, model: model,
		w: make([]float64, 0, n*m), eta: make([]float64, n), best: make([]float64, n),
		phi: make([]float64, cfg.H*K)}
	zero := make([]float64, m)
	for t := range n {
		b.w = append(b.w, sim.z...)
		b.eta[t] = sim.Output(zero) // η_t alone: ⟨0, z⟩ + η
		sim.Step()
	}
	if b.fine, err = NewGridArgmax(cfg, cfg.Fine); err != nil {
		return nil, err
	}
	idx := make([]int, cfg.H)
	zeta := make([]float64, cfg.H)
	for t := range n {
		var v float64
		idx, v = b.fine.Argmax(b.W(t), idx)
		for i, j := range idx {
			zeta[i] = b.fine.points[j]
		}
		b.best[t] = math.Max(v, b.refine(t, zeta, 1/float64(cfg.Fine-1)))
	}
	return b, nil
}

// refine improves the fine-grid maximiser zeta of ψ_t by coordinate-wise
// golden-section search within ±step of each coordinate (three sweeps), so
// that ψ*_t is the continuous maximum rather than a grid value, and returns
// the value reached. zeta is modified.
func (b *Bandit) refine(t int, zeta []float64, step float64) float64 {
	const invPhi = 0.6180339887498949
	best := b.Value(t, zeta)
	for range 3 {
		for i := range zeta {
			orig := zeta[i]
			lo, hi := math.Max(0, orig-step), math.Min(1, orig+step)
			f := func(x float64) float64 { zeta[i] = x; return b.Value(t, zeta) }
			x1, x2 := hi-invPhi*(hi-lo), lo+invPhi*(hi-lo)
			f1, f2 := f(x1), f(x2)
			for range 30 {
				if f1 < f2 {
					lo, x1, f1 = x1, x2, f2
					x2 = lo + invPhi*(hi-lo)
					f2 = f(x2)
				} else {
					hi, x2, f2 = x2, x1, f1
					x1 = hi - invPhi*(hi-lo)
					f1 = f(x1)
				}
			}
			x, v := x1, f1
			if f2 > f1 {
				x, v = x2, f2
			}
			if v > best {
				best, zeta[i] = v, x
			} else {
				zeta[i] = orig
			}
		}
	}
	return best
}

// Config returns the bandit's configuration.
func (b *Bandit) Config() BanditConfig { return b.cfg }

// Rounds is n.
func (b *Bandit) Rounds() int { return b.n }

// Model is the latent LGDS (Γ = ρI, Q, σ²), known to the Kalman oracle.
func (b *Bandit) Model() *Model { return b.model }

// W returns the latent state w_t (not a copy).
func (b *Bandit) W(t int) []float64 { return b.w[t*b.m : (t+1)*b.m] }

// Features writes c(ζ) ∈ R^m, the observation vector of configuration ζ,
// into dst (len m): ψ_t(ζ) = ⟨c(ζ), w_t⟩.
func (b *Bandit) Features(zeta, dst []float64) {
	features(b.cfg, zeta, b.phi, dst)
}

func features(cfg BanditConfig, zeta, phi, dst []float64) {
	K := cfg.Basis
	for i := range cfg.H {
		for k := range K {
			phi[i*K+k] = math.Cos(float64(k) * math.Pi * zeta[i])
		}
	}
	copy(dst, phi[:cfg.H*K])
	if cfg.Interaction > 0 {
		off := cfg.H * K
		for i := range cfg.H - 1 {
			for k := range K {
				for l := range K {
					dst[off+k*K+l] = phi[i*K+k] * phi[(i+1)*K+l]
				}
			}
			off += K * K
		}
	}
}

// Value returns ψ_t(ζ), the noiseless objective (what regret is measured on).
func (b *Bandit) Value(t int, zeta []float64) float64 {
	cfg, K := b.cfg, b.cfg.Basis
	w := b.W(t)
	for i := range cfg.H {
		for k := range K {
			b.phi[i*K+k] = math.Cos(float64(k) * math.Pi * zeta[i])
		}
	}
	v := dot(b.phi, w[:cfg.H*K])
	if cfg.Interaction > 0 {
		off := cfg.H * K
		for i := range cfg.H - 1 {
			for k := range K {
				row := w[off+k*K : off+(k+1)*K]
				v += b.phi[i*K+k] * dot(row, b.phi[(i+1)*K:(i+2)*K])
			}
			off += K * K
		}
	}
	return v
}

// Observe returns X_t = ψ_t(ζ) + η_t, what a controller sees.
func (b *Bandit) Observe(t int, zeta []float64) float64 { return b.Value(t, zeta) + b.eta[t] }

// Optimum returns ψ*_t, the maximum of ψ_t over [0, 1]^h (the fine-grid
// maximum, refined locally).
func (b *Bandit) Optimum(t int) float64 { return b.best[t] }

// GridArgmax maximises ⟨c(ζ), w⟩ over the grid of g points k/(g−1) per
// hyperparameter (the points of controller.Space.Grid on [0, 1]), exactly:
// per hyperparameter for a separable ψ, by dynamic programming along the
// interaction chain otherwise. It is not safe for concurrent use.
type GridArgmax struct {
	cfg    BanditConfig
	g      int
	points []float64
	phi    *mat.Dense // g × K: φ_k(x_j)
	f      []float64  // h × g main-effect values
	t1     *mat.Dense // g × K
	pair   *mat.Dense // g × g
	val    []float64  // g: DP values
	nval   []float64
	back   []int // (h−1) × g
	idx    []int
}

// NewGridArgmax prepares maximisation over g points per hyperparameter.
func NewGridArgmax(cfg BanditConfig, g int) (*GridArgmax, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("kalman: grid argmax: %w", err)
	}
	if g < 2 {
		return nil, errors.New("kalman: grid argmax: want at least 2 points")
	}
	K := cfg.Basis
	ga := &GridArgmax{cfg: cfg, g: g, points: make([]float64, g), phi: mat.NewDense(g, K, nil),
		f: make([]float64, cfg.H*g), t1: mat.NewDense(g, K, nil), pair: mat.NewDense(g, g, nil),
		val: make([]float64, g), nval: make([]float64, g), back: make([]int, max(cfg.H-1, 0)*g), idx: make([]int, cfg.H)}
	for j := range g {
		x := float64(j) / float64(g-1)
		ga.points[j] = x
		for k := range K {
			ga.phi.Set(j, k, math.Cos(float64(k)*math.Pi*x))
		}
	}
	return ga, nil
}

// Points returns the grid values (not a copy).
func (ga *GridArgmax) Points() []float64 { return ga.points }

// Argmax returns the maximiser's grid indices (written into idx if it has
// length h, else a fresh slice) and the maximum of ⟨c(ζ), w⟩.
func (ga *GridArgmax) Argmax(w []float64, idx []int) ([]int, float64) {
	cfg, K, g := ga.cfg, ga.cfg.Basis, ga.g
	if len(idx) != cfg.H {
		idx = make([]int, cfg.H)
	}
	for i := range cfg.H {
		fv := ga.f[i*g : (i+1)*g]
		mat.NewVecDense(g, fv).MulVec(ga.phi, mat.NewVecDense(K, w[i*K:(i+1)*K]))
	}
	if cfg.Interaction == 0 || cfg.H == 1 {
		total := 0.0
		for i := range cfg.H {
			fv := ga.f[i*g : (i+1)*g]
			bj := 0
			for j, v := range fv {
				if v > fv[bj] {
					bj = j
				}
			}
			idx[i] = bj
			total += fv[bj]
		}
		return idx, total
	}
	// Viterbi along the chain: val_i(b) = f_i(b) + max_a val_{i−1}(a) + pair_{i−1}(a, b).
	copy(ga.val, ga.f[:g])
	off := cfg.H * K
	for i := 1; i < cfg.H; i++ {
		wi := mat.NewDense(K, K, w[off:off+K*K])
		off += K * K
		ga.t1.Mul(ga.phi, wi)
		ga.pair.Mul(ga.t1, ga.phi.T())
		raw := ga.pair.RawMatrix()
		fv := ga.f[i*g : (i+1)*g]
		back := ga.back[(i-1)*g : i*g]
		for bj := range g {
			best, ba := math.Inf(-1), 0
			for a := range g {
				if v := ga.val[a] + raw.Data[a*raw.Stride+bj]; v > best {
					best, ba = v, a
				}
			}
			ga.nval[bj] = fv[bj] + best
			back[bj] = ba
		}
		ga.val, ga.nval = ga.nval, ga.val
	}
	bj := 0
	for j, v := range ga.val {
		if v > ga.val[bj] {
			bj = j
		}
	}
	total := ga.val[bj]
	idx[cfg.H-1] = bj
	for i := cfg.H - 1; i >= 1; i-- {
		bj = ga.back[(i-1)*g+bj]
		idx[i-1] = bj
	}
	return idx, total
}
