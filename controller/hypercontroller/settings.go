package hypercontroller

import (
	"fmt"
	"math"

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
