package kalman

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Filter is the Kalman one-step predictor of eq. 23 for a known Model:
//
//	ẑ_{t+1|t} = Γẑ_{t|t−1} + ΓK_t(X_t − ⟨c_t, ẑ_{t|t−1}⟩),
//	K_t = P_{t|t−1}c_t(c_tᵀP_{t|t−1}c_t + σ²)⁻¹,
//	P_{t+1|t} = g(P_{t|t−1}, c_t)  (eqs. 24–25).
//
// It starts from the stationary prior ẑ_{0|−1} = 0, P_{0|−1} = Σ.
type Filter struct {
	m  *Model
	z  []float64     // ẑ_{t|t−1}
	p  *mat.SymDense // P_{t|t−1}
	pc []float64     // scratch: Pc
	t1 []float64     // scratch
}

// NewFilter returns a filter at the stationary prior.
func NewFilter(m *Model) (*Filter, error) {
	sigma, err := m.StationaryCov()
	if err != nil {
		return nil, err
	}
	n := m.Dim()
	return &Filter{m: m, z: make([]float64, n), p: sigma, pc: make([]float64, n), t1: make([]float64, n)}, nil
}

// State returns a copy of ẑ_{t|t−1}.
func (f *Filter) State() []float64 { return append([]float64(nil), f.z...) }

// StateView returns ẑ_{t|t−1} without copying; it changes with Update.
func (f *Filter) StateView() []float64 { return f.z }

// Cov returns a copy of P_{t|t−1}.
func (f *Filter) Cov() *mat.SymDense {
	return mat.NewSymDense(f.m.Dim(), append([]float64(nil), f.p.RawSymmetric().Data...))
}

// Predict returns the one-step prediction ⟨c, ẑ_{t|t−1}⟩ of X_t.
func (f *Filter) Predict(c []float64) float64 { return dot(c, f.z) }

// InnovationVar returns cᵀP_{t|t−1}c + σ², the variance of X_t − Predict(c).
func (f *Filter) InnovationVar(c []float64) float64 {
	f.mulP(f.pc, c)
	return dot(c, f.pc) + f.m.Sigma2
}

// mulP writes P c into dst.
func (f *Filter) mulP(dst, c []float64) {
	mat.NewVecDense(len(dst), dst).MulVec(f.p, mat.NewVecDense(len(c), c))
}

// Update folds in the observation X_t = x made through c and advances to
// t+1. A non-finite x, a c of the wrong length or a zero innovation
// variance is an error and leaves the filter unchanged.
func (f *Filter) Update(c []float64, x float64) error {
	n := f.m.Dim()
	if len(c) != n {
		return fmt.Errorf("kalman: filter update: c has %d entries, state has %d", len(c), n)
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return fmt.Errorf("kalman: filter update: observation is %v, want finite", x)
	}
	f.mulP(f.pc, c)
	s := dot(c, f.pc) + f.m.Sigma2
	if !(s > 0) {
		return errors.New("kalman: filter update: innovation variance is not positive (σ² = 0 and cᵀPc = 0)")
	}
	innov := x - dot(c, f.z)
	// Filtered state ẑ_{t|t} = ẑ + K·innov, then ẑ_{t+1|t} = Γẑ_{t|t}.
	for i := range f.z {
		f.t1[i] = f.z[i] + f.pc[i]*innov/s
	}
	f.m.applyGamma(f.z, f.t1)
	riccatiInPlace(f.m, f.p, f.pc, s)
	return nil
}

// applyGamma writes Γx into dst (dst and x must not alias).
func (m *Model) applyGamma(dst, x []float64) {
	if m.diag != nil {
		for i, g := range m.diag {
			dst[i] = g * x[i]
		}
		return
	}
	mat.NewVecDense(len(dst), dst).MulVec(m.Gamma, mat.NewVecDense(len(x), x))
}

// riccatiInPlace replaces p by g(p, c) given pc = Pc and s = cᵀPc + σ².
func riccatiInPlace(m *Model, p *mat.SymDense, pc []float64, s float64) {
	n := m.Dim()
	// P⁺ = P − (Pc)(Pc)ᵀ/s, the filtered covariance.
	p.SymRankOne(p, -1/s, mat.NewVecDense(n, pc))
	if m.diag != nil {
		raw, q := p.RawSymmetric(), m.Q.RawSymmetric()
		for i := range n {
			row := raw.Data[i*raw.Stride : i*raw.Stride+n]
			qrow := q.Data[i*q.Stride : i*q.Stride+n]
			gi := m.diag[i]
			for j := i; j < n; j++ {
				row[j] = gi*m.diag[j]*row[j] + qrow[j]
			}
		}
		return
	}
	var t, u mat.Dense
	t.Mul(m.Gamma, p)
	u.Mul(&t, m.Gamma.T())
	for i := range n {
		for j := i; j < n; j++ {
			p.SetSym(i, j, (u.At(i, j)+u.At(j, i))/2+m.Q.At(i, j))
		}
	}
}

