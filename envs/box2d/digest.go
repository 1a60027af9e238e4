package box2d

import (
	"encoding/binary"
	"hash/fnv"
	"math"

	b2 "github.com/ByteArena/box2d"
)

// digester collects numbers (floats by their bits) to hash them with
// FNV-1a 64.
type digester struct {
	buf []byte
}

func (d *digester) u(v uint64) { d.buf = binary.LittleEndian.AppendUint64(d.buf, v) }

func (d *digester) sum() uint64 {
	h := fnv.New64a()
	h.Write(d.buf)
	return h.Sum64()
}

func (d *digester) i(v int)       { d.u(uint64(int64(v))) }
func (d *digester) f(v float64)   { d.u(math.Float64bits(v)) }
func (d *digester) v(v b2.B2Vec2) { d.f(v.X); d.f(v.Y) }
func (d *digester) b(v bool) {
	if v {
		d.u(1)
	} else {
		d.u(0)
	}
}

// proxyID is the broad-phase id of a fixture's first proxy (-2 if none):
// how the digest names fixtures, bodies and contacts, since pointers differ
// between worlds.
func proxyID(f *b2.B2Fixture) int {
	if f == nil || f.M_proxyCount == 0 {
		return -2
	}
	return f.M_proxies[0].ProxyId
}

// worldDigest hashes everything of the world that the simulation carries
// from one step to the next, in the world's own orders: the world's flags
// and 1/dt0; the broad-phase tree (every node: leaf, internal or free, with
// its links and fat AABB), move buffer and proxies; every body (transform,
// sweep, velocities, forces, sleep time, flags, island index, its fixtures'
// proxy ids and the order of its contact edges); every contact (its
// fixtures, flags, TOI data, friction, restitution, and the manifold with
// its warm-start impulses and feature ids); and the walker's joints
// (accumulated impulses, motor settings, limit state). SaveState records
// it and LoadState compares it after the replay, so a replay that differs
// anywhere in the world, not only in what the observation shows, is
// refused.
func (w *Walker) worldDigest() uint64 {
	d := digester{buf: make([]byte, 0, 64<<10)}
	world := w.world
	d.i(world.M_flags)
	d.f(world.M_inv_dt0)
	d.b(world.M_stepComplete)
	d.i(world.M_bodyCount)
	d.i(world.M_jointCount)

	cm := &world.M_contactManager
	bp := &cm.M_broadPhase
	tree := &bp.M_tree
	d.i(tree.M_root)
	d.i(tree.M_nodeCount)
	d.i(tree.M_nodeCapacity)
	d.i(tree.M_freeList)
	d.i(tree.M_path)
	d.i(tree.M_insertionCount)
	for k := 0; k < tree.M_nodeCapacity; k++ {
		n := &tree.M_nodes[k]
		d.i(n.Height)
		if n.Height < 0 {
			d.i(n.Next)
			continue
		}
		d.i(n.Parent)
		d.i(n.Child1)
		d.i(n.Child2)
		d.v(n.Aabb.LowerBound)
		d.v(n.Aabb.UpperBound)
	}
	d.i(bp.M_proxyCount)
	d.i(bp.M_moveCount)
	for _, id := range bp.M_moveBuffer[:bp.M_moveCount] {
		d.i(id)
	}

	for b := world.M_bodyList; b != nil; b = b.M_next {
		d.i(int(b.M_type))
		d.u(uint64(b.M_flags))
		d.i(b.M_islandIndex)
		d.v(b.M_xf.P)
		d.f(b.M_xf.Q.S)
		d.f(b.M_xf.Q.C)
		s := &b.M_sweep
		d.v(s.LocalCenter)
		d.v(s.C0)
		d.v(s.C)
		d.f(s.A0)
		d.f(s.A)
		d.f(s.Alpha0)
		d.v(b.M_linearVelocity)
		d.f(b.M_angularVelocity)
		d.v(b.M_force)
		d.f(b.M_torque)
		d.f(b.M_sleepTime)
		for f := b.M_fixtureList; f != nil; f = f.M_next {
			for _, p := range f.M_proxies[:f.M_proxyCount] {
				d.i(p.ProxyId)
				d.v(p.Aabb.LowerBound)
				d.v(p.Aabb.UpperBound)
			}
		}
		for e := b.M_contactList; e != nil; e = e.Next {
			d.i(proxyID(e.Contact.GetFixtureA()))
			d.i(proxyID(e.Contact.GetFixtureB()))
		}
	}

	d.i(cm.M_contactCount)
	for c := cm.M_contactList; c != nil; c = c.GetNext() {
		d.i(proxyID(c.GetFixtureA()))
		d.i(proxyID(c.GetFixtureB()))
		d.i(c.GetChildIndexA())
		d.i(c.GetChildIndexB())
		d.u(uint64(c.GetFlags()))
		d.i(c.GetTOICount())
		d.f(c.GetTOI())
		d.f(c.GetFriction())
		d.f(c.GetRestitution())
		d.f(c.GetTangentSpeed())
		m := c.GetManifold()
		d.i(int(m.Type))
		d.i(m.PointCount)
		d.v(m.LocalNormal)
		d.v(m.LocalPoint)
		for _, p := range m.Points[:m.PointCount] {
			d.v(p.LocalPoint)
			d.f(p.NormalImpulse)
			d.f(p.TangentImpulse)
			d.u(uint64(p.Id.IndexA) | uint64(p.Id.IndexB)<<8 | uint64(p.Id.TypeA)<<16 | uint64(p.Id.TypeB)<<24)
		}
	}

	for _, j := range w.joints {
		if j == nil {
			continue
		}
		d.f(j.M_impulse.X)
		d.f(j.M_impulse.Y)
		d.f(j.M_impulse.Z)
		d.f(j.M_motorImpulse)
		d.f(j.M_motorSpeed)
		d.f(j.M_maxMotorTorque)
		d.i(int(j.M_limitState))
	}
	return d.sum()
}
