package mujoco

import (
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
)

const fallingBox = `<mujoco>
  <option timestep="0.01" gravity="0 0 -9.81"/>
  <worldbody>
    <body name="box" pos="0 0 1">
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom type="box" size="0.1 0.1 0.1" mass="1" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <actuator><motor joint="z" gear="1" ctrllimited="true" ctrlrange="-1 1"/></actuator>
</mujoco>`

// TestStepThroughCgo steps a model through cgo: free fall under MuJoCo's
// semi-implicit Euler gives z_n = -g h^2 n(n+1)/2.
func TestStepThroughCgo(t *testing.T) {
	if v := Version(); v != 222 {
		t.Fatalf("MuJoCo version %d, want 222 (2.2.2)", v)
	}
	m, err := LoadXML(fallingBox)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.Nq() != 1 || m.Nv() != 1 || m.Nu() != 1 {
		t.Fatalf("nq/nv/nu = %d/%d/%d, want 1/1/1", m.Nq(), m.Nv(), m.Nu())
	}
	d, err := NewData(m)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	d.Step(5)
	want := -9.81 * 0.01 * 0.01 * 15
	if got := d.Qpos()[0]; math.Abs(got-want) > 1e-12 {
		t.Fatalf("z after 5 steps = %.12g, want %.12g", got, want)
	}
	if got := d.Qvel()[0]; math.Abs(got+9.81*0.05) > 1e-12 {
		t.Fatalf("vz after 5 steps = %.12g, want %.12g", got, -9.81*0.05)
	}
}

func TestLoadXMLError(t *testing.T) {
	if _, err := LoadXML("<mujoco><worldbody><body><geom type=\"nonsense\"/></body></worldbody></mujoco>"); err == nil {
		t.Fatal("want a compile error for a bad geom type")
	}
}

