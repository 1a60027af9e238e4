package mujoco

import (
	"math"
	"testing"

	"github.com/hyperctl/hyperctl/envs/rng"
)

// TestAntHealthy checks Ant-v4's healthy range on hand-set states: the
// torso height bounds 0.2 and 1.0 are healthy (inclusive), a hair outside
// is not, and a non-finite qpos or qvel entry is unhealthy.
func TestAntHealthy(t *testing.T) {
	cases := []struct {
		name    string
		z       float64
		nanQvel int // index of a NaN qvel entry, or -1
		nanQpos int // index of an Inf qpos entry, or -1
		want    bool
	}{
		{"standing", 0.55, -1, -1, true},
		{"low bound", 0.2, -1, -1, true},
		{"below", math.Nextafter(0.2, 0), -1, -1, false},
		{"high bound", 1.0, -1, -1, true},
		{"above", math.Nextafter(1.0, 2), -1, -1, false},
		{"nan qvel", 0.55, 9, -1, false},
		{"inf joint angle", 0.55, -1, 11, false},
	}
	e := newEnv(t, "ant").(*Ant)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			exactStart(t, e, nil)
			e.data.qpos[2] = c.z
			if c.nanQvel >= 0 {
				e.data.qvel[c.nanQvel] = math.NaN()
			}
			if c.nanQpos >= 0 {
				e.data.qpos[c.nanQpos] = math.Inf(1)
			}
			if got := e.healthy(); got != c.want {
				t.Fatalf("healthy at z %.17g = %v, want %v", c.z, got, c.want)
			}
		})
	}
}

// TestAntReward checks Ant-v4's reward terms over seeded rollouts that end
// by termination: reward = x_velocity + 1 - 0.5 sum(a^2), the healthy
// reward paid on the terminating step too (a random-action episode ends
// at step 10 by jumping above z = 1.0), the velocity from the torso's
// xpos read before and after the step as mjData holds it (stale after a
// step: only the first step after a reset starts from a fresh position),
// and the info keys.
func TestAntReward(t *testing.T) {
	cases := []struct {
		name  string
		seed  int64
		scale float64 // actions are scale × sin(...)
		kick  float64 // initial upward velocity, to end by jumping
		end   bool    // the episode must end within 300 steps
	}{
		{"random actions", 3, 1, 0, true},
		{"gentle actions", 3, 0.3, 0, false},
		{"jumps above 1.0", 4, 0.2, 6, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, "ant").(*Ant)
			if _, err := e.Reset(c.seed); err != nil {
				t.Fatal(err)
			}
			if c.kick != 0 {
				qvel := append([]float64(nil), e.data.qvel...)
				qvel[2] = c.kick
				if err := e.SetState(e.data.qpos, qvel); err != nil {
					t.Fatal(err)
				}
			}
			torso := e.data.Xpos(e.torso)
			// Fresh after the reset: the torso origin is the root's position.
			if torso[0] != e.data.qpos[0] || torso[1] != e.data.qpos[1] {
				t.Fatalf("torso xpos %v after reset, qpos %v: want equal", torso, e.data.qpos[:3])
			}
			xBefore, yBefore := torso[0], torso[1]
			terminated, steps := false, 0
			for k := 0; k < 300 && !terminated; k++ {
				steps++
				a := make([]float64, 8)
				for i := range a {
					a[i] = c.scale * math.Sin(float64(5*k+i))
				}
				tr, err := e.Step(a)
				if err != nil {
					t.Fatal(err)
				}
				xAfter, yAfter := torso[0], torso[1]
				xv, yv := (xAfter-xBefore)/0.05, (yAfter-yBefore)/0.05
				ctrl := 0.5 * sumSquares(a)
				if want := xv + 1 - ctrl; tr.Reward != want {
					t.Fatalf("step %d reward %.17g, want %.17g", k, tr.Reward, want)
				}
				if e.data.qpos[0] == xAfter && e.data.qpos[2] == torso[2] {
					t.Fatalf("step %d: torso xpos equals the final qpos, want the stale last RK4 stage", k)
				}
				z := e.data.qpos[2]
				if tr.Terminated != (z < 0.2 || z > 1) {
					t.Fatalf("step %d z %v terminated %v", k, z, tr.Terminated)
				}
				want := map[string]float64{"reward_forward": xv, "forward_reward": xv, "x_velocity": xv,
					"y_velocity": yv, "reward_ctrl": -ctrl, "reward_survive": 1, "x_position": xAfter,
					"y_position": yAfter, "distance_from_origin": math.Sqrt(xAfter*xAfter + yAfter*yAfter),
					InfoUnstable: 0}
				checkInfo(t, k, tr.Info, want)
				xBefore, yBefore = xAfter, yAfter
				terminated = tr.Terminated
			}
			if terminated != c.end {
				t.Fatalf("terminated %v after %d steps at z %.4g, want %v", terminated, steps, e.data.qpos[2], c.end)
			}
			if c.kick != 0 && e.data.qpos[2] <= 1 {
				t.Fatalf("ended at z %v, want a jump above 1.0", e.data.qpos[2])
			}
		})
	}
}

