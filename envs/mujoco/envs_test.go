package mujoco

import (
	"errors"
	"math"
	"testing"

	"github.com/hyperctl/hyperctl/envs"
)

// mjEnv is what every environment of this package offers.
type mjEnv interface {
	envs.Env
	SetState(qpos, qvel []float64) error
	Data() *Data
	Model() *Model
	Dt() float64
	Instabilities() (int, error)
}

var constructors = []struct {
	name string
	make func() (mjEnv, error)
}{
	{"ant", func() (mjEnv, error) { return NewAnt() }},
	{"halfcheetah", func() (mjEnv, error) { return NewHalfCheetah() }},
	{"humanoid", func() (mjEnv, error) { return NewHumanoid() }},
	{"inverteddoublependulum", func() (mjEnv, error) { return NewInvertedDoublePendulum() }},
	{"pusher", func() (mjEnv, error) { return NewPusher() }},
	{"reacher", func() (mjEnv, error) { return NewReacher() }},
	{"hopper", func() (mjEnv, error) { return NewHopper() }},
	{"walker2d", func() (mjEnv, error) { return NewWalker2d() }},
	{"swimmer", func() (mjEnv, error) { return NewSwimmer() }},
	{"invertedpendulum", func() (mjEnv, error) { return NewInvertedPendulum() }},
}

func newEnv(t testing.TB, name string) mjEnv {
	t.Helper()
	for _, c := range constructors {
		if c.name == name {
			e, err := c.make()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { e.Close() })
			return e
		}
	}
	t.Fatalf("no env %q", name)
	return nil
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func nearAll(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s has %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !near(got[i], want[i], tol) {
			t.Fatalf("%s[%d] = %.12g, want %.12g (tol %g)\n got  %v\n want %v", what, i, got[i], want[i], tol, got, want)
		}
	}
}

// checkInfo checks that info holds exactly want's keys, with its values.
func checkInfo(t *testing.T, step int, info envs.Info, want map[string]float64) {
	t.Helper()
	if len(info.Keys) != len(want) {
		t.Fatalf("step %d info keys %v, want %d", step, info.Keys, len(want))
	}
	for key, v := range want {
		if got, ok := info.Get(key); !ok || got != v {
			t.Fatalf("step %d info %s = %v, want %v", step, key, got, v)
		}
	}
}

// unitQuat is q[3:7] renormalised, as mj_forward leaves a free joint's
// quaternion in qpos.
func unitQuat(q []float64) {
	n := math.Sqrt(q[3]*q[3] + q[4]*q[4] + q[5]*q[5] + q[6]*q[6])
	for i := 3; i < 7; i++ {
		q[i] /= n
	}
}

func ones(n int, v float64) []float64 {
	a := make([]float64, n)
	for i := range a {
		a[i] = v
	}
	return a
}

