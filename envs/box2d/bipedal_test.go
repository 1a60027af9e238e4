package box2d

import (
	"errors"
	"math"
	"runtime"
	"testing"

	b2 "github.com/ByteArena/box2d"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/envs/rng"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func newWalker(t testing.TB) *Walker {
	t.Helper()
	w, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

// TestTerrainSeed0 checks the seed-0 terrain facts of the fact sheet
// (section 7): the first grass counters, the flat (oneshot) indices, the
// number of draws, and a few heights.
func TestTerrainSeed0(t *testing.T) {
	var ter terrain
	ter.generate(rng.New(0))
	wantCounters := []int64{9, 8, 5, 9, 9}
	for i, c := range wantCounters {
		if ter.counters[i] != c {
			t.Fatalf("counters[:5] = %v, want %v", ter.counters[:5], wantCounters)
		}
	}
	wantFlat := []int{20, 29, 37, 42, 51}
	for i, f := range wantFlat {
		if ter.flat[i] != f {
			t.Fatalf("flat indices[:5] = %v, want %v", ter.flat[:5], wantFlat)
		}
	}
	if ter.uniforms != 156 || ter.integers != 24 {
		t.Fatalf("draws: %d uniforms and %d integers, want 156 and 24", ter.uniforms, ter.integers)
	}
	for i := 0; i <= 20; i++ {
		if ter.y[i] != 400.0/30.0/4 {
			t.Fatalf("y[%d] = %.12g, want the flat start 3.333333", i, ter.y[i])
		}
	}
	for _, c := range []struct {
		i int
		y float64
	}{{21, 3.317985781}, {22, 3.285105974}, {50, 3.393428719}, {199, 3.385954677}} {
		if !near(ter.y[c.i], c.y, 1e-9) {
			t.Errorf("y[%d] = %.10f, want %.9f", c.i, ter.y[c.i], c.y)
		}
	}
	if !near(ter.x[199], 92.866667, 1e-6) {
		t.Errorf("last terrain x = %.7f, want 92.866667", ter.x[199])
	}
}

// TestSpecAndRegistry checks the registered spec: names, sizes, bounds,
// time limit and threshold.
func TestSpecAndRegistry(t *testing.T) {
	for _, name := range []string{"bipedalwalker", "BipedalWalker-v3"} {
		s, err := envs.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if s.ID != "BipedalWalker-v3" || s.Observation.Dim() != 24 || s.Action.Dim() != 4 ||
			s.MaxEpisodeSteps != 1600 || s.RewardThreshold != 300 {
			t.Fatalf("%s: spec %+v", name, s)
		}
	}
	s := Spec()
	pi32 := float64(float32(math.Pi))
	for i, want := range []float64{pi32, 5, 5, 5, pi32, 5, pi32, 5, 5, pi32, 5, pi32, 5, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1} {
		if s.Observation.High[i] != want {
			t.Errorf("high[%d] = %v, want %v", i, s.Observation.High[i], want)
		}
		lo := s.Observation.Low[i]
		switch {
		case i == 8 || i == 13:
			if lo != 0 || !math.Signbit(lo) {
				t.Errorf("low[%d] = %v, want -0.0", i, lo)
			}
		case lo != -want:
			t.Errorf("low[%d] = %v, want %v", i, lo, -want)
		}
	}
	for i := 0; i < 4; i++ {
		if s.Action.Low[i] != -1 || s.Action.High[i] != 1 {
			t.Fatalf("action box %+v, want [-1, 1]^4", s.Action)
		}
	}
	if finish := float64(terrainLength-terrainGrass) * terrainStep; !near(finish, 88.666667, 1e-6) {
		t.Errorf("finish line %.7f, want 88.666667", finish)
	}
	e, err := envs.Make("bipedalwalker")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, ok := e.(*envs.TimeLimit).Unwrap().(*Walker); !ok {
		t.Fatalf("Make returned %T inside the TimeLimit, want *Walker", e.(*envs.TimeLimit).Unwrap())
	}
}

// TestResetSeed0 compares the seed-0 reset with the fact sheet's computed
// values (tolerance about 1e-3 there; figures quoted to 3-4 digits are
// checked to their last digit).
func TestResetSeed0(t *testing.T) {
	w := newWalker(t)
	obs, err := w.Reset(0)
	if err != nil {
		t.Fatal(err)
	}
	if !near(w.Push(), 4.796887085, 1e-9) {
		t.Errorf("initial push fx = %.9f, want +4.796887085", w.Push())
	}
	checks := []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"obs[0] hull angle", obs[0], 0.002747, 1e-5},
		{"obs[1] angular velocity", obs[1], -2.6e-5, 1e-5},
		{"obs[2] vx", obs[2], 0.002013, 1e-5},
		{"obs[3] vy", obs[3], -0.016000, 1e-5},
		{"obs[6] knee -1", obs[6], 0.860, 1e-3},
		{"obs[11] knee +1", obs[11], 0.854, 1e-3},
		{"hull x", w.hull.M_xf.P.X, 4.664, 1e-3},
		{"hull y", w.hull.M_xf.P.Y, 5.6843, 1e-4},
	}
	lidar := []float64{0.4408, 0.4458, 0.4614, 0.4896, 0.5341, 0.6025, 0.7091, 0.8859, 1, 1}
	for i, l := range lidar {
		checks = append(checks, struct {
			name      string
			got, want float64
			tol       float64
		}{"lidar", obs[14+i], l, 1e-4})
	}
	for _, c := range checks {
		if !near(c.got, c.want, c.tol) {
			t.Errorf("%s = %.6f, want %.6f ± %g", c.name, c.got, c.want, c.tol)
		}
	}
	if obs[8] != 1 || obs[13] != 1 {
		t.Errorf("ground contacts obs[8], obs[13] = %v, %v, want 1, 1", obs[8], obs[13])
	}
	for i, v := range obs {
		if v != float64(float32(v)) {
			t.Errorf("obs[%d] = %v is not a float32 value", i, v)
		}
	}
	tr, err := w.Step([]float64{0, 0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	if !near(tr.Reward, -0.0784, 1e-4) {
		t.Errorf("first zero-action reward %.6f, want -0.0784", tr.Reward)
	}
}

// TestLidarClosestHit recomputes every lidar ray against the terrain edges
// analytically and checks the fraction is the closest hit (v3 behaviour).
func TestLidarClosestHit(t *testing.T) {
	w := newWalker(t)
	if _, err := w.Reset(3); err != nil {
		t.Fatal(err)
	}
	g := rng.New(11)
	act := make([]float64, 4)
	for s := 0; s < 40; s++ {
		for i := range act {
			act[i] = g.Uniform(-1, 1)
		}
		tr, err := w.Step(act)
		if err != nil {
			t.Fatal(err)
		}
		pos := w.hull.M_xf.P
		for i := 0; i < 10; i++ {
			p2 := lidarEnd(pos, i)
			want := 1.0
			for e := 0; e+1 < terrainLength; e++ {
				if f, ok := segmentHit(pos, p2, vec(w.ter.x[e], w.ter.y[e]), vec(w.ter.x[e+1], w.ter.y[e+1])); ok && f < want {
					want = f
				}
			}
			if got := tr.Obs[14+i]; !near(got, want, 1e-6) {
				t.Fatalf("step %d lidar %d: fraction %.7f, closest terrain hit %.7f", s, i, got, want)
			}
		}
		if tr.Terminated {
			break
		}
	}
}

// TestLidarMatchesWorldRayCast: the direct edge ray casts give bit for bit
// what world.RayCast with Gymnasium's callback gives, over random rollouts of
// several seeds (including falls, so rays hit at all angles).
func TestLidarMatchesWorldRayCast(t *testing.T) {
	w := newWalker(t)
	g := rng.New(21)
	act := make([]float64, 4)
	checked, hits := 0, 0
	for seed := int64(0); seed < 4; seed++ {
		if _, err := w.Reset(seed); err != nil {
			t.Fatal(err)
		}
		for s := 0; s < 300; s++ {
			for i := range act {
				act[i] = g.Uniform(-1, 1)
			}
			tr, err := w.Step(act)
			if err != nil {
				t.Fatal(err)
			}
			fast := w.lidar
			w.castLidarWorld(w.hull.M_xf.P)
			if w.lidar != fast {
				t.Fatalf("seed %d step %d: castLidar %v, world.RayCast %v", seed, s, fast, w.lidar)
			}
			for _, f := range fast {
				if f < 1 {
					hits++
				}
			}
			checked++
			if tr.Terminated {
				break
			}
		}
	}
	t.Logf("%d steps compared, %d of %d rays hit the terrain", checked, hits, 10*checked)
	if hits == 0 || hits == 10*checked {
		t.Fatalf("degenerate comparison: %d hits out of %d rays", hits, 10*checked)
	}
}

// castLidarWorld is the reference lidar: world.RayCast with Gymnasium's
// LidarCallback, which ignores fixtures without category bit 1 (returns -1)
// and clips the ray at each terrain hit (returns the fraction).
func (w *Walker) castLidarWorld(p1 b2.B2Vec2) {
	for i := range w.lidar {
		w.lidar[i] = 1.0
		cb := func(f *b2.B2Fixture, _, _ b2.B2Vec2, fraction float64) float64 {
			if f.M_filter.CategoryBits&1 == 0 {
				return -1
			}
			w.lidar[i] = fraction
			return fraction
		}
		w.world.RayCast(cb, p1, lidarEnd(p1, i))
	}
}

// segmentHit intersects the ray p1→p2 with segment v1–v2 and returns the
// fraction along the ray.
func segmentHit(p1, p2, v1, v2 b2.B2Vec2) (float64, bool) {
	dx, dy := p2.X-p1.X, p2.Y-p1.Y
	ex, ey := v2.X-v1.X, v2.Y-v1.Y
	den := dx*ey - dy*ex
	if den == 0 {
		return 0, false
	}
	wx, wy := v1.X-p1.X, v1.Y-p1.Y
	tr := (wx*ey - wy*ex) / den
	s := (wx*dy - wy*dx) / den
	if tr < 0 || tr > 1 || s < 0 || s > 1 {
		return 0, false
	}
	return tr, true
}

// TestZeroActionCollapse: with zero actions the walker folds up and its hull
// touches the ground: reward -100 and terminated. The fact sheet's float32
// pybox2d run gives step 118 and return -91.81 for seed 0. This float64 port
// measures step 117 and return -91.7402; the collapse step is on a knife
// edge (adding 1e-6 m/s to the hull's vx after the seed-0 reset gives step
// 118 and -91.8075 here), so the test allows ±2 steps and ±0.25 in the
// return. Other seeds are only checked to fall "after about 120 steps".
func TestZeroActionCollapse(t *testing.T) {
	w := newWalker(t)
	cases := []struct {
		seed          int64
		step, stepTol int
		ret, retTol   float64
	}{
		{0, 118, 2, -91.81, 0.25},
		{1, 120, 20, -91.8, 1.5},
		{2, 120, 20, -91.8, 1.5},
		{3, 120, 20, -91.8, 1.5},
	}
	for _, c := range cases {
		if _, err := w.Reset(c.seed); err != nil {
			t.Fatal(err)
		}
		zero := []float64{0, 0, 0, 0}
		ret := 0.0
		steps := 0
		var last envs.Transition
		for steps < 400 {
			tr, err := w.Step(zero)
			if err != nil {
				t.Fatal(err)
			}
			steps++
			ret += tr.Reward
			last = tr
			if tr.Terminated {
				break
			}
		}
		t.Logf("seed %d: terminated at step %d, return %.4f", c.seed, steps, ret)
		if !last.Terminated || last.Reward != -100 {
			t.Fatalf("seed %d: last reward %v terminated %v after %d steps, want -100 and terminated", c.seed, last.Reward, last.Terminated, steps)
		}
		if g, _ := last.Info.Get(InfoGameOver); g != 1 {
			t.Errorf("seed %d: info game_over = %v, want 1", c.seed, g)
		}
		if steps < c.step-c.stepTol || steps > c.step+c.stepTol {
			t.Errorf("seed %d: game over at step %d, want %d ± %d", c.seed, steps, c.step, c.stepTol)
		}
		if !near(ret, c.ret, c.retTol) {
			t.Errorf("seed %d: return %.4f, want %.2f ± %g", c.seed, ret, c.ret, c.retTol)
		}
	}
}

// TestBodies checks the fixture masses of the fact sheet and that walker
// parts never touch each other (category 0x20, mask 0x01): the port's nil
// default contact filter would let them collide.
func TestBodies(t *testing.T) {
	w := newWalker(t)
	if _, err := w.Reset(6); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		got  float64
		want float64
	}{
		{"hull", w.hull.M_mass, 5.422222},
		{"upper leg -1", w.legs[0].M_mass, 0.302222},
		{"lower leg -1", w.legs[1].M_mass, 0.241778},
		{"upper leg +1", w.legs[2].M_mass, 0.302222},
		{"lower leg +1", w.legs[3].M_mass, 0.241778},
	} {
		if !near(c.got, c.want, 1e-6) {
			t.Errorf("%s mass %.7f, want %.6f", c.name, c.got, c.want)
		}
	}
	walker := map[*b2.B2Body]bool{w.hull: true}
	for _, l := range w.legs {
		walker[l] = true
	}
	g := rng.New(4)
	act := make([]float64, 4)
	for s := 0; s < 300; s++ {
		for i := range act {
			act[i] = g.Uniform(-1, 1)
		}
		tr, err := w.Step(act)
		if err != nil {
			t.Fatal(err)
		}
		for c := w.world.GetContactList(); c != nil; c = c.GetNext() {
			a, b := c.GetFixtureA().M_body, c.GetFixtureB().M_body
			if walker[a] && walker[b] {
				t.Fatalf("step %d: a contact between two walker parts", s)
			}
		}
		if tr.Terminated {
			break
		}
	}
}

