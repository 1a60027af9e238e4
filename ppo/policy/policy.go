// Package policy is the deployable form of a trained PPO policy: the actor
// (and critic) weights in a safetensors file, a JSON sidecar with everything
// needed to act (environment, sizes, architecture, observation
// normalisation, action bounds) and where the policy came from (iteration,
// frames, evaluation return, hyperctl version), and a pure-Go forward pass
// that acts deterministically exactly as ppo's evaluation does.
//
// # Files
//
// A policy named NAME in folder DIR is two files:
//
//   - DIR/NAME.safetensors: the published safetensors layout (an 8-byte
//     little-endian header length N, an N-byte JSON header mapping each
//     tensor name to its dtype, shape and data_offsets, plus a
//     "__metadata__" map of strings, then the raw little-endian data). All
//     tensors are F32. Names and shapes are those of the state_dict of
//     CleanRL's ppo_continuous_action Agent, so the file loads into that
//     module with load_state_dict(strict=True): actor_mean.{0,2,…}.weight
//     [out, in] and .bias [out] (a Linear at every even index, the
//     activation between), actor_logstd [1, act], critic.{0,2,…}.weight and
//     .bias.
//   - DIR/NAME.json: the sidecar (Meta), which records the SHA-256 of the
//     weights file so a reader never pairs weights and sidecar of two
//     different saves.
//
// Both files are written atomically (temporary file, fsync, rename), the
// weights first.
//
// # Acting
//
// Act computes a = clip(μ(z), low, high), where z = clip((o − mean)/√(var +
// ε), ±clip) rounded to float32 (or o rounded to float32 when normalisation
// is off) and μ is the actor MLP: Linear, activation, …, Linear, with no
// squashing on the output. This is ppo.Trainer.Evaluate's deterministic
// action; the forward pass runs in float64 from the float32 weights, so it
// agrees with libtorch's float32 pass to about 1e-6.
package policy

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Format identifies hyperctl policy sidecars.
const Format = "hyperctl-ppo-policy"

// FormatVersion is the sidecar version this package writes: version 3 is
// sealed (its first line is a CRC-32C of the rest, statecodec.SealJSON).
// It reads versions 1 and 2 too, written before sidecars were sealed,
// and says so (Policy.Unsealed); version 1's iteration counted the
// iterations completed (one more than the 0-based index train.csv and
// eval.csv give the same row).
const FormatVersion = 3

// firstSealedVersion is the first sidecar version that is sealed: a
// sidecar of this version or later without its checksum line is damaged.
const firstSealedVersion = 3

// NormEpsilon is the variance epsilon of the observation normalisation
// (Gymnasium's NormalizeObservation).
const NormEpsilon = 1e-8

// Activations are the hidden-layer activations a policy may use.
var Activations = []string{"tanh", "relu"}

// ObsNorm is the frozen observation normalisation.
type ObsNorm struct {
	Enabled bool      `json:"enabled"`
	Mean    []float64 `json:"mean"`
	Var     []float64 `json:"var"`
	Clip    float64   `json:"clip"`
	Epsilon float64   `json:"epsilon"`
}

// Apply writes the normalised observations for rows vectors x (row-major,
// len rows*len(n.Mean)) into dst as float32: clip((x − mean)/√(var + ε),
// ±clip), computed in float64 and rounded once. With Enabled false it only
// converts.
func (n ObsNorm) Apply(x []float64, dst []float32) {
	if !n.Enabled {
		for i, v := range x {
			dst[i] = float32(v)
		}
		return
	}
	dim := len(n.Mean)
	for i, v := range x {
		j := i % dim
		z := (v - n.Mean[j]) / math.Sqrt(n.Var[j]+n.Epsilon)
		dst[i] = float32(math.Max(-n.Clip, math.Min(n.Clip, z)))
	}
}

// Architecture describes the networks.
type Architecture struct {
	Actor      []int  `json:"actor"`      // layer widths, input first: obs, hidden…, act
	Critic     []int  `json:"critic"`     // obs, hidden…, 1
	Activation string `json:"activation"` // between layers; none after the last
	Layout     string `json:"layout"`     // how tensors are named (see the package doc)
}

// LayoutCleanRL names the tensor layout: CleanRL's Agent state_dict.
const LayoutCleanRL = "cleanrl-ppo-continuous-agent"

