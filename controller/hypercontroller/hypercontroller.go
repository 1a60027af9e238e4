package hypercontroller

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/hyperctl/hyperctl/controller"
)

// HyperController is Algorithm 1 of Gornet et al. (see the package
// documentation for its rounds, the decision interval and its differences
// from the authors' code). Build it with New or Settings.New, then Init it.
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
	if err := controller.CheckDst(m.space, dst); err != nil {
		return fmt.Errorf("hypercontroller: %w", err)
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
// (Algorithm 1, lines 23–27). An observation that fails
// controller.CheckObservation, an objective beyond ±MaxObjective or an
// update that overflows is an error and leaves the state unchanged.
func (m *HyperController) Observe(o controller.Observation) error {
	if !m.inited {
		return errors.New("hypercontroller: Observe before Init")
	}
	if err := controller.CheckObservation(m.space, o); err != nil {
		return fmt.Errorf("hypercontroller: observe: %w", err)
	}
	x := o.Objective
	if math.Abs(x) > MaxObjective {
		return fmt.Errorf("hypercontroller: observe: objective %g is beyond ±%g (hypercontroller.MaxObjective), where the ridge statistics ΣΞΞᵀ could overflow; rescale the rewards", x, float64(MaxObjective))
	}
	d, s := m.set.D, m.set.S
	for i, v := range o.Config {
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
