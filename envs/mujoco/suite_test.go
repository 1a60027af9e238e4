package mujoco

import (
	"math"
	"testing"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/envs/rng"
)

// The tests of Hopper-v4, Walker2d-v4, Swimmer-v4 and InvertedPendulum-v4
// against the suite's spec sheet: health and termination at the boundaries,
// the control cost, the noise-free first step and the reset draws.

// state builds a qpos or qvel of n zeros with the given entries set.
func state(n int, set map[int]float64) []float64 {
	v := make([]float64, n)
	for i, x := range set {
		v[i] = x
	}
	return v
}

// TestHealthBoundaries checks Hopper's and Walker2d's is_healthy and
// InvertedPendulum's termination on hand-built states, on and just inside
// every bound (all strict), and with NaN.
func TestHealthBoundaries(t *testing.T) {
	nan := math.NaN()
	hopper := func(q, v map[int]float64) (qpos, qvel []float64) {
		qp := map[int]float64{1: 1.25}
		for i, x := range q {
			qp[i] = x
		}
		return state(6, qp), state(6, v)
	}
	walker := func(q, v map[int]float64) (qpos, qvel []float64) {
		qp := map[int]float64{1: 1.25}
		for i, x := range q {
			qp[i] = x
		}
		return state(9, qp), state(9, v)
	}
	cases := []struct {
		name    string
		healthy func(qpos, qvel []float64) bool
		q, v    map[int]float64
		want    bool
	}{
		{"hopper start", hopperHealthy, nil, nil, true},
		{"hopper z at 0.7", hopperHealthy, map[int]float64{1: 0.7}, nil, false},
		{"hopper z above 0.7", hopperHealthy, map[int]float64{1: 0.7000001}, nil, true},
		{"hopper z has no upper bound", hopperHealthy, map[int]float64{1: 1e6}, nil, true},
		{"hopper z +Inf", hopperHealthy, map[int]float64{1: math.Inf(1)}, nil, false},
		{"hopper angle at 0.2", hopperHealthy, map[int]float64{2: 0.2}, nil, false},
		{"hopper angle at -0.2", hopperHealthy, map[int]float64{2: -0.2}, nil, false},
		{"hopper angle inside", hopperHealthy, map[int]float64{2: -0.1999999}, nil, true},
		{"hopper joint at 100", hopperHealthy, map[int]float64{5: 100}, nil, false},
		{"hopper joint inside 100", hopperHealthy, map[int]float64{3: -99.999}, nil, true},
		{"hopper qvel x at -100", hopperHealthy, nil, map[int]float64{0: -100}, false},
		{"hopper qvel inside 100 (unclipped)", hopperHealthy, nil, map[int]float64{5: 99.999}, true},
		{"hopper x is not checked", hopperHealthy, map[int]float64{0: 1e3}, nil, true},
		{"hopper NaN qvel", hopperHealthy, nil, map[int]float64{4: nan}, false},
		{"walker2d start", walker2dHealthy, nil, nil, true},
		{"walker2d z at 0.8", walker2dHealthy, map[int]float64{1: 0.8}, nil, false},
		{"walker2d z above 0.8", walker2dHealthy, map[int]float64{1: 0.8000001}, nil, true},
		{"walker2d z at 2", walker2dHealthy, map[int]float64{1: 2}, nil, false},
		{"walker2d z below 2", walker2dHealthy, map[int]float64{1: 1.9999999}, nil, true},
		{"walker2d angle at 1", walker2dHealthy, map[int]float64{2: 1}, nil, false},
		{"walker2d angle at -1", walker2dHealthy, map[int]float64{2: -1}, nil, false},
		{"walker2d angle inside", walker2dHealthy, map[int]float64{2: 0.9999999}, nil, true},
		{"walker2d has no state range", walker2dHealthy, map[int]float64{4: 1e3}, map[int]float64{0: 1e3}, true},
		{"walker2d NaN z", walker2dHealthy, map[int]float64{1: nan}, nil, false},
	}
	for _, c := range cases {
		mk := hopper
		if c.name[0] == 'w' {
			mk = walker
		}
		qpos, qvel := mk(c.q, c.v)
		if got := c.healthy(qpos, qvel); got != c.want {
			t.Errorf("%s: healthy = %v, want %v (qpos %v qvel %v)", c.name, got, c.want, qpos, qvel)
		}
	}
	ip := []struct {
		name string
		obs  []float64
		want bool
	}{
		{"upright", []float64{0, 0, 0, 0}, false},
		{"angle at 0.2", []float64{0, 0.2, 0, 0}, false},
		{"angle at -0.2", []float64{0, -0.2, 0, 0}, false},
		{"angle beyond 0.2", []float64{0, 0.2000001, 0, 0}, true},
		{"angle beyond -0.2", []float64{0, -0.2000001, 0, 0}, true},
		{"large cart position and speeds", []float64{0.99, 0.1, 50, -50}, false},
		{"NaN velocity", []float64{0, 0, 0, nan}, true},
		{"Inf position", []float64{math.Inf(-1), 0, 0, 0}, true},
	}
	for _, c := range ip {
		if got := invertedPendulumDone(c.obs); got != c.want {
			t.Errorf("invertedpendulum %s: terminated = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestTerminatingStep steps each environment from a state that is unhealthy
// after the step: it must terminate and still pay the healthy reward (1),
// and Swimmer never terminates.
func TestTerminatingStep(t *testing.T) {
	cases := []struct {
		name     string
		qpos     map[int]float64
		survive  float64 // the reward beyond x_velocity and the control cost
		finished bool
	}{
		{"hopper", map[int]float64{1: 1.25, 2: 0.5}, 1, true},         // leaning past 0.2
		{"hopper", map[int]float64{1: 0.5}, 1, true},                  // torso below 0.7
		{"walker2d", map[int]float64{1: 1.25, 2: -1.5}, 1, true},      // leaning past -1
		{"walker2d", map[int]float64{1: 2.5}, 1, true},                // torso above 2
		{"walker2d", map[int]float64{1: 1.25, 2: 0.9}, 1, false},      // healthy
		{"invertedpendulum", map[int]float64{1: 0.3}, 1, true},        // pole past 0.2
		{"invertedpendulum", map[int]float64{1: 0.05}, 1, false},      // healthy
		{"swimmer", map[int]float64{2: 3, 3: 1.7, 4: -1.7}, 0, false}, // never
	}
	for _, c := range cases {
		e := newEnv(t, c.name)
		qpos := state(e.Model().Nq(), c.qpos)
		exactStart(t, e, qpos)
		tr, err := e.Step(make([]float64, e.Spec().Action.Dim()))
		if err != nil {
			t.Fatal(err)
		}
		xv, _ := tr.Info.Get("x_velocity") // 0 for InvertedPendulum
		if tr.Terminated != c.finished || !near(tr.Reward, xv+c.survive, 1e-12) {
			t.Errorf("%s from %v: terminated %v reward %.15g, want %v and %.15g",
				c.name, c.qpos, tr.Terminated, tr.Reward, c.finished, xv+c.survive)
		}
	}
}

// TestSuiteControlCost checks the control cost at the action's upper bound
// (spec sheet section 7: Hopper 0.003, Walker2d 0.006, Swimmer 2e-4,
// InvertedPendulum none), and that it is taken on the raw action: twice the
// bound moves the model exactly as the bound and costs 4 times as much.
func TestSuiteControlCost(t *testing.T) {
	cases := []struct {
		name    string
		cost    float64 // at the upper bound
		survive float64
	}{
		{"hopper", 0.003, 1},
		{"walker2d", 0.006, 1},
		{"swimmer", 2e-4, 0},
		{"invertedpendulum", 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, b := newEnv(t, c.name), newEnv(t, c.name)
			s := a.Spec()
			exactStart(t, a, nil)
			exactStart(t, b, nil)
			trA, err := a.Step(s.Action.High)
			if err != nil {
				t.Fatal(err)
			}
			obsA := append([]float64(nil), trA.Obs...)
			xvA, _ := trA.Info.Get("x_velocity")
			costA := xvA + c.survive - trA.Reward
			if !near(costA, c.cost, 1e-12) {
				t.Fatalf("control cost at the upper bound %.15g, want %v", costA, c.cost)
			}
			if r, ok := trA.Info.Get("reward_ctrl"); ok && !near(r, -c.cost, 1e-15) {
				t.Fatalf("reward_ctrl %v, want %v", r, -c.cost)
			}
			twice := make([]float64, s.Action.Dim())
			for i := range twice {
				twice[i] = 2 * s.Action.High[i]
			}
			trB, err := b.Step(twice)
			if err != nil {
				t.Fatal(err)
			}
			nearAll(t, "obs with a clamped action", trB.Obs, obsA, 0)
			xvB, _ := trB.Info.Get("x_velocity")
			if costB := xvB + c.survive - trB.Reward; !near(costB, 4*c.cost, 1e-12) {
				t.Fatalf("cost at twice the bound %.15g, want %v", costB, 4*c.cost)
			}
		})
	}
}

// TestSuiteFirstStep checks the spec sheet's noise-free first step (qpos0,
// qvel 0, zero action): Hopper and Walker2d fall freely, z = 1.25 -
// g h^2 / 2 = 1.24968608 and vz = -0.07848 after 0.008 s, reward 1;
// Swimmer stays at rest with reward exactly 0; InvertedPendulum pays 1.
func TestSuiteFirstStep(t *testing.T) {
	cases := []struct {
		name      string
		z, vz     float64 // qpos[1], qvel[1] after the step
		zObs      int     // where qpos[1] and qvel[1] sit in the observation
		vzObs     int
		reward    float64
		tolReward float64
	}{
		{"hopper", 1.24968608, -0.07848, 0, 6, 1, 1e-12},
		{"walker2d", 1.24968608, -0.07848, 0, 9, 1, 1e-12},
		{"swimmer", 0, 0, -1, -1, 0, 0},
		{"invertedpendulum", math.NaN(), math.NaN(), 1, 3, 1, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, c.name)
			exactStart(t, e, nil)
			tr, err := e.Step(make([]float64, e.Spec().Action.Dim()))
			if err != nil {
				t.Fatal(err)
			}
			if tr.Terminated || !near(tr.Reward, c.reward, c.tolReward) {
				t.Fatalf("reward %.17g terminated %v, want %v, false", tr.Reward, tr.Terminated, c.reward)
			}
			q, v := e.Data().Qpos(), e.Data().Qvel()
			if !math.IsNaN(c.z) {
				if !near(q[1], c.z, 1e-12) || !near(v[1], c.vz, 1e-12) {
					t.Fatalf("z %.17g vz %.17g, want %v, %v", q[1], v[1], c.z, c.vz)
				}
				for i := range q {
					if i != 1 && (math.Abs(q[i]) > 1e-15 || math.Abs(v[i]) > 1e-15) {
						t.Fatalf("qpos %v qvel %v: only rootz should move", q, v)
					}
				}
			}
			if c.zObs >= 0 && (tr.Obs[c.zObs] != q[1] || tr.Obs[c.vzObs] != v[1]) {
				t.Fatalf("obs %v does not hold qpos[1] at %d and qvel[1] at %d", tr.Obs, c.zObs, c.vzObs)
			}
			if c.name == "swimmer" {
				nearAll(t, "swimmer obs", tr.Obs, make([]float64, 8), 0)
				nearAll(t, "swimmer qpos", q, make([]float64, 5), 0)
			}
		})
	}
}

// TestSuiteObservation checks what each observation holds after a Reset
// from a set state: Hopper and Walker2d clip qvel to [-10, 10] (health
// uses the raw value), Swimmer and InvertedPendulum copy it unclipped.
func TestSuiteObservation(t *testing.T) {
	cases := []struct {
		name    string
		from    int // first qpos index in the observation
		clipped float64
	}{
		{"hopper", 1, 10},
		{"walker2d", 1, 10},
		{"swimmer", 2, math.Inf(1)},
		{"invertedpendulum", 0, math.Inf(1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, c.name)
			obs, err := e.Reset(2) // the env's own buffer, refilled by observe
			if err != nil {
				t.Fatal(err)
			}
			nq, nv := e.Model().Nq(), e.Model().Nv()
			qpos := append([]float64(nil), e.Data().Qpos()...)
			qvel := state(nv, map[int]float64{0: 50, nv - 1: -12, 1: 9.5})
			if err := e.SetState(qpos, qvel); err != nil {
				t.Fatal(err)
			}
			e.(interface{ observe() }).observe()
			if len(obs) != e.Spec().Observation.Dim() || len(obs) != nq-c.from+nv {
				t.Fatalf("obs has %d values", len(obs))
			}
			nearAll(t, "obs qpos", obs[:nq-c.from], qpos[c.from:], 0)
			want := make([]float64, nv)
			for i := range want {
				want[i] = clip(qvel[i], -c.clipped, c.clipped)
			}
			nearAll(t, "obs qvel", obs[nq-c.from:], want, 0)
		})
	}
}

