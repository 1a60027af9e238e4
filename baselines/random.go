package baselines

import (
	"fmt"
	"math/rand/v2"

	"github.com/hyperctl/hyperctl/controller"
)

// RandomSettings configure Random. It has no options: the decision interval
// is the driver's.
type RandomSettings struct{}

// Validate always succeeds.
func (s *RandomSettings) Validate() error { return nil }

// New returns a fresh Random.
func (s *RandomSettings) New() (controller.Method, error) { return &Random{}, nil }

// Random draws a new configuration uniformly (in each parameter's own scale)
// at every decision point, ignoring the objective.
type Random struct {
	space controller.Space
	rng   *rand.Rand
}

// Init prepares a run over space.
func (m *Random) Init(space controller.Space, rng *rand.Rand) error {
	if rng == nil {
		return fmt.Errorf("random: init: nil rng")
	}
	m.space, m.rng = space, rng
	return nil
}

// Suggest writes a uniform configuration into dst.
func (m *Random) Suggest(dst controller.Config) error {
	if m.rng == nil {
		return notInit("random")
	}
	if err := checkDst(m.space, dst); err != nil {
		return fmt.Errorf("random: %w", err)
	}
	uniform(m.space, m.rng, dst)
	return nil
}

// Observe validates o and otherwise ignores it.
func (m *Random) Observe(o controller.Observation) error {
	if m.rng == nil {
		return notInit("random")
	}
	if err := checkObservation(m.space, o); err != nil {
		return fmt.Errorf("random: observe: %w", err)
	}
	return nil
}

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

// RandomStartSettings configure Random Start. It has no options.
type RandomStartSettings struct{}

// Validate always succeeds.
func (s *RandomStartSettings) Validate() error { return nil }

// New returns a fresh RandomStart.
func (s *RandomStartSettings) New() (controller.Method, error) { return &RandomStart{}, nil }

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
		return notInit("randomstart")
	}
	if err := checkDst(m.space, dst); err != nil {
		return fmt.Errorf("randomstart: %w", err)
	}
	if !m.st.Have {
		uniform(m.space, m.rng, m.st.Config)
		m.st.Have = true
	}
	copy(dst, m.st.Config)
	return nil
}

// Observe validates o and otherwise ignores it.
func (m *RandomStart) Observe(o controller.Observation) error {
	if m.rng == nil {
		return notInit("randomstart")
	}
	if err := checkObservation(m.space, o); err != nil {
		return fmt.Errorf("randomstart: observe: %w", err)
	}
	return nil
}

// MarshalBinary returns the drawn configuration, if any.
func (m *RandomStart) MarshalBinary() ([]byte, error) { return encode("randomstart", m.st) }

// UnmarshalBinary restores a state from MarshalBinary.
func (m *RandomStart) UnmarshalBinary(b []byte) error {
	var st randomStartState
	if err := decode("randomstart", b, &st); err != nil {
		return err
	}
	if len(st.Config) != m.space.Dim() {
		return fmt.Errorf("randomstart: unmarshal state: config has %d values, space has %d parameters", len(st.Config), m.space.Dim())
	}
	m.st = st
	return nil
}
