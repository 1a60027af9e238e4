// Package box2d implements Gymnasium's BipedalWalker-v3 (normal mode,
// hardcore=False) natively in Go on github.com/ByteArena/box2d, a pure-Go
// port of Box2D. It registers "bipedalwalker" / "BipedalWalker-v3" with the
// envs registry.
//
// The environment follows ../shared/specs/envs.md section 5 (Gymnasium's
// bipedal_walker.py): the same constants, world, fixtures, terrain
// generation with the same order of random draws (NumPy-compatible, from
// envs/rng), the same creation order of bodies and joints, the internal
// zero-action step inside Reset, lidar keeping the closest terrain hit, the
// observation rounded to float32, reward shaping, the -100 game over and the
// contact listener with boolean lower-leg ground contacts.
//
// Determinism: two instances given the same calls (seeds and actions) agree
// bit for bit. As in Gymnasium, the world persists across resets, so
// Reset(seed) on a used instance is not bit-identical to the same Reset on a
// fresh one: the broad-phase proxy ids, hence the order of contacts in the
// solver, depend on the bodies destroyed before. The reset observation
// matches, later steps drift apart (chaotically, as any float difference).
//
// Deviations, all forced by the engine and documented where they occur:
//   - Port bug worked around: the port leaves the world's default contact
//     filter nil, which ignores category/mask bits; newWorld installs Box2D's
//     default b2ContactFilter so walker parts collide only with the terrain.
//   - The Go port computes in float64 while pybox2d's Box2D is float32. Every
//     value handed to Box2D (positions, vertices, densities, frictions, motor
//     settings, ray end points, the push) is rounded to float32 first, as
//     pybox2d stores it, but the simulation itself runs in float64, so
//     trajectories drift apart slowly (see the tests for measured figures).
//   - The port follows Box2D's 2017 master, whose b2Body::SetAwake(true)
//     resets the sleep timer of an already awake body and whose joint setters
//     only wake bodies when the value changes. Box2D 2.3 (pybox2d) always
//     wakes in the setters, and waking an awake body leaves its timer alone.
//     Step emulates the 2.3 behaviour for the motor setters (see applyAction);
//     the engine-internal wake-ups (contact begin/end, new pairs, TOI
//     islands) keep the port's behaviour, which can only delay the walker
//     falling asleep. (In practice it hardly sleeps: a collapsed walker left
//     with zero action for 3000 steps here never did, because its position
//     constraints never report solved, which Box2D also requires.)
//   - The port's b2_epsilon is the smallest float64 instead of FLT_EPSILON.
//     It only matters in degenerate-geometry guards and at the end of the TOI
//     loop (a time of impact within 1.2e-6 of the end of the step is handled
//     as an event instead of being skipped). Swapping in FLT_EPSILON in a
//     scratch copy of the port changed none of the seed-0 test figures.
//   - Not a deviation: the lidar tests the terrain edges directly with the
//     port's b2EdgeShape ray cast instead of walking the broad-phase tree;
//     the fractions are bit-identical to world.RayCast (tested).
//   - Faults: a Box2D assertion (a panic inside the port) or a non-finite hull
//     state is recovered and returned as an error instead of a crash or
//     silent NaNs; further steps fail until Reset, which rebuilds the world
//     from scratch.
//
// Snapshots: Walker implements envs.StateSaver as a deterministic replay of
// the current episode from the broad-phase state and generator it started
// from, verified on restore against recorded values and a digest of the
// whole world; see state.go for the choice and its cost.
package box2d

import (
	"fmt"
	"math"

	b2 "github.com/ByteArena/box2d"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/envs/rng"
)

// Constants of bipedal_walker.py. Compound expressions that Python evaluates
// step by step in float64 are computed at run time where they are used
// (buildWalker, step), so the roundings happen in the same order.
const (
	fps             = 50
	scale           = 30.0
	motorsTorque    = 80.0
	speedHip        = 4.0
	speedKnee       = 6.0
	lidarRange      = 160 / scale
	initialRandom   = 5.0
	legDown         = -8 / scale
	legW            = 8 / scale
	legH            = 34 / scale
	viewportW       = 600.0
	viewportH       = 400.0
	terrainStep     = 14 / scale
	terrainLength   = 200
	terrainHeight   = viewportH / scale / 4 // exact: dividing by 4 does not round
	terrainGrass    = 10
	terrainStartpad = 20
	friction        = 2.5

	velocityIterations = 6 * 30
	positionIterations = 2 * 30

	catTerrain = 0x0001
	catWalker  = 0x0020
)

