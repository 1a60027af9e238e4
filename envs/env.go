// Package envs is hyperctl's environment API, after Gymnasium's: Reset and
// Step, terminated versus truncated, bounded observation and action boxes,
// and a registry looked up by short name or Gymnasium id.
//
// The environments themselves live in subpackages and register in their init
// functions: envs/mujoco (Ant-v4, HalfCheetah-v4, Hopper-v4, Humanoid-v4,
// InvertedDoublePendulum-v4, InvertedPendulum-v4, Pusher-v4, Reacher-v4,
// Swimmer-v4, Walker2d-v4 on MuJoCo 2.2.2 through cgo) and envs/box2d
// (BipedalWalker-v3 on a pure-Go Box2D). Import envs/all to register them
// all.
//
// Exact resume: Snapshot and Restore save and restore the complete state of
// an environment, Vec.Snapshot and Vec.Restore that of a vector of them, as
// self-describing, checksummed bytes; a restored environment (even a newly
// made one, in another process) continues bit-identically. See StateSaver.
package envs

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// NoSeed passed to Reset keeps the environment's current random stream, like
// Gymnasium's reset() without a seed. The first Reset of an environment with
// NoSeed seeds it with 0 (deterministic, unlike Gymnasium's OS entropy).
const NoSeed int64 = -1

// Box is a bounded box space. Low and High have one entry per dimension.
type Box struct {
	Low, High []float64
}

// Dim is the number of dimensions.
func (b Box) Dim() int { return len(b.Low) }

// Contains reports whether x lies inside the box.
func (b Box) Contains(x []float64) bool {
	if len(x) != len(b.Low) {
		return false
	}
	for i, v := range x {
		if !(v >= b.Low[i] && v <= b.High[i]) {
			return false
		}
	}
	return true
}

// Spec describes a registered environment.
type Spec struct {
	ID              string   // Gymnasium id, e.g. "HalfCheetah-v4"
	Name            string   // short name, e.g. "halfcheetah"
	Aliases         []string // other accepted names, e.g. "idp"
	Observation     Box
	Action          Box
	MaxEpisodeSteps int     // TimeLimit applied by Make
	RewardThreshold float64 // Gymnasium's registered threshold
}

// Info carries a step's reward components. Keys and Values are owned by the
// environment and valid until its next Step or Reset.
type Info struct {
	Keys   []string
	Values []float64
}

// Get returns the named component.
func (i Info) Get(key string) (float64, bool) {
	for k, name := range i.Keys {
		if name == key {
			return i.Values[k], true
		}
	}
	return 0, false
}

// Transition is the outcome of one Step. Obs is owned by the environment and
// valid until its next Step or Reset; copy it to keep it.
type Transition struct {
	Obs        []float64
	Reward     float64
	Terminated bool // the episode reached a terminal state of the MDP
	Truncated  bool // the episode was cut short (time limit), not terminal
	Info       Info
}

// Env is one environment instance. It is not safe for concurrent use.
type Env interface {
	// Spec describes the environment.
	Spec() Spec
	// Reset starts an episode and returns the first observation. A seed >= 0
	// re-seeds the environment's generator; NoSeed continues it.
	Reset(seed int64) ([]float64, error)
	// Step applies action (len == Spec().Action.Dim(), finite values) and
	// advances one environment step. A wrong length or a NaN/Inf entry is an
	// error and leaves the state unchanged.
	Step(action []float64) (Transition, error)
	// Close frees native resources. Further calls return errors.
	Close() error
}

// ErrClosed is returned by a closed environment.
var ErrClosed = errors.New("environment is closed")

// CheckAction validates an action against a spec: length and finiteness.
func CheckAction(spec Spec, action []float64) error {
	if len(action) != spec.Action.Dim() {
		return fmt.Errorf("%s: action has %d values, want %d", spec.ID, len(action), spec.Action.Dim())
	}
	for i, v := range action {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: action[%d] is %v, want a finite number", spec.ID, i, v)
		}
	}
	return nil
}

// Constructor builds a raw environment (without the time limit).
type Constructor func() (Env, error)

type entry struct {
	spec Spec
	make Constructor
}

var registry = struct {
	sync.RWMutex
	byName map[string]*entry
	all    []*entry
}{byName: map[string]*entry{}}