// Meta is the JSON sidecar.
type Meta struct {
	Format          string       `json:"format"`
	FormatVersion   int          `json:"format_version"`
	Weights         string       `json:"weights"`        // the weights file's name, beside the sidecar
	WeightsSHA256   string       `json:"weights_sha256"` // hex SHA-256 of the weights file
	Env             string       `json:"env"`            // Gymnasium id, e.g. HalfCheetah-v4
	ObsSize         int          `json:"obs_size"`
	ActSize         int          `json:"act_size"`
	Architecture    Architecture `json:"architecture"`
	ObsNorm         ObsNorm      `json:"obs_norm"`
	ActionLow       []float64    `json:"action_low"`
	ActionHigh      []float64    `json:"action_high"`
	Iteration       int          `json:"iteration"`             // the 0-based index of the last iteration trained, as train.csv and eval.csv number it (−1: none yet)
	Frames          int64        `json:"frames"`                // training frames collected
	EvalReturn      *float64     `json:"eval_return,omitempty"` // the evaluation return at this point, when one was made
	Seed            int64        `json:"seed"`
	Controller      string       `json:"controller,omitempty"`
	HyperctlVersion string       `json:"hyperctl_version"`
}

// Layer is one affine layer y = W·x + b, W stored [Out, In] row-major as
// PyTorch's nn.Linear.weight.
type Layer struct {
	In, Out int
	W       []float32
	B       []float32
}

// Policy is a trained actor-critic. Act is safe for concurrent use; the
// fields must not change while it runs.
type Policy struct {
	Meta Meta
	// Unsealed: the sidecar was written before sidecars were sealed (its
	// format_version, before 3, proves it), so a damaged byte in it would
	// go unnoticed; UnsealedNote says so.
	Unsealed bool
	Actor    []Layer
	Critic   []Layer
	LogStd   []float32 // the Gaussian policy's state-independent log std
}

// Describe is a one-line origin of p, the policy file name.
func (p *Policy) Describe(name string) string {
	s := fmt.Sprintf("%s %s: iteration %d, %d frames", p.Meta.Env, name, p.Meta.Iteration, p.Meta.Frames)
	if p.Meta.EvalReturn != nil {
		s += fmt.Sprintf(", training evaluation %.2f", *p.Meta.EvalReturn)
	}
	return s
}

// Validate checks that the networks and the sidecar agree: sizes, layer
// chaining, finite parameters and statistics, bounds.
func (p *Policy) Validate() error {
	m := &p.Meta
	if m.Env == "" {
		return errors.New("policy: env is empty")
	}
	if m.ObsSize < 1 || m.ActSize < 1 {
		return fmt.Errorf("policy: obs_size %d and act_size %d, want both >= 1", m.ObsSize, m.ActSize)
	}
	if !slices.Contains(Activations, m.Architecture.Activation) {
		return fmt.Errorf("policy: architecture.activation %q, want one of %v", m.Architecture.Activation, Activations)
	}
	check := func(name string, ls []Layer, out int) ([]int, error) {
		if len(ls) == 0 {
			return nil, fmt.Errorf("policy: %s has no layers", name)
		}
		widths := []int{m.ObsSize}
		for k, l := range ls {
			if l.In != widths[len(widths)-1] || l.Out < 1 {
				return nil, fmt.Errorf("policy: %s layer %d is %d→%d, want input %d", name, k, l.In, l.Out, widths[len(widths)-1])
			}
			if len(l.W) != l.In*l.Out || len(l.B) != l.Out {
				return nil, fmt.Errorf("policy: %s layer %d has %d weights and %d biases, want %d and %d", name, k, len(l.W), len(l.B), l.In*l.Out, l.Out)
			}
			if i := firstNonFinite32(l.W); i >= 0 {
				return nil, fmt.Errorf("policy: %s layer %d weight %d is %v", name, k, i, l.W[i])
			}
			if i := firstNonFinite32(l.B); i >= 0 {
				return nil, fmt.Errorf("policy: %s layer %d bias %d is %v", name, k, i, l.B[i])
			}
			widths = append(widths, l.Out)
		}
		if widths[len(widths)-1] != out {
			return nil, fmt.Errorf("policy: %s ends with %d outputs, want %d", name, widths[len(widths)-1], out)
		}
		return widths, nil
	}
	aw, err := check("actor", p.Actor, m.ActSize)
	if err != nil {
		return err
	}
	cw, err := check("critic", p.Critic, 1)
	if err != nil {
		return err
	}
	if m.Architecture.Actor != nil && !slices.Equal(m.Architecture.Actor, aw) {
		return fmt.Errorf("policy: architecture.actor %v, the weights are %v", m.Architecture.Actor, aw)
	}
	if m.Architecture.Critic != nil && !slices.Equal(m.Architecture.Critic, cw) {
		return fmt.Errorf("policy: architecture.critic %v, the weights are %v", m.Architecture.Critic, cw)
	}
	if len(p.LogStd) != m.ActSize {
		return fmt.Errorf("policy: %d log std values, want act_size %d", len(p.LogStd), m.ActSize)
	}
	if i := firstNonFinite32(p.LogStd); i >= 0 {
		return fmt.Errorf("policy: log std %d is %v", i, p.LogStd[i])
	}
	if len(m.ActionLow) != m.ActSize || len(m.ActionHigh) != m.ActSize {
		return fmt.Errorf("policy: %d/%d action bounds, want act_size %d", len(m.ActionLow), len(m.ActionHigh), m.ActSize)
	}
	for j := range m.ActionLow {
		lo, hi := m.ActionLow[j], m.ActionHigh[j]
		if !finite(lo) || !finite(hi) || lo > hi {
			return fmt.Errorf("policy: action bound %d is [%v, %v], want finite with low <= high", j, lo, hi)
		}
	}
	n := m.ObsNorm
	if n.Enabled {
		if len(n.Mean) != m.ObsSize || len(n.Var) != m.ObsSize {
			return fmt.Errorf("policy: obs_norm has %d/%d mean/var values, want obs_size %d", len(n.Mean), len(n.Var), m.ObsSize)
		}
		for j := range n.Mean {
			if !finite(n.Mean[j]) || !finite(n.Var[j]) || n.Var[j] < 0 {
				return fmt.Errorf("policy: obs_norm entry %d has mean %v and var %v, want finite with var >= 0", j, n.Mean[j], n.Var[j])
			}
		}
		if !finite(n.Clip) || n.Clip <= 0 {
			return fmt.Errorf("policy: obs_norm.clip %v, want > 0", n.Clip)
		}
		if !finite(n.Epsilon) || n.Epsilon < 0 {
			return fmt.Errorf("policy: obs_norm.epsilon %v, want >= 0", n.Epsilon)
		}
	}
	return nil
}

