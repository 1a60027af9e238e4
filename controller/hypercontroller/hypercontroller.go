package hypercontroller

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/hyperctl/hyperctl/controller"
)

// maxContexts bounds d^s, the number of contexts per hyperparameter, so that
// a context fits the low 48 bits of a model key (the hyperparameter index
// takes the top 16). Contexts are allocated lazily, so the bound is on the
// key space, not on memory.
const maxContexts = 1 << 48

// Settings are HyperController's inputs (Algorithm 1, line 2).
// The zero value is invalid; start from DefaultSettings.
type Settings struct {
	// D is the number of grid values per hyperparameter (the paper: d = 10).
	D int `toml:"d"`
	// S is the number of past objective values each predictor uses, and the
	// length of a context (the paper: s = 1, at most 3).
	S int `toml:"s"`
	// Lambda is the ridge regulariser λ > 0 (V starts at λI; the paper and
	// the authors' code: 1).
	Lambda float64 `toml:"lambda"`
	// Bonus is an optional exploration width b ≥ 0: values are ranked by
	// Ĝᵀ Ξ + b·‖Ξ‖_{V⁻¹}, the optimistic index of the paper's Theorem 4
	// (eq. 50) with its constant b_{a|c}(δ) replaced by a user constant,
	// since eq. 48 depends on bounds (B_ε, B_G, B_Ξ, B_z) that are unknown
	// in practice. 0 (the default) is the paper's greedy rule, eq. 15; the
	// authors' code also zeroes this term.
	Bonus float64 `toml:"bonus"`
	// Intercept appends a constant 1 to Ξ, so each predictor is
	// Ĝ_a(c)ᵀ(Ξ, 1): it can learn a mean improvement per value as well as
	// the dependence on past objective values. Not in the paper (Algorithm 1
	// has no constant term, eq. 13); default false. Without it the score
	// Ĝᵀ Ξ changes sign with the last objective value, so after a round
	// with X < 0 (a third to a half of PPO iterations in the study) s = 1
	// picks the value with the smallest gain.
	Intercept bool `toml:"intercept"`
}

// DefaultSettings returns the paper's experimental settings:
// d = 10, s = 1, λ = 1, no exploration bonus.
func DefaultSettings() Settings {
	return Settings{D: 10, S: 1, Lambda: 1}
}

// Upper bounds of the settings that size memory and work: a decision scans
// d values per hyperparameter, and each context met allocates d predictors
// of (s+1)² values (the paper: d = 10, s ≤ 3).
const (
	MaxD = 1000
	MaxS = 8
)

// Validate reports the first invalid field.
func (s *Settings) Validate() error {
	switch {
	case s.D < 2 || s.D > MaxD:
		return fmt.Errorf("d: want an integer in [2, %d] (grid values per hyperparameter), got %d", MaxD, s.D)
	case s.S < 1 || s.S > MaxS:
		return fmt.Errorf("s: want an integer in [1, %d] (past objective values per prediction), got %d", MaxS, s.S)
	case math.IsNaN(s.Lambda) || math.IsInf(s.Lambda, 0) || s.Lambda <= 0:
		return fmt.Errorf("lambda: want a finite number > 0 (ridge regulariser), got %v", s.Lambda)
	case math.IsNaN(s.Bonus) || math.IsInf(s.Bonus, 0) || s.Bonus < 0:
		return fmt.Errorf("bonus: want a finite number >= 0 (0 is the paper's greedy rule), got %v", s.Bonus)
	}
	if _, ok := contextCount(s.D, s.S); !ok {
		return fmt.Errorf("s: d^s = %d^%d contexts per hyperparameter exceeds 2^48; lower s or d (the paper recommends s <= 3)", s.D, s.S)
	}
	return nil
}

// New builds a HyperController from the settings, validating them once.
func (s *Settings) New() (controller.Method, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &HyperController{set: *s}, nil
}

// contextCount returns d^s and whether it is at most maxContexts.
func contextCount(d, s int) (uint64, bool) {
	n := uint64(1)
	for range s {
		if n > maxContexts/uint64(d) {
			return 0, false
		}
		n *= uint64(d)
	}
	return n, true
}