// TestRewardComponents checks the Info components: the reward is the shaping
// difference plus the torque cost 0.028·Σ clip(|a|, 0, 1) unless game over.
func TestRewardComponents(t *testing.T) {
	w := newWalker(t)
	if _, err := w.Reset(1); err != nil {
		t.Fatal(err)
	}
	actions := [][]float64{{1, 1, 1, 1}, {-2, 0.5, 0, -0.25}, {0.1, -0.1, 3, -3}}
	for _, a := range actions {
		prev := w.prevShaping
		tr, err := w.Step(a)
		if err != nil {
			t.Fatal(err)
		}
		sh, _ := tr.Info.Get(InfoShaping)
		ctrl, _ := tr.Info.Get(InfoCtrl)
		wantCtrl := 0.0
		for _, v := range a {
			wantCtrl -= 0.028 * math.Min(math.Abs(v), 1)
		}
		if !near(ctrl, wantCtrl, 1e-12) {
			t.Errorf("action %v: ctrl %.12f, want %.12f", a, ctrl, wantCtrl)
		}
		wantShaping := 130*w.hull.M_xf.P.X/30 - 5*math.Abs(w.hull.M_sweep.A) - prev
		if !near(sh, wantShaping, 1e-12) {
			t.Errorf("action %v: shaping %.12f, want %.12f", a, sh, wantShaping)
		}
		if !tr.Terminated && !near(tr.Reward, sh+ctrl, 1e-12) {
			t.Errorf("action %v: reward %.12f != shaping + ctrl %.12f", a, tr.Reward, sh+ctrl)
		}
	}
	// Motor settings: speed SPEED·sign(a), torque 80·clip(|a|).
	last := actions[len(actions)-1]
	for j, jt := range w.joints {
		speed := 4.0
		if j%2 == 1 {
			speed = 6
		}
		if jt.M_motorSpeed != speed*sign(last[j]) || jt.M_maxMotorTorque != float64(float32(80*math.Min(math.Abs(last[j]), 1))) {
			t.Errorf("joint %d: speed %v torque %v for action %v", j, jt.M_motorSpeed, jt.M_maxMotorTorque, last[j])
		}
	}
}