// TestSuiteResetDraws checks the number, order and scale of the reset
// draws: qpos = qpos0 + U(-s, s) for nq draws, then qvel = U(-s, s) for nv,
// bit for bit, and a second NoSeed reset continuing right after them.
func TestSuiteResetDraws(t *testing.T) {
	cases := []struct {
		name  string
		scale float64
	}{
		{"hopper", 5e-3},
		{"walker2d", 5e-3},
		{"swimmer", 0.1},
		{"invertedpendulum", 0.01},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, c.name)
			g := rng.New(17)
			for episode := 0; episode < 2; episode++ {
				seed := int64(17)
				if episode > 0 {
					seed = envs.NoSeed
				}
				if _, err := e.Reset(seed); err != nil {
					t.Fatal(err)
				}
				q0 := e.Model().Qpos0()
				wantQ := make([]float64, len(q0))
				for i := range wantQ {
					wantQ[i] = q0[i] + g.Uniform(-c.scale, c.scale)
				}
				wantV := make([]float64, e.Model().Nv())
				for i := range wantV {
					wantV[i] = g.Uniform(-c.scale, c.scale)
				}
				nearAll(t, "qpos", e.Data().Qpos(), wantQ, 0)
				nearAll(t, "qvel", e.Data().Qvel(), wantV, 0)
			}
		})
	}
}

