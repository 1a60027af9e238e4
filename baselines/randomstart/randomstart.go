// Package randomstart is Random Start, registered as "randomstart": one
// configuration drawn uniformly, in each parameter's own scale, at the
// first decision and kept for the whole run.
package randomstart

import (
	"fmt"
	"math/rand/v2"

	"github.com/hyperctl/hyperctl/baselines/internal/common"
	"github.com/hyperctl/hyperctl/controller"
)

// Settings configure Random Start. It has no options.
type Settings struct{}

// Validate always succeeds.
func (s *Settings) Validate() error { return nil }

// New returns a fresh RandomStart.
func (s *Settings) New() (controller.Method, error) {
	return &RandomStart{base: common.NewBase(Name)}, nil
}

// RandomStart draws one uniform configuration at its first decision and
// keeps it for the whole run.
type RandomStart struct {
	base common.Base
	st   state
}

// state is the drawn configuration, if any.
type state struct {
	Have   bool
	Config []float64
}

// Init prepares a run over space.
func (m *RandomStart) Init(space controller.Space, rng *rand.Rand) error {
	if err := m.base.Init(space, rng); err != nil {
		return err
	}
	m.st = state{Config: make([]float64, space.Dim())}
	return nil
}

// Suggest writes the run's configuration, drawing it on first use.
func (m *RandomStart) Suggest(dst controller.Config) error {
	if err := m.base.ReadyFor(dst); err != nil {
		return err
	}
	if !m.st.Have {
		common.Uniform(m.base.Space(), m.base.Rng(), m.st.Config)
		m.st.Have = true
	}
	copy(dst, m.st.Config)
	return nil
}

// Observe validates o and otherwise ignores it.
func (m *RandomStart) Observe(o controller.Observation) error { return m.base.Check(o) }

// MarshalBinary returns the drawn configuration, if any.
func (m *RandomStart) MarshalBinary() ([]byte, error) { return common.Encode(Name, m.st) }

// UnmarshalBinary restores a state from MarshalBinary.
func (m *RandomStart) UnmarshalBinary(b []byte) error {
	var st state
	if err := common.Decode(Name, b, &st); err != nil {
		return err
	}
	if len(st.Config) != m.base.Space().Dim() {
		return fmt.Errorf("randomstart: unmarshal state: config has %d values, space has %d parameters", len(st.Config), m.base.Space().Dim())
	}
	m.st = st
	return nil
}