// HyperController is Algorithm 1 of Gornet et al., "HyperController: A
// Hyperparameter Controller for Fast and Stable Training of Reinforcement
// Learning Neural Networks".
//
// Each hyperparameter i is discretised into d values D_i (Space.Grid, uniform
// in the parameter's own scale). For hyperparameter i, the context c_i is the
// tuple of grid indices in force during the last s rounds (oldest first), and
// Ξ_t = (X_{t−s}, …, X_{t−1}) are the last s objective values. For every
// context c and value a there is a ridge predictor
//
//	V_a(c) = λI + Σ Ξ_τ Ξ_τᵀ,  B_a(c) = Σ X_τ Ξ_τᵀ,  Ĝ_a(c) = B_a(c) V_a(c)⁻¹  (eqs. 9–10)
//
// summed over the rounds τ at which value a was in force under context c.
// A decision picks, for each hyperparameter separately, a_t = argmax_a
// Ĝ_a(c_i)ᵀ Ξ_t (eq. 15), ties broken uniformly at random; while fewer than s
// rounds have been observed it picks uniformly at random (lines 19, 29).
// Predictors are allocated lazily on their first update, so memory grows
// with the contexts actually visited, never with d^s.
//
// # Rounds and the decision interval
//
// One round t of Algorithm 1 is one observed training iteration: one
// objective value X_t reaching Observe. With the driver's Interval = 1 the
// method is exactly Algorithm 1. With Interval = K > 1 (the paper's
// experiments: K = 5) it follows the authors' code: it learns every round and
// chooses every K rounds. At the rounds in between, the selection step of
// line 21 is skipped and a_t is the value in force; the update of lines
// 23–27 still runs, so the predictor of the value in force under the
// previous-s-rounds context learns from (Ξ_t, X_t) every iteration. Concretely,
// at every Observe of round t ≥ s, for each hyperparameter i:
//
//   - Ξ_t is the s objective values observed before X_t (oldest first);
//   - c_i are the grid indices of hyperparameter i in force at rounds
//     t−s, …, t−1 (oldest first);
//   - a_t is the grid index in force at round t (the configuration the
//     driver passes in Observation.Config);
//   - the model (i, c_i, a_t) gets V += Ξ_tΞ_tᵀ, B += X_tΞ_tᵀ, Ĝ = V⁻¹Bᵀ.
//
// Suggest at round t ranks values with Ĝ_a(c_i) and Ξ_t formed the same way
// from the rounds before t. With the driver's Delta objective the first
// training iteration has no objective, so round 0 is iteration 1.
//
// # Deliberate differences from the authors' code (hyper_optimizers.py)
//
//   - Keying: the authors key a model by s+1 consecutive per-iteration
//     actions and store it under (code = the later s actions, a = the
//     earliest one), so the model used to score a is the one trained on
//     transitions whose regressor, not target, was produced under a. Here
//     models are keyed as in Algorithm 1: the value a is the one in force
//     when the target X_t was produced, the context is the s values before.
//   - Update timing: the authors update at iteration t with the target
//     X_{t−1} (one iteration late) and predict with the model of the context
//     ending at t−1. Here round t's observation updates the model at once
//     (lines 24–27 run after X_t is observed).
//   - Exploration: the authors compute and then zero an exploration term;
//     here Bonus = 0 is the default and any b > 0 is the optimistic index of
//     eq. 50 with a constant width.
//   - Ties: torch.argmax takes the first maximum (always the lowest value
//     while predictors are zero); here ties are broken uniformly at random
//     with the driver's seeded generator.
//   - λ: fixed to 1 in the code, a setting here (default 1).
//   - Intercept (off by default, in neither the paper nor the code): the
//     regressor becomes (Ξ_t, 1), so a predictor can learn a mean
//     improvement per value, which the paper's Ĝᵀ Ξ cannot express.
//
// Deviation from the paper's listing: line 32 (Observe X_t) follows lines
// 24–27 in the listing, which use X_t; the update necessarily runs after
// X_t is observed, which is what Observe does.
type HyperController struct {
	set   Settings
	space controller.Space
	rng   *rand.Rand
	h     int
	grid  [][]float64 // h × d grid values

	st    hcState
	index map[uint64]int32 // context key → offset of its d slots in st.Slots
	blk   []int32          // per hyperparameter: slot offset of the current context, −1 if not allocated

	// scratch, sized at Init
	at     []int32   // grid indices in force at the observed round
	upd    []float64 // h model-sized buffers for the pending updates
	updG   []float64 // h × s: the pending Ĝ
	tmp    []float64 // p
	feat   []float64 // p: the regressor (Ξ_t, and 1 with Intercept)
	inited bool
}