func rollout(t *testing.T, w *Walker, seed int64, steps int, actSeed uint64) [][]float64 {
	t.Helper()
	obs, err := w.Reset(seed)
	if err != nil {
		t.Fatal(err)
	}
	out := [][]float64{append([]float64(nil), obs...)}
	g := rng.New(actSeed)
	act := make([]float64, 4)
	for s := 0; s < steps; s++ {
		for i := range act {
			act[i] = g.Uniform(-1, 1)
		}
		tr, err := w.Step(act)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, append(append([]float64(nil), tr.Obs...), tr.Reward))
		if tr.Terminated {
			break
		}
	}
	return out
}

// TestDeterminism: two fresh environments with the same seeds and actions
// agree bit for bit, and NoSeed continues the random stream.
func TestDeterminism(t *testing.T) {
	a, b := newWalker(t), newWalker(t)
	for ep, seed := range []int64{5, 5, 9} {
		ra := rollout(t, a, seed, 150, uint64(ep))
		rb := rollout(t, b, seed, 150, uint64(ep))
		if len(ra) != len(rb) {
			t.Fatalf("episode %d: lengths %d and %d", ep, len(ra), len(rb))
		}
		for i := range ra {
			for k := range ra[i] {
				if ra[i][k] != rb[i][k] && !(math.IsNaN(ra[i][k]) && math.IsNaN(rb[i][k])) {
					t.Fatalf("episode %d step %d value %d: %v vs %v", ep, i, k, ra[i][k], rb[i][k])
				}
			}
		}
	}
	// NoSeed continues the stream: the terrain differs from the seeded one,
	// and matches a generator advanced by one reset's draws.
	w := newWalker(t)
	if _, err := w.Reset(7); err != nil {
		t.Fatal(err)
	}
	first := w.ter.y
	if _, err := w.Reset(envs.NoSeed); err != nil {
		t.Fatal(err)
	}
	if w.ter.y == first {
		t.Fatal("Reset(NoSeed) regenerated the same terrain; want the stream continued")
	}
	g := rng.New(7)
	var ter terrain
	ter.generate(g)
	drawClouds(g, nil)
	g.Uniform(-5, 5)
	ter.generate(g)
	if ter.y != w.ter.y {
		t.Fatal("Reset(NoSeed) terrain does not continue the seed-7 stream")
	}
	// The first Reset of a fresh env with NoSeed seeds 0.
	f := newWalker(t)
	if _, err := f.Reset(envs.NoSeed); err != nil {
		t.Fatal(err)
	}
	ter.generate(rng.New(0))
	if f.ter.y != ter.y {
		t.Fatal("first Reset(NoSeed) is not seed 0")
	}
}

