package mujoco

import (
	"math"
	"testing"

	"github.com/hyperctl/hyperctl/envs/rng"
)

// TestHumanoidHealthy checks Humanoid-v4's strict healthy range on
// hand-set states: z = 1 and z = 2 are unhealthy, a hair inside is
// healthy, and (unlike Ant) a NaN velocity alone is not checked.
func TestHumanoidHealthy(t *testing.T) {
	cases := []struct {
		name string
		z    float64
		nan  bool // a NaN qvel entry
		want bool
	}{
		{"standing", 1.4, false, true},
		{"low bound", 1.0, false, false},
		{"just above the low bound", math.Nextafter(1.0, 2), false, true},
		{"high bound", 2.0, false, false},
		{"just below the high bound", math.Nextafter(2.0, 0), false, true},
		{"fallen", 0.3, false, false},
		{"nan velocity", 1.4, true, true},
	}
	e := newEnv(t, "humanoid").(*Humanoid)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			exactStart(t, e, nil)
			e.data.qpos[2] = c.z
			if c.nan {
				e.data.qvel[7] = math.NaN()
			}
			if got := e.healthy(); got != c.want {
				t.Fatalf("healthy at z %.17g = %v, want %v", c.z, got, c.want)
			}
		})
	}
}

// TestHumanoidMassCenter checks mass_center at qpos0 against the fact
// sheet (x 0.01495651037, y 0 up to rounding: the abdomen's tilt gives
// -1.3e-18) and against a sum written out here.
func TestHumanoidMassCenter(t *testing.T) {
	e := newEnv(t, "humanoid").(*Humanoid)
	exactStart(t, e, nil)
	x, y := e.massCenter()
	if !near(x, 0.01495651037, 1e-11) || !near(y, 0, 1e-17) {
		t.Fatalf("mass centre at qpos0 (%.12g, %v), want (0.01495651037, 0)", x, y)
	}
	var mx, m float64
	for i := 0; i < e.Model().NBody(); i++ {
		b, _ := e.Model().Body(i)
		mx += b.Mass * e.data.Xipos()[3*i]
		m += b.Mass
	}
	if !near(x, mx/m, 1e-15) || !near(m, 42.11603, 1e-5) {
		t.Fatalf("mass centre x %v, by hand %v (total mass %v)", x, mx/m, m)
	}
}

// humanoidZero lists the observation entries that are always 0: the
// world's cinert, cvel and cfrc_ext and the free joint's qfrc_actuator.
var humanoidZero = [][2]int{{45, 55}, {185, 191}, {269, 275}, {292, 298}}

// TestHumanoidObservation checks the 376-entry layout after a reset and
// after steps: qpos[2:], qvel, cinert, cvel, qfrc_actuator, cfrc_ext in
// that order; the always-zero ranges; qfrc_actuator = gear × clip(a, ±0.4)
// at the actuated dofs (0 at reset); cfrc_ext 0 at reset and filled after
// a step.
func TestHumanoidObservation(t *testing.T) {
	e := newEnv(t, "humanoid").(*Humanoid)
	obs, err := e.Reset(6)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, obs []float64) {
		t.Helper()
		d := e.data
		parts := []struct {
			name   string
			lo, hi int
			want   []float64
		}{
			{"qpos[2:]", 0, 22, d.qpos[2:]},
			{"qvel", 22, 45, d.qvel},
			{"cinert", 45, 185, d.Cinert()},
			{"cvel", 185, 269, d.Cvel()},
			{"qfrc_actuator", 269, 292, d.QfrcActuator()},
			{"cfrc_ext", 292, 376, d.CfrcExt()},
		}
		for _, p := range parts {
			nearAll(t, what+" "+p.name, obs[p.lo:p.hi], p.want, 0)
		}
		for _, r := range humanoidZero {
			for i := r[0]; i < r[1]; i++ {
				if obs[i] != 0 {
					t.Fatalf("%s obs[%d] = %v, want 0 (range %d-%d)", what, i, obs[i], r[0], r[1]-1)
				}
			}
		}
	}
	check("reset", obs)
	nearAll(t, "qfrc_actuator at reset", obs[269:292], make([]float64, 23), 0)
	nearAll(t, "cfrc_ext at reset", obs[292:376], make([]float64, 84), 0)

	gears := []float64{100, 100, 100, 100, 100, 300, 200, 100, 100, 300, 200, 25, 25, 25, 25, 25, 25}
	// Actuator k drives dof 6 + dofOf[k]: abdomen_y and abdomen_z swap.
	dofOf := []int{1, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	contact := false
	for k := 0; k < 20; k++ { // the feet touch the floor from step 9 (0-based)
		a := make([]float64, 17)
		for i := range a {
			a[i] = 0.7 * math.Sin(float64(7*k+i)) // beyond ±0.4 at times
		}
		tr, err := e.Step(a)
		if err != nil {
			t.Fatal(err)
		}
		check("step", tr.Obs)
		for i, g := range gears {
			if got, want := tr.Obs[269+6+dofOf[i]], g*clip(a[i], -0.4, 0.4); !near(got, want, 1e-12) {
				t.Fatalf("step %d actuator %d: qfrc_actuator %v, want gear × clip(a) %v", k, i, got, want)
			}
		}
		for _, f := range tr.Obs[298:] {
			contact = contact || f != 0
		}
	}
	if !contact {
		t.Fatal("cfrc_ext stayed 0 over 20 steps: the post-constraint forces were not computed")
	}
}