// TestStaticFigures checks the fact sheet's static table: sizes, action
// bounds (and that they equal the model's ctrlrange), dt, time limits,
// reward thresholds, model sizes, and lookup by short name, alias and id.
func TestStaticFigures(t *testing.T) {
	cases := []struct {
		name, id, alias string
		obs, act        int
		lo, hi          float64
		timestep        float64
		frameSkip       int
		dt              float64
		maxSteps        int
		threshold       float64
		nq, nv, nu      int
		integrator      Integrator
	}{
		{"ant", "Ant-v4", "", 27, 8, -1, 1, 0.01, 5, 0.05, 1000, 6000, 15, 14, 8, RK4},
		{"halfcheetah", "HalfCheetah-v4", "", 17, 6, -1, 1, 0.01, 5, 0.05, 1000, 4800, 9, 9, 6, Euler},
		{"humanoid", "Humanoid-v4", "", 376, 17, -0.4, 0.4, 0.003, 5, 0.015, 1000, 0, 24, 23, 17, RK4},
		{"inverteddoublependulum", "InvertedDoublePendulum-v4", "idp", 11, 1, -1, 1, 0.01, 5, 0.05, 1000, 9100, 3, 3, 1, RK4},
		{"pusher", "Pusher-v4", "", 23, 7, -2, 2, 0.01, 5, 0.05, 100, 0, 11, 11, 7, Euler},
		{"reacher", "Reacher-v4", "", 11, 2, -1, 1, 0.01, 2, 0.02, 50, -3.75, 4, 4, 2, RK4},
		{"hopper", "Hopper-v4", "", 11, 3, -1, 1, 0.002, 4, 0.008, 1000, 3800, 6, 6, 3, RK4},
		{"walker2d", "Walker2d-v4", "", 17, 6, -1, 1, 0.002, 4, 0.008, 1000, 0, 9, 9, 6, RK4},
		{"swimmer", "Swimmer-v4", "", 8, 2, -1, 1, 0.01, 4, 0.04, 1000, 360, 5, 5, 2, RK4},
		{"invertedpendulum", "InvertedPendulum-v4", "", 4, 1, -3, 3, 0.02, 2, 0.04, 1000, 950, 2, 2, 1, RK4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, n := range []string{c.name, c.id, c.alias} {
				if n == "" {
					continue
				}
				spec, err := envs.Lookup(n)
				if err != nil {
					t.Fatalf("Lookup(%q): %v", n, err)
				}
				if spec.ID != c.id || spec.Name != c.name {
					t.Fatalf("Lookup(%q) = %s/%s", n, spec.ID, spec.Name)
				}
			}
			e := newEnv(t, c.name)
			s := e.Spec()
			if s.Observation.Dim() != c.obs || s.Action.Dim() != c.act || s.MaxEpisodeSteps != c.maxSteps || s.RewardThreshold != c.threshold {
				t.Fatalf("spec %+v", s)
			}
			for i := range s.Observation.Low {
				if !math.IsInf(s.Observation.Low[i], -1) || !math.IsInf(s.Observation.High[i], 1) {
					t.Fatalf("observation bounds [%v, %v] at %d, want ±Inf", s.Observation.Low[i], s.Observation.High[i], i)
				}
			}
			m := e.Model()
			for i := 0; i < c.act; i++ {
				a, _ := m.Actuator(i)
				if s.Action.Low[i] != c.lo || s.Action.High[i] != c.hi || a.CtrlRange != [2]float64{c.lo, c.hi} {
					t.Fatalf("action %d bounds [%v, %v], ctrlrange %v, want [%v, %v]", i, s.Action.Low[i], s.Action.High[i], a.CtrlRange, c.lo, c.hi)
				}
			}
			if m.Nq() != c.nq || m.Nv() != c.nv || m.Nu() != c.nu || m.Timestep() != c.timestep || m.Integrator() != c.integrator {
				t.Fatalf("model nq/nv/nu %d/%d/%d, timestep %v, %v", m.Nq(), m.Nv(), m.Nu(), m.Timestep(), m.Integrator())
			}
			if e.Dt() != c.timestep*float64(c.frameSkip) || !near(e.Dt(), c.dt, 1e-15) {
				t.Fatalf("dt %v, want %v", e.Dt(), c.dt)
			}
			made, err := envs.Make(c.id)
			if err != nil {
				t.Fatal(err)
			}
			made.Close()
		})
	}
}

// TestModelFigures checks total and per-body masses and the starting
// positions of the fact sheet.
func TestModelFigures(t *testing.T) {
	masses := map[string]struct {
		total  float64
		bodies map[string]float64
	}{
		"ant":      {0.91088008, nil},
		"humanoid": {42.11603, nil},
		"halfcheetah": {14, map[string]float64{"torso": 6.2502092, "bthigh": 1.5435146, "bshin": 1.5874477,
			"bfoot": 1.0953975, "fthigh": 1.4380753, "fshin": 1.2008368, "ffoot": 0.88451883}},
		"inverteddoublependulum": {18.869453, map[string]float64{"cart": 10.471976, "pole": 4.1987386, "pole2": 4.1987386}},
		"pusher": {13.672997, map[string]float64{"r_shoulder_pan_link": 7.2935215, "r_shoulder_lift_link": 3.1415927,
			"r_upper_arm_roll_link": 0.08545132, "r_upper_arm_link": 1.6286016, "r_elbow_flex_link": 0.40715041,
			"r_forearm_roll_link": 0.08545132, "r_forearm_link": 0.84273223, "r_wrist_flex_link": 0.0050265482,
			"r_wrist_roll_link": 0.18095574, "tips_arm": 0.0025132741, "object": 1.3089969e-8, "goal": 4.0212386e-10}},
		"reacher": {0.078451852, map[string]float64{"body0": 0.035604717, "body1": 0.035604717,
			"fingertip": 0.0041887902, "target": 0.0030536281}},
		// The suite's totals (spec sheet section 7); InvertedPendulum's
		// cart and pole to the sheet's digits below.
		"hopper":           {15.820013, nil},
		"walker2d":         {23.677137, nil},
		"swimmer":          {106.81415, nil},
		"invertedpendulum": {15.490567, nil},
	}
	for name, want := range masses {
		e := newEnv(t, name)
		m := e.Model()
		if got := m.TotalMass(); math.Abs(got-want.total) > 1e-7*want.total {
			t.Errorf("%s total mass %.10g, want %.10g", name, got, want.total)
		}
		for body, mass := range want.bodies {
			id, err := m.BodyID(body)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := m.Body(id)
			if math.Abs(b.Mass-mass) > 1e-7*mass {
				t.Errorf("%s body %s mass %.10g, want %.10g", name, body, b.Mass, mass)
			}
		}
	}

	// Starting positions at qpos = qpos0, qvel = 0 (after Reset, SetState).
	start := func(name string) mjEnv {
		e := newEnv(t, name)
		if _, err := e.Reset(0); err != nil {
			t.Fatal(err)
		}
		if err := e.SetState(e.Model().Qpos0(), make([]float64, e.Model().Nv())); err != nil {
			t.Fatal(err)
		}
		return e
	}
	body := func(e mjEnv, name string) []float64 {
		id, err := e.Model().BodyID(name)
		if err != nil {
			t.Fatal(err)
		}
		return e.Data().Xpos(id)
	}
	p := start("pusher")
	nearAll(t, "pusher tips_arm", body(p, "tips_arm"), []float64{0.821, -0.6, 0}, 1e-12)
	nearAll(t, "pusher goal", body(p, "goal"), []float64{0.45, -0.05, -0.323}, 1e-12)
	if n := p.Data().NCon(); n != 3 {
		t.Errorf("pusher starts with %d contacts, want 3 (object on the table)", n)
	}
	r := start("reacher")
	nearAll(t, "reacher qpos0", r.Model().Qpos0(), []float64{0, 0, 0.1, -0.1}, 0)
	nearAll(t, "reacher fingertip", body(r, "fingertip"), []float64{0.21, 0, 0.01}, 1e-12)
	nearAll(t, "reacher target", body(r, "target"), []float64{0.1, -0.1, 0.01}, 1e-12)
	idp := start("inverteddoublependulum")
	nearAll(t, "idp tip", idp.Data().SiteXpos(0), []float64{0, 0, 1.2}, 1e-12)
	hc := start("halfcheetah")
	nearAll(t, "halfcheetah torso", body(hc, "torso"), []float64{0, 0, 0.7}, 1e-12)
	if n := hc.Data().NCon(); n != 0 {
		t.Errorf("halfcheetah starts with %d contacts, want 0", n)
	}
}

