package box2d

import (
	"errors"
	"fmt"
	"math"

	b2 "github.com/ByteArena/box2d"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/envs/rng"
	"github.com/hyperctl/hyperctl/internal/ground/statecodec"
)

// Snapshot state of BipedalWalker (envs.StateSaver): a deterministic replay.
//
// Choice. Capturing a Box2D world field by field (bodies, fixtures and
// their broad-phase proxies, the dynamic tree, the contact list in order
// with its manifolds and warm-start impulses, the per-body contact and
// joint edge lists whose order drives island building, the joints'
// accumulated impulses) and rebuilding the same pointer graph is possible
// with this pure-Go port, but large and fragile. The walker's episode is
// instead held as a replay that is exact by construction, and checked:
//
//   - the state the episode started from: the generator right before the
//     reset's draws, and what survives in the persistent world after the
//     previous episode's bodies are destroyed. With no body, fixture,
//     contact or joint left, that is the broad-phase: the dynamic tree's
//     node capacity and free-list order (they decide the proxy ids of the
//     new fixtures, hence the order of pairs and contacts in the solver),
//     its path and insertion counters, the move buffer, the buffers'
//     capacities, and the world's flags, 1/dt of the previous step (the
//     warm-start ratio of the first step) and step-complete flag;
//   - the actions of the episode's Steps.
//
// LoadState builds a new world, puts that broad-phase state in, reruns the
// reset from the recorded generator and the recorded actions on it, then
// compares the result with values recorded at SaveState: the observation,
// info, shaping, game-over and contact flags, the push, the hull's position,
// angle and velocities, the generator, and a digest of the whole world
// (worldDigest: every body, contact with its warm-start impulses, joint
// impulse and broad-phase node, which decide the steps and resets to come).
// Any difference is an error, so a replay that would not be exact is refused
// instead of used.
//
// Cost: the snapshot grows with the episode, 32 bytes per step plus 8 bytes
// per dynamic-tree node (512 nodes after the first episode) and under 1 KB
// of fixed fields: 48,750 bytes 1500 steps into the first episode
// (TestWalkerSnapshotLateInEpisode), so about 56 KB at most under
// BipedalWalker-v3's 1600-step limit. Restoring costs a Reset plus one Box2D
// step per recorded step (BenchmarkSnapshot in envs/all). Without a time
// limit an episode, and so the record, can grow without bound.
//
// Payload layout, section "bipedalwalker" version 1: the environment id,
// ready (bool), has-generator (bool) and the generator's state; when ready:
// the reset generator's state, the world base (flags, 1/dt0, step-complete,
// tree capacity, free list, path, insertion count, move-buffer capacity and
// entries, pair-buffer capacity), the actions, then the check values.
const walkerStateVersion = 1

// Bounds on decoded sizes (far above what an episode produces).
const (
	maxTreeNodes = 1 << 20
	maxActions   = 1 << 26
)

// worldBase is what of the persistent world an episode starts from, once
// the previous episode's bodies are destroyed (see the comment above).
type worldBase struct {
	flags        int
	invDt0       float64
	stepComplete bool

	nodeCapacity   int
	freeList       []int64 // the free chain from its head: all nodes
	path           int
	insertionCount int

	moveCapacity int
	moveBuffer   []int64 // the first moveCount entries
	pairCapacity int
}

// capture records the base of an emptied world. It fails if anything but
// the broad-phase state is left (no body, joint, contact or proxy), which
// would break the replay's premise.
func (b *worldBase) capture(world *b2.B2World) error {
	cm := &world.M_contactManager
	bp := &cm.M_broadPhase
	tree := &bp.M_tree
	if world.M_bodyCount != 0 || world.M_jointCount != 0 || cm.M_contactCount != 0 ||
		bp.M_proxyCount != 0 || tree.M_nodeCount != 0 || tree.M_root != b2.B2_nullNode {
		return fmt.Errorf("world not empty at reset: %d bodies, %d joints, %d contacts, %d proxies, %d tree nodes",
			world.M_bodyCount, world.M_jointCount, cm.M_contactCount, bp.M_proxyCount, tree.M_nodeCount)
	}
	b.flags = world.M_flags
	b.invDt0 = world.M_inv_dt0
	b.stepComplete = world.M_stepComplete
	b.nodeCapacity = tree.M_nodeCapacity
	b.freeList = b.freeList[:0]
	for id := tree.M_freeList; id != b2.B2_nullNode; id = tree.M_nodes[id].Next {
		if len(b.freeList) == tree.M_nodeCapacity {
			return errors.New("the dynamic tree's free list is longer than its capacity")
		}
		b.freeList = append(b.freeList, int64(id))
	}
	if len(b.freeList) != tree.M_nodeCapacity {
		return fmt.Errorf("the dynamic tree's free list has %d nodes, capacity %d", len(b.freeList), tree.M_nodeCapacity)
	}
	b.path = tree.M_path
	b.insertionCount = tree.M_insertionCount
	b.moveCapacity = bp.M_moveCapacity
	b.moveBuffer = b.moveBuffer[:0]
	for _, id := range bp.M_moveBuffer[:bp.M_moveCount] {
		b.moveBuffer = append(b.moveBuffer, int64(id))
	}
	b.pairCapacity = bp.M_pairCapacity
	return nil
}