// hcState is everything MarshalBinary saves.
type hcState struct {
	D, S, H int     // shape, checked on restore
	Lambda  float64 // checked on restore
	Bonus   float64 // checked on restore
	// Intercept is checked on restore (false in states saved before it
	// existed, which is what they were).
	Intercept bool
	Rounds    int       // observed rounds t
	X         []float64 // the last s objective values, oldest first (zeros before round s)
	Ctx       []int32   // h × s: per hyperparameter, indices in force at the last s rounds, oldest first
	Cur       []int32   // h: indices of the last suggestion or observation (−1: none)
	Keys      []uint64  // allocated contexts, in allocation order
	Slots     []int32   // len(Keys) × d: model number per value, −1 if not allocated
	G         []float64 // len(Keys) × d × s: Ĝ_a(c) per context and value, 0 if not allocated
	Models    []float64 // model arena, stride floats each (see modelStride)
}

// modelStride is the arena size of one predictor's sufficient statistics
// for a regressor of length p (s, or s+1 with an intercept): V (p×p,
// row-major), U (p×p, the upper Cholesky factor of V), B (p) and the count
// N. Ĝ itself lives in hcState.G, dense per context, so that a decision is a
// tight loop over d values.
func modelStride(p int) int { return 2*p*p + p + 1 }

// dim is the regressor length p: s, plus one with an intercept.
func (m *HyperController) dim() int {
	if m.set.Intercept {
		return m.set.S + 1
	}
	return m.set.S
}

// features returns the regressor for the current history: Ξ_t, and 1 with
// an intercept.
func (m *HyperController) features() []float64 {
	copy(m.feat, m.st.X)
	if m.set.Intercept {
		m.feat[m.set.S] = 1
	}
	return m.feat
}

// New returns an un-Init-ed HyperController.
func New(s Settings) (*HyperController, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("hypercontroller: %w", err)
	}
	return &HyperController{set: s}, nil
}

// Settings returns the controller's settings.
func (m *HyperController) Settings() Settings { return m.set }

// Init prepares a fresh run over space.
func (m *HyperController) Init(space controller.Space, rng *rand.Rand) error {
	if rng == nil {
		return errors.New("hypercontroller: nil rng")
	}
	h := space.Dim()
	if h == 0 {
		return errors.New("hypercontroller: space: no parameters")
	}
	if h >= 1<<16 {
		return fmt.Errorf("hypercontroller: space: %d parameters, at most 65535", h)
	}
	d, s := m.set.D, m.set.S
	grid := make([][]float64, h)
	for i := range grid {
		g, err := space.Grid(i, d)
		if err != nil {
			return fmt.Errorf("hypercontroller: %s: %w", space.Param(i).Name, err)
		}
		grid[i] = g
	}
	m.space, m.rng, m.h, m.grid = space, rng, h, grid
	m.st = hcState{
		D: d, S: s, H: h, Lambda: m.set.Lambda, Bonus: m.set.Bonus,
		X:   make([]float64, s),
		Ctx: make([]int32, h*s),
		Cur: make([]int32, h),
	}
	for i := range m.st.Cur {
		m.st.Cur[i] = -1
	}
	m.index = map[uint64]int32{}
	m.blk = make([]int32, h)
	for i := range m.blk {
		m.blk[i] = -1
	}
	p := m.dim()
	m.st.Intercept = m.set.Intercept
	m.at = make([]int32, h)
	m.upd = make([]float64, h*modelStride(p))
	m.updG = make([]float64, h*p)
	m.tmp = make([]float64, p)
	m.feat = make([]float64, p)
	m.inited = true
	return nil
}