func key(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// Register adds an environment under its short name, aliases and id.
func Register(spec Spec, make Constructor) error {
	if spec.Name == "" || spec.ID == "" || make == nil {
		return fmt.Errorf("envs: register %q/%q: name, id and constructor are required", spec.Name, spec.ID)
	}
	registry.Lock()
	defer registry.Unlock()
	e := &entry{spec: spec, make: make}
	names := append([]string{spec.Name, spec.ID}, spec.Aliases...)
	for _, n := range names {
		if _, dup := registry.byName[key(n)]; dup {
			return fmt.Errorf("envs: register %q: name %q already taken", spec.ID, n)
		}
	}
	for _, n := range names {
		registry.byName[key(n)] = e
	}
	registry.all = append(registry.all, e)
	return nil
}

// MustRegister is Register for init functions; it panics on a programming
// error (a duplicate name).
func MustRegister(spec Spec, make Constructor) {
	if err := Register(spec, make); err != nil {
		panic(err)
	}
}

// Lookup returns the spec of a registered environment by short name, alias
// or Gymnasium id (case-insensitive). The error lists the valid names.
func Lookup(name string) (Spec, error) {
	registry.RLock()
	defer registry.RUnlock()
	e, ok := registry.byName[key(name)]
	if !ok {
		return Spec{}, fmt.Errorf("unknown environment %q; valid environments: %s", name, strings.Join(namesLocked(), ", "))
	}
	return e.spec, nil
}

// episodeCap is CapEpisodes's cap (0: none).
var episodeCap atomic.Int64

// CapEpisodes makes Make truncate every episode after at most n steps
// (below the registered limits; n <= 0: the registered limits alone) and
// returns the function that restores the cap before it. It is for tests
// that run whole commands small (hyperctl's test of its examples):
// training, evaluation and video then end their episodes early, and a
// snapshot restores only under the same cap.
func CapEpisodes(n int) (restore func()) {
	old := episodeCap.Swap(int64(max(n, 0)))
	return func() { episodeCap.Store(old) }
}

// EpisodeCap is CapEpisodes's cap now (0: none): what a result computed
// from episodes, and kept, depends on beside the environment.
func EpisodeCap() int { return int(episodeCap.Load()) }

// Make builds a registered environment wrapped in its TimeLimit (shorter
// under CapEpisodes).
func Make(name string) (Env, error) {
	registry.RLock()
	e, ok := registry.byName[key(name)]
	registry.RUnlock()
	if !ok {
		_, err := Lookup(name)
		return nil, err
	}
	env, err := e.make()
	if err != nil {
		return nil, fmt.Errorf("make %s: %w", e.spec.ID, err)
	}
	limit := e.spec.MaxEpisodeSteps
	if c := int(episodeCap.Load()); c > 0 && (limit <= 0 || c < limit) {
		limit = c
	}
	return NewTimeLimit(env, limit), nil
}

// List returns the registered specs sorted by short name.
func List() []Spec {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]Spec, len(registry.all))
	for i, e := range registry.all {
		out[i] = e.spec
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func namesLocked() []string {
	out := make([]string, 0, len(registry.all))
	for _, e := range registry.all {
		out = append(out, e.spec.Name)
	}
	sort.Strings(out)
	return out
}

// TimeLimit truncates episodes after a fixed number of steps, as Gymnasium's
// TimeLimit wrapper: Truncated becomes true on the step that reaches the
// limit (a terminal step stays Terminated too).
type TimeLimit struct {
	Env
	max   int
	steps int
}

// NewTimeLimit wraps env; max <= 0 means no limit.
func NewTimeLimit(env Env, max int) *TimeLimit { return &TimeLimit{Env: env, max: max} }

// Reset resets the step counter and the environment.
func (t *TimeLimit) Reset(seed int64) ([]float64, error) {
	t.steps = 0
	return t.Env.Reset(seed)
}

// Step steps the environment and applies the limit.
func (t *TimeLimit) Step(action []float64) (Transition, error) {
	tr, err := t.Env.Step(action)
	if err != nil {
		return tr, err
	}
	t.steps++
	if t.max > 0 && t.steps >= t.max {
		tr.Truncated = true
	}
	return tr, nil
}

// Unwrap returns the wrapped environment.
func (t *TimeLimit) Unwrap() Env { return t.Env }