// f32 rounds a value to float32, as pybox2d does with every number it hands
// to Box2D.
func f32(v float64) float64 { return float64(float32(v)) }

func vec(x, y float64) b2.B2Vec2 { return b2.MakeB2Vec2(f32(x), f32(y)) }

// Spec returns the registered spec of BipedalWalker-v3.
func Spec() envs.Spec {
	pi := f32(math.Pi) // the bounds are a float32 Box in Gymnasium
	negZero := math.Copysign(0, -1)
	high := []float64{pi, 5, 5, 5, pi, 5, pi, 5, 5, pi, 5, pi, 5, 5}
	low := make([]float64, 0, 24)
	for i, h := range high {
		if i == 8 || i == 13 { // ground contacts: low is -0.0
			low = append(low, negZero)
			continue
		}
		low = append(low, -h)
	}
	for i := 0; i < 10; i++ {
		low = append(low, -1)
		high = append(high, 1)
	}
	return envs.Spec{
		ID:              "BipedalWalker-v3",
		Name:            "bipedalwalker",
		Observation:     envs.Box{Low: low, High: high},
		Action:          envs.Box{Low: []float64{-1, -1, -1, -1}, High: []float64{1, 1, 1, 1}},
		MaxEpisodeSteps: 1600,
		RewardThreshold: 300,
	}
}

func init() {
	envs.MustRegister(Spec(), func() (envs.Env, error) { return New() })
}

// Info keys of a step. On game over (hull contact or x < 0) the returned
// reward is -100 and replaces the sum of the two components, as in Gymnasium.
const (
	InfoShaping  = "reward_shaping" // shaping - prev_shaping
	InfoCtrl     = "reward_ctrl"    // -0.00035·80·Σ clip(|a_j|, 0, 1)
	InfoGameOver = "game_over"      // 1 if the -100 game over applied, else 0
)

// Walker is one BipedalWalker-v3 instance. It is not safe for concurrent use.
type Walker struct {
	spec  envs.Spec
	world *b2.B2World
	gen   *rng.Generator

	ter     terrain
	terrain []*b2.B2Body // in Python's (reversed) list order
	edges   [terrainLength - 1]edge
	hull    *b2.B2Body
	legs    [4]*b2.B2Body          // upper-1, lower-1, upper+1, lower+1
	joints  [4]*b2.B2RevoluteJoint // hip-1, knee-1, hip+1, knee+1
	contact [4]bool                // ground_contact (lower legs 1 and 3 only)
	lidar   [10]float64            // fractions of the last ray casts
	clouds  []cloud                // drawn by the renderer only
	listen  *contactDetector

	gameOver    bool
	prevShaping float64
	hasPrev     bool
	ready       bool // a Reset succeeded and no step failed since
	broken      bool // a Box2D panic left the world unusable; rebuild it
	closed      bool

	obs      []float64
	infoKeys []string
	infoVals []float64

	push float64 // the initial horizontal force of the last Reset

	// The current episode as a replay record, for SaveState: the generator
	// right before the episode's reset draws, the broad-phase and world
	// state the episode started from, and the actions of its Steps (4 per
	// step).
	resetGen rng.Generator
	base     worldBase
	actions  []float64
}

var _ envs.Env = (*Walker)(nil)

// New builds a BipedalWalker-v3 without a time limit (use envs.Make for the
// registered TimeLimit of 1600 steps).
func New() (*Walker, error) {
	w := &Walker{
		spec:     Spec(),
		obs:      make([]float64, 24),
		infoKeys: []string{InfoShaping, InfoCtrl, InfoGameOver},
		infoVals: make([]float64, 3),
	}
	w.listen = &contactDetector{w: w}
	w.newWorld()
	return w, nil
}

// newWorld creates the persistent world: pybox2d's default b2World(), gravity
// (0, -10) with sleeping allowed and Box2D's other defaults.
func (w *Walker) newWorld() {
	world := b2.MakeB2World(b2.MakeB2Vec2(0, -10))
	// Port bug worked around: the port's default contact filter is a nil
	// interface, so category/mask bits are ignored and the walker's parts
	// collide with each other. Box2D's default is b2ContactFilter, which
	// applies them; install it explicitly.
	world.SetContactFilter(&b2.B2ContactFilter{})
	w.world = &world
	w.terrain = w.terrain[:0]
	w.hull = nil
	w.legs = [4]*b2.B2Body{}
	w.joints = [4]*b2.B2RevoluteJoint{}
	w.broken = false
}

