package envs

import (
	"fmt"

	"github.com/hyperctl/hyperctl/internal/ground/statecodec"
)

// StateSaver is implemented by environments whose whole state can be saved
// and restored exactly; all registered environments implement it. Use
// Snapshot and Restore (or Vec.Snapshot and Vec.Restore) rather than its
// methods: they add the self-describing, checksummed envelope.
//
// Snapshot(env) and Vec.Snapshot encode the whole state of an environment or
// a vector of environments as bytes; Restore(env, b) and Vec.Restore(b) put
// it back, into the same object or a newly constructed one (another
// process), so that the continuation is bit-identical to never having
// stopped: the same observations, rewards, terminated/truncated flags, info,
// episode statistics, autoresets and reset draws, given the same actions.
//
// What is held, per layer:
//   - TimeLimit: its step counter (and its limit, which must match).
//   - MuJoCo environments (envs/mujoco): every mjData input mj_step reads
//     and does not derive, the outputs the environment reads between steps,
//     the reset generator and the Gymnasium-layer buffers; see the package
//     documentation of envs/mujoco.
//   - BipedalWalker (envs/box2d): the episode as a deterministic replay (the
//     broad-phase state and generator at its reset, and the actions since),
//     checked on restore; see the package documentation of envs/box2d.
//   - Vec: every copy's state plus the vector layer: the current
//     observations, the last step's outputs (FinalObs, rewards, flags), the
//     running episode returns and lengths, the seeding state (whether the
//     first Reset happened, the base seed) and whether the Vec is usable.
//
// Encoding (format version 1, little-endian), self-describing and checked:
//
//	[0:8]   magic "HCENVSNP"
//	[8:10]  format version (uint16)
//	[10]    kind: 1 = one environment (Snapshot), 2 = a Vec
//	        environment id (uint32 length + bytes), e.g. "HalfCheetah-v4"
//	        number of copies (uint32): 1 for an environment
//	        payload (uint32 length + bytes): the layers' own sections
//	[-4:]   CRC-32C (Castagnoli) of every byte before it
//
// Restore checks the magic, the checksum, the version, the kind, the id and
// the number of copies before it decodes anything, and every layer decodes
// and checks its part before it changes any state (Vec.Restore describes
// its one partial case): a snapshot of another environment or another
// number of copies is an error naming both, and corrupt or truncated bytes
// are an error, never a panic or a silently wrong state.
//
// Typical use (a trainer's checkpoint):
//
//	b, err := vec.Snapshot()         // with the rest of the checkpoint
//	...
//	vec, err := envs.NewVec(name, n, anySeed) // in the resumed process
//	err = vec.Restore(b)             // then continue with vec.Obs()
//
// and envs.Snapshot / envs.Restore likewise for a single environment (an
// evaluation environment: BipedalWalker's world carries state from one
// episode to the next, so it matters even between evaluations).
type StateSaver interface {
	// SaveState encodes the environment's complete state.
	SaveState() ([]byte, error)
	// LoadState replaces the environment's state with one written by
	// SaveState on an environment of the same kind. On error the state is
	// unchanged.
	LoadState(b []byte) error
}

// SnapshotFormatVersion is the version of the snapshot envelope that
// Snapshot and Vec.Snapshot write and Restore and Vec.Restore read.
const SnapshotFormatVersion = 1

const (
	snapMagic   = "HCENVSNP"
	snapKindEnv = 1
	snapKindVec = 2
	maxIDLen    = 256
	// magic, version, kind, id length, copies, payload length, checksum.
	snapMinLen = len(snapMagic) + 2 + 1 + 4 + 4 + 4 + 4
)

// ErrSnapshot is wrapped by every error about the snapshot bytes themselves:
// not a snapshot, corrupt, truncated, another format version, another
// environment, number of copies or time limit.
var ErrSnapshot = statecodec.ErrCorrupt

// CheckStateSaver returns an error unless env (or, for a TimeLimit, the
// environment it wraps) implements StateSaver, which checkpoints need. The
// error names the type and the two methods to implement, so a trainer can
// refuse an environment before its first iteration instead of failing at
// its first checkpoint.
func CheckStateSaver(env Env) error {
	inner := env
	if t, ok := env.(*TimeLimit); ok {
		inner = t.Env
	}
	if _, ok := inner.(StateSaver); !ok {
		return fmt.Errorf("environment %s: %T does not implement envs.StateSaver, which checkpoints need: add SaveState() ([]byte, error) and LoadState([]byte) error", env.Spec().ID, inner)
	}
	return nil
}

// Snapshot encodes env's complete state: see StateSaver. env (or, for a
// TimeLimit, the environment it wraps) must implement StateSaver; all
// registered environments do.
func Snapshot(env Env) ([]byte, error) {
	id := env.Spec().ID
	s, ok := env.(StateSaver)
	if !ok {
		return nil, fmt.Errorf("envs: snapshot %s: %T does not implement envs.StateSaver", id, env)
	}
	payload, err := s.SaveState()
	if err != nil {
		return nil, fmt.Errorf("envs: snapshot %s: %w", id, err)
	}
	return seal(snapKindEnv, id, 1, payload), nil
}

