package mujoco

import (
	"math"

	"github.com/hyperctl/hyperctl/envs"
)

// InvertedPendulum is Gymnasium's InvertedPendulum-v4: a cart on a rail
// with one hinged pole, gear 100, frame_skip 2, dt 0.04, RK4.
//
// Observation (4): qpos (cart x, pole angle), qvel, unclipped. Reward: 1 on
// every step, the terminating one included; no control cost. Terminates,
// after the step, when an observation entry is not finite or
// |qpos[1]| > 0.2. Gymnasium's info is empty; Info holds only "unstable".
type InvertedPendulum struct {
	*sim
}

const (
	invertedPendulumNoise    = 0.01
	invertedPendulumMaxAngle = 0.2
)

// InvertedPendulumSpec is InvertedPendulum-v4's registration.
func InvertedPendulumSpec() envs.Spec {
	return envs.Spec{
		ID: "InvertedPendulum-v4", Name: "invertedpendulum",
		Observation:     box(4, math.Inf(-1), math.Inf(1)),
		Action:          box(1, -3, 3),
		MaxEpisodeSteps: 1000,
		RewardThreshold: 950,
	}
}

// NewInvertedPendulum builds an InvertedPendulum-v4 (without the time
// limit).
func NewInvertedPendulum() (*InvertedPendulum, error) {
	s, err := newSim(InvertedPendulumSpec(), invertedPendulumXML, 2, 2, 2)
	if err != nil {
		return nil, err
	}
	return &InvertedPendulum{sim: s}, nil
}

// Reset starts an episode: qpos = qpos0 + U(-0.01, 0.01) (2 draws), then
// qvel = U(-0.01, 0.01) (2 draws).
func (e *InvertedPendulum) Reset(seed int64) ([]float64, error) {
	if err := e.resetUniform(seed, invertedPendulumNoise); err != nil {
		return nil, err
	}
	e.observe()
	return e.obs, nil
}

func (e *InvertedPendulum) observe() {
	n := copy(e.obs, e.data.qpos)
	copy(e.obs[n:], e.data.qvel)
}

// Step applies action for frame_skip physics steps.
func (e *InvertedPendulum) Step(action []float64) (envs.Transition, error) {
	if err := e.checkStep(action); err != nil {
		return envs.Transition{}, err
	}
	if err := e.simulate(action); err != nil {
		return e.unstableStep(err, e.observe)
	}
	e.observe()
	return envs.Transition{
		Obs:        e.obs,
		Reward:     1,
		Terminated: invertedPendulumDone(e.obs),
		Info:       e.setInfo(),
	}, nil
}

// invertedPendulumDone is InvertedPendulum-v4's termination: any non-finite
// observation entry, or |pole angle| > 0.2 (strict).
func invertedPendulumDone(obs []float64) bool {
	for _, v := range obs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return true
		}
	}
	return math.Abs(obs[1]) > invertedPendulumMaxAngle
}