// apply puts the base into a new, empty world.
func (b *worldBase) apply(world *b2.B2World) {
	world.M_flags = b.flags
	world.M_inv_dt0 = b.invDt0
	world.M_stepComplete = b.stepComplete
	bp := &world.M_contactManager.M_broadPhase
	tree := &bp.M_tree
	tree.M_nodes = make([]b2.B2TreeNode, b.nodeCapacity)
	for i := range tree.M_nodes {
		tree.M_nodes[i].Height = -1
	}
	for k, id := range b.freeList {
		next := b2.B2_nullNode
		if k+1 < len(b.freeList) {
			next = int(b.freeList[k+1])
		}
		tree.M_nodes[id].Next = next
	}
	tree.M_freeList = int(b.freeList[0])
	tree.M_nodeCount = 0
	tree.M_nodeCapacity = b.nodeCapacity
	tree.M_root = b2.B2_nullNode
	tree.M_path = b.path
	tree.M_insertionCount = b.insertionCount
	bp.M_proxyCount = 0
	bp.M_moveBuffer = make([]int, b.moveCapacity)
	for i, id := range b.moveBuffer {
		bp.M_moveBuffer[i] = int(id)
	}
	bp.M_moveCount = len(b.moveBuffer)
	bp.M_moveCapacity = b.moveCapacity
	bp.M_pairBuffer = make([]b2.B2Pair, b.pairCapacity)
	bp.M_pairCapacity = b.pairCapacity
	bp.M_pairCount = 0
}

func (b *worldBase) write(w *statecodec.Writer) {
	w.I64(int64(b.flags))
	w.F64(b.invDt0)
	w.Bool(b.stepComplete)
	w.I64(int64(b.nodeCapacity))
	w.I64s(b.freeList)
	w.I64(int64(b.path))
	w.I64(int64(b.insertionCount))
	w.I64(int64(b.moveCapacity))
	w.I64s(b.moveBuffer)
	w.I64(int64(b.pairCapacity))
}

func (b *worldBase) read(r *statecodec.Reader) {
	allFlags := int64(b2.B2World_Flags.E_newFixture | b2.B2World_Flags.E_locked | b2.B2World_Flags.E_clearForces)
	b.flags = int(r.Int("world flags", 0, allFlags))
	if b.flags&b2.B2World_Flags.E_locked != 0 {
		r.Fail("world flags %#x: the world is locked (inside a step)", b.flags)
	}
	b.invDt0 = r.F64("world 1/dt0")
	if r.Err() == nil && (math.IsNaN(b.invDt0) || math.IsInf(b.invDt0, 0) || b.invDt0 < 0) {
		r.Fail("world 1/dt0 is %v", b.invDt0)
	}
	b.stepComplete = r.Bool("world step-complete flag")
	b.nodeCapacity = int(r.Int("tree node capacity", 1, maxTreeNodes))
	b.freeList = r.I64s("tree free list", b.nodeCapacity, 0, int64(b.nodeCapacity)-1)
	if r.Err() == nil {
		seen := make([]bool, b.nodeCapacity)
		for _, id := range b.freeList {
			if seen[id] {
				r.Fail("tree free list holds node %d twice", id)
				break
			}
			seen[id] = true
		}
	}
	b.path = int(r.Int("tree path", 0, math.MaxInt32))
	b.insertionCount = int(r.Int("tree insertion count", 0, math.MaxInt64))
	b.moveCapacity = int(r.Int("move buffer capacity", 1, maxTreeNodes))
	n := r.Len("move buffer", b.moveCapacity, 8)
	b.moveBuffer = make([]int64, n)
	for i := range b.moveBuffer {
		b.moveBuffer[i] = r.Int("move buffer entry", -1, int64(b.nodeCapacity)-1)
	}
	b.pairCapacity = int(r.Int("pair buffer capacity", 1, maxTreeNodes))
}