// Restore replaces env's state with a snapshot written by Snapshot for an
// environment of the same id (and the same time limit). env may be newly
// constructed (Make); the continuation is then bit-identical to the
// snapshotted environment's. On error env is unchanged.
func Restore(env Env, b []byte) error {
	id := env.Spec().ID
	s, ok := env.(StateSaver)
	if !ok {
		return fmt.Errorf("envs: restore %s: %T does not implement envs.StateSaver", id, env)
	}
	payload, err := open(b, snapKindEnv, id, 1)
	if err != nil {
		return fmt.Errorf("envs: restore %s: %w", id, err)
	}
	if err := s.LoadState(payload); err != nil {
		return fmt.Errorf("envs: restore %s: %w", id, err)
	}
	return nil
}

// seal wraps a payload in the envelope.
func seal(kind uint8, id string, copies int, payload []byte) []byte {
	w := statecodec.NewWriter(make([]byte, 0, snapMinLen+len(id)+len(payload)))
	w.Raw([]byte(snapMagic))
	w.U8(SnapshotFormatVersion & 0xff)
	w.U8(SnapshotFormatVersion >> 8)
	w.U8(kind)
	w.String(id)
	w.Len(copies)
	w.Bytes32(payload)
	w.U32(statecodec.Checksum(w.Bytes()))
	return w.Bytes()
}

func kindName(k uint8) string {
	switch k {
	case snapKindEnv:
		return "a single-environment snapshot (envs.Snapshot)"
	case snapKindVec:
		return "a vector-environment snapshot (Vec.Snapshot)"
	}
	return fmt.Sprintf("an unknown kind %d", k)
}

// open checks the envelope and returns the payload.
func open(b []byte, kind uint8, id string, copies int) ([]byte, error) {
	if len(b) < snapMinLen {
		return nil, fmt.Errorf("%w: %d bytes, shorter than the %d-byte envelope", ErrSnapshot, len(b), snapMinLen)
	}
	if string(b[:len(snapMagic)]) != snapMagic {
		return nil, fmt.Errorf("%w: no %q magic at the start: not an environment snapshot", ErrSnapshot, snapMagic)
	}
	body, err := statecodec.SplitChecksum(b)
	if err != nil {
		return nil, err
	}
	r := statecodec.NewReader(body[len(snapMagic):])
	lo := int(r.U8("version"))
	version := lo | int(r.U8("version"))<<8
	if version != SnapshotFormatVersion {
		return nil, fmt.Errorf("%w: format version %d, this build reads version %d", ErrSnapshot, version, SnapshotFormatVersion)
	}
	k := r.U8("kind")
	gotID := r.String("environment id", maxIDLen)
	n := int(r.U32("copies"))
	payload := r.Bytes32("payload", len(body))
	if err := r.Done(); err != nil {
		return nil, err
	}
	if k != kind {
		return nil, fmt.Errorf("%w: this is %s, want %s", ErrSnapshot, kindName(k), kindName(kind))
	}
	if gotID != id {
		return nil, fmt.Errorf("%w: the snapshot is of %q, this environment is %q", ErrSnapshot, gotID, id)
	}
	if n != copies {
		return nil, fmt.Errorf("%w: the snapshot holds %d copies of %s, this Vec has %d", ErrSnapshot, n, id, copies)
	}
	return payload, nil
}

// SaveState encodes the step counter, the limit and the wrapped
// environment's state. The wrapped environment must implement StateSaver.
func (t *TimeLimit) SaveState() ([]byte, error) {
	s, ok := t.Env.(StateSaver)
	if !ok {
		return nil, fmt.Errorf("time limit: %T does not implement envs.StateSaver", t.Env)
	}
	inner, err := s.SaveState()
	if err != nil {
		return nil, err
	}
	w := statecodec.NewWriter(make([]byte, 0, 32+len(inner)))
	w.Tag("timelimit", 1)
	w.I64(int64(t.max))
	w.I64(int64(t.steps))
	w.Bytes32(inner)
	return w.Bytes(), nil
}

// LoadState restores a state written by SaveState; the limit must equal
// this wrapper's. On error nothing changes.
func (t *TimeLimit) LoadState(b []byte) error {
	s, ok := t.Env.(StateSaver)
	if !ok {
		return fmt.Errorf("time limit: %T does not implement envs.StateSaver", t.Env)
	}
	r := statecodec.NewReader(b)
	r.Tag("timelimit", 1)
	limit := r.I64("time limit")
	steps := r.Int("time limit step count", 0, 1<<62)
	inner := r.Bytes32("wrapped environment state", len(b))
	if err := r.Done(); err != nil {
		return fmt.Errorf("time limit: %w", err)
	}
	if limit != int64(t.max) {
		return fmt.Errorf("%w: the snapshot's time limit is %d steps, this environment's is %d", ErrSnapshot, limit, t.max)
	}
	if err := s.LoadState(inner); err != nil {
		return err
	}
	t.steps = int(steps)
	return nil
}

// Steps is the number of steps taken in the current episode (the
// TimeLimit's counter).
func (t *TimeLimit) Steps() int { return t.steps }
