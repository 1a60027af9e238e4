package mujoco

import (
	"math"

	"github.com/hyperctl/hyperctl/envs"
)

// Swimmer is Gymnasium's Swimmer-v4 with its default arguments: three
// capsules in a viscous fluid, two hinge motors (gear 150), frame_skip 4,
// dt 0.04, RK4.
//
// Observation (8): qpos[2:5] (yaw and the two joint angles), qvel[0:5].
// Reward: (x_after - x_before)/dt - 1e-4 * sum(action^2) on the raw action,
// x being qpos[0] (fresh). Never terminates. Info: reward_fwd, reward_ctrl,
// x_position, y_position, distance_from_origin, x_velocity, y_velocity,
// forward_reward, "unstable".
type Swimmer struct {
	*sim
}

const (
	swimmerForwardWeight = 1.0
	swimmerCtrlWeight    = 1e-4
	swimmerNoise         = 0.1
)

// SwimmerSpec is Swimmer-v4's registration.
func SwimmerSpec() envs.Spec {
	return envs.Spec{
		ID: "Swimmer-v4", Name: "swimmer",
		Observation:     box(8, math.Inf(-1), math.Inf(1)),
		Action:          box(2, -1, 1),
		MaxEpisodeSteps: 1000,
		RewardThreshold: 360,
	}
}

// NewSwimmer builds a Swimmer-v4 (without the time limit).
func NewSwimmer() (*Swimmer, error) {
	s, err := newSim(SwimmerSpec(), swimmerXML, 4, 5, 5,
		"reward_fwd", "reward_ctrl", "x_position", "y_position",
		"distance_from_origin", "x_velocity", "y_velocity", "forward_reward")
	if err != nil {
		return nil, err
	}
	return &Swimmer{sim: s}, nil
}

// Reset starts an episode: qpos = qpos0 + U(-0.1, 0.1) (5 draws), then
// qvel = U(-0.1, 0.1) (5 draws).
func (e *Swimmer) Reset(seed int64) ([]float64, error) {
	if err := e.resetUniform(seed, swimmerNoise); err != nil {
		return nil, err
	}
	e.observe()
	return e.obs, nil
}

func (e *Swimmer) observe() {
	n := copy(e.obs, e.data.qpos[2:])
	copy(e.obs[n:], e.data.qvel)
}

// Step applies action for frame_skip physics steps.
func (e *Swimmer) Step(action []float64) (envs.Transition, error) {
	m, stop, tr, err := e.move(action, e.rootXY, e.observe)
	if stop {
		return tr, err
	}
	forward := swimmerForwardWeight * m.vx
	ctrlCost := swimmerCtrlWeight * sumSquares(action)
	e.observe()
	return envs.Transition{
		Obs:    e.obs,
		Reward: forward - ctrlCost,
		Info: e.setInfo(forward, -ctrlCost, m.x, m.y,
			math.Sqrt(m.x*m.x+m.y*m.y), m.vx, m.vy, forward),
	}, nil
}