// TestAntZeroActionFromQpos0 checks the fact sheet's computed values: one
// zero-action step from qpos0 (the four active ankle limits kick the legs)
// ends with the torso at z 0.7722844771 while its stale xpos says
// 0.7722796297, and reward = x_velocity + 1.
func TestAntZeroActionFromQpos0(t *testing.T) {
	e := newEnv(t, "ant").(*Ant)
	exactStart(t, e, nil)
	tr, err := e.Step(make([]float64, 8))
	if err != nil {
		t.Fatal(err)
	}
	if z := e.data.qpos[2]; !near(z, 0.7722844771, 1e-10) {
		t.Fatalf("qpos z %.12g, want 0.7722844771", z)
	}
	if z := e.data.Xpos(e.torso)[2]; !near(z, 0.7722796297, 1e-10) {
		t.Fatalf("torso xpos z %.12g, want 0.7722796297", z)
	}
	xv, _ := tr.Info.Get("x_velocity")
	if tr.Reward != xv+1 || tr.Terminated {
		t.Fatalf("reward %v, x_velocity %v, terminated %v", tr.Reward, xv, tr.Terminated)
	}
}

// TestAntReset checks the reset draws (15 uniform for qpos, then 14
// standard normal for qvel, from the seeded generator), the quaternion
// renormalised in place by mj_forward, and the observation layout.
func TestAntReset(t *testing.T) {
	for _, seed := range []int64{0, 1, 77} {
		e := newEnv(t, "ant").(*Ant)
		obs, err := e.Reset(seed)
		if err != nil {
			t.Fatal(err)
		}
		g := rng.New(uint64(seed))
		q0 := e.Model().Qpos0()
		qpos := make([]float64, 15)
		for i := range qpos {
			qpos[i] = q0[i] + g.Uniform(-0.1, 0.1)
		}
		qvel := make([]float64, 14)
		for i := range qvel {
			qvel[i] = 0.1 * g.StandardNormal()
		}
		unitQuat(qpos)
		nearAll(t, "qpos", e.data.qpos, qpos, 1e-15)
		nearAll(t, "qvel", e.data.qvel, qvel, 0)
		nearAll(t, "obs", obs, append(append([]float64(nil), e.data.qpos[2:]...), e.data.qvel...), 0)
	}
	// The fact sheet's renormalisation example.
	e := newEnv(t, "ant")
	exactStart(t, e, nil)
	qpos := e.Model().Qpos0()
	copy(qpos[3:7], []float64{1.05, 0.02, 0, 0})
	if err := e.SetState(qpos, make([]float64, 14)); err != nil {
		t.Fatal(err)
	}
	nearAll(t, "renormalised quaternion", e.Data().Qpos()[3:7], []float64{0.999819, 0.019044, 0, 0}, 1e-6)
}

// TestAntContactForces checks use_contact_forces (not the default): 111
// observation entries, the world's six always 0, every entry in [-1, 1],
// and the contact cost 5e-4 sum(clip(cfrc_ext)^2) subtracted from the
// reward and reported as reward_ctrl.
func TestAntContactForces(t *testing.T) {
	e, err := NewAntWith(true)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Reset(2); err != nil {
		t.Fatal(err)
	}
	touched := false
	for k := 0; k < 40; k++ {
		a := make([]float64, 8)
		for i := range a {
			a[i] = math.Sin(float64(3*k + i))
		}
		xBefore := e.data.Xpos(e.torso)[0]
		tr, err := e.Step(a)
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Obs) != 111 {
			t.Fatalf("observation of %d entries, want 111", len(tr.Obs))
		}
		contact := 0.0
		for i, f := range e.data.CfrcExt() {
			c := clip(f, -1, 1)
			if tr.Obs[27+i] != c {
				t.Fatalf("step %d obs[%d] = %v, want clip(cfrc_ext) %v", k, 27+i, tr.Obs[27+i], c)
			}
			if i < 6 && c != 0 {
				t.Fatalf("step %d: the world's cfrc_ext %v, want 0", k, tr.Obs[27:33])
			}
			touched = touched || c != 0
			contact += c * c
		}
		contactCost := 5e-4 * contact
		xv := (e.data.Xpos(e.torso)[0] - xBefore) / 0.05
		want := xv + 1 - (0.5*sumSquares(a) + contactCost)
		if !near(tr.Reward, want, 1e-12) {
			t.Fatalf("step %d reward %.17g, want %.17g", k, tr.Reward, want)
		}
		if rc, _ := tr.Info.Get("reward_ctrl"); !near(rc, -contactCost, 1e-15) {
			t.Fatalf("step %d reward_ctrl %v, want -contact_cost %v", k, rc, -contactCost)
		}
		if tr.Terminated {
			break
		}
	}
	if !touched {
		t.Fatal("cfrc_ext stayed 0: the forces were never computed")
	}
}
