package mujoco

import (
	"math"
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