// Spec describes the environment.
func (w *Walker) Spec() envs.Spec { return w.spec }

// Push returns the initial horizontal force drawn by the last Reset.
func (w *Walker) Push() float64 { return w.push }

// Reset starts an episode. A seed >= 0 re-seeds the generator; envs.NoSeed
// continues it (the first Reset with NoSeed seeds 0). It returns the
// observation after the internal zero-action step, as Gymnasium does.
func (w *Walker) Reset(seed int64) (obs []float64, err error) {
	if w.closed {
		return nil, envs.ErrClosed
	}
	if seed < 0 && seed != envs.NoSeed {
		return nil, fmt.Errorf("%s: reset: seed is %d, want >= 0 or envs.NoSeed", w.spec.ID, seed)
	}
	defer func() {
		if r := recover(); r != nil {
			w.ready, w.broken = false, true
			obs, err = nil, fmt.Errorf("%s: reset: Box2D failed: %v", w.spec.ID, r)
		}
	}()
	switch {
	case seed >= 0:
		w.gen = rng.New(uint64(seed))
	case w.gen == nil:
		w.gen = rng.New(0)
	}
	if w.broken {
		w.newWorld()
	}
	w.ready = false

	// 1. Destroy the old bodies (without contact callbacks); record what
	// the episode starts from, for SaveState.
	w.destroy()
	w.resetGen = *w.gen
	if err := w.base.capture(w.world); err != nil {
		panic(err) // recovered above: the world is rebuilt at the next Reset
	}
	w.startEpisode()
	w.ready = true
	return w.obs, nil
}

// startEpisode builds an episode in the emptied world from w.gen, as
// Gymnasium's reset does after _destroy, and takes the internal zero-action
// step. Reset and the replay of LoadState share it.
func (w *Walker) startEpisode() {
	// Install the listener, clear the episode flags.
	w.world.SetContactListener(w.listen)
	w.gameOver = false
	w.hasPrev = false
	w.prevShaping = 0
	w.actions = w.actions[:0]

	// 2. Terrain: 200 points, then 199 static edge bodies in order.
	w.ter.generate(w.gen)
	w.buildTerrain()
	// 3. Clouds: rendering only, but they consume 110 draws.
	w.clouds = drawClouds(w.gen, w.clouds[:0])
	// 4-5. Hull with the initial push, then the legs.
	w.buildWalker()

	// 6. The observation comes from step([0, 0, 0, 0]); its reward is
	// discarded.
	var zero [4]float64
	w.step(zero[:])
}

// destroy removes the bodies of the previous episode in Gymnasium's order:
// the terrain list (which Python reversed after creating it), the hull, then
// the legs. The contact listener is detached first, so no EndContact fires.
func (w *Walker) destroy() {
	if len(w.terrain) == 0 {
		return
	}
	w.world.SetContactListener(nil)
	for _, t := range w.terrain {
		w.world.DestroyBody(t)
	}
	w.terrain = w.terrain[:0]
	w.world.DestroyBody(w.hull)
	w.hull = nil
	for i, l := range w.legs {
		w.world.DestroyBody(l)
		w.legs[i] = nil
	}
	w.joints = [4]*b2.B2RevoluteJoint{}
}

func (w *Walker) buildTerrain() {
	for i := 0; i < terrainLength-1; i++ {
		shape := b2.MakeB2EdgeShape()
		shape.Set(vec(w.ter.x[i], w.ter.y[i]), vec(w.ter.x[i+1], w.ter.y[i+1]))
		fd := b2.MakeB2FixtureDef()
		fd.Shape = &shape
		fd.Friction = friction
		fd.Filter = b2.B2Filter{CategoryBits: catTerrain, MaskBits: 0xFFFF}
		bd := b2.MakeB2BodyDef() // static, at the origin
		body := w.world.CreateBody(&bd)
		fix := body.CreateFixtureFromDef(&fd)
		w.edges[i] = edge{shape: fix.M_shape.(*b2.B2EdgeShape), xf: body.M_xf}
		w.terrain = append(w.terrain, body)
	}
	// Python reverses its list; only the destruction order depends on it.
	for i, j := 0, len(w.terrain)-1; i < j; i, j = i+1, j-1 {
		w.terrain[i], w.terrain[j] = w.terrain[j], w.terrain[i]
	}
}