// TestBadInput: wrong lengths, NaN and Inf are errors that leave the world
// untouched; so is a negative seed; a closed env returns ErrClosed.
func TestBadInput(t *testing.T) {
	w, twin := newWalker(t), newWalker(t)
	if _, err := w.Step([]float64{0, 0, 0, 0}); err == nil {
		t.Fatal("Step before Reset: want an error")
	}
	if _, err := w.Reset(-2); err == nil {
		t.Fatal("Reset(-2): want an error")
	}
	for _, e := range []*Walker{w, twin} {
		if _, err := e.Reset(4); err != nil {
			t.Fatal(err)
		}
	}
	bad := [][]float64{nil, {0, 0, 0}, {0, 0, 0, 0, 0}, {0, math.NaN(), 0, 0}, {math.Inf(1), 0, 0, 0}, {0, 0, 0, math.Inf(-1)}}
	for _, a := range bad {
		if _, err := w.Step(a); err == nil {
			t.Fatalf("Step(%v): want an error", a)
		}
	}
	good := []float64{0.3, -0.7, 1, -1}
	tw, err := twin.Step(good)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := w.Step(good)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tr.Obs {
		if tr.Obs[i] != tw.Obs[i] {
			t.Fatalf("after rejected actions obs[%d] = %v, twin %v: the bad input changed the state", i, tr.Obs[i], tw.Obs[i])
		}
	}
	if tr.Reward != tw.Reward {
		t.Fatalf("reward %v vs twin %v", tr.Reward, tw.Reward)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Step(good); !errors.Is(err, envs.ErrClosed) {
		t.Fatalf("Step after Close: %v, want ErrClosed", err)
	}
	if _, err := w.Reset(0); !errors.Is(err, envs.ErrClosed) {
		t.Fatalf("Reset after Close: %v, want ErrClosed", err)
	}
	if err := w.Close(); !errors.Is(err, envs.ErrClosed) {
		t.Fatalf("second Close: %v, want ErrClosed", err)
	}
}

// TestDivergenceIsAnError: a corrupted (NaN) simulation gives an error, not
// a panic or NaN observations; steps fail until Reset, which rebuilds the
// world and reproduces a fresh instance.
func TestDivergenceIsAnError(t *testing.T) {
	w := newWalker(t)
	if _, err := w.Reset(0); err != nil {
		t.Fatal(err)
	}
	w.hull.M_linearVelocity.X = math.NaN()
	tr, err := w.Step([]float64{0, 0, 0, 0})
	if err == nil {
		t.Fatalf("step with a NaN hull velocity: obs %v, want an error", tr.Obs)
	}
	t.Logf("error: %v", err)
	if _, err := w.Step([]float64{0, 0, 0, 0}); err == nil {
		t.Fatal("step after a failed step: want an error until Reset")
	}
	obs, err := w.Reset(0)
	if err != nil {
		t.Fatalf("reset after a failure: %v", err)
	}
	fresh := newWalker(t)
	want, err := fresh.Reset(0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if obs[i] != want[i] {
			t.Fatalf("reset after a failure: obs[%d] = %v, fresh instance %v", i, obs[i], want[i])
		}
	}
}

// TestWorldRecycled: the world persists across resets, bodies are destroyed
// and recreated (199 edges + hull + 4 legs, 4 joints), and memory stays flat
// over many resets and steps.
func TestWorldRecycled(t *testing.T) {
	w := newWalker(t)
	g := rng.New(2)
	act := make([]float64, 4)
	var ms runtime.MemStats
	heap := func() uint64 {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	world := w.world
	var base uint64
	const resets, stepsPer = 100, 100 // 10,000 steps
	for r := 0; r < resets; r++ {
		if _, err := w.Reset(envs.NoSeed); err != nil {
			t.Fatal(err)
		}
		if w.world != world || w.world.GetBodyCount() != 204 || w.world.GetJointCount() != 4 {
			t.Fatalf("reset %d: world %p (first %p), %d bodies, %d joints; want the same world, 204 and 4",
				r, w.world, world, w.world.GetBodyCount(), w.world.GetJointCount())
		}
		for s := 0; s < stepsPer; s++ {
			for i := range act {
				act[i] = g.Uniform(-1, 1)
			}
			tr, err := w.Step(act)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Terminated {
				break
			}
		}
		if r == 10 {
			base = heap()
		}
	}
	end := heap()
	t.Logf("heap after 10 resets %d B, after %d resets %d B", base, resets, end)
	if end > base+256<<10 {
		t.Fatalf("heap grew from %d to %d bytes over %d resets", base, end, resets-10)
	}
}
