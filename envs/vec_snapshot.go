package envs

import (
	"errors"
	"fmt"
	"math"

	"github.com/hyperctl/hyperctl/internal/ground/statecodec"
)

// Vec payload layout (inside the envelope described in snapshot.go), section
// "vec" version 1:
//
//	seed (int64), seeded (bool), ready (bool)
//	observation size, action size (uint32 each; must match)
//	Obs (n*obsDim float64), FinalObs (n*obsDim), Rewards (n),
//	Terminated (n bools), Truncated (n bools),
//	running episode returns (n float64), running episode lengths (n int64)
//	n × (copy's environment id, copy's StateSaver payload)
const vecStateVersion = 1

// Obs returns the current observations, n rows of obsDim values (row i for
// copy i): the ones the last Reset or Step returned, or that Restore put
// back. The slice is owned by the Vec, like Step's outputs.
func (v *Vec) Obs() []float64 { return v.obs }

// Snapshot encodes the Vec's complete state: every copy's state (each copy
// must implement StateSaver, as the registered environments wrapped by Make
// do) and the vector layer (current observations, the last step's outputs,
// running episode returns and lengths, seeding and autoreset state). The
// copies are encoded in parallel by the Vec's workers. See Snapshot for the
// envelope. A Vec whose last Reset or Step failed cannot be snapshotted
// (its copies are out of step): Reset it first.
func (v *Vec) Snapshot() ([]byte, error) {
	if v.closed {
		return nil, fmt.Errorf("vec snapshot: %w", ErrClosed)
	}
	if v.seeded && !v.ready {
		return nil, errors.New("vec snapshot: a previous Reset or Step failed, so the copies are out of step; call Reset first")
	}
	v.states = make([][]byte, v.n)
	err := v.run(opSave)
	states := v.states
	v.states = nil
	if err != nil {
		return nil, fmt.Errorf("vec snapshot: %w", err)
	}
	size := 64 + 8*(2*v.n*v.obsDim+3*v.n) + 2*v.n
	for i, s := range states {
		size += 8 + len(v.envs[i].Spec().ID) + len(s)
	}
	w := statecodec.NewWriter(make([]byte, 0, size))
	w.Tag("vec", vecStateVersion)
	w.I64(v.seed)
	w.Bool(v.seeded)
	w.Bool(v.ready)
	w.Len(v.obsDim)
	w.Len(v.act)
	w.F64s(v.obs)
	w.F64s(v.finalObs)
	w.F64s(v.rewards)
	w.Bools(v.term)
	w.Bools(v.trunc)
	w.F64s(v.epRet)
	lens := make([]int64, v.n)
	for i, l := range v.epLen {
		lens[i] = int64(l)
	}
	w.I64s(lens)
	for i, s := range states {
		w.String(v.envs[i].Spec().ID)
		w.Bytes32(s)
	}
	return seal(snapKindVec, v.spec.ID, v.n, w.Bytes()), nil
}

// Restore replaces the Vec's state with a snapshot written by Vec.Snapshot
// for a Vec of the same environment and number of copies (the number of
// workers may differ: results do not depend on it). The Vec may be newly
// made (NewVec, without Reset); stepping it then continues exactly as the
// snapshotted Vec would have. The copies are restored in parallel.
//
// The envelope (checksum included) is checked and the vector layer decoded
// before any copy changes, so bytes that are corrupt, truncated or of
// another environment leave the Vec unchanged. Each copy then decodes its
// own state before it changes; if one fails after others were restored
// (possible only for bytes crafted with a valid checksum, or for
// BipedalWalker a replay that does not reproduce the recorded state), the
// error names the copy and the Vec refuses to Step until Reset.
func (v *Vec) Restore(b []byte) error {
	if v.closed {
		return fmt.Errorf("vec restore: %w", ErrClosed)
	}
	for i, e := range v.envs {
		if _, ok := e.(StateSaver); !ok {
			return fmt.Errorf("vec restore: env %d: %T does not implement envs.StateSaver", i, e)
		}
	}
	payload, err := open(b, snapKindVec, v.spec.ID, v.n)
	if err != nil {
		return fmt.Errorf("vec restore: %w", err)
	}
	n := v.n
	r := statecodec.NewReader(payload)
	r.Tag("vec", vecStateVersion)
	seed := r.Int("vec seed", 0, math.MaxInt64-int64(n-1))
	seeded := r.Bool("vec seeded flag")
	ready := r.Bool("vec ready flag")
	obsDim := int(r.U32("observation size"))
	actDim := int(r.U32("action size"))
	if r.Err() == nil && (obsDim != v.obsDim || actDim != v.act) {
		return fmt.Errorf("vec restore: %w: the snapshot's observation/action sizes are %d/%d, this Vec's %d/%d",
			ErrSnapshot, obsDim, actDim, v.obsDim, v.act)
	}
	obs := r.F64s("observations", n*v.obsDim)
	finalObs := r.F64s("final observations", n*v.obsDim)
	rewards := r.F64s("rewards", n)
	term := r.Bools("terminated flags", n)
	trunc := r.Bools("truncated flags", n)
	epRet := r.F64s("episode returns", n)
	epLen := r.I64s("episode lengths", n, 0, math.MaxInt32)
	states := make([][]byte, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		id := r.String("copy environment id", maxIDLen)
		states[i] = r.Bytes32("copy state", len(payload))
		if want := v.envs[i].Spec().ID; r.Err() == nil && id != want {
			return fmt.Errorf("vec restore: %w: copy %d of the snapshot is %q, this Vec's copy %d is %q", ErrSnapshot, i, id, i, want)
		}
	}
	if err := r.Done(); err != nil {
		return fmt.Errorf("vec restore: %w", err)
	}
	if seeded != ready {
		return fmt.Errorf("vec restore: %w: seeded = %v but ready = %v, a state Snapshot never writes", ErrSnapshot, seeded, ready)
	}

	v.states = states
	err = v.run(opLoad)
	v.states = nil
	if err != nil {
		v.ready = false
		return fmt.Errorf("vec restore: %w (the Vec needs Reset)", err)
	}
	v.seed, v.seeded, v.ready = seed, seeded, ready
	copy(v.obs, obs)
	copy(v.finalObs, finalObs)
	copy(v.rewards, rewards)
	copy(v.term, term)
	copy(v.trunc, trunc)
	copy(v.epRet, epRet)
	for i, l := range epLen {
		v.epLen[i] = int(l)
	}
	v.episodes = v.episodes[:0]
	v.out = VecStep{}
	return nil
}

// saveOne encodes copy i's state into states[i].
func (v *Vec) saveOne(i int) error {
	s, ok := v.envs[i].(StateSaver)
	if !ok {
		return fmt.Errorf("env %d: %T does not implement envs.StateSaver", i, v.envs[i])
	}
	b, err := s.SaveState()
	if err != nil {
		return fmt.Errorf("env %d: %w", i, err)
	}
	v.states[i] = b
	return nil
}

// loadOne restores copy i from states[i].
func (v *Vec) loadOne(i int) error {
	s, ok := v.envs[i].(StateSaver)
	if !ok {
		return fmt.Errorf("env %d: %T does not implement envs.StateSaver", i, v.envs[i])
	}
	if err := s.LoadState(v.states[i]); err != nil {
		return fmt.Errorf("env %d: %w", i, err)
	}
	return nil
}
