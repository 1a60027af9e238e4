package mujoco_test

import (
	"fmt"
	"log"

	"github.com/hyperctl/hyperctl/envs/mujoco"
)

// The binding on its own: a 1 kg ball with a free joint, dropped from 2 m
// with no floor. After 250 steps of 2 ms (0.5 s) MuJoCo's semi-implicit
// Euler integrator has it at 2 − g·dt²·n(n+1)/2 = 0.769 m; the closed form
// of the continuous fall is 2 − g·t²/2 = 0.774 m. The velocity, −g·t, is
// exact.
func Example() {
	m, err := mujoco.LoadXML(`<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <body name="ball" pos="0 0 2">
      <freejoint/>
      <geom type="sphere" size="0.1" mass="1"/>
    </body>
  </worldbody>
</mujoco>`)
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	d, err := mujoco.NewData(m)
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	if err := d.Step(250); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("t = %.3f s: z = %.3f m, vz = %.3f m/s (%s)\n", d.Time(), d.Qpos()[2], d.Qvel()[2], m.Integrator())
	// Output:
	// t = 0.500 s: z = 0.769 m, vz = -4.905 m/s (Euler)
}