func (w *Walker) dynamicBody(x, y, angle float64, fd *b2.B2FixtureDef) *b2.B2Body {
	bd := b2.MakeB2BodyDef()
	bd.Type = b2.B2BodyType.B2_dynamicBody
	bd.Position = vec(x, y)
	bd.Angle = f32(angle)
	body := w.world.CreateBody(&bd)
	body.CreateFixtureFromDef(fd)
	return body
}

func boxFixture(hx, hy float64) b2.B2FixtureDef {
	shape := b2.MakeB2PolygonShape()
	shape.SetAsBox(f32(hx), f32(hy))
	fd := b2.MakeB2FixtureDef() // friction 0.2 (default)
	fd.Shape = &shape
	fd.Density = 1.0
	fd.Restitution = 0.0
	fd.Filter = b2.B2Filter{CategoryBits: catWalker, MaskBits: catTerrain}
	return fd
}

func (w *Walker) buildWalker() {
	step, height, lh := terrainStep, terrainHeight, legH
	initX := step * terrainStartpad / 2
	initY := height + 2*lh

	// Hull: HULL_POLY (pixels) / SCALE, density 5, friction 0.1.
	hullPoly := [5][2]float64{{-30, +9}, {+6, +9}, {+34, +1}, {+34, -8}, {-30, -8}}
	var verts [5]b2.B2Vec2
	for i, p := range hullPoly {
		verts[i] = vec(p[0]/scale, p[1]/scale)
	}
	hullShape := b2.MakeB2PolygonShape()
	hullShape.Set(verts[:], len(verts))
	hullFD := b2.MakeB2FixtureDef()
	hullFD.Shape = &hullShape
	hullFD.Density = 5.0
	hullFD.Friction = f32(0.1)
	hullFD.Restitution = 0.0
	hullFD.Filter = b2.B2Filter{CategoryBits: catWalker, MaskBits: catTerrain}
	w.hull = w.dynamicBody(initX, initY, 0, &hullFD)
	w.push = w.gen.Uniform(-initialRandom, initialRandom)
	w.hull.ApplyForceToCenter(vec(w.push, 0), true)

	lw := legW
	legFD := boxFixture(lw/2, lh/2)
	lowerFD := boxFixture(0.8*lw/2, lh/2)
	for k, i := range [2]float64{-1, +1} {
		upper := w.dynamicBody(initX, initY-lh/2-legDown, i*0.05, &legFD)
		hip := b2.MakeB2RevoluteJointDef()
		hip.BodyA, hip.BodyB = w.hull, upper
		hip.LocalAnchorA = vec(0, legDown)
		hip.LocalAnchorB = vec(0, lh/2)
		hip.EnableMotor, hip.EnableLimit = true, true
		hip.MaxMotorTorque = motorsTorque
		hip.MotorSpeed = i
		hip.LowerAngle, hip.UpperAngle = f32(-0.8), f32(1.1)
		w.legs[2*k] = upper
		w.joints[2*k] = w.world.CreateJoint(&hip).(*b2.B2RevoluteJoint)

		lower := w.dynamicBody(initX, initY-lh*3/2-legDown, i*0.05, &lowerFD)
		knee := b2.MakeB2RevoluteJointDef()
		knee.BodyA, knee.BodyB = upper, lower
		knee.LocalAnchorA = vec(0, -lh/2)
		knee.LocalAnchorB = vec(0, lh/2)
		knee.EnableMotor, knee.EnableLimit = true, true
		knee.MaxMotorTorque = motorsTorque
		knee.MotorSpeed = 1
		knee.LowerAngle, knee.UpperAngle = f32(-1.6), f32(-0.1)
		w.contact[2*k+1] = false
		w.legs[2*k+1] = lower
		w.joints[2*k+1] = w.world.CreateJoint(&knee).(*b2.B2RevoluteJoint)
	}
}

// Step applies the action (4 finite values: hip-1, knee-1, hip+1, knee+1)
// and advances one env step (one Box2D Step of 1/50 s).
func (w *Walker) Step(action []float64) (tr envs.Transition, err error) {
	if w.closed {
		return envs.Transition{}, envs.ErrClosed
	}
	if err := envs.CheckAction(w.spec, action); err != nil {
		return envs.Transition{}, err
	}
	if !w.ready {
		return envs.Transition{}, fmt.Errorf("%s: step before a successful Reset", w.spec.ID)
	}
	defer func() {
		if r := recover(); r != nil {
			w.ready, w.broken = false, true
			tr, err = envs.Transition{}, fmt.Errorf("%s: step: Box2D failed: %v; call Reset", w.spec.ID, r)
		}
	}()
	tr = w.step(action)
	w.actions = append(w.actions, action...)
	return tr, nil
}