// CheckEnv refuses a policy whose environment or sizes differ from spec's,
// naming both.
func (p *Policy) CheckEnv(id string, obsSize, actSize int) error {
	m := &p.Meta
	if m.Env != id || m.ObsSize != obsSize || m.ActSize != actSize {
		return fmt.Errorf("policy is for %s (observation size %d, action size %d), the environment is %s (observation size %d, action size %d)",
			m.Env, m.ObsSize, m.ActSize, id, obsSize, actSize)
	}
	return nil
}

// Act writes the deterministic action for the raw observation obs into
// act (len ActSize): the actor's mean on the normalised observation,
// clipped to the action bounds.
func (p *Policy) Act(obs, act []float64) error {
	m := &p.Meta
	if len(obs) != m.ObsSize {
		return fmt.Errorf("policy: observation has %d values, want %d", len(obs), m.ObsSize)
	}
	if len(act) != m.ActSize {
		return fmt.Errorf("policy: action buffer has %d values, want %d", len(act), m.ActSize)
	}
	z := make([]float32, m.ObsSize)
	m.ObsNorm.Apply(obs, z)
	mu := p.forward(p.Actor, z)
	for j := range act {
		act[j] = math.Max(m.ActionLow[j], math.Min(m.ActionHigh[j], mu[j]))
	}
	return nil
}

// Mean returns the actor's output (the Gaussian mean, before clipping) on
// an already normalised observation.
func (p *Policy) Mean(z []float32) ([]float64, error) {
	if len(z) != p.Meta.ObsSize {
		return nil, fmt.Errorf("policy: observation has %d values, want %d", len(z), p.Meta.ObsSize)
	}
	return p.forward(p.Actor, z), nil
}

// Value is the critic's estimate for the raw observation obs.
func (p *Policy) Value(obs []float64) (float64, error) {
	if len(obs) != p.Meta.ObsSize {
		return 0, fmt.Errorf("policy: observation has %d values, want %d", len(obs), p.Meta.ObsSize)
	}
	z := make([]float32, p.Meta.ObsSize)
	p.Meta.ObsNorm.Apply(obs, z)
	return p.forward(p.Critic, z)[0], nil
}

// forward runs an MLP in float64.
func (p *Policy) forward(ls []Layer, z []float32) []float64 {
	h := make([]float64, len(z))
	for i, v := range z {
		h[i] = float64(v)
	}
	relu := p.Meta.Architecture.Activation == "relu"
	for k, l := range ls {
		y := make([]float64, l.Out)
		for o := 0; o < l.Out; o++ {
			s := float64(l.B[o])
			row := l.W[o*l.In : (o+1)*l.In]
			for i, w := range row {
				s += float64(w) * h[i]
			}
			if k < len(ls)-1 {
				if relu {
					s = math.Max(0, s)
				} else {
					s = math.Tanh(s)
				}
			}
			y[o] = s
		}
		h = y
	}
	return h
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func firstNonFinite32(xs []float32) int {
	for i, x := range xs {
		if !finite(float64(x)) {
			return i
		}
	}
	return -1
}
