// Package random is Random search (Bergstra and Bengio 2012, "Random
// Search for Hyper-Parameter Optimization") online, registered as "random":
// a new configuration drawn uniformly, in each parameter's own scale, at
// every decision point.
package random

import (
	"fmt"
	"math/rand/v2"

	"github.com/hyperctl/hyperctl/baselines/internal/common"
	"github.com/hyperctl/hyperctl/controller"
)

// Random draws a new configuration uniformly (in each parameter's own scale)
// at every decision point, ignoring the objective.
type Random struct{ base common.Base }

// Init prepares a run over space.
func (m *Random) Init(space controller.Space, rng *rand.Rand) error { return m.base.Init(space, rng) }

// Suggest writes a uniform configuration into dst.
func (m *Random) Suggest(dst controller.Config) error {
	if err := m.base.ReadyFor(dst); err != nil {
		return err
	}
	common.Uniform(m.base.Space(), m.base.Rng(), dst)
	return nil
}

// Observe validates o and otherwise ignores it.
func (m *Random) Observe(o controller.Observation) error { return m.base.Check(o) }

// Settings configure Random. It has no options: the decision interval
// is the driver's.
type Settings struct{}

// Validate always succeeds.
func (s *Settings) Validate() error { return nil }

// New returns a fresh Random.
func (s *Settings) New() (controller.Method, error) { return &Random{base: common.NewBase(Name)}, nil }

// randomState versions Random's (empty) state.
const randomState = "random/v1"

// MarshalBinary returns Random's state: it has none besides the driver's
// rng.
func (m *Random) MarshalBinary() ([]byte, error) { return []byte(randomState), nil }

// UnmarshalBinary accepts a state from MarshalBinary.
func (m *Random) UnmarshalBinary(b []byte) error {
	if string(b) != randomState {
		return fmt.Errorf("random: unmarshal state: not a %s state", randomState)
	}
	return nil
}