// walkerCheck is what SaveState records for LoadState to verify the replay.
type walkerCheck struct {
	obs         []float64
	info        []float64
	prevShaping float64
	hasPrev     bool
	gameOver    bool
	contact     []bool
	push        float64
	hull        []float64 // x, y, angle, vx, vy, angular velocity
	gen         []byte
	world       uint64 // worldDigest
}

func (w *Walker) check() (walkerCheck, error) {
	g, err := w.gen.MarshalBinary()
	if err != nil {
		return walkerCheck{}, err
	}
	h := w.hull
	return walkerCheck{
		obs:         append([]float64(nil), w.obs...),
		info:        append([]float64(nil), w.infoVals...),
		prevShaping: w.prevShaping,
		hasPrev:     w.hasPrev,
		gameOver:    w.gameOver,
		contact:     append([]bool(nil), w.contact[:]...),
		push:        w.push,
		hull: []float64{h.M_xf.P.X, h.M_xf.P.Y, h.M_sweep.A,
			h.M_linearVelocity.X, h.M_linearVelocity.Y, h.M_angularVelocity},
		gen:   g,
		world: w.worldDigest(),
	}, nil
}

func (c *walkerCheck) write(w *statecodec.Writer) {
	w.F64s(c.obs)
	w.F64s(c.info)
	w.F64(c.prevShaping)
	w.Bool(c.hasPrev)
	w.Bool(c.gameOver)
	w.Bools(c.contact)
	w.F64(c.push)
	w.F64s(c.hull)
	w.Bytes32(c.gen)
	w.U64(c.world)
}

func (c *walkerCheck) read(r *statecodec.Reader) {
	c.obs = r.F64s("check observation", 24)
	c.info = r.F64s("check info", 3)
	c.prevShaping = r.F64("check shaping")
	c.hasPrev = r.Bool("check has-shaping flag")
	c.gameOver = r.Bool("check game-over flag")
	c.contact = r.Bools("check ground contacts", 4)
	c.push = r.F64("check push")
	c.hull = r.F64s("check hull state", 6)
	c.gen = r.Bytes32("check generator", 64)
	c.world = r.U64("check world digest")
}

// diff names the first difference between two checks ("" if none), bit for
// bit.
func (c *walkerCheck) diff(o *walkerCheck) string {
	f := func(name string, a, b []float64) string {
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				return fmt.Sprintf("%s[%d] is %v, recorded %v", name, i, b[i], a[i])
			}
		}
		return ""
	}
	for _, d := range []string{
		f("observation", c.obs, o.obs), f("info", c.info, o.info), f("hull state", c.hull, o.hull),
		f("shaping", []float64{c.prevShaping, c.push}, []float64{o.prevShaping, o.push}),
	} {
		if d != "" {
			return d
		}
	}
	if c.hasPrev != o.hasPrev || c.gameOver != o.gameOver {
		return fmt.Sprintf("flags (has shaping, game over) are %v/%v, recorded %v/%v", o.hasPrev, o.gameOver, c.hasPrev, c.gameOver)
	}
	for i := range c.contact {
		if c.contact[i] != o.contact[i] {
			return fmt.Sprintf("ground contact %d is %v, recorded %v", i, o.contact[i], c.contact[i])
		}
	}
	if string(c.gen) != string(o.gen) {
		return "the generator state differs"
	}
	if c.world != o.world {
		return fmt.Sprintf("the world's digest is %016x, recorded %016x (bodies, contacts, joints or broad-phase differ)", o.world, c.world)
	}
	return ""
}