// applyAction sets the motors as Gymnasium does: speed SPEED·sign(a) and
// torque budget 80·clip(|a|, 0, 1). The fields are written directly instead
// of through SetMotorSpeed/SetMaxMotorTorque: in Box2D 2.3 both setters call
// SetAwake(true) on the two bodies, which wakes sleeping bodies but leaves an
// awake body's sleep timer alone; the Go port's setters skip unchanged values
// and its SetAwake(true) resets the timer. Waking only sleeping bodies here
// reproduces 2.3.
func (w *Walker) applyAction(action []float64) {
	for j, jt := range w.joints {
		speed := speedHip
		if j%2 == 1 {
			speed = speedKnee
		}
		wake(jt.M_bodyA)
		wake(jt.M_bodyB)
		jt.M_motorSpeed = speed * sign(action[j])
		jt.M_maxMotorTorque = f32(motorsTorque * clip01(math.Abs(action[j])))
	}
}

func wake(b *b2.B2Body) {
	if !b.IsAwake() {
		b.SetAwake(true)
	}
}

func clip01(v float64) float64 { return math.Min(math.Max(v, 0), 1) }

// step is Gymnasium's step on a validated action.
func (w *Walker) step(action []float64) envs.Transition {
	w.applyAction(action)
	w.world.Step(1.0/fps, velocityIterations, positionIterations)

	pos := w.hull.M_xf.P // body origin
	vel := w.hull.M_linearVelocity

	if !finite(pos.X) || !finite(pos.Y) || !finite(vel.X) || !finite(vel.Y) ||
		!finite(w.hull.M_sweep.A) || !finite(w.hull.M_angularVelocity) {
		panic(fmt.Sprintf("the simulation diverged: hull at (%v, %v), velocity (%v, %v)", pos.X, pos.Y, vel.X, vel.Y))
	}
	w.castLidar(pos)

	angle := w.hull.M_sweep.A
	state := w.obs
	state[0] = angle
	state[1] = 2.0 * w.hull.M_angularVelocity / fps
	state[2] = 0.3 * vel.X * (viewportW / scale) / fps
	state[3] = 0.3 * vel.Y * (viewportH / scale) / fps
	for k := 0; k < 2; k++ {
		hip, knee := w.joints[2*k], w.joints[2*k+1]
		o := 4 + 5*k
		state[o] = jointAngle(hip)
		state[o+1] = jointSpeed(hip) / speedHip
		state[o+2] = jointAngle(knee) + 1.0
		state[o+3] = jointSpeed(knee) / speedKnee
		state[o+4] = 0
		if w.contact[2*k+1] {
			state[o+4] = 1
		}
	}
	copy(state[14:], w.lidar[:])

	shaping := 130*pos.X/scale - 5.0*math.Abs(angle)
	reward := 0.0
	if w.hasPrev {
		reward = shaping - w.prevShaping
	}
	w.prevShaping, w.hasPrev = shaping, true
	shapingReward := reward
	ctrl, torque := 0.0, motorsTorque
	for _, a := range action {
		c := 0.00035 * torque * clip01(math.Abs(a))
		reward -= c
		ctrl -= c
	}

	terminated := false
	w.infoVals[2] = 0
	if w.gameOver || pos.X < 0 {
		reward = -100
		terminated = true
		w.infoVals[2] = 1
	}
	if step := terrainStep; pos.X > float64(terrainLength-terrainGrass)*step {
		terminated = true
	}
	// The observation is a float32 array in Gymnasium.
	for i, v := range state {
		state[i] = float64(float32(v))
	}
	w.infoVals[0], w.infoVals[1] = shapingReward, ctrl
	return envs.Transition{
		Obs:        state,
		Reward:     reward,
		Terminated: terminated,
		Info:       envs.Info{Keys: w.infoKeys, Values: w.infoVals},
	}
}

