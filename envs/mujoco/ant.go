package mujoco

import (
	"math"

	"github.com/hyperctl/hyperctl/envs"
)

// Ant is Gymnasium's Ant-v4 with its default arguments (ctrl_cost_weight
// 0.5, healthy_reward 1, terminate_when_unhealthy, healthy_z_range
// [0.2, 1.0], reset_noise_scale 0.1, x and y excluded from the
// observation), frame_skip 5, dt 0.05. use_contact_forces is off by
// default (v4's default); NewAntWith turns it on.
//
// Observation (27): qpos[2:15] (torso z, quaternion, eight joint angles),
// then qvel[0:14]. With contact forces, clip(cfrc_ext, -1, 1) of the 14
// bodies follows (84 more, 111 in all).
//
// Reward: x_velocity + 1 - 0.5 sum(action^2), on the raw action, minus,
// with contact forces, 5e-4 sum(clip(cfrc_ext, -1, 1)^2). The velocity is
// the change of the torso's body origin (xpos) over dt, read before and
// after the step from mjData as it is: after a step it is left from the
// last internal forward pass (RK4's last stage), so only the first step
// after a reset starts from a fresh position. The healthy reward is paid
// on every step, the terminating one included.
//
// Terminates when the state is unhealthy: a non-finite qpos or qvel, or a
// torso height qpos[2] outside [0.2, 1.0] (bounds included in the healthy
// range). Info: reward_forward, reward_ctrl (-ctrl_cost, or -contact_cost
// with contact forces, as Gymnasium overwrites it), reward_survive,
// x_position, y_position, distance_from_origin, x_velocity, y_velocity,
// forward_reward, and "unstable".
type Ant struct {
	*sim
	torso         int
	contactForces bool
}

const (
	antCtrlWeight    = 0.5
	antContactWeight = 5e-4
	antHealthy       = 1.0
	antMinZ, antMaxZ = 0.2, 1.0
	antNoise         = 0.1
	antObs           = 27 // without contact forces
	antContactObs    = 84 // clip(cfrc_ext): 14 bodies × 6
)

// AntSpec is Ant-v4's registration.
func AntSpec() envs.Spec { return antSpec(antObs) }

func antSpec(obs int) envs.Spec {
	return envs.Spec{
		ID: "Ant-v4", Name: "ant",
		Observation:     box(obs, math.Inf(-1), math.Inf(1)),
		Action:          box(8, -1, 1),
		MaxEpisodeSteps: 1000,
		RewardThreshold: 6000,
	}
}

// NewAnt builds an Ant-v4 with its defaults (without the time limit).
func NewAnt() (*Ant, error) { return NewAntWith(false) }

// NewAntWith builds an Ant-v4 with Gymnasium's use_contact_forces set as
// given: true appends the clipped contact forces to the observation (111
// entries) and subtracts their cost from the reward. It is not registered:
// the registered Ant-v4 is NewAnt's.
func NewAntWith(useContactForces bool) (*Ant, error) {
	obs := antObs
	if useContactForces {
		obs += antContactObs
	}
	s, err := newSim(antSpec(obs), antXML, 5, 15, 14,
		"reward_forward", "reward_ctrl", "reward_survive", "x_position", "y_position",
		"distance_from_origin", "x_velocity", "y_velocity", "forward_reward")
	if err != nil {
		return nil, err
	}
	s.post = useContactForces
	ids, err := lookup(s.model, ObjBody, "torso")
	if err != nil {
		s.free()
		return nil, err
	}
	return &Ant{sim: s, torso: ids[0], contactForces: useContactForces}, nil
}

// Reset starts an episode: qpos = qpos0 + U(-0.1, 0.1) (15 draws, the
// quaternion included; mj_forward renormalises it in place), then qvel =
// 0.1 N(0, 1) (14 draws).
func (e *Ant) Reset(seed int64) ([]float64, error) {
	if err := e.beginReset(seed); err != nil {
		return nil, err
	}
	for i := range e.qpos {
		e.qpos[i] = e.initQpos[i] + e.gen.Uniform(-antNoise, antNoise)
	}
	for i := range e.qvel {
		e.qvel[i] = antNoise * e.gen.StandardNormal()
	}
	if err := e.finishReset(); err != nil {
		return nil, err
	}
	e.observe()
	return e.obs, nil
}

func (e *Ant) observe() {
	n := copy(e.obs, e.data.qpos[2:])
	n += copy(e.obs[n:], e.data.qvel)
	if e.contactForces {
		for i, f := range e.data.cfrcExt {
			e.obs[n+i] = clip(f, -1, 1)
		}
	}
}

// healthy is Ant-v4's is_healthy: every qpos and qvel entry finite and
// 0.2 <= z <= 1.0.
func (e *Ant) healthy() bool {
	for _, x := range e.data.qpos {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	for _, x := range e.data.qvel {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	z := e.data.qpos[2]
	return antMinZ <= z && z <= antMaxZ
}

// torsoXY is the torso body's origin (xpos) in x and y, the point whose
// motion Ant's reward reads.
func (e *Ant) torsoXY() (x, y float64) {
	p := e.data.Xpos(e.torso)
	return p[0], p[1]
}

// Step applies action for frame_skip physics steps.
func (e *Ant) Step(action []float64) (envs.Transition, error) {
	m, stop, tr, err := e.move(action, e.torsoXY, e.observe)
	if stop {
		return tr, err
	}
	ctrlCost := antCtrlWeight * sumSquares(action)
	costs, rewardCtrl := ctrlCost, -ctrlCost
	if e.contactForces {
		f := e.data.cfrcExt
		contactCost := antContactWeight * npSum(len(f), func(i int) float64 {
			c := clip(f[i], -1, 1)
			return c * c
		})
		costs += contactCost
		rewardCtrl = -contactCost
	}
	healthy := e.healthy()
	e.observe()
	dx, dy := m.x-e.initQpos[0], m.y-e.initQpos[1]
	dist := math.Sqrt(dx*dx + dy*dy) // np.linalg.norm: sqrt(x·x)
	return envs.Transition{
		Obs:        e.obs,
		Reward:     m.vx + antHealthy - costs,
		Terminated: !healthy,
		Info: e.setInfo(m.vx, rewardCtrl, antHealthy, m.x, m.y, dist,
			m.vx, m.vy, m.vx),
	}, nil
}
