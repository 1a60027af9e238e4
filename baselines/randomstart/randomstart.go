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

// Name is the registered controller name.
const Name = "randomstart"

func init() {
	controller.MustRegister(controller.Entry{
		Name:     Name,
		Summary:  "Random Start: one uniform configuration drawn at the start and kept for the whole run",
		Defaults: func() controller.Settings { return &Settings{} },
	})
}

// Settings configure Random Start. It has no options.
type Settings struct{}

// Validate always succeeds.
func (s *Settings) Validate() error { return nil }

// New returns a fresh RandomStart.
func (s *Settings) New() (controller.Method, error) { return &RandomStart{}, nil }

// RandomStart draws one uniform configuration at its first decision and
// keeps it for the whole run.
type RandomStart struct {
	space controller.Space
	rng   *rand.Rand
	st    randomStartState
}

type randomStartState struct {
	Have   bool
	Config []float64
}

// Init prepares a run over space.
func (m *RandomStart) Init(space controller.Space, rng *rand.Rand) error {
	if rng == nil {
		return fmt.Errorf("randomstart: init: nil rng")
	}
	m.space, m.rng = space, rng
	m.st = randomStartState{Config: make([]float64, space.Dim())}
	return nil
}

// Suggest writes the run's configuration, drawing it on first use.
func (m *RandomStart) Suggest(dst controller.Config) error {
	if m.rng == nil {
		return common.NotInit("randomstart")
	}
	if err := common.CheckDst(m.space, dst); err != nil {
		return fmt.Errorf("randomstart: %w", err)
	}
	if !m.st.Have {
		common.Uniform(m.space, m.rng, m.st.Config)
		m.st.Have = true
	}
	copy(dst, m.st.Config)
	return nil
}

// Observe validates o and otherwise ignores it.
func (m *RandomStart) Observe(o controller.Observation) error {
	if m.rng == nil {
		return common.NotInit("randomstart")
	}
	if err := common.CheckObservation(m.space, o); err != nil {
		return fmt.Errorf("randomstart: observe: %w", err)
	}
	return nil
}

// MarshalBinary returns the drawn configuration, if any.
func (m *RandomStart) MarshalBinary() ([]byte, error) { return common.Encode("randomstart", m.st) }

// UnmarshalBinary restores a state from MarshalBinary.
func (m *RandomStart) UnmarshalBinary(b []byte) error {
	var st randomStartState
	if err := common.Decode("randomstart", b, &st); err != nil {
		return err
	}
	if len(st.Config) != m.space.Dim() {
		return fmt.Errorf("randomstart: unmarshal state: config has %d values, space has %d parameters", len(st.Config), m.space.Dim())
	}
	m.st = st
	return nil
}