// Riccati returns g(P, c) of eq. 25:
//
//	g(P, c) = ΓPΓᵀ + Q − ΓPc(cᵀPc + σ²)⁻¹cᵀPΓᵀ.
func Riccati(m *Model, p mat.Symmetric, c []float64) (*mat.SymDense, error) {
	n := m.Dim()
	if p.SymmetricDim() != n || len(c) != n {
		return nil, fmt.Errorf("kalman: riccati: P is %d×%d and c has %d entries, state has %d", p.SymmetricDim(), p.SymmetricDim(), len(c), n)
	}
	out := mat.NewSymDense(n, nil)
	out.CopySym(p)
	pc := make([]float64, n)
	mat.NewVecDense(n, pc).MulVec(out, mat.NewVecDense(n, c))
	s := dot(c, pc) + m.Sigma2
	if !(s > 0) {
		return nil, errors.New("kalman: riccati: cᵀPc + σ² is not positive")
	}
	riccatiInPlace(m, out, pc, s)
	return out, nil
}

// RiccatiFixedPoint returns P_c = g(P_c, c), the steady-state one-step error
// covariance when c is observed every round (the algebraic Riccati equation
// of Theorem 3), by iterating g from the stationary covariance Σ. Since
// ρ(Γ) < 1, (Γ, cᵀ) is detectable and the iteration converges; it stops
// when the largest entry change is below 1e-14 of the largest entry.
func RiccatiFixedPoint(m *Model, c []float64) (*mat.SymDense, error) {
	f, err := NewFilter(m)
	if err != nil {
		return nil, err
	}
	if len(c) != m.Dim() {
		return nil, fmt.Errorf("kalman: riccati fixed point: c has %d entries, state has %d", len(c), m.Dim())
	}
	prev := mat.NewSymDense(m.Dim(), nil)
	for it := 0; it < 1_000_000; it++ {
		prev.CopySym(f.p)
		f.mulP(f.pc, c)
		s := dot(c, f.pc) + m.Sigma2
		if !(s > 0) {
			return nil, errors.New("kalman: riccati fixed point: cᵀPc + σ² is not positive")
		}
		riccatiInPlace(m, f.p, f.pc, s)
		if maxAbsDiff(f.p, prev) <= 1e-14*math.Max(1e-300, maxAbs(f.p)) {
			return f.p, nil
		}
	}
	return nil, errors.New("kalman: riccati fixed point: no convergence in 1e6 iterations")
}

func maxAbs(a mat.Symmetric) float64 {
	n, v := a.SymmetricDim(), 0.0
	for i := range n {
		for j := i; j < n; j++ {
			v = math.Max(v, math.Abs(a.At(i, j)))
		}
	}
	return v
}

func maxAbsDiff(a, b mat.Symmetric) float64 {
	n, v := a.SymmetricDim(), 0.0
	for i := range n {
		for j := i; j < n; j++ {
			v = math.Max(v, math.Abs(a.At(i, j)-b.At(i, j)))
		}
	}
	return v
}

// ModifiedFilter is the fixed-gain filter of Theorem 3 (eq. 26) over a
// finite set of actions with observation vectors c_A:
//
//	ẑ'_{t+1} = Γẑ'_t + ΓL_{A_t}(X_t − ⟨c_{A_t}, ẑ'_t⟩),
//	L_A = P_A c_A (c_AᵀP_A c_A + σ²)⁻¹,  P_A = g(P_A, c_A).
//
// Its gains are constant per action, unlike the Kalman gain K_t, which
// depends on the whole action history. It also tracks the exact error
// covariance P'_t = E[(z_t − ẑ'_t)(z_t − ẑ'_t)ᵀ], which for a fixed gain
// obeys P'_{t+1} = (Γ − ΓL cᵀ)P'_t(Γ − ΓL cᵀ)ᵀ + Q + σ²ΓLLᵀΓᵀ.
type ModifiedFilter struct {
	m       *Model
	actions [][]float64
	fixed   []*mat.SymDense // P_A
	gains   [][]float64     // L_A
	z       []float64
	p       *mat.Dense // P'_t
	t1      []float64
}