// lidarEnd is the end point of ray i from p1: angles 0, 0.15, ..., 1.35 rad
// from straight down, sweeping forward, LIDAR_RANGE long, rounded to float32
// as pybox2d's b2Vec2 does.
func lidarEnd(p1 b2.B2Vec2, i int) b2.B2Vec2 {
	a := 1.5 * float64(i) / 10.0
	return vec(p1.X+math.Sin(a)*lidarRange, p1.Y-math.Cos(a)*lidarRange)
}

// edge is one terrain edge fixture's shape and its body's transform.
type edge struct {
	shape *b2.B2EdgeShape
	xf    b2.B2Transform
}

// castLidar stores in w.lidar the fraction of the closest terrain hit of
// each ray, or 1 without a hit: what Gymnasium's LidarCallback leaves after
// world.RayCast, since it ignores walker fixtures (category 0x20) and clips
// the ray at every terrain hit.
//
// It does not go through the broad-phase tree: the terrain is an
// x-monotonic polyline, so only the edges spanning the ray's x range can be
// hit, and each is tested with the same b2EdgeShape::RayCast the world's ray
// cast calls, with the same clipping. The result is bit-identical to
// world.RayCast (TestLidarMatchesWorldRayCast) and avoids the port's
// per-call allocations in the tree traversal.
func (w *Walker) castLidar(p1 b2.B2Vec2) {
	var out b2.B2RayCastOutput
	for i := range w.lidar {
		p2 := lidarEnd(p1, i)
		in := b2.B2RayCastInput{P1: p1, P2: p2, MaxFraction: 1}
		fraction := 1.0
		// Edge k spans x in [k·step, (k+1)·step]; one edge of margin on
		// each side absorbs rounding.
		lo := int(math.Floor(math.Min(p1.X, p2.X)/terrainStep)) - 1
		hi := int(math.Floor(math.Max(p1.X, p2.X)/terrainStep)) + 1
		lo, hi = max(lo, 0), min(hi, len(w.edges)-1)
		for k := lo; k <= hi; k++ {
			e := &w.edges[k]
			if e.shape.RayCast(&out, in, e.xf, 0) {
				fraction = out.Fraction
				in.MaxFraction = fraction
			}
		}
		w.lidar[i] = fraction
	}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// jointAngle is b2RevoluteJoint::GetJointAngle without copying the joint.
func jointAngle(j *b2.B2RevoluteJoint) float64 {
	return j.M_bodyB.M_sweep.A - j.M_bodyA.M_sweep.A - j.M_referenceAngle
}

// jointSpeed is b2RevoluteJoint::GetJointSpeed.
func jointSpeed(j *b2.B2RevoluteJoint) float64 {
	return j.M_bodyB.M_angularVelocity - j.M_bodyA.M_angularVelocity
}

// Close frees the world. Further calls return envs.ErrClosed.
func (w *Walker) Close() error {
	if w.closed {
		return envs.ErrClosed
	}
	w.closed = true
	if !w.broken {
		func() {
			defer func() { _ = recover() }() // the world is dropped either way
			w.destroy()
		}()
	}
	w.world = nil
	w.gen = nil
	w.terrain = nil
	w.hull = nil
	w.legs = [4]*b2.B2Body{}
	w.joints = [4]*b2.B2RevoluteJoint{}
	w.ready = false
	return nil
}

// contactDetector is Gymnasium's ContactDetector: any contact of the hull
// ends the episode; the lower legs' ground_contact flag is set on
// BeginContact and cleared on EndContact (a boolean, not a counter).
type contactDetector struct{ w *Walker }

func (c *contactDetector) BeginContact(contact b2.B2ContactInterface) {
	w := c.w
	a, b := contact.GetFixtureA().M_body, contact.GetFixtureB().M_body
	if a == w.hull || b == w.hull {
		w.gameOver = true
	}
	for _, k := range [2]int{1, 3} {
		if leg := w.legs[k]; leg == a || leg == b {
			w.contact[k] = true
		}
	}
}

func (c *contactDetector) EndContact(contact b2.B2ContactInterface) {
	w := c.w
	a, b := contact.GetFixtureA().M_body, contact.GetFixtureB().M_body
	for _, k := range [2]int{1, 3} {
		if leg := w.legs[k]; leg == a || leg == b {
			w.contact[k] = false
		}
	}
}

func (c *contactDetector) PreSolve(b2.B2ContactInterface, b2.B2Manifold) {}

func (c *contactDetector) PostSolve(b2.B2ContactInterface, *b2.B2ContactImpulse) {}