// ctxKey is the map key of hyperparameter i's context ctx (len s).
func (m *HyperController) ctxKey(i int, ctx []int32) uint64 {
	k, p := uint64(0), uint64(1)
	for _, c := range ctx {
		k += uint64(c) * p
		p *= uint64(m.set.D)
	}
	return uint64(i)<<48 | k
}

// Suggest writes the next configuration into dst: for each hyperparameter the
// grid value maximising Ĝ_a(c_i)ᵀΞ_t (+ the optional bonus), uniformly at
// random before round s.
func (m *HyperController) Suggest(dst controller.Config) error {
	if !m.inited {
		return errors.New("hypercontroller: Suggest before Init")
	}
	if len(dst) != m.h {
		return fmt.Errorf("hypercontroller: suggest: dst has %d values, space has %d parameters", len(dst), m.h)
	}
	d, s := m.set.D, m.set.S
	if m.st.Rounds < s {
		for i := range m.h {
			a := m.rng.IntN(d)
			m.st.Cur[i] = int32(a)
			dst[i] = m.grid[i][a]
		}
		return nil
	}
	xi := m.features()
	p := len(xi)
	stride := modelStride(p)
	bonus := m.set.Bonus
	var prior float64 // bonus of an unallocated predictor: b·‖Ξ‖/√λ (V = λI)
	if bonus > 0 {
		prior = bonus * math.Sqrt(dot(xi, xi)/m.set.Lambda)
	}
	for i := range m.h {
		b := int(m.blk[i])
		if b < 0 {
			// No predictor of this context was ever updated: every
			// score is equal (0, or the prior bonus), a d-way tie.
			a := m.rng.IntN(d)
			m.st.Cur[i] = int32(a)
			dst[i] = m.grid[i][a]
			continue
		}
		slots := m.st.Slots[b : b+d]
		gs := m.st.G[b*p : (b+d)*p]
		best, ties, choice := math.Inf(-1), 0, 0
		for a := range d {
			var sc float64
			if p == 1 {
				sc = gs[a] * xi[0]
			} else {
				sc = dot(gs[a*p:(a+1)*p], xi)
			}
			if bonus > 0 {
				if k := int(slots[a]); k >= 0 {
					sc += bonus * m.vinvNorm(m.st.Models[k*stride:(k+1)*stride], xi)
				} else {
					sc += prior
				}
			}
			switch {
			case sc > best:
				best, ties, choice = sc, 1, a
			case sc == best:
				// Reservoir sampling: each tied value wins with
				// probability 1/ties.
				ties++
				if m.rng.IntN(ties) == 0 {
					choice = a
				}
			}
		}
		m.st.Cur[i] = int32(choice)
		dst[i] = m.grid[i][choice]
	}
	return nil
}

// vinvNorm returns ‖Ξ‖_{V⁻¹} = ‖U⁻ᵀΞ‖ for the model mod (V = UᵀU).
func (m *HyperController) vinvNorm(mod, xi []float64) float64 {
	p := len(xi)
	if p == 1 {
		return math.Abs(xi[0]) / mod[1]
	}
	copy(m.tmp, xi)
	u := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: p, Stride: p, Data: mod[p*p : 2*p*p]}
	blas64.Trsv(blas.Trans, u, blas64.Vector{N: p, Inc: 1, Data: m.tmp})
	return math.Sqrt(dot(m.tmp, m.tmp))
}

// MaxObjective bounds the magnitude of an objective value X_t: Observe
// refuses a larger one and leaves the state unchanged. An accepted X_t
// enters Ξ, and the later updates add ΞΞᵀ to V: with every |X| ≤ 1e120 each
// term is at most 1e240, so V, B and Ĝ stay finite for any number of rounds
// a run can have, and no accepted value can make a later update overflow
// (a 1e160 that entered Ξ would make every later update overflow, wedging
// the run). The driver's objectives of rewards within controller.MaxReward
// are at most 2e109 in magnitude, well inside it.
const MaxObjective = 1e120