// exactStart resets env and puts it at qpos, qvel = 0 (qpos0 when nil).
func exactStart(t *testing.T, e mjEnv, qpos []float64) {
	t.Helper()
	if _, err := e.Reset(0); err != nil {
		t.Fatal(err)
	}
	if qpos == nil {
		qpos = e.Model().Qpos0()
	}
	if err := e.SetState(qpos, make([]float64, e.Model().Nv())); err != nil {
		t.Fatal(err)
	}
}

// TestZeroActionFromExactStart checks the fact sheet's hand-derivable
// values: one zero-action step from qpos0 with zero velocity.
func TestZeroActionFromExactStart(t *testing.T) {
	t.Run("halfcheetah free fall", func(t *testing.T) {
		e := newEnv(t, "halfcheetah")
		exactStart(t, e, nil)
		tr, err := e.Step(make([]float64, 6))
		if err != nil {
			t.Fatal(err)
		}
		q, v := e.Data().Qpos(), e.Data().Qvel()
		// Semi-implicit Euler: z = -g h^2 (1+2+3+4+5), vz = -5 g h.
		if !near(q[1], -0.014715, 1e-15) || !near(v[1], -0.4905, 1e-15) {
			t.Fatalf("z %.17g, vz %.17g; want -0.014715, -0.4905", q[1], v[1])
		}
		for i := range q {
			if i != 1 && (math.Abs(q[i]) > 1e-15 || math.Abs(v[i]) > 1e-15) {
				t.Fatalf("qpos %v qvel %v: only rootz should move", q, v)
			}
		}
		if math.Abs(tr.Reward) > 1e-15 || tr.Terminated || tr.Truncated {
			t.Fatalf("reward %v terminated %v, want ≈0, false", tr.Reward, tr.Terminated)
		}
		nearAll(t, "obs", tr.Obs[:1], []float64{-0.014715}, 1e-15)
		nearAll(t, "obs vz", tr.Obs[9:10], []float64{-0.4905}, 1e-15)
		// Stale kinematics: xpos is from the forward pass inside the last
		// substep, one substep (z = -0.00981) before the final qpos.
		torso, _ := e.Model().BodyID("torso")
		if z := e.Data().Xpos(torso)[2]; !near(z, 0.7-0.00981, 1e-15) {
			t.Fatalf("torso xpos z %.17g after the step, want the stale 0.69019", z)
		}
	})
	t.Run("inverteddoublependulum", func(t *testing.T) {
		e := newEnv(t, "inverteddoublependulum")
		exactStart(t, e, nil)
		tr, err := e.Step([]float64{0})
		if err != nil {
			t.Fatal(err)
		}
		if !near(tr.Reward, 9.36, 1e-12) || tr.Terminated {
			t.Fatalf("reward %.17g terminated %v, want 9.36, false", tr.Reward, tr.Terminated)
		}
		if x := e.Data().Qpos()[0]; x <= 0 || x > 2e-8 {
			t.Fatalf("cart x %.3g, want a drift of about 1.25e-8 from gravity's x component", x)
		}
		nearAll(t, "obs", tr.Obs[1:5], []float64{0, 0, 1, 1}, 1e-9)
	})
	t.Run("reacher", func(t *testing.T) {
		e := newEnv(t, "reacher")
		exactStart(t, e, nil)
		want := []float64{1, 1, 0, 0, 0.1, -0.1, 0, 0, 0.11, 0.1, 0}
		tr, err := e.Step([]float64{0, 0})
		if err != nil {
			t.Fatal(err)
		}
		if !near(tr.Reward, -0.14866068747318506, 1e-15) {
			t.Fatalf("reward %.17g, want -0.14866068747318506", tr.Reward)
		}
		nearAll(t, "obs after the step", tr.Obs, want, 1e-15)
		if tr.Obs[10] != 0 {
			t.Fatalf("obs[10] = %v, want exactly 0", tr.Obs[10])
		}
		if d, _ := tr.Info.Get("reward_dist"); d != tr.Reward {
			t.Fatalf("reward_dist %v, reward %v", d, tr.Reward)
		}
	})
	t.Run("pusher", func(t *testing.T) {
		e := newEnv(t, "pusher")
		exactStart(t, e, nil)
		tr, err := e.Step(make([]float64, 7))
		if err != nil {
			t.Fatal(err)
		}
		if !near(tr.Reward, -0.4070842519521011, 1e-15) {
			t.Fatalf("reward at object offset 0 = %.17g, want -0.4070842519521011", tr.Reward)
		}
		qpos := make([]float64, 11)
		qpos[7], qpos[8] = -0.2, 0.1 // c0 moves the object along y, c1 along x
		exactStart(t, e, qpos)
		obj, _ := e.Model().BodyID("object")
		nearAll(t, "object", e.Data().Xpos(obj), []float64{0.55, -0.25, -0.275}, 1e-15)
		tr, err = e.Step(make([]float64, 7))
		if err != nil {
			t.Fatal(err)
		}
		if !near(tr.Reward, -0.48926065164512772, 1e-15) {
			t.Fatalf("reward at c0 = -0.2, c1 = 0.1: %.17g, want -0.48926065164512772", tr.Reward)
		}
	})
}

