package mujoco

import (
	"math"

	"github.com/hyperctl/hyperctl/envs"
)

// HalfCheetah is Gymnasium's HalfCheetah-v4 with its default arguments
// (forward_reward_weight 1, ctrl_cost_weight 0.1, reset_noise_scale 0.1,
// rootx excluded from the observation), frame_skip 5, dt 0.05.
//
// Observation (17): qpos[1:9] (rootz, rooty, six joint angles), then
// qvel[0:9]. Reward: (x_after - x_before)/dt - 0.1 * sum(action^2), on the
// raw action. Never terminates. Info: x_position, x_velocity, reward_run,
// reward_ctrl, and "unstable" (see InfoUnstable).
type HalfCheetah struct {
	*sim
}

const (
	halfCheetahForwardWeight = 1.0
	halfCheetahCtrlWeight    = 0.1
	halfCheetahNoise         = 0.1
)

// HalfCheetahSpec is HalfCheetah-v4's registration.
func HalfCheetahSpec() envs.Spec {
	return envs.Spec{
		ID: "HalfCheetah-v4", Name: "halfcheetah",
		Observation:     box(17, math.Inf(-1), math.Inf(1)),
		Action:          box(6, -1, 1),
		MaxEpisodeSteps: 1000,
		RewardThreshold: 4800,
	}
}

// NewHalfCheetah builds a HalfCheetah-v4 (without the time limit).
func NewHalfCheetah() (*HalfCheetah, error) {
	s, err := newSim(HalfCheetahSpec(), halfCheetahXML, 5, 9, 9,
		"x_position", "x_velocity", "reward_run", "reward_ctrl")
	if err != nil {
		return nil, err
	}
	return &HalfCheetah{sim: s}, nil
}

// Reset starts an episode: qpos = qpos0 + U(-0.1, 0.1) (9 draws), then
// qvel = 0.1 N(0, 1) (9 draws).
func (e *HalfCheetah) Reset(seed int64) ([]float64, error) {
	if err := e.beginReset(seed); err != nil {
		return nil, err
	}
	for i := range e.qpos {
		e.qpos[i] = e.initQpos[i] + e.gen.Uniform(-halfCheetahNoise, halfCheetahNoise)
	}
	for i := range e.qvel {
		e.qvel[i] = halfCheetahNoise * e.gen.StandardNormal()
	}
	if err := e.finishReset(); err != nil {
		return nil, err
	}
	e.observe()
	return e.obs, nil
}

func (e *HalfCheetah) observe() {
	copy(e.obs, e.data.qpos[1:])
	copy(e.obs[len(e.data.qpos)-1:], e.data.qvel)
}

// Step applies action for frame_skip physics steps.
func (e *HalfCheetah) Step(action []float64) (envs.Transition, error) {
	m, stop, tr, err := e.move(action, e.rootXY, e.observe)
	if stop {
		return tr, err
	}
	ctrlCost := halfCheetahCtrlWeight * sumSquares(action)
	forward := halfCheetahForwardWeight * m.vx
	e.observe()
	return envs.Transition{
		Obs:    e.obs,
		Reward: forward - ctrlCost,
		Info:   e.setInfo(m.x, m.vx, forward, -ctrlCost),
	}, nil
}