// TestNameLookupsAndViews checks mj_name2id lookups, the xpos/site_xpos views
// and SetState (copy + mj_forward) on the IDP model: upright, the tip site
// is at (0, 0, 1.2); tilting the lower pole by a moves it to
// (0.6 sin a + 0.6 sin a, 0, 0.6 cos a + 0.6 cos a).
func TestNameLookupsAndViews(t *testing.T) {
	m, err := LoadXML(invertedDoublePendulumXML)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	d, err := NewData(m)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	tip, err := m.SiteID("tip")
	if err != nil || tip != 0 {
		t.Fatalf("SiteID(tip) = %d, %v; want 0", tip, err)
	}
	pole2, err := m.BodyID("pole2")
	if err != nil || pole2 != 3 {
		t.Fatalf("BodyID(pole2) = %d, %v; want 3", pole2, err)
	}
	if _, err := m.JointID("nope"); err == nil {
		t.Fatal("JointID(nope): want an error")
	}
	if got := m.Name(ObjJoint, 2); got != "hinge2" {
		t.Fatalf("joint 2 is %q, want hinge2", got)
	}
	if err := d.SetState([]float64{0, 0, 0}, []float64{0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if got := d.SiteXpos(tip); math.Abs(got[0]) > 1e-15 || math.Abs(got[2]-1.2) > 1e-15 {
		t.Fatalf("upright tip at %v, want (0, 0, 1.2)", got)
	}
	a := 0.3
	if err := d.SetState([]float64{0.25, a, 0}, []float64{0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	tp := d.SiteXpos(tip)
	wantX, wantZ := 0.25+1.2*math.Sin(a), 1.2*math.Cos(a)
	if math.Abs(tp[0]-wantX) > 1e-12 || math.Abs(tp[2]-wantZ) > 1e-12 {
		t.Fatalf("tilted tip at %v, want (%.12g, 0, %.12g)", tp, wantX, wantZ)
	}
	if p := d.Xpos(pole2); math.Abs(p[0]-(0.25+0.6*math.Sin(a))) > 1e-12 {
		t.Fatalf("pole2 origin at %v", p)
	}
	// Bad input leaves the state unchanged.
	for _, c := range []struct {
		qpos, qvel []float64
	}{
		{[]float64{0, 0}, []float64{0, 0, 0}},
		{[]float64{0, 0, 0}, []float64{0, 0, 0, 0}},
		{[]float64{0, math.NaN(), 0}, []float64{0, 0, 0}},
		{[]float64{0, 0, 0}, []float64{math.Inf(1), 0, 0}},
	} {
		if err := d.SetState(c.qpos, c.qvel); err == nil {
			t.Fatalf("SetState(%v, %v): want an error", c.qpos, c.qvel)
		}
		if d.Qpos()[0] != 0.25 || d.Qpos()[1] != a {
			t.Fatalf("state changed by a rejected SetState: %v", d.Qpos())
		}
	}
}

// TestInstabilityReported checks that a bad state is reported by Step
// instead of being silently reset by MuJoCo.
func TestInstabilityReported(t *testing.T) {
	m, err := LoadXML(fallingBox)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	d, err := NewData(m)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	cases := []struct {
		name    string
		qpos    float64
		qvel    float64
		steps   int
		kind    string
		warning Warning
	}{
		{"NaN qpos", math.NaN(), 0, 5, "warning", WarnBadQpos},
		{"huge qvel", 0, 1e12, 5, "warning", WarnBadQvel},
		{"Inf qvel", 0, math.Inf(-1), 5, "warning", WarnBadQvel},
		{"NaN left after the last substep", math.NaN(), 0, 0, "bad state", 0},
	}
	for _, c := range cases {
		if err := d.Reset(); err != nil {
			t.Fatal(err)
		}
		d.Qpos()[0], d.Qvel()[0] = c.qpos, c.qvel
		err := d.Step(c.steps)
		var ie *InstabilityError
		if !errors.As(err, &ie) {
			t.Fatalf("%s: Step = %v, want an *InstabilityError", c.name, err)
		}
		if ie.Kind != c.kind || (c.kind == "warning" && ie.Warning != c.warning) {
			t.Fatalf("%s: got %v, want kind %q warning %v", c.name, err, c.kind, c.warning)
		}
		if c.kind == "warning" && (ie.Substep != 0 || d.Warnings()[c.warning].Number == 0) {
			t.Fatalf("%s: substep %d, counters %v", c.name, ie.Substep, d.Warnings())
		}
	}
	// A clean step reports nothing and clears the counters.
	if err := d.Reset(); err != nil {
		t.Fatal(err)
	}
	if err := d.Step(5); err != nil {
		t.Fatalf("clean Step: %v", err)
	}
	for w, s := range d.Warnings() {
		if s.Number != 0 {
			t.Fatalf("warning %v counted %d after a clean step", Warning(w), s.Number)
		}
	}
}

// TestMuJoCoErrorGuarded runs a model whose stack is far too small for its
// contacts: MuJoCo raises mju_error ("Stack overflow"), which by default
// exits the process; here it must come back as an error from both mj_forward
// and mj_step, and the data must stay usable.
func TestMuJoCoErrorGuarded(t *testing.T) {
	m, err := LoadXML(strings.Replace(halfCheetahXML, `nstack="300000"`, `nstack="500"`, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	d, err := NewData(m)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Step(1); err != nil {
		t.Fatalf("Step in the air: %v", err)
	}
	// Sink the cheetah into the floor: the contacts need far more stack.
	qpos := make([]float64, m.Nq())
	qpos[1] = -0.6
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"SetState", func() error { return d.SetState(qpos, make([]float64, m.Nv())) }},
		{"Step", func() error { return d.Step(1) }},
	} {
		name, err := c.name, c.call()
		var ie *InstabilityError
		if !errors.As(err, &ie) || ie.Kind != "mujoco error" || !strings.Contains(ie.Message, "Stack overflow") {
			t.Fatalf("%s with a tiny stack = %v, want a guarded mju_error about the stack", name, err)
		}
	}
	if err := d.Reset(); err != nil {
		t.Fatalf("Reset after an error: %v", err)
	}
	if d.Time() != 0 || d.Qpos()[1] != 0 {
		t.Fatalf("time %v, rootz %v after Reset", d.Time(), d.Qpos()[1])
	}
	if err := d.Step(1); err != nil {
		t.Fatalf("Step after Reset: %v", err)
	}
}

func TestClosed(t *testing.T) {
	m, err := LoadXML(fallingBox)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewData(m)
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	if err := d.Step(1); !errors.Is(err, ErrClosed) {
		t.Fatalf("Step after Model.Close = %v, want ErrClosed", err)
	}
	d.Close()
	d.Close()
	m.Close()
	if err := d.Forward(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Forward after Close = %v, want ErrClosed", err)
	}
	if _, err := m.Body(0); !errors.Is(err, ErrClosed) {
		t.Fatalf("Body after Close = %v, want ErrClosed", err)
	}
	if _, err := NewData(m); err == nil {
		t.Fatal("NewData on a closed model: want an error")
	}
}

// TestIntrospection checks the typed accessors and Field on HalfCheetah's
// figures from the fact sheet.
func TestIntrospection(t *testing.T) {
	m, err := LoadXML(halfCheetahXML)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.Body(m.NBody()); err == nil {
		t.Fatal("Body out of range: want an error")
	}
	if _, err := m.Field("no_such_array"); err == nil {
		t.Fatal("Field(no_such_array): want an error")
	}
	j, err := m.Joint(3)
	if err != nil {
		t.Fatal(err)
	}
	want := Joint{Name: "bthigh", Type: JointHinge, Body: 2, QposAdr: 3, DofAdr: 3, Axis: [3]float64{0, 1, 0},
		Limited: true, Range: [2]float64{-0.52, 1.05}, Stiffness: 240, Damping: 6, Armature: 0.1}
	if j != want {
		t.Fatalf("joint 3 = %+v\nwant %+v", j, want)
	}
	a, err := m.Actuator(1)
	if err != nil {
		t.Fatal(err)
	}
	if a.Gear[0] != 90 || a.CtrlRange != [2]float64{-1, 1} || !a.CtrlLimited || m.Name(ObjJoint, a.Joint) != "bshin" {
		t.Fatalf("actuator 1 = %+v", a)
	}
	f, err := m.Field("body_mass")
	if err != nil || f.Rows != 8 || f.Cols != 1 {
		t.Fatalf("Field(body_mass) = %+v, %v", f, err)
	}
	if b, _ := m.Body(1); b.Mass != f.Values[1] || math.Abs(b.Mass-6.2502092) > 1e-6 {
		t.Fatalf("torso mass %v, Field %v, fact sheet 6.2502092", b.Mass, f.Values[1])
	}
	names := FieldNames()
	if len(names) < 100 || names[0] != "qpos0" {
		t.Fatalf("FieldNames: %d names starting %v", len(names), names[:1])
	}
	if o, _ := m.Options(); o.Integrator != Euler || o.Timestep != 0.01 || o.Gravity != [3]float64{0, 0, -9.81} {
		t.Fatalf("options %+v", o)
	}
}

// TestConcurrentUse compiles models and steps environments from several
// goroutines at once; afterwards MuJoCo's error and warning handlers must
// still be this package's (so mju_error stays guarded) and every stepped
// environment must match a sequential run.
func TestConcurrentUse(t *testing.T) {
	const workers = 4
	want := make([]float64, workers)
	got := make([]float64, workers)
	run := func(seed int64) (float64, error) {
		e, err := NewHalfCheetah()
		if err != nil {
			return 0, err
		}
		defer e.Close()
		if _, err := e.Reset(seed); err != nil {
			return 0, err
		}
		sum := 0.0
		a := []float64{0.5, -0.5, 0.3, -0.3, 0.1, -0.1}
		for k := 0; k < 50; k++ {
			tr, err := e.Step(a)
			if err != nil {
				return 0, err
			}
			sum += tr.Reward
		}
		return sum, nil
	}
	for i := range want {
		r, err := run(int64(i))
		if err != nil {
			t.Fatal(err)
		}
		want[i] = r
	}
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for rep := 0; rep < 3; rep++ {
				for _, name := range []string{"ant", "halfcheetah", "humanoid", "pusher", "reacher", "inverteddoublependulum"} {
					xml, _ := ModelXML(name)
					m, err := LoadXML(xml)
					if err != nil {
						errs[i] = err
						return
					}
					m.Close()
				}
			}
			got[i], errs[i] = run(int64(i))
		}(i)
	}
	wg.Wait()
	for i := range errs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if got[i] != want[i] {
			t.Fatalf("worker %d: return %.17g concurrently, %.17g sequentially", i, got[i], want[i])
		}
	}
	if !handlersInstalled() {
		t.Fatal("MuJoCo's error/warning handlers are no longer this package's")
	}
}

// TestCopiedModelsStepAsCompiled: an environment whose model LoadXML
// copies from its first compilation (compiled) steps bit for bit as one
// whose model was just compiled, for every environment: the same
// observations and rewards over an episode of random actions.
func TestCopiedModelsStepAsCompiled(t *testing.T) {
	for _, c := range constructors {
		t.Run(c.name, func(t *testing.T) {
			xml, ok := ModelXML(c.name)
			if !ok {
				t.Fatalf("no model of %s", c.name)
			}
			compiled.forget(xml) // the next LoadXML compiles it
			var runs [2][]float64
			for i := range runs {
				e, err := c.make()
				if err != nil {
					t.Fatal(err)
				}
				if !compiled.has(xml) {
					t.Fatalf("%s's model was not compiled from ModelXML's document", c.name)
				}
				obs, err := e.Reset(7)
				if err != nil {
					t.Fatal(err)
				}
				runs[i] = append(runs[i], obs...)
				act := make([]float64, e.Spec().Action.Dim())
				for k := range 50 {
					for j := range act {
						act[j] = math.Sin(float64(3*k + j))
					}
					tr, err := e.Step(act)
					if err != nil {
						t.Fatal(err)
					}
					runs[i] = append(append(runs[i], tr.Obs...), tr.Reward)
					if tr.Terminated {
						break
					}
				}
				e.Close()
			}
			if len(runs[0]) != len(runs[1]) {
				t.Fatalf("compiled: %d values, copied: %d", len(runs[0]), len(runs[1]))
			}
			for k := range runs[0] {
				if math.Float64bits(runs[0][k]) != math.Float64bits(runs[1][k]) {
					t.Fatalf("value %d: compiled %v, copied %v", k, runs[0][k], runs[1][k])
				}
			}
		})
	}
}