// TestControlCost checks the control terms with an all-ones action, and that
// the cost uses the raw action while the physics clamps it to ctrlrange: an
// action of twice the bound moves the model exactly like the bound.
func TestControlCost(t *testing.T) {
	cases := []struct {
		name   string
		key    string
		scale  float64 // Info value per unit of sum(a^2)
		reward float64 // weight of sum(a^2) in the reward
		bound  float64
	}{
		{"ant", "reward_ctrl", -0.5, -0.5, 1},
		{"halfcheetah", "reward_ctrl", -0.1, -0.1, 1},
		{"humanoid", "reward_quadctrl", -0.1, -0.1, 0.4},
		{"pusher", "reward_ctrl", -1, -0.1, 2},
		{"reacher", "reward_ctrl", -1, -1, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, b := newEnv(t, c.name), newEnv(t, c.name)
			n := a.Spec().Action.Dim()
			exactStart(t, a, nil)
			exactStart(t, b, nil)
			trA, err := a.Step(ones(n, 1))
			if err != nil {
				t.Fatal(err)
			}
			got, ok := trA.Info.Get(c.key)
			if !ok || !near(got, c.scale*float64(n), 1e-12) {
				t.Fatalf("%s with all ones = %v, want %v", c.key, got, c.scale*float64(n))
			}
			// Twice the bound in b, the bound in a: same physics, 4x cost.
			exactStart(t, a, nil)
			trA, _ = a.Step(ones(n, c.bound))
			costA, _ := trA.Info.Get(c.key)
			obsA := append([]float64(nil), trA.Obs...)
			trB, err := b.Step(ones(n, 2*c.bound))
			if err != nil {
				t.Fatal(err)
			}
			costB, _ := trB.Info.Get(c.key)
			nearAll(t, "obs with a clamped action", trB.Obs, obsA, 0)
			if !near(costB, 4*costA, 1e-12) || !near(trB.Reward-trA.Reward, 3*c.reward*float64(n)*c.bound*c.bound, 1e-12) {
				t.Fatalf("cost %v vs %v, rewards %v vs %v: the cost must use the raw action", costB, costA, trB.Reward, trA.Reward)
			}
		})
	}
	// HalfCheetah's reward is forward - ctrl_cost and its info adds up.
	e := newEnv(t, "halfcheetah")
	exactStart(t, e, nil)
	tr, _ := e.Step([]float64{0.5, -0.3, 0.2, 1, -1, 0.7})
	run, _ := tr.Info.Get("reward_run")
	ctrl, _ := tr.Info.Get("reward_ctrl")
	xv, _ := tr.Info.Get("x_velocity")
	xp, _ := tr.Info.Get("x_position")
	if tr.Reward != run+ctrl || run != xv || xp != e.Data().Qpos()[0] || !near(xv, xp/0.05, 1e-12) {
		t.Fatalf("reward %v, info %v %v", tr.Reward, tr.Info.Keys, tr.Info.Values)
	}
	if !near(ctrl, -0.1*(0.25+0.09+0.04+1+1+0.49), 1e-15) {
		t.Fatalf("reward_ctrl %v", ctrl)
	}
}