// SaveState encodes the walker's state as a replay record (envs.StateSaver;
// see the comment at the top of this file). Use envs.Snapshot.
func (w *Walker) SaveState() ([]byte, error) {
	if w.closed {
		return nil, envs.ErrClosed
	}
	wr := statecodec.NewWriter(make([]byte, 0, 512+8*(len(w.base.freeList)+len(w.base.moveBuffer)+len(w.actions))))
	wr.Tag("bipedalwalker", walkerStateVersion)
	wr.String(w.spec.ID)
	wr.Bool(w.ready)
	wr.Bool(w.gen != nil)
	if w.gen != nil {
		g, err := w.gen.MarshalBinary()
		if err != nil {
			return nil, fmt.Errorf("%s: generator: %w", w.spec.ID, err)
		}
		wr.Bytes32(g)
	}
	if !w.ready {
		// Never reset, or broken by a Box2D failure: the next Reset starts
		// from a new world either way, so the generator is all there is.
		return wr.Bytes(), nil
	}
	g, err := w.resetGen.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("%s: reset generator: %w", w.spec.ID, err)
	}
	wr.Bytes32(g)
	w.base.write(wr)
	wr.F64s(w.actions)
	c, err := w.check()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", w.spec.ID, err)
	}
	c.write(wr)
	return wr.Bytes(), nil
}

// LoadState restores a state written by SaveState (envs.StateSaver): it
// builds a new world, replays the recorded episode on it and verifies the
// result against the recorded check values before it replaces anything.
// On error the walker is unchanged.
func (w *Walker) LoadState(b []byte) (err error) {
	if w.closed {
		return envs.ErrClosed
	}
	r := statecodec.NewReader(b)
	r.Tag("bipedalwalker", walkerStateVersion)
	id := r.String("environment id", 256)
	if r.Err() == nil && id != w.spec.ID {
		return fmt.Errorf("%s: %w: the state is of %q", w.spec.ID, envs.ErrSnapshot, id)
	}
	readGen := func(what string) *rng.Generator {
		raw := r.Bytes32(what, 64)
		if r.Err() != nil {
			return nil
		}
		g := new(rng.Generator)
		if err := g.UnmarshalBinary(raw); err != nil {
			r.Fail("%s: %v", what, err)
			return nil
		}
		return g
	}
	ready := r.Bool("ready flag")
	var gen *rng.Generator
	if r.Bool("generator flag") {
		gen = readGen("generator state")
	}
	var (
		resetGen *rng.Generator
		base     worldBase
		actions  []float64
		want     walkerCheck
	)
	if ready {
		resetGen = readGen("reset generator state")
		base.read(r)
		actions = r.F64sUpTo("actions", maxActions)
		if r.Err() == nil && len(actions)%4 != 0 {
			r.Fail("%d action values, want a multiple of 4", len(actions))
		}
		for _, a := range actions {
			if math.IsNaN(a) || math.IsInf(a, 0) {
				r.Fail("a recorded action is %v", a)
				break
			}
		}
		want.read(r)
	}
	if err := r.Done(); err != nil {
		return fmt.Errorf("%s: %w", w.spec.ID, err)
	}
	if ready && gen == nil {
		return fmt.Errorf("%s: %w: ready without a generator", w.spec.ID, envs.ErrSnapshot)
	}

	t, err := New()
	if err != nil {
		return err
	}
	t.gen = gen
	if ready {
		if err := t.replay(resetGen, &base, actions); err != nil {
			return fmt.Errorf("%s: restore: %w: the replay of %d steps failed: %w", w.spec.ID, envs.ErrSnapshot, len(actions)/4, err)
		}
		got, err := t.check()
		if err != nil {
			return fmt.Errorf("%s: %w", w.spec.ID, err)
		}
		if d := want.diff(&got); d != "" {
			return fmt.Errorf("%s: restore: %w: the replay of %d steps does not reproduce the saved state: %s", w.spec.ID, envs.ErrSnapshot, len(actions)/4, d)
		}
		t.ready = true
	}
	*w = *t
	w.listen.w = w
	return nil
}

// replay rebuilds the recorded episode in t's new world. A Box2D panic is
// returned as an error.
func (t *Walker) replay(resetGen *rng.Generator, base *worldBase, actions []float64) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("Box2D failed: %v", r)
		}
	}()
	base.apply(t.world)
	t.base = *base
	t.resetGen = *resetGen
	g := *resetGen
	t.gen = &g
	t.startEpisode()
	for k := 0; k+4 <= len(actions); k += 4 {
		t.step(actions[k : k+4])
	}
	t.actions = append(t.actions, actions...)
	return nil
}

var _ envs.StateSaver = (*Walker)(nil)