// Observe records round t: the value in force for each hyperparameter and the
// objective X_t. From round s on it updates, for each hyperparameter, the
// predictor of the value in force under the context of the previous s rounds
// (Algorithm 1, lines 23–27). A non-finite objective or one beyond
// ±MaxObjective, a malformed configuration or an update that overflows is an
// error and leaves the state unchanged.
func (m *HyperController) Observe(o controller.Observation) error {
	if !m.inited {
		return errors.New("hypercontroller: Observe before Init")
	}
	x := o.Objective
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return fmt.Errorf("hypercontroller: observe: objective is %v, want a finite number", x)
	}
	if math.Abs(x) > MaxObjective {
		return fmt.Errorf("hypercontroller: observe: objective %g is beyond ±%g (hypercontroller.MaxObjective), where the ridge statistics ΣΞΞᵀ could overflow; rescale the rewards", x, float64(MaxObjective))
	}
	if len(o.Config) != m.h {
		return fmt.Errorf("hypercontroller: observe: config has %d values, space has %d parameters", len(o.Config), m.h)
	}
	d, s := m.set.D, m.set.S
	for i, v := range o.Config {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("hypercontroller: observe: %s: value %v is not finite", m.space.Param(i).Name, v)
		}
		if c := m.st.Cur[i]; c >= 0 && m.grid[i][c] == v {
			m.at[i] = c
			continue
		}
		// A value the method did not suggest (a foreign loop, or the
		// first observation of a restored run): its nearest grid value.
		m.at[i] = int32(math.Round(m.space.ToUnit(i, v) * float64(d-1)))
	}
	p := m.dim()
	stride := modelStride(p)
	if m.st.Rounds >= s {
		// Compute every update first, commit only if all succeed.
		xi := m.features()
		for i := range m.h {
			buf := m.upd[i*stride : (i+1)*stride]
			if mod := m.model(i, m.at[i]); mod != nil {
				copy(buf, mod)
			} else {
				m.freshModel(buf)
			}
			if err := m.update(buf, m.updG[i*p:(i+1)*p], xi, x); err != nil {
				return fmt.Errorf("hypercontroller: observe: %s: %w", m.space.Param(i).Name, err)
			}
		}
		for i := range m.h {
			mod, g := m.allocModel(i, m.at[i])
			copy(mod, m.upd[i*stride:(i+1)*stride])
			copy(g, m.updG[i*p:(i+1)*p])
		}
	}
	// Shift the histories: Ξ gains X_t, each context gains a_t.
	copy(m.st.X, m.st.X[1:])
	m.st.X[s-1] = x
	for i := range m.h {
		ctx := m.st.Ctx[i*s : (i+1)*s]
		copy(ctx, ctx[1:])
		ctx[s-1] = m.at[i]
		m.st.Cur[i] = m.at[i]
		m.blk[i] = m.lookup(i)
	}
	m.st.Rounds++
	return nil
}

// lookup returns the slot offset of hyperparameter i's current context, or −1.
func (m *HyperController) lookup(i int) int32 {
	s := m.set.S
	if b, ok := m.index[m.ctxKey(i, m.st.Ctx[i*s:(i+1)*s])]; ok {
		return b
	}
	return -1
}

// model returns the arena slice of model (i, current context, a), or nil.
func (m *HyperController) model(i int, a int32) []float64 {
	b := m.blk[i]
	if b < 0 {
		return nil
	}
	k := m.st.Slots[int(b)+int(a)]
	if k < 0 {
		return nil
	}
	stride := modelStride(m.dim())
	return m.st.Models[int(k)*stride : (int(k)+1)*stride]
}

// allocModel returns the statistics and Ĝ of model (i, current context, a),
// allocating the context's slots and the model on first use.
func (m *HyperController) allocModel(i int, a int32) (mod, g []float64) {
	d, s, p := m.set.D, m.set.S, m.dim()
	if m.blk[i] < 0 {
		off := int32(len(m.st.Slots))
		m.st.Keys = append(m.st.Keys, m.ctxKey(i, m.st.Ctx[i*s:(i+1)*s]))
		for range d {
			m.st.Slots = append(m.st.Slots, -1)
		}
		m.st.G = append(m.st.G, make([]float64, d*p)...)
		m.index[m.st.Keys[len(m.st.Keys)-1]] = off
		m.blk[i] = off
	}
	j := int(m.blk[i]) + int(a)
	slot := &m.st.Slots[j]
	stride := modelStride(p)
	if *slot < 0 {
		*slot = int32(len(m.st.Models) / stride)
		m.st.Models = append(m.st.Models, make([]float64, stride)...)
	}
	return m.st.Models[int(*slot)*stride : (int(*slot)+1)*stride], m.st.G[j*p : (j+1)*p]
}

