package mujoco

import (
	"fmt"
	"math"

	"github.com/hyperctl/hyperctl/envs"
)

// Humanoid is Gymnasium's Humanoid-v4 with its default arguments
// (forward_reward_weight 1.25, ctrl_cost_weight 0.1, healthy_reward 5,
// terminate_when_unhealthy, healthy_z_range (1, 2), reset_noise_scale
// 0.01, x and y excluded from the observation), frame_skip 5, dt 0.015.
//
// Observation (376): qpos[2:24] (22), qvel (23), cinert (14 bodies × 10),
// cvel (14 × 6), qfrc_actuator (23), cfrc_ext (14 × 6), all read after the
// step as mjData holds them (cinert and cvel from the last internal forward
// pass, cfrc_ext from the mj_rnePostConstraint call that follows the
// steps).
//
// Reward: 1.25 x_velocity + 5 - 0.1 sum(action^2), on the raw action. The
// velocity is the change of the mass centre, sum(body_mass × xipos) /
// sum(body_mass), over dt, read before and after the step from mjData as
// it is: after a step xipos is left from the last internal forward pass, so
// only the first step after a reset starts from a fresh position. The
// healthy reward is paid on every step, the terminating one included.
// There is no contact cost (v4).
//
// Terminates when the torso height qpos[2] leaves the open interval
// (1, 2). Info: reward_linvel, reward_quadctrl, reward_alive, x_position,
// y_position (the mass centre's), distance_from_origin, x_velocity,
// y_velocity, forward_reward, and "unstable".
type Humanoid struct {
	*sim
	mass      []float64 // body_mass, world included
	totalMass float64   // np.sum(body_mass)
}

const (
	humanoidForwardWeight = 1.25
	humanoidCtrlWeight    = 0.1
	humanoidHealthy       = 5.0
	humanoidMinZ          = 1.0
	humanoidMaxZ          = 2.0
	humanoidNoise         = 1e-2
	humanoidBodies        = 14
)

// HumanoidSpec is Humanoid-v4's registration (no reward threshold).
func HumanoidSpec() envs.Spec {
	return envs.Spec{
		ID: "Humanoid-v4", Name: "humanoid",
		Observation:     box(376, math.Inf(-1), math.Inf(1)),
		Action:          box(17, -0.4, 0.4),
		MaxEpisodeSteps: 1000,
	}
}

// NewHumanoid builds a Humanoid-v4 (without the time limit).
func NewHumanoid() (*Humanoid, error) {
	s, err := newSim(HumanoidSpec(), humanoidXML, 5, 24, 23,
		"reward_linvel", "reward_quadctrl", "reward_alive", "x_position", "y_position",
		"distance_from_origin", "x_velocity", "y_velocity", "forward_reward")
	if err != nil {
		return nil, err
	}
	if n := s.model.NBody(); n != humanoidBodies {
		s.free()
		return nil, fmt.Errorf("%s: model has %d bodies, want %d", s.spec.ID, n, humanoidBodies)
	}
	s.post = true
	s.held = []string{"xipos"}
	e := &Humanoid{sim: s, mass: make([]float64, humanoidBodies)}
	for i := range e.mass {
		b, err := s.model.Body(i)
		if err != nil {
			s.free()
			return nil, err
		}
		e.mass[i] = b.Mass
	}
	e.totalMass = npSum(len(e.mass), func(i int) float64 { return e.mass[i] })
	return e, nil
}

// Reset starts an episode: qpos = qpos0 + U(-0.01, 0.01) (24 draws, the
// quaternion included; mj_forward renormalises it in place), then qvel =
// U(-0.01, 0.01) (23 draws).
func (e *Humanoid) Reset(seed int64) ([]float64, error) {
	if err := e.beginReset(seed); err != nil {
		return nil, err
	}
	for i := range e.qpos {
		e.qpos[i] = e.initQpos[i] + e.gen.Uniform(-humanoidNoise, humanoidNoise)
	}
	for i := range e.qvel {
		e.qvel[i] = e.gen.Uniform(-humanoidNoise, humanoidNoise)
	}
	if err := e.finishReset(); err != nil {
		return nil, err
	}
	e.observe()
	return e.obs, nil
}

func (e *Humanoid) observe() {
	d := e.data
	n := copy(e.obs, d.qpos[2:])
	n += copy(e.obs[n:], d.qvel)
	n += copy(e.obs[n:], d.cinert)
	n += copy(e.obs[n:], d.cvel)
	n += copy(e.obs[n:], d.qfrcActuator)
	copy(e.obs[n:], d.cfrcExt)
}

// massCenter is Gymnasium's mass_center: x and y of
// np.sum(body_mass × xipos, axis=0) / np.sum(body_mass), the first sum
// taken body after body as NumPy does along axis 0.
func (e *Humanoid) massCenter() (x, y float64) {
	xi := e.data.xipos
	for i, m := range e.mass {
		x += m * xi[3*i]
		y += m * xi[3*i+1]
	}
	return x / e.totalMass, y / e.totalMass
}

// healthy is Humanoid-v4's is_healthy: 1 < z < 2 (no finiteness check).
func (e *Humanoid) healthy() bool {
	z := e.data.qpos[2]
	return humanoidMinZ < z && z < humanoidMaxZ
}

// Step applies action for frame_skip physics steps.
func (e *Humanoid) Step(action []float64) (envs.Transition, error) {
	m, stop, tr, err := e.move(action, e.massCenter, e.observe)
	if stop {
		return tr, err
	}
	ctrlCost := humanoidCtrlWeight * sumSquares(action)
	forward := humanoidForwardWeight * m.vx
	healthy := e.healthy()
	e.observe()
	return envs.Transition{
		Obs:        e.obs,
		Reward:     forward + humanoidHealthy - ctrlCost,
		Terminated: !healthy,
		Info: e.setInfo(forward, -ctrlCost, humanoidHealthy, m.x, m.y,
			math.Sqrt(m.x*m.x+m.y*m.y), m.vx, m.vy, forward),
	}, nil
}
