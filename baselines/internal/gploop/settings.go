package gploop

import (
	"fmt"
	"math"

	"github.com/hyperctl/hyperctl/baselines/gp"
)

// The settings blocks below are embedded in the members' settings structs;
// TOML decodes and encodes an embedded struct's keys as the outer table's
// own, so a member's [controller.<name>] table is flat. Each block's
// Validate names the offending key first ("window: …").

// MaxWindow is the most data points a member keeps (Model.Window, PB2's
// window_max).
const MaxWindow = 5000

// Model is the GP block of gpucb, bilevel and deltabo: TOML keys kernel and
// window.
type Model struct {
	// Kernel is "matern52" or "se" (ARD either way).
	Kernel string `toml:"kernel"`
	// Window is the number of most recent data points (decision periods)
	// the GP is fitted to; it bounds the cost of a decision.
	Window int `toml:"window"`
}

// Validate checks kernel and window.
func (s *Model) Validate() error {
	if _, err := gp.ParseKind(s.Kernel); err != nil {
		return fmt.Errorf("kernel: %w", err)
	}
	if s.Window < 2 || s.Window > MaxWindow {
		return fmt.Errorf("window: want an integer in [2, %d] data points, got %d", MaxWindow, s.Window)
	}
	return nil
}

// Kind is the parsed kernel of valid settings.
func (s *Model) Kind() gp.Kind {
	k, _ := gp.ParseKind(s.Kernel)
	return k
}

// Confidence is the block of Srinivas et al.'s Theorem 1 β_t (gpucb and
// deltabo): TOML keys delta, grid and beta_scale; see Beta.
type Confidence struct {
	// Delta is δ in (0, 1) of β_t.
	Delta float64 `toml:"delta"`
	// Grid is the number of values per hyperparameter of the decision set
	// D (|D| = grid^d).
	Grid int `toml:"grid"`
	// BetaScale multiplies Theorem 1's β_t (> 0).
	BetaScale float64 `toml:"beta_scale"`
}

// Validate checks delta, grid and beta_scale.
func (s *Confidence) Validate() error {
	switch {
	case !(s.Delta > 0 && s.Delta < 1):
		return fmt.Errorf("delta: want a number in (0, 1), got %v", s.Delta)
	case s.Grid < 2:
		return fmt.Errorf("grid: want an integer >= 2, got %d", s.Grid)
	case !(s.BetaScale > 0) || math.IsInf(s.BetaScale, 0):
		return fmt.Errorf("beta_scale: want a finite number > 0, got %v", s.BetaScale)
	}
	return nil
}

// Beta is β_t of decision round t over dim hyperparameters.
func (s *Confidence) Beta(t, dim int) float64 { return Beta(t, dim, s.Grid, s.Delta, s.BetaScale) }

// Beta returns Theorem 1's β_t = scale · 2 log(|D| t² π² / (6δ)) for
// |D| = grid^dim, computed in logs so that a large |D| cannot overflow; t
// below 1 counts as 1.
func Beta(t, dim, grid int, delta, scale float64) float64 {
	logD := float64(dim) * math.Log(float64(grid))
	tt := float64(max(t, 1))
	return scale * 2 * (logD + 2*math.Log(tt) + math.Log(math.Pi*math.Pi/(6*delta)))
}

// AlwaysRestartBelow: while a fit has fewer data points than this, fits are
// cheap and the ML-II surface is most multimodal, so the random restarts
// run at every decision; above it, at every RestartEvery-th.
const AlwaysRestartBelow = 64

// Fitting is the ML-II restart block of all four members: TOML keys
// restarts and restart_every.
type Fitting struct {
	// Restarts is the number of random ML-II restarts, besides the warm
	// start from the previous decision's hyperparameters, at every
	// RestartEvery-th decision (the first included).
	Restarts int `toml:"restarts"`
	// RestartEvery spaces the decisions with random restarts (1: every
	// decision). While the GP holds fewer than 64 points, fits are cheap and
	// restarts run at every decision regardless.
	RestartEvery int `toml:"restart_every"`
}

// Validate checks restarts and restart_every.
func (s *Fitting) Validate() error {
	switch {
	case s.Restarts < 0 || s.Restarts > 100:
		return fmt.Errorf("restarts: want an integer in [0, 100], got %d", s.Restarts)
	case s.RestartEvery < 1:
		return fmt.Errorf("restart_every: want an integer >= 1 decision, got %d", s.RestartEvery)
	}
	return nil
}

// At returns the random restarts of the k-th fit (0-based) of a member, on
// n data points; warm reports whether a previous fit's hyperparameters
// exist (without them the fit always restarts).
func (s *Fitting) At(warm bool, n, k int) int {
	if !warm || n < AlwaysRestartBelow || k%s.RestartEvery == 0 {
		return s.Restarts
	}
	return 0
}

// Search is the acquisition block of gpucb, pb2 and bilevel: TOML keys
// candidates and refine (deltabo has candidates only; see
// ValidateCandidates).
type Search struct {
	// Candidates is the number of uniform random configurations the
	// acquisition is evaluated at per decision.
	Candidates int `toml:"candidates"`
	// Refine is the number of best candidates refined by L-BFGS.
	Refine int `toml:"refine"`
}

// Validate checks candidates and refine.
func (s *Search) Validate() error {
	if err := ValidateCandidates(s.Candidates); err != nil {
		return err
	}
	if s.Refine < 0 || s.Refine > s.Candidates {
		return fmt.Errorf("refine: want an integer in [0, candidates = %d], got %d", s.Candidates, s.Refine)
	}
	return nil
}

// ValidateCandidates checks a candidates setting.
func ValidateCandidates(n int) error {
	if n < 1 || n > 100000 {
		return fmt.Errorf("candidates: want an integer in [1, 100000], got %d", n)
	}
	return nil
}

// Maximizer is the UCB maximiser with this budget (30 L-BFGS iterations
// per refinement).
func (s *Search) Maximizer() Maximizer {
	return Maximizer{Candidates: s.Candidates, Refine: s.Refine, MaxIter: 30}
}