// TestHumanoidReward checks Humanoid-v4's reward over seeded rollouts until
// it falls: reward = 1.25 x_velocity + 5 - 0.1 sum(a^2), the healthy
// reward paid on the terminating step too, the velocity from the mass
// centre read before and after the step from the xipos mjData holds (stale
// after a step; fresh only after a reset), and the info keys.
func TestHumanoidReward(t *testing.T) {
	cases := []struct {
		name  string
		seed  int64
		scale float64
	}{
		{"zero action", 0, 0},
		{"random actions", 8, 0.4},
		{"clamped actions", 9, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, "humanoid").(*Humanoid)
			if _, err := e.Reset(c.seed); err != nil {
				t.Fatal(err)
			}
			xBefore, yBefore := e.massCenter()
			terminated := false
			for k := 0; k < 300 && !terminated; k++ {
				a := make([]float64, 17)
				for i := range a {
					a[i] = c.scale * math.Sin(float64(3*k+i))
				}
				tr, err := e.Step(a)
				if err != nil {
					t.Fatal(err)
				}
				xAfter, yAfter := e.massCenter()
				xv, yv := (xAfter-xBefore)/e.Dt(), (yAfter-yBefore)/e.Dt()
				ctrl := 0.1 * sumSquares(a)
				if want := 1.25*xv + 5 - ctrl; tr.Reward != want {
					t.Fatalf("step %d reward %.17g, want %.17g", k, tr.Reward, want)
				}
				z := e.data.qpos[2]
				if tr.Terminated != !(1 < z && z < 2) {
					t.Fatalf("step %d z %v terminated %v", k, z, tr.Terminated)
				}
				want := map[string]float64{"reward_linvel": 1.25 * xv, "forward_reward": 1.25 * xv,
					"x_velocity": xv, "y_velocity": yv, "reward_quadctrl": -ctrl, "reward_alive": 5,
					"x_position": xAfter, "y_position": yAfter,
					"distance_from_origin": math.Sqrt(xAfter*xAfter + yAfter*yAfter), InfoUnstable: 0}
				checkInfo(t, k, tr.Info, want)
				xBefore, yBefore = xAfter, yAfter
				terminated = tr.Terminated
			}
			if !terminated {
				t.Fatal("the humanoid did not fall in 300 steps")
			}
			// Stale: the held xipos is not the final qpos's kinematics.
			stale := append([]float64(nil), e.data.Xipos()...)
			if err := e.data.Forward(); err != nil {
				t.Fatal(err)
			}
			if x, _ := e.massCenter(); x == xBefore {
				t.Fatalf("mass centre %v equals the fresh one: xipos not stale (%v)", x, stale[3:6])
			}
		})
	}
}

// TestHumanoidReset checks the reset draws: 24 uniform for qpos, then 23
// uniform for qvel, both in ±0.01, and the quaternion renormalised in
// place.
func TestHumanoidReset(t *testing.T) {
	for _, seed := range []int64{0, 5} {
		e := newEnv(t, "humanoid").(*Humanoid)
		if _, err := e.Reset(seed); err != nil {
			t.Fatal(err)
		}
		g := rng.New(uint64(seed))
		q0 := e.Model().Qpos0()
		qpos := make([]float64, 24)
		for i := range qpos {
			qpos[i] = q0[i] + g.Uniform(-0.01, 0.01)
		}
		qvel := make([]float64, 23)
		for i := range qvel {
			qvel[i] = g.Uniform(-0.01, 0.01)
		}
		unitQuat(qpos)
		nearAll(t, "qpos", e.data.qpos, qpos, 1e-15)
		nearAll(t, "qvel", e.data.qvel, qvel, 0)
	}
}
