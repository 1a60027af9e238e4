// Package kalman is the model behind HyperController (Gornet et al.,
// Section II and Appendices A–F), used to test and benchmark controllers:
//
//   - Model: the linear Gaussian dynamical system (LGDS)
//     z_{t+1} = Γz_t + ξ_t, ξ_t ~ N(0, Q), X_t = ⟨c_t, z_t⟩ + η_t,
//     η_t ~ N(0, σ²), with ρ(Γ) < 1 (eqs. 4 and 6; the paper's c_t is the
//     indicator e_{A_t}), its stationary covariance (a discrete Lyapunov
//     equation) and a seeded simulator;
//   - Filter: the Kalman one-step predictor (eq. 23) and the Riccati map
//     g(P, c) (eqs. 24–25) with its fixed point;
//   - ModifiedFilter: the fixed-gain filter of Theorem 3 (eq. 26);
//   - Bandit and RunRegret: synthetic LGDS bandits over h hyperparameters
//     and the cumulative-regret benchmark (eq. 7) behind `hyperctl bench
//     regret`.
package kalman

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Model is an LGDS z_{t+1} = Γz_t + ξ_t, ξ_t ~ N(0, Q), observed through
// X_t = ⟨c, z_t⟩ + η_t, η_t ~ N(0, σ²).
type Model struct {
	Gamma  *mat.Dense    // Γ, n×n with spectral radius < 1 (Assumption 1)
	Q      *mat.SymDense // process-noise covariance, n×n, positive semi-definite
	Sigma2 float64       // measurement-noise variance σ² ≥ 0

	diag []float64 // Γ's diagonal if Γ is diagonal (fast paths), else nil
}

// NewModel validates Γ, Q and σ² and returns the model. The matrices are
// copied.
func NewModel(gamma mat.Matrix, q mat.Symmetric, sigma2 float64) (*Model, error) {
	if gamma == nil || q == nil {
		return nil, errors.New("kalman: model: nil Gamma or Q")
	}
	r, c := gamma.Dims()
	if r == 0 || r != c {
		return nil, fmt.Errorf("kalman: model: Gamma is %d×%d, want square and non-empty", r, c)
	}
	if q.SymmetricDim() != r {
		return nil, fmt.Errorf("kalman: model: Q is %d×%d, Gamma is %d×%d", q.SymmetricDim(), q.SymmetricDim(), r, r)
	}
	if math.IsNaN(sigma2) || math.IsInf(sigma2, 0) || sigma2 < 0 {
		return nil, fmt.Errorf("kalman: model: sigma2: want a finite number >= 0, got %v", sigma2)
	}
	m := &Model{Gamma: mat.DenseCopyOf(gamma), Q: mat.NewSymDense(r, nil), Sigma2: sigma2}
	m.Q.CopySym(q)
	for i := range r {
		for j := range r {
			if v := m.Gamma.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("kalman: model: Gamma[%d,%d] = %v, want finite", i, j, v)
			}
			if v := m.Q.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("kalman: model: Q[%d,%d] = %v, want finite", i, j, v)
			}
		}
	}
	rho, err := SpectralRadius(m.Gamma)
	if err != nil {
		return nil, fmt.Errorf("kalman: model: %w", err)
	}
	if rho >= 1 {
		return nil, fmt.Errorf("kalman: model: Gamma has spectral radius %g, want < 1 (Assumption 1)", rho)
	}
	var eig mat.EigenSym
	if !eig.Factorize(m.Q, false) {
		return nil, errors.New("kalman: model: eigen-decomposition of Q failed")
	}
	vals := eig.Values(nil)
	tol := 1e-10 * math.Max(1, math.Abs(vals[len(vals)-1]))
	if vals[0] < -tol {
		return nil, fmt.Errorf("kalman: model: Q has eigenvalue %g, want positive semi-definite", vals[0])
	}
	m.diag = diagonalOf(m.Gamma)
	return m, nil
}

// diagonalOf returns g's diagonal if g is diagonal, else nil.
func diagonalOf(g *mat.Dense) []float64 {
	n, _ := g.Dims()
	d := make([]float64, n)
	for i := range n {
		for j := range n {
			if i != j && g.At(i, j) != 0 {
				return nil
			}
		}
		d[i] = g.At(i, i)
	}
	return d
}

// Dim is the state dimension n.
func (m *Model) Dim() int { r, _ := m.Gamma.Dims(); return r }

// SpectralRadius returns max |λ| over the eigenvalues of the square matrix g.
func SpectralRadius(g mat.Matrix) (float64, error) {
	var eig mat.Eigen
	if !eig.Factorize(g, mat.EigenNone) {
		return 0, errors.New("eigen-decomposition failed")
	}
	rho := 0.0
	for _, v := range eig.Values(nil) {
		rho = math.Max(rho, math.Hypot(real(v), imag(v)))
	}
	return rho, nil
}

