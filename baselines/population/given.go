package population

import (
	"fmt"
	"math/rand/v2"

	"github.com/hyperctl/hyperctl/controller"
)

// Given is the controller.Method of a population member: its configuration
// is the one the population gave it for the generation, at every
// iteration. The configuration is not part of its state (MarshalBinary
// saves nothing), so a member restored from a checkpoint, its own or a
// copied one, trains with the configuration it is built with.
type Given struct {
	cfg   controller.Config
	ready bool
}

// NewGiven returns the method of a member whose configuration is cfg.
func NewGiven(cfg controller.Config) *Given {
	return &Given{cfg: append(controller.Config(nil), cfg...)}
}

// Init checks that the configuration lies in space.
func (g *Given) Init(space controller.Space, _ *rand.Rand) error {
	if err := space.Validate(g.cfg); err != nil {
		return fmt.Errorf("population member: configuration: %w", err)
	}
	g.ready = true
	return nil
}

// Suggest writes the given configuration.
func (g *Given) Suggest(dst controller.Config) error {
	if !g.ready {
		return fmt.Errorf("population member: used before Init")
	}
	if len(dst) != len(g.cfg) {
		return fmt.Errorf("population member: destination has %d values, the configuration %d", len(dst), len(g.cfg))
	}
	copy(dst, g.cfg)
	return nil
}

// Observe ignores the outcome: the population decides between generations.
func (g *Given) Observe(controller.Observation) error { return nil }

// MarshalBinary returns an empty state.
func (g *Given) MarshalBinary() ([]byte, error) { return []byte{}, nil }

// UnmarshalBinary accepts only an empty state.
func (g *Given) UnmarshalBinary(b []byte) error {
	if len(b) != 0 {
		return fmt.Errorf("population member: unmarshal state: %d bytes, want none", len(b))
	}
	return nil
}