// TestSeedZero checks the fact sheet's seed-0 values (NumPy-compatible
// random numbers through envs/rng): reset states and first zero-action
// rewards.
func TestSeedZero(t *testing.T) {
	t.Run("halfcheetah", func(t *testing.T) {
		e := newEnv(t, "halfcheetah")
		obs, err := e.Reset(0)
		if err != nil {
			t.Fatal(err)
		}
		qpos := []float64{0.027392337, -0.046042657, -0.091805295, -0.096694473, 0.062654048, 0.082551115, 0.021327155, 0.045899312, 0.008724998}
		nearAll(t, "qpos", e.Data().Qpos(), qpos, 1e-9)
		nearAll(t, "qvel[0:3]", e.Data().Qvel()[:3], []float64{-0.126542147, -0.062327446, 0.004132598}, 1e-9)
		nearAll(t, "obs[0:8]", obs[:8], qpos[1:], 1e-9)
		nearAll(t, "obs[8:17]", obs[8:], e.Data().Qvel(), 0)
		tr, err := e.Step(make([]float64, 6))
		if err != nil {
			t.Fatal(err)
		}
		if !near(tr.Reward, -0.005138017418, 1e-12) {
			t.Fatalf("first reward %.13g, want -0.005138017418", tr.Reward)
		}
	})
	t.Run("inverteddoublependulum", func(t *testing.T) {
		e := newEnv(t, "inverteddoublependulum")
		obs, err := e.Reset(0)
		if err != nil {
			t.Fatal(err)
		}
		nearAll(t, "obs", obs, []float64{0.027392337, -0.046026391, -0.091676390, 0.998940224, 0.995788853,
			0.010490012, -0.053566937, 0.036159505, 0, 0, 0}, 1e-9)
		for i, want := range []float64{9.348681623, 9.345468287} {
			tr, err := e.Step([]float64{0})
			if err != nil {
				t.Fatal(err)
			}
			if !near(tr.Reward, want, 1e-9) || tr.Terminated {
				t.Fatalf("step %d reward %.10g terminated %v, want %.10g", i+1, tr.Reward, tr.Terminated, want)
			}
		}
	})
	t.Run("reacher", func(t *testing.T) {
		e := newEnv(t, "reacher")
		obs, err := e.Reset(0)
		if err != nil {
			t.Fatal(err)
		}
		nearAll(t, "obs", obs, []float64{0.999624853, 0.998940224, 0.027388912, -0.046026391, 0.042654310,
			0.091798624, 0.000436250, 0.004350724, 0.167289045, -0.091111149, 0}, 1e-9)
		tgt, _ := e.Model().BodyID("target")
		nearAll(t, "target", e.Data().Xpos(tgt), []float64{0.042654310, 0.091798624, 0.01}, 1e-9)
		tr, err := e.Step([]float64{0, 0})
		if err != nil {
			t.Fatal(err)
		}
		if !near(tr.Reward, -0.190491118, 1e-9) {
			t.Fatalf("first reward %.10g, want -0.190491118", tr.Reward)
		}
	})
	t.Run("pusher", func(t *testing.T) {
		e := newEnv(t, "pusher")
		obs, err := e.Reset(0)
		if err != nil {
			t.Fatal(err)
		}
		q := e.Data().Qpos()
		nearAll(t, "arm qpos", q[:7], make([]float64, 7), 0)
		nearAll(t, "object and goal qpos", q[7:], []float64{-0.287707943, -0.193388946, 0, 0}, 1e-9)
		nearAll(t, "obs object", obs[17:20], []float64{0.256611054, -0.337707943, -0.275}, 1e-9)
		nearAll(t, "obs goal", obs[20:23], []float64{0.45, -0.05, -0.323}, 1e-12)
		nearAll(t, "obs qvel", obs[7:14], []float64{0.003132702, 0.004127556, 0.001066358, 0.002294966,
			0.000436250, 0.004350724, 0.003158536}, 1e-9)
		nearAll(t, "object and goal qvel", e.Data().Qvel()[7:], make([]float64, 4), 0)
		tr, err := e.Step(make([]float64, 7))
		if err != nil {
			t.Fatal(err)
		}
		if !near(tr.Reward, -0.690174925, 1e-9) {
			t.Fatalf("first reward %.10g, want -0.690174925", tr.Reward)
		}
	})
}