// freshModel writes Algorithm 1's initial model (lines 10–12) into buf:
// V = λI, U = √λ I, B = 0, N = 0 (and Ĝ = 0, the zero of hcState.G).
func (m *HyperController) freshModel(buf []float64) {
	p := m.dim()
	clear(buf)
	for j := range p {
		buf[j*p+j] = m.set.Lambda
		buf[p*p+j*p+j] = math.Sqrt(m.set.Lambda)
	}
}

// update applies lines 25–27 to the model statistics in buf and writes the
// new Ĝ into g: V += ΞΞᵀ, B += XΞᵀ, Ĝ = V⁻¹Bᵀ (through the Cholesky factor of
// V, kept for the bonus).
//
// V = λI + ΣΞΞᵀ is positive definite, but in float64 λ is lost against ΞΞᵀ
// once the objectives are large against √λ (λ = 1 and Ξ = (1e8, 1e8):
// 1e16 + 1 rounds to 1e16), and V is then numerically singular. Refusing
// would wedge the run: the next round brings the same Ξ to the same model.
// Instead U factors V + εI, with ε = 2⁻⁵² · max diag V doubled until the
// factorisation succeeds, the smallest ridge that float64 can represent
// against V; V and B keep their exact sums. Where V factors (every run
// whose objectives are small against √λ), nothing changes.
func (m *HyperController) update(buf, g, xi []float64, x float64) error {
	s := len(xi) // the regressor length p; s in the paper's notation
	v := buf[:s*s]
	u := buf[s*s : 2*s*s]
	b := buf[2*s*s : 2*s*s+s]
	for r := range s {
		for c := range s {
			v[r*s+c] += xi[r] * xi[c]
		}
		b[r] += x * xi[r]
	}
	buf[2*s*s+s]++
	for _, f := range buf[:s*s] {
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return errors.New("ridge update overflowed: V = λI + ΣΞΞᵀ is not finite (objective values too large)")
		}
	}
	if s == 1 {
		u[0] = math.Sqrt(v[0])
		g[0] = b[0] / v[0]
	} else {
		if !factor(u, v, s, 0) {
			maxd := 0.0
			for j := range s {
				maxd = math.Max(maxd, v[j*s+j])
			}
			eps, ok := maxd*0x1p-52, false
			for range 64 {
				if ok = factor(u, v, s, eps); ok {
					break
				}
				eps *= 2
			}
			if !ok {
				return errors.New("ridge update: V is not numerically positive definite")
			}
		}
		copy(g, b)
		lapack64.Potrs(blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: s, Stride: s, Data: u},
			blas64.General{Rows: s, Cols: 1, Stride: 1, Data: g})
	}
	for _, f := range buf {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return errors.New("ridge update overflowed (objective values too large)")
		}
	}
	for _, f := range g {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return errors.New("ridge update overflowed (objective values too large)")
		}
	}
	return nil
}

// factor writes the upper Cholesky factor of V + εI (V s×s, row-major)
// into u and reports whether V + εI is numerically positive definite.
func factor(u, v []float64, s int, eps float64) bool {
	copy(u, v)
	for j := range s {
		u[j*s+j] += eps
	}
	_, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: s, Stride: s, Data: u})
	return ok
}

func dot(a, b []float64) float64 {
	var t float64
	for k, v := range a {
		t += v * b[k]
	}
	return t
}

// Rounds is the number of observed rounds.
func (m *HyperController) Rounds() int { return m.st.Rounds }

// Contexts is the number of (hyperparameter, context) pairs allocated so far.
func (m *HyperController) Contexts() int { return len(m.st.Keys) }

// Models is the number of predictors Ĝ_a(c) allocated so far.
func (m *HyperController) Models() int {
	if !m.inited {
		return 0
	}
	return len(m.st.Models) / modelStride(m.dim())
}