// StationaryCov returns the stationary state covariance Σ, the solution of
// the discrete Lyapunov equation Σ = ΓΣΓᵀ + Q (unique since ρ(Γ) < 1).
// Diagonal Γ has the closed form Σ_ij = Q_ij / (1 − γ_iγ_j); small systems
// (n ≤ 30) solve the vectorised system (I − Γ⊗Γ) vec Σ = vec Q with gonum;
// larger ones use the doubling iteration Σ ← Σ + AΣAᵀ, A ← A².
func (m *Model) StationaryCov() (*mat.SymDense, error) {
	n := m.Dim()
	out := mat.NewSymDense(n, nil)
	switch {
	case m.diag != nil:
		for i := range n {
			for j := i; j < n; j++ {
				out.SetSym(i, j, m.Q.At(i, j)/(1-m.diag[i]*m.diag[j]))
			}
		}
	case n <= 30:
		var k mat.Dense
		k.Kronecker(m.Gamma, m.Gamma)
		n2 := n * n
		lhs := mat.NewDense(n2, n2, nil)
		for i := range n2 {
			for j := range n2 {
				v := -k.At(i, j)
				if i == j {
					v++
				}
				lhs.Set(i, j, v)
			}
		}
		rhs := mat.NewVecDense(n2, nil)
		for i := range n {
			for j := range n {
				rhs.SetVec(i*n+j, m.Q.At(i, j))
			}
		}
		var x mat.VecDense
		if err := x.SolveVec(lhs, rhs); err != nil {
			return nil, fmt.Errorf("kalman: stationary covariance: %w", err)
		}
		for i := range n {
			for j := i; j < n; j++ {
				out.SetSym(i, j, (x.AtVec(i*n+j)+x.AtVec(j*n+i))/2)
			}
		}
	default:
		s := mat.DenseCopyOf(m.Q)
		a := mat.DenseCopyOf(m.Gamma)
		var tmp, asa mat.Dense
		for it := 0; ; it++ {
			tmp.Mul(a, s)
			asa.Mul(&tmp, a.T())
			s.Add(s, &asa)
			if mat.Norm(&asa, math.Inf(1)) <= 1e-15*mat.Norm(s, math.Inf(1)) {
				break
			}
			if it == 200 {
				return nil, errors.New("kalman: stationary covariance: doubling did not converge")
			}
			tmp.Mul(a, a)
			a.Copy(&tmp)
		}
		for i := range n {
			for j := i; j < n; j++ {
				out.SetSym(i, j, (s.At(i, j)+s.At(j, i))/2)
			}
		}
	}
	return out, nil
}

// Sim simulates a Model from its stationary distribution. Process and
// measurement noise come from separate seeded streams, so the state path
// does not depend on how often, or through which c, the state is observed.
type Sim struct {
	m     *Model
	z     []float64
	next  []float64
	w     []float64
	noise *mat.Dense // A with AAᵀ = Q
	proc  *rand.Rand
	meas  *rand.Rand
}

// NewSim starts a simulation with z_0 drawn from N(0, Σ), Σ the stationary
// covariance.
func NewSim(m *Model, seed uint64) (*Sim, error) {
	n := m.Dim()
	sigma, err := m.StationaryCov()
	if err != nil {
		return nil, err
	}
	a0, err := sqrtPSD(sigma)
	if err != nil {
		return nil, fmt.Errorf("kalman: sim: stationary covariance: %w", err)
	}
	aq, err := sqrtPSD(m.Q)
	if err != nil {
		return nil, fmt.Errorf("kalman: sim: Q: %w", err)
	}
	s := &Sim{
		m: m, z: make([]float64, n), next: make([]float64, n), w: make([]float64, n), noise: aq,
		proc: rand.New(rand.NewPCG(seed, 0x5eed0001)),
		meas: rand.New(rand.NewPCG(seed, 0x5eed0002)),
	}
	s.gauss(a0, s.z)
	return s, nil
}

// sqrtPSD returns A with AAᵀ = s for a positive semi-definite s.
func sqrtPSD(s mat.Symmetric) (*mat.Dense, error) {
	var eig mat.EigenSym
	if !eig.Factorize(s, true) {
		return nil, errors.New("eigen-decomposition failed")
	}
	var v mat.Dense
	eig.VectorsTo(&v)
	vals := eig.Values(nil)
	for j, l := range vals {
		r := math.Sqrt(math.Max(l, 0))
		for i := range len(vals) {
			v.Set(i, j, v.At(i, j)*r)
		}
	}
	return &v, nil
}

// gauss writes a·w into dst with w standard normal from the process stream.
func (s *Sim) gauss(a *mat.Dense, dst []float64) {
	for i := range s.w {
		s.w[i] = s.proc.NormFloat64()
	}
	mat.NewVecDense(len(dst), dst).MulVec(a, mat.NewVecDense(len(s.w), s.w))
}

// State returns a copy of z_t.
func (s *Sim) State() []float64 { return append([]float64(nil), s.z...) }

// Output returns X_t = ⟨c, z_t⟩ + η_t with a fresh η_t ~ N(0, σ²).
func (s *Sim) Output(c []float64) float64 {
	return dot(c, s.z) + math.Sqrt(s.m.Sigma2)*s.meas.NormFloat64()
}

// Step advances z_{t+1} = Γz_t + ξ_t.
func (s *Sim) Step() {
	if s.m.diag != nil {
		for i, g := range s.m.diag {
			s.next[i] = g * s.z[i]
		}
	} else {
		mat.NewVecDense(len(s.next), s.next).MulVec(s.m.Gamma, mat.NewVecDense(len(s.z), s.z))
	}
	s.gauss(s.noise, s.z)
	for i := range s.z {
		s.z[i] += s.next[i]
	}
}

func dot(a, b []float64) float64 {
	var t float64
	for i, v := range a {
		t += v * b[i]
	}
	return t
}