// NewModifiedFilter solves the algebraic Riccati equation for every action
// and starts at ẑ'_0 = 0, P'_0 = Σ.
func NewModifiedFilter(m *Model, actions [][]float64) (*ModifiedFilter, error) {
	if len(actions) == 0 {
		return nil, errors.New("kalman: modified filter: no actions")
	}
	n := m.Dim()
	sigma, err := m.StationaryCov()
	if err != nil {
		return nil, err
	}
	f := &ModifiedFilter{m: m, z: make([]float64, n), p: mat.DenseCopyOf(sigma), t1: make([]float64, n)}
	for a, c := range actions {
		if len(c) != n {
			return nil, fmt.Errorf("kalman: modified filter: action %d has %d entries, state has %d", a, len(c), n)
		}
		pa, err := RiccatiFixedPoint(m, c)
		if err != nil {
			return nil, fmt.Errorf("kalman: modified filter: action %d: %w", a, err)
		}
		l := make([]float64, n)
		mat.NewVecDense(n, l).MulVec(pa, mat.NewVecDense(n, c))
		s := dot(c, l) + m.Sigma2
		for i := range l {
			l[i] /= s
		}
		f.actions = append(f.actions, append([]float64(nil), c...))
		f.fixed = append(f.fixed, pa)
		f.gains = append(f.gains, l)
	}
	return f, nil
}

// Reset returns the filter to ẑ'_0 = 0, P'_0 = Σ, keeping its gains.
func (f *ModifiedFilter) Reset() error {
	sigma, err := f.m.StationaryCov()
	if err != nil {
		return err
	}
	clear(f.z)
	f.p.Copy(sigma)
	return nil
}

// Fixed returns P_A for action a (not a copy).
func (f *ModifiedFilter) Fixed(a int) *mat.SymDense { return f.fixed[a] }

// Gain returns L_A for action a (not a copy).
func (f *ModifiedFilter) Gain(a int) []float64 { return f.gains[a] }

// ClosedLoop returns Γ − ΓL_A c_Aᵀ, the matrix Theorem 3 proves stable.
func (f *ModifiedFilter) ClosedLoop(a int) *mat.Dense {
	n := f.m.Dim()
	gl := make([]float64, n)
	f.m.applyGamma(gl, f.gains[a])
	out := mat.DenseCopyOf(f.m.Gamma)
	var outer mat.Dense
	outer.Outer(1, mat.NewVecDense(n, gl), mat.NewVecDense(n, f.actions[a]))
	out.Sub(out, &outer)
	return out
}

// Predict returns ⟨c_a, ẑ'_t⟩.
func (f *ModifiedFilter) Predict(a int) float64 { return dot(f.actions[a], f.z) }

// ResidualVar returns c_AᵀP'_t c_A + σ², the variance of the residual
// γ_t = X_t − ⟨c_A, ẑ'_t⟩ (Theorem 3).
func (f *ModifiedFilter) ResidualVar(a int) float64 {
	n := f.m.Dim()
	pc := mat.NewVecDense(n, nil)
	pc.MulVec(f.p, mat.NewVecDense(n, f.actions[a]))
	return mat.Dot(pc, mat.NewVecDense(n, f.actions[a])) + f.m.Sigma2
}

// ErrorCov returns a copy of P'_t.
func (f *ModifiedFilter) ErrorCov() *mat.Dense { return mat.DenseCopyOf(f.p) }

// Update folds in X_t = x observed under action a and advances to t+1.
func (f *ModifiedFilter) Update(a int, x float64) error {
	if a < 0 || a >= len(f.actions) {
		return fmt.Errorf("kalman: modified filter: action %d out of range [0, %d)", a, len(f.actions))
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return fmt.Errorf("kalman: modified filter: observation is %v, want finite", x)
	}
	innov := x - dot(f.actions[a], f.z)
	l := f.gains[a]
	for i := range f.z {
		f.t1[i] = f.z[i] + l[i]*innov
	}
	f.m.applyGamma(f.z, f.t1)
	// P'_{t+1} = F P' Fᵀ + Q + σ²(ΓL)(ΓL)ᵀ with F = Γ − ΓL cᵀ.
	n := f.m.Dim()
	fm := f.ClosedLoop(a)
	var t, u mat.Dense
	t.Mul(fm, f.p)
	u.Mul(&t, fm.T())
	gl := make([]float64, n)
	f.m.applyGamma(gl, l)
	glv := mat.NewVecDense(n, gl)
	var outer mat.Dense
	outer.Outer(f.m.Sigma2, glv, glv)
	u.Add(&u, &outer)
	u.Add(&u, f.m.Q)
	f.p.Copy(&u)
	return nil
}