// TestRewardTiming checks, on seeded random rollouts, when each reward is
// measured. Pusher and Reacher: step t+1's reward is computed from the body
// positions in step t's observation (read before stepping, stale). IDP: the
// reward uses the tip site after the step, as it is in mjData (stale), and
// the termination flag is y <= 1.
func TestRewardTiming(t *testing.T) {
	act := func(k, n int, bound float64) []float64 {
		a := make([]float64, n)
		for i := range a {
			a[i] = bound * math.Sin(float64(3*k+i))
		}
		return a
	}
	t.Run("pusher", func(t *testing.T) {
		e := newEnv(t, "pusher")
		obs, _ := e.Reset(3)
		prev := append([]float64(nil), obs...)
		for k := 0; k < 40; k++ {
			a := act(k, 7, 2)
			tr, err := e.Step(a)
			if err != nil {
				t.Fatal(err)
			}
			near := -dist3(prev[17:20], prev[14:17])
			dist := -dist3(prev[17:20], prev[20:23])
			want := dist + 0.1*(-sumSquares(a)) + 0.5*near
			if tr.Reward != want {
				t.Fatalf("step %d reward %.17g, want %.17g from the previous observation", k, tr.Reward, want)
			}
			if d, _ := tr.Info.Get("reward_dist"); d != dist {
				t.Fatalf("step %d reward_dist %v, want %v", k, d, dist)
			}
			prev = append(prev[:0], tr.Obs...)
		}
	})
	t.Run("reacher", func(t *testing.T) {
		e := newEnv(t, "reacher")
		obs, _ := e.Reset(4)
		prev := append([]float64(nil), obs...)
		for k := 0; k < 40; k++ {
			a := act(k, 2, 1)
			tr, err := e.Step(a)
			if err != nil {
				t.Fatal(err)
			}
			want := -math.Sqrt(prev[8]*prev[8]+prev[9]*prev[9]+prev[10]*prev[10]) - sumSquares(a)
			if !near(tr.Reward, want, 1e-15) {
				t.Fatalf("step %d reward %.17g, want %.17g from the previous observation", k, tr.Reward, want)
			}
			prev = append(prev[:0], tr.Obs...)
		}
	})
	t.Run("inverteddoublependulum", func(t *testing.T) {
		e := newEnv(t, "inverteddoublependulum")
		e.Reset(5)
		ended := false
		for k := 0; k < 200 && !ended; k++ {
			tr, err := e.Step([]float64{0.3 * math.Sin(float64(k))})
			if err != nil {
				t.Fatal(err)
			}
			tip := e.Data().SiteXpos(0)
			v := e.Data().Qvel()
			want := 10 - (0.01*tip[0]*tip[0] + (tip[2]-2)*(tip[2]-2)) - (1e-3*v[1]*v[1] + 5e-3*v[2]*v[2])
			if tr.Reward != want || tr.Terminated != (tip[2] <= 1) {
				t.Fatalf("step %d reward %v terminated %v, want %v, %v", k, tr.Reward, tr.Terminated, want, tip[2] <= 1)
			}
			// The site is stale: it differs from the kinematics of the final qpos.
			q := e.Data().Qpos()
			fresh := 0.6*math.Cos(q[1]) + 0.6*math.Cos(q[1]+q[2])
			if k > 0 && tip[2] == fresh {
				t.Fatalf("step %d tip z equals the fresh kinematics: not stale", k)
			}
			for i := 0; i < 3; i++ {
				if tr.Obs[5+i] != clip(v[i], -10, 10) {
					t.Fatalf("obs qvel %v, qvel %v", tr.Obs[5:8], v)
				}
			}
			ended = tr.Terminated
		}
		if !ended {
			t.Fatal("the pendulum never fell in 200 steps of a weak open-loop push")
		}
	})
}

