package mujoco

import "github.com/hyperctl/hyperctl/envs"

// planarWalker is what Hopper-v4 and Walker2d-v4 share: a planar body on a
// slide x, slide z (ref 1.25, so qpos[1] is the torso height), hinge y root,
// frame_skip 4, dt 0.008, RK4.
//
// Observation: qpos[1:], then clip(qvel, -10, 10). Reward: (x_after -
// x_before)/dt + healthy_reward - 1e-3 * sum(action^2) on the raw action.
// The healthy reward (1) is paid on every step, the terminating one
// included: Gymnasium v4 pays it when healthy or terminate_when_unhealthy,
// and the default terminates. Terminated = not healthy, judged on the
// post-step qpos and qvel. Info: x_position, x_velocity, "unstable".
type planarWalker struct {
	*sim
	healthy func(qpos, qvel []float64) bool
}

const (
	planarForwardWeight = 1.0
	planarCtrlWeight    = 1e-3
	planarHealthyReward = 1.0
	planarNoise         = 5e-3
	planarVelocityClip  = 10.0
)

// newPlanarWalker builds the simulation of a planar walker of nq = nv dofs.
func newPlanarWalker(spec envs.Spec, xml string, nq int, healthy func(qpos, qvel []float64) bool) (*planarWalker, error) {
	s, err := newSim(spec, xml, 4, nq, nq, "x_position", "x_velocity")
	if err != nil {
		return nil, err
	}
	return &planarWalker{sim: s, healthy: healthy}, nil
}

// Reset starts an episode: qpos = qpos0 + U(-0.005, 0.005) (nq draws), then
// qvel = U(-0.005, 0.005) (nv draws).
func (e *planarWalker) Reset(seed int64) ([]float64, error) {
	if err := e.resetUniform(seed, planarNoise); err != nil {
		return nil, err
	}
	e.observe()
	return e.obs, nil
}

func (e *planarWalker) observe() {
	n := copy(e.obs, e.data.qpos[1:])
	for i, v := range e.data.qvel {
		e.obs[n+i] = clip(v, -planarVelocityClip, planarVelocityClip)
	}
}

// Step applies action for frame_skip physics steps.
func (e *planarWalker) Step(action []float64) (envs.Transition, error) {
	m, stop, tr, err := e.move(action, e.rootXY, e.observe)
	if stop {
		return tr, err
	}
	ctrlCost := planarCtrlWeight * sumSquares(action)
	e.observe()
	return envs.Transition{
		Obs:        e.obs,
		Reward:     planarForwardWeight*m.vx + planarHealthyReward - ctrlCost,
		Terminated: !e.healthy(e.data.qpos, e.data.qvel),
		Info:       e.setInfo(m.x, m.vx),
	}, nil
}
