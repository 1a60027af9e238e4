package mujoco

import (
	"math"

	"github.com/hyperctl/hyperctl/envs"
)

// InvertedDoublePendulum is Gymnasium's InvertedDoublePendulum-v4:
// frame_skip 5 (the model's custom frame_skip of 2 is ignored, as in
// Gymnasium), dt 0.05, RK4.
//
// Observation (11): cart x, sin of both hinge angles, cos of both, qvel
// clipped to [-10, 10], qfrc_constraint clipped to [-10, 10] (left from the
// last internal forward pass, as Gymnasium reads it). Reward, after the step:
// 10 - (0.01 x^2 + (y - 2)^2) - (1e-3 v1^2 + 5e-3 v2^2), with (x, y) the
// "tip" site's stale x and z. Terminates when y <= 1 (the 10 is still paid).
// Gymnasium's info is empty; Info holds only "unstable".
type InvertedDoublePendulum struct {
	*sim
	tip int
}

// InvertedDoublePendulumSpec is InvertedDoublePendulum-v4's registration.
func InvertedDoublePendulumSpec() envs.Spec {
	return envs.Spec{
		ID: "InvertedDoublePendulum-v4", Name: "inverteddoublependulum", Aliases: []string{"idp"},
		Observation:     box(11, math.Inf(-1), math.Inf(1)),
		Action:          box(1, -1, 1),
		MaxEpisodeSteps: 1000,
		RewardThreshold: 9100,
	}
}

// NewInvertedDoublePendulum builds an InvertedDoublePendulum-v4 (without the
// time limit).
func NewInvertedDoublePendulum() (*InvertedDoublePendulum, error) {
	s, err := newSim(InvertedDoublePendulumSpec(), invertedDoublePendulumXML, 5, 3, 3)
	if err != nil {
		return nil, err
	}
	tip, err := s.model.SiteID("tip")
	if err != nil {
		s.free()
		return nil, err
	}
	return &InvertedDoublePendulum{sim: s, tip: tip}, nil
}

// Reset starts an episode: qpos = U(-0.1, 0.1) (3 draws), then
// qvel = 0.1 N(0, 1) (3 draws).
func (e *InvertedDoublePendulum) Reset(seed int64) ([]float64, error) {
	if err := e.beginReset(seed); err != nil {
		return nil, err
	}
	for i := range e.qpos {
		e.qpos[i] = e.initQpos[i] + e.gen.Uniform(-0.1, 0.1)
	}
	for i := range e.qvel {
		e.qvel[i] = e.gen.StandardNormal() * 0.1
	}
	if err := e.finishReset(); err != nil {
		return nil, err
	}
	e.observe()
	return e.obs, nil
}

func (e *InvertedDoublePendulum) observe() {
	q, v, f, o := e.data.qpos, e.data.qvel, e.data.qfrcConstraint, e.obs
	o[0] = q[0]
	o[1], o[2] = math.Sin(q[1]), math.Sin(q[2])
	o[3], o[4] = math.Cos(q[1]), math.Cos(q[2])
	for i := 0; i < 3; i++ {
		o[5+i] = clip(v[i], -10, 10)
		o[8+i] = clip(f[i], -10, 10)
	}
}

// Step applies action for frame_skip physics steps.
func (e *InvertedDoublePendulum) Step(action []float64) (envs.Transition, error) {
	if err := e.checkStep(action); err != nil {
		return envs.Transition{}, err
	}
	if err := e.simulate(action); err != nil {
		return e.unstableStep(err, e.observe)
	}
	e.observe()
	tip := e.data.SiteXpos(e.tip)
	x, y := tip[0], tip[2]
	distPenalty := 0.01*x*x + (y-2)*(y-2)
	v1, v2 := e.data.qvel[1], e.data.qvel[2]
	velPenalty := 1e-3*v1*v1 + 5e-3*v2*v2
	return envs.Transition{
		Obs:        e.obs,
		Reward:     10 - distPenalty - velPenalty,
		Terminated: y <= 1,
		Info:       e.setInfo(),
	}, nil
}