// TestSeeding checks determinism: the same seed gives the same episode,
// NoSeed continues the stream, the first NoSeed reset equals seed 0, and a
// bad seed is an error.
func TestSeeding(t *testing.T) {
	for _, c := range constructors {
		t.Run(c.name, func(t *testing.T) {
			a, b := newEnv(t, c.name), newEnv(t, c.name)
			n := a.Spec().Action.Dim()
			oa, _ := a.Reset(7)
			first := append([]float64(nil), oa...)
			ob, _ := b.Reset(7)
			nearAll(t, "same seed", ob, first, 0)
			for k := 0; k < 5; k++ {
				ta, _ := a.Step(ones(n, 0.3))
				tb, _ := b.Step(ones(n, 0.3))
				if ta.Reward != tb.Reward {
					t.Fatalf("step %d rewards %v vs %v", k, ta.Reward, tb.Reward)
				}
			}
			oa, _ = a.Reset(envs.NoSeed)
			cont := append([]float64(nil), oa...)
			same := true
			for i := range cont {
				same = same && cont[i] == first[i]
			}
			if same {
				t.Fatal("Reset(NoSeed) repeated the seeded episode's start")
			}
			ob, _ = b.Reset(envs.NoSeed)
			nearAll(t, "NoSeed continuation", ob, cont, 0)

			fresh := newEnv(t, c.name)
			of, _ := fresh.Reset(envs.NoSeed)
			z := newEnv(t, c.name)
			oz, _ := z.Reset(0)
			nearAll(t, "first NoSeed reset vs seed 0", of, oz, 0)
			if _, err := z.Reset(-2); err == nil {
				t.Fatal("Reset(-2): want an error")
			}
		})
	}
}

// TestBadInput checks wrong action lengths and NaN/Inf actions (errors that
// leave the simulation untouched), Step before Reset, SetState validation
// and use after Close.
func TestBadInput(t *testing.T) {
	for _, c := range constructors {
		t.Run(c.name, func(t *testing.T) {
			e, twin := newEnv(t, c.name), newEnv(t, c.name)
			n := e.Spec().Action.Dim()
			if _, err := e.Step(make([]float64, n)); err == nil {
				t.Fatal("Step before Reset: want an error")
			}
			e.Reset(1)
			twin.Reset(1)
			before := append([]float64(nil), e.Data().Qpos()...)
			timeBefore := e.Data().Time()
			bad := [][]float64{make([]float64, n+1), make([]float64, n-1), nil}
			for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				a := make([]float64, n)
				a[n-1] = v
				bad = append(bad, a)
			}
			for _, a := range bad {
				if _, err := e.Step(a); err == nil {
					t.Fatalf("Step(%v): want an error", a)
				}
			}
			nearAll(t, "qpos after rejected actions", e.Data().Qpos(), before, 0)
			if e.Data().Time() != timeBefore {
				t.Fatal("time advanced on a rejected action")
			}
			// The rejected actions left no trace: e and its twin agree.
			for k := 0; k < 3; k++ {
				te, _ := e.Step(ones(n, 0.5))
				tt, _ := twin.Step(ones(n, 0.5))
				if te.Reward != tt.Reward {
					t.Fatalf("rewards %v vs %v after rejected actions", te.Reward, tt.Reward)
				}
			}
			nq, nv := e.Model().Nq(), e.Model().Nv()
			if err := e.SetState(make([]float64, nq-1), make([]float64, nv)); err == nil {
				t.Fatal("SetState with a short qpos: want an error")
			}
			if err := e.SetState(make([]float64, nq), ones(nv, math.NaN())); err == nil {
				t.Fatal("SetState with NaN qvel: want an error")
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Reset(0); !errors.Is(err, envs.ErrClosed) {
				t.Fatalf("Reset after Close: %v", err)
			}
			if _, err := e.Step(make([]float64, n)); !errors.Is(err, envs.ErrClosed) {
				t.Fatalf("Step after Close: %v", err)
			}
			if err := e.SetState(make([]float64, nq), make([]float64, nv)); !errors.Is(err, envs.ErrClosed) {
				t.Fatalf("SetState after Close: %v", err)
			}
			if err := e.Close(); !errors.Is(err, envs.ErrClosed) {
				t.Fatalf("second Close: %v", err)
			}
		})
	}
}

// TestInstabilityEndsEpisode drives each environment into a MuJoCo warning
// (a velocity beyond mjMAXVAL): the step must be terminated with Info
// "unstable" = 1, a finite observation and zero reward, be counted, and the
// environment must carry on after Reset.
func TestInstabilityEndsEpisode(t *testing.T) {
	for _, c := range constructors {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, c.name)
			n := e.Spec().Action.Dim()
			e.Reset(0)
			qvel := make([]float64, e.Model().Nv())
			qvel[0] = 1e11
			if err := e.SetState(e.Data().Qpos(), qvel); err != nil {
				t.Fatal(err)
			}
			tr, err := e.Step(make([]float64, n))
			if err != nil {
				t.Fatalf("unstable step returned an error: %v", err)
			}
			if u, ok := tr.Info.Get(InfoUnstable); !ok || u != 1 || !tr.Terminated || tr.Reward != 0 {
				t.Fatalf("unstable step: terminated %v reward %v info %v %v", tr.Terminated, tr.Reward, tr.Info.Keys, tr.Info.Values)
			}
			for i, v := range tr.Obs {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("obs[%d] = %v after an instability", i, v)
				}
			}
			count, last := e.Instabilities()
			var ie *InstabilityError
			if count != 1 || !errors.As(last, &ie) || ie.Warning != WarnBadQvel {
				t.Fatalf("Instabilities = %d, %v; want 1, mjWARN_BADQVEL", count, last)
			}
			if _, err := e.Reset(envs.NoSeed); err != nil {
				t.Fatal(err)
			}
			tr, err = e.Step(make([]float64, n))
			if u, _ := tr.Info.Get(InfoUnstable); err != nil || u != 0 {
				t.Fatalf("step after Reset: %v, unstable %v", err, u)
			}
		})
	}
}

