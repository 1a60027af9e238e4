package controller

import (
	"fmt"
	"math"
	"strings"
)

// Scale says how a parameter's values are spaced between its bounds.
type Scale int

const (
	// Linear spaces values uniformly between Low and High.
	Linear Scale = iota
	// Log spaces values uniformly in log(value); Low must be > 0.
	Log
)

// String returns "linear" or "log".
func (s Scale) String() string {
	switch s {
	case Linear:
		return "linear"
	case Log:
		return "log"
	}
	return fmt.Sprintf("Scale(%d)", int(s))
}

// ParseScale parses "linear" or "log" (case-insensitive; "" means linear).
func ParseScale(s string) (Scale, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "linear", "lin":
		return Linear, nil
	case "log":
		return Log, nil
	}
	return 0, fmt.Errorf("scale %q: want \"linear\" or \"log\"", s)
}

// UnmarshalText decodes "linear" or "log" (see ParseScale), so a TOML or
// JSON decoder reads it once, naming the key in its error.
func (s *Scale) UnmarshalText(b []byte) error {
	v, err := ParseScale(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// MarshalText writes "linear" or "log".
func (s Scale) MarshalText() ([]byte, error) {
	if s != Linear && s != Log {
		return nil, fmt.Errorf("unknown scale %d", int(s))
	}
	return []byte(s.String()), nil
}

// Param is one tunable hyperparameter.
type Param struct {
	Name    string  // unique name, e.g. "lr"
	Low     float64 // lower bound (inclusive)
	High    float64 // upper bound (inclusive), > Low
	Scale   Scale   // Linear or Log
	Integer bool    // round values to the nearest integer
}

// Space is an ordered set of hyperparameters. A Config holds one value per
// parameter, in the space's order.
type Space struct {
	params []Param
}

// Config is one value per parameter of a Space, in the space's order and in
// the parameters' natural units.
type Config []float64

// NewSpace validates params and returns the space. Errors name the offending
// parameter and field.
func NewSpace(params ...Param) (Space, error) {
	if len(params) == 0 {
		return Space{}, fmt.Errorf("space: no parameters (an empty space has nothing to tune)")
	}
	seen := make(map[string]bool, len(params))
	for i, p := range params {
		if err := p.validate(); err != nil {
			return Space{}, fmt.Errorf("space: parameter %d: %w", i, err)
		}
		if seen[p.Name] {
			return Space{}, fmt.Errorf("space: parameter %q listed twice", p.Name)
		}
		seen[p.Name] = true
	}
	return Space{params: append([]Param(nil), params...)}, nil
}

func (p Param) validate() error {
	switch {
	case strings.TrimSpace(p.Name) == "":
		return fmt.Errorf("name: must not be empty")
	case math.IsNaN(p.Low) || math.IsInf(p.Low, 0):
		return fmt.Errorf("%s: low: must be finite, got %v", p.Name, p.Low)
	case math.IsNaN(p.High) || math.IsInf(p.High, 0):
		return fmt.Errorf("%s: high: must be finite, got %v", p.Name, p.High)
	case p.Low >= p.High:
		return fmt.Errorf("%s: low (%g) must be < high (%g)", p.Name, p.Low, p.High)
	case p.Scale != Linear && p.Scale != Log:
		return fmt.Errorf("%s: scale: unknown scale %d", p.Name, int(p.Scale))
	case p.Scale == Log && p.Low <= 0:
		return fmt.Errorf("%s: low (%g) must be > 0 on a log scale", p.Name, p.Low)
	case p.Integer && math.Floor(p.High) < math.Ceil(p.Low):
		return fmt.Errorf("%s: no integer lies in [%g, %g]", p.Name, p.Low, p.High)
	}
	if span := p.span(); math.IsNaN(span) || math.IsInf(span, 0) {
		if p.Scale == Log {
			return fmt.Errorf("%s: span: log(high) − log(low) = %v is not a finite number", p.Name, span)
		}
		return fmt.Errorf("%s: span: high − low = %g − (%g) overflows float64 (%v); want high − low ≤ %g", p.Name, p.High, p.Low, span, math.MaxFloat64)
	}
	return nil
}

// span is the width of the parameter's range in its own scale: high − low,
// or log(high) − log(low) on a log scale. Every method maps values through
// it (FromUnit, ToUnit), so NewSpace refuses a parameter whose span is not
// finite: with [−1e308, 1e308] it overflows to +Inf, every value maps to
// the upper bound and a method's state holds infinities.
func (p Param) span() float64 {
	if p.Scale == Log {
		return math.Log(p.High) - math.Log(p.Low)
	}
	return p.High - p.Low
}

// Dim is the number of parameters.
func (s Space) Dim() int { return len(s.params) }

// Params returns a copy of the parameters.
func (s Space) Params() []Param { return append([]Param(nil), s.params...) }

// Param returns parameter i.
func (s Space) Param(i int) Param { return s.params[i] }

// Index returns the position of the named parameter, or -1.
func (s Space) Index(name string) int {
	for i, p := range s.params {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// Names returns the parameter names in order.
func (s Space) Names() []string {
	out := make([]string, len(s.params))
	for i, p := range s.params {
		out[i] = p.Name
	}
	return out
}

// FromUnit maps u in [0, 1] to parameter i's value in its own scale, then
// rounds integers. u outside [0, 1] is clamped.
func (s Space) FromUnit(i int, u float64) float64 {
	p := s.params[i]
	u = math.Min(1, math.Max(0, u))
	var v float64
	if p.Scale == Log {
		lo, hi := math.Log(p.Low), math.Log(p.High)
		v = math.Exp(lo + u*(hi-lo))
	} else {
		v = p.Low + u*(p.High-p.Low)
	}
	return p.round(v)
}

// ToUnit maps parameter i's value v to [0, 1] in its own scale (clamped).
func (s Space) ToUnit(i int, v float64) float64 {
	p := s.params[i]
	var u float64
	if p.Scale == Log {
		lo, hi := math.Log(p.Low), math.Log(p.High)
		u = (math.Log(math.Max(v, p.Low)) - lo) / (hi - lo)
	} else {
		u = (v - p.Low) / (p.High - p.Low)
	}
	return math.Min(1, math.Max(0, u))
}

func (p Param) round(v float64) float64 {
	v = math.Min(p.High, math.Max(p.Low, v))
	if p.Integer {
		r := math.Round(v)
		if r > p.High {
			r = math.Floor(p.High)
		}
		if r < p.Low {
			r = math.Ceil(p.Low)
		}
		v = r
	}
	return v
}

// Grid returns d values for parameter i, uniformly spaced in the parameter's
// scale from Low to High inclusive (Algorithm 1's D_i). d must be >= 2.
// Integer parameters are rounded, so neighbouring values may coincide when
// the range holds fewer than d integers.
func (s Space) Grid(i, d int) ([]float64, error) {
	if d < 2 {
		return nil, fmt.Errorf("grid: d = %d, want d >= 2", d)
	}
	out := make([]float64, d)
	for k := range out {
		out[k] = s.FromUnit(i, float64(k)/float64(d-1))
	}
	return out, nil
}

// Validate checks that c has one finite value per parameter, inside bounds.
func (s Space) Validate(c Config) error {
	if len(c) != len(s.params) {
		return fmt.Errorf("config has %d values, space has %d parameters", len(c), len(s.params))
	}
	for i, v := range c {
		p := s.params[i]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: value %v is not finite", p.Name, v)
		}
		if v < p.Low || v > p.High {
			return fmt.Errorf("%s: value %g outside [%g, %g]", p.Name, v, p.Low, p.High)
		}
	}
	return nil
}

// Clamp returns a copy of c with each value moved into its parameter's
// bounds (and rounded, for integer parameters); NaN values are an error
// naming the parameter. It puts a trainer's defaults in a space whose
// bounds may not hold them (see Options.Start).
func (s Space) Clamp(c Config) (Config, error) {
	if len(c) != len(s.params) {
		return nil, fmt.Errorf("config has %d values, space has %d parameters", len(c), len(s.params))
	}
	out := make(Config, len(c))
	for i, v := range c {
		if math.IsNaN(v) {
			return nil, fmt.Errorf("%s: value is NaN", s.params[i].Name)
		}
		out[i] = s.params[i].round(v)
	}
	return out, nil
}

// Map returns c as a name → value map (for logs and files).
func (s Space) Map(c Config) map[string]float64 {
	m := make(map[string]float64, len(c))
	for i, v := range c {
		if i < len(s.params) {
			m[s.params[i].Name] = v
		}
	}
	return m
}
