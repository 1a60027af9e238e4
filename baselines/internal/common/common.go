// Package common holds the helpers every method in baselines/ shares: the
// checks every method makes (Base, through controller.CheckObservation and
// controller.CheckDst), the unit-box mapping of configurations, state
// encoding and decision periods. It is internal to baselines/.
package common

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"math/rand/v2"

	"github.com/hyperctl/hyperctl/controller"
)

// Uniform writes a configuration drawn uniformly in each parameter's own
// scale.
func Uniform(space controller.Space, rng *rand.Rand, dst controller.Config) {
	for i := range dst {
		dst[i] = space.FromUnit(i, rng.Float64())
	}
}

// ToUnit maps a configuration to [0, 1]^d, appending to dst[:0].
func ToUnit(space controller.Space, c controller.Config, dst []float64) []float64 {
	dst = dst[:0]
	for i, v := range c {
		dst = append(dst, space.ToUnit(i, v))
	}
	return dst
}

// FromUnit maps u ∈ [0, 1]^d to a configuration (rounding integers).
func FromUnit(space controller.Space, u []float64, dst controller.Config) {
	for i := range dst {
		dst[i] = space.FromUnit(i, u[i])
	}
}

// Encode gob-encodes a method state.
func Encode(name string, v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, fmt.Errorf("%s: marshal state: %w", name, err)
	}
	return buf.Bytes(), nil
}

// Decode gob-decodes a method state into v.
func Decode(name string, b []byte, v any) error {
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(v); err != nil {
		return fmt.Errorf("%s: unmarshal state: %w", name, err)
	}
	return nil
}

// NotInit is the error of a method used before Init.
func NotInit(name string) error {
	return fmt.Errorf("%s: used before Init", name)
}

// Base is what every method keeps besides its model: its registered name
// (for errors), the controlled space and the driver's random source, both
// set by Init. Its checks return the errors every method returns for use
// before Init, a destination of the wrong length and a bad observation.
type Base struct {
	name  string
	space controller.Space
	rng   *rand.Rand
}

// NewBase returns the base of the method registered as name.
func NewBase(name string) Base { return Base{name: name} }

// Init keeps space and rng; a nil rng is an error.
func (b *Base) Init(space controller.Space, rng *rand.Rand) error {
	if rng == nil {
		return fmt.Errorf("%s: init: nil rng", b.name)
	}
	b.space, b.rng = space, rng
	return nil
}

// Name is the method's registered name.
func (b *Base) Name() string { return b.name }

// Space is the controlled space (zero before Init).
func (b *Base) Space() controller.Space { return b.space }

// Rng is the driver's random source (nil before Init).
func (b *Base) Rng() *rand.Rand { return b.rng }

// Ready returns an error before Init.
func (b *Base) Ready() error {
	if b.rng == nil {
		return NotInit(b.name)
	}
	return nil
}

// ReadyFor returns an error before Init or for a destination of the wrong
// length.
func (b *Base) ReadyFor(dst controller.Config) error {
	if err := b.Ready(); err != nil {
		return err
	}
	if err := controller.CheckDst(b.space, dst); err != nil {
		return fmt.Errorf("%s: %w", b.name, err)
	}
	return nil
}

// Check returns an error before Init or for a bad observation
// (controller.CheckObservation).
func (b *Base) Check(o controller.Observation) error {
	if err := b.Ready(); err != nil {
		return err
	}
	if err := controller.CheckObservation(b.space, o); err != nil {
		return fmt.Errorf("%s: observe: %w", b.name, err)
	}
	return nil
}