// TestStepDoesNotAllocate checks that a steady-state Step makes no Go
// allocation.
func TestStepDoesNotAllocate(t *testing.T) {
	for _, c := range constructors {
		e := newEnv(t, c.name)
		e.Reset(0)
		a := ones(e.Spec().Action.Dim(), 0.1)
		if allocs := testing.AllocsPerRun(100, func() { e.Step(a) }); allocs != 0 {
			t.Errorf("%s: %v allocations per Step, want 0", c.name, allocs)
		}
	}
}

// TestVecCarriesOnAfterInstability runs two HalfCheetahs in an envs.Vec and
// makes one go unstable: the Vec must see a terminated episode (not an
// error), autoreset that copy and keep stepping both.
func TestVecCarriesOnAfterInstability(t *testing.T) {
	a, err := NewHalfCheetah()
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewHalfCheetah()
	if err != nil {
		a.Close()
		t.Fatal(err)
	}
	v, err := envs.NewVecFrom([]envs.Env{a, b}, 0, envs.WithWorkers(2))
	if err != nil {
		a.Close()
		b.Close()
		t.Fatal(err)
	}
	defer v.Close()
	if _, err := v.Reset(); err != nil {
		t.Fatal(err)
	}
	act := ones(12, 0.2)
	if _, err := v.Step(act); err != nil {
		t.Fatal(err)
	}
	qvel := make([]float64, 9)
	qvel[0] = 1e11
	if err := a.SetState(a.Data().Qpos(), qvel); err != nil {
		t.Fatal(err)
	}
	st, err := v.Step(act)
	if err != nil {
		t.Fatalf("Vec.Step with an unstable copy: %v", err)
	}
	if !st.Terminated[0] || st.Terminated[1] || len(st.Episodes) != 1 || st.Episodes[0].Env != 0 {
		t.Fatalf("terminated %v, episodes %+v; want copy 0 terminated", st.Terminated, st.Episodes)
	}
	for k := 0; k < 20; k++ {
		if _, err := v.Step(act); err != nil {
			t.Fatalf("step %d after the instability: %v", k, err)
		}
	}
	if n, _ := a.Instabilities(); n != 1 {
		t.Fatalf("copy 0 counted %d instabilities, want 1", n)
	}
}

// TestBenchEnvLoopMatchesEnv checks that the bare C loop used as the
// benchmark's physics reference does exactly the environment's physics:
// given the env's initial states and actions, it ends in the same state,
// bit for bit.
func TestBenchEnvLoopMatchesEnv(t *testing.T) {
	e, twin := newEnv(t, "halfcheetah"), newEnv(t, "halfcheetah")
	actions := make([]float64, 30*6)
	for i := range actions {
		actions[i] = math.Sin(float64(i))
	}
	const episodes, length = 3, 40
	var init []float64
	if _, err := twin.Reset(9); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < episodes; k++ {
		if _, err := twin.Reset(envs.NoSeed); err != nil {
			t.Fatal(err)
		}
		init = append(init, twin.Data().Qpos()...)
		init = append(init, twin.Data().Qvel()...)
	}
	e.Reset(9)
	for k := 0; k < episodes; k++ {
		if _, err := e.Reset(envs.NoSeed); err != nil {
			t.Fatal(err)
		}
		for s := 0; s < length; s++ {
			row := s % 30
			if _, err := e.Step(actions[row*6 : row*6+6]); err != nil {
				t.Fatal(err)
			}
		}
	}
	bare, err := NewData(e.Model())
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	// One BenchEnvLoop call per episode restarts the action table, as the
	// env loop above does.
	for k := 0; k < episodes; k++ {
		if err := bare.BenchEnvLoop(length, 5, length, actions, init[k*18:(k+1)*18]); err != nil {
			t.Fatal(err)
		}
	}
	nearAll(t, "qpos", bare.Qpos(), e.Data().Qpos(), 0)
	nearAll(t, "qvel", bare.Qvel(), e.Data().Qvel(), 0)
	if err := bare.BenchEnvLoop(1, 5, 0, actions[:5], nil); err == nil {
		t.Fatal("BenchEnvLoop with a partial action row: want an error")
	}
}