// TestSuiteInfo checks each environment's info against its state and
// reward over a seeded rollout with varied actions: the keys in
// Gymnasium's order, positions equal to qpos after the step, velocities
// equal to the position change over dt, and the reward equal to the sum of
// its terms.
func TestSuiteInfo(t *testing.T) {
	cases := []struct {
		name  string
		keys  []string
		ctrl  float64 // control cost weight
		alive float64
	}{
		{"hopper", []string{"x_position", "x_velocity", InfoUnstable}, 1e-3, 1},
		{"walker2d", []string{"x_position", "x_velocity", InfoUnstable}, 1e-3, 1},
		{"swimmer", []string{"reward_fwd", "reward_ctrl", "x_position", "y_position",
			"distance_from_origin", "x_velocity", "y_velocity", "forward_reward", InfoUnstable}, 1e-4, 0},
		{"invertedpendulum", []string{InfoUnstable}, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, c.name)
			if _, err := e.Reset(6); err != nil {
				t.Fatal(err)
			}
			n := e.Spec().Action.Dim()
			for k := 0; k < 30; k++ {
				before := append([]float64(nil), e.Data().Qpos()...)
				a := make([]float64, n)
				for i := range a {
					a[i] = e.Spec().Action.High[i] * math.Sin(float64(5*k+i))
				}
				tr, err := e.Step(a)
				if err != nil {
					t.Fatal(err)
				}
				if tr.Terminated {
					break
				}
				if len(tr.Info.Keys) != len(c.keys) {
					t.Fatalf("info keys %v, want %v", tr.Info.Keys, c.keys)
				}
				for i, key := range c.keys {
					if tr.Info.Keys[i] != key {
						t.Fatalf("info keys %v, want %v", tr.Info.Keys, c.keys)
					}
				}
				q, dt := e.Data().Qpos(), e.Dt()
				get := func(key string) float64 { v, _ := tr.Info.Get(key); return v }
				xv := (q[0] - before[0]) / dt
				if c.name == "invertedpendulum" {
					xv = 0
				} else if get("x_position") != q[0] || get("x_velocity") != xv {
					t.Fatalf("step %d: x_position %v x_velocity %v, want %v, %v", k, get("x_position"), get("x_velocity"), q[0], xv)
				}
				if want := xv + c.alive - c.ctrl*sumSquares(a); tr.Reward != want {
					t.Fatalf("step %d: reward %.17g, want %.17g", k, tr.Reward, want)
				}
				if c.name == "swimmer" {
					if get("reward_fwd") != xv || get("forward_reward") != xv || get("reward_ctrl") != -c.ctrl*sumSquares(a) ||
						get("y_position") != q[1] || get("y_velocity") != (q[1]-before[1])/dt ||
						!near(get("distance_from_origin"), math.Hypot(q[0], q[1]), 1e-15) {
						t.Fatalf("step %d: info %v %v for qpos %v", k, tr.Info.Keys, tr.Info.Values, q)
					}
				}
			}
		})
	}
}