// Predictor returns a copy of Ĝ_a(c) for hyperparameter i, context c (s grid
// indices, oldest first) and grid index a, with the number of rounds it was
// fitted on; with Intercept its last entry is the constant's weight. ok is
// false when that predictor was never updated (Ĝ = 0).
func (m *HyperController) Predictor(i int, context []int, a int) (g []float64, n int, ok bool) {
	d, s := m.set.D, m.set.S
	if !m.inited || i < 0 || i >= m.h || len(context) != s || a < 0 || a >= d {
		return nil, 0, false
	}
	ctx := make([]int32, s)
	for k, c := range context {
		if c < 0 || c >= d {
			return nil, 0, false
		}
		ctx[k] = int32(c)
	}
	off, found := m.index[m.ctxKey(i, ctx)]
	if !found {
		return nil, 0, false
	}
	j := int(off) + a
	k := m.st.Slots[j]
	if k < 0 {
		return nil, 0, false
	}
	p := m.dim()
	stride := modelStride(p)
	n = int(m.st.Models[int(k)*stride+2*p*p+p])
	return append([]float64(nil), m.st.G[j*p:(j+1)*p]...), n, true
}

// MarshalBinary returns the full state (histories and every predictor).
func (m *HyperController) MarshalBinary() ([]byte, error) {
	if !m.inited {
		return nil, errors.New("hypercontroller: marshal before Init")
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&m.st); err != nil {
		return nil, fmt.Errorf("hypercontroller: marshal: %w", err)
	}
	return buf.Bytes(), nil
}

// UnmarshalBinary restores a state from MarshalBinary. The state is checked
// against this controller's settings and space; on error nothing changes.
func (m *HyperController) UnmarshalBinary(b []byte) error {
	if !m.inited {
		return errors.New("hypercontroller: unmarshal before Init")
	}
	var st hcState
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&st); err != nil {
		return fmt.Errorf("hypercontroller: unmarshal: %w", err)
	}
	d, s, h := m.set.D, m.set.S, m.h
	if st.D != d || st.S != s || st.H != h || st.Lambda != m.set.Lambda || st.Bonus != m.set.Bonus || st.Intercept != m.set.Intercept {
		return fmt.Errorf("hypercontroller: unmarshal: state is for d=%d s=%d lambda=%g bonus=%g intercept=%t over %d parameters, this controller has d=%d s=%d lambda=%g bonus=%g intercept=%t over %d",
			st.D, st.S, st.Lambda, st.Bonus, st.Intercept, st.H, d, s, m.set.Lambda, m.set.Bonus, m.set.Intercept, h)
	}
	p := m.dim()
	stride := modelStride(p)
	nModels := len(st.Models) / stride
	inRange := func(v []int32, lo int32, hi int) bool {
		for _, x := range v {
			if x < lo || int(x) >= hi {
				return false
			}
		}
		return true
	}
	switch {
	case st.Rounds < 0:
		return errors.New("hypercontroller: unmarshal: negative round count")
	case len(st.X) != s || len(st.Ctx) != h*s || len(st.Cur) != h:
		return errors.New("hypercontroller: unmarshal: history sizes do not match the settings")
	case len(st.Slots) != len(st.Keys)*d || len(st.G) != len(st.Slots)*p || len(st.Models)%stride != 0:
		return errors.New("hypercontroller: unmarshal: model table sizes do not match the settings")
	case !inRange(st.Ctx, 0, d) || !inRange(st.Cur, -1, d) || !inRange(st.Slots, -1, nModels):
		return errors.New("hypercontroller: unmarshal: index out of range")
	}
	for _, v := range [][]float64{st.X, st.G, st.Models} {
		for _, f := range v {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return errors.New("hypercontroller: unmarshal: non-finite value")
			}
		}
	}
	nctx, _ := contextCount(d, s)
	index := make(map[uint64]int32, len(st.Keys))
	for j, k := range st.Keys {
		if k>>48 >= uint64(h) || k&(1<<48-1) >= nctx {
			return errors.New("hypercontroller: unmarshal: context key out of range")
		}
		if _, dup := index[k]; dup {
			return errors.New("hypercontroller: unmarshal: duplicate context")
		}
		index[k] = int32(j * d)
	}
	m.st, m.index = st, index
	for i := range m.h {
		m.blk[i] = m.lookup(i)
	}
	return nil
}
