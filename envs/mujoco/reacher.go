package mujoco

import (
	"math"

	"github.com/hyperctl/hyperctl/envs"
)

// Reacher is Gymnasium's Reacher-v4: frame_skip 2, dt 0.02, RK4.
//
// The reward is computed BEFORE the step from the body origins already in
// mjData (stale after a Step, as in Gymnasium): reward_dist =
// -|fingertip - target| (3-D, the z difference is 0), reward_ctrl =
// -sum(action^2) on the raw action, reward = reward_dist + reward_ctrl.
// Observation (11): cos q0, cos q1, sin q0, sin q1, target x, y (qpos[2:4]),
// qvel[0:2], fingertip - target (3). Never terminates. Info: reward_dist,
// reward_ctrl, "unstable".
type Reacher struct {
	*sim
	fingertip, target int
}

// ReacherSpec is Reacher-v4's registration.
func ReacherSpec() envs.Spec {
	return envs.Spec{
		ID: "Reacher-v4", Name: "reacher",
		Observation:     box(11, math.Inf(-1), math.Inf(1)),
		Action:          box(2, -1, 1),
		MaxEpisodeSteps: 50,
		RewardThreshold: -3.75,
	}
}

// NewReacher builds a Reacher-v4 (without the time limit).
func NewReacher() (*Reacher, error) {
	s, err := newSim(ReacherSpec(), reacherXML, 2, 4, 4, "reward_dist", "reward_ctrl")
	if err != nil {
		return nil, err
	}
	ids, err := lookup(s.model, ObjBody, "fingertip", "target")
	if err != nil {
		s.free()
		return nil, err
	}
	return &Reacher{sim: s, fingertip: ids[0], target: ids[1]}, nil
}

// Reset starts an episode: qpos = U(-0.1, 0.1) (4 draws) + qpos0; the goal
// is drawn as U(-0.2, 0.2) twice (x, y) until |goal| < 0.2 and overwrites
// qpos[2:4]; then qvel = U(-0.005, 0.005) (4 draws) with the target's
// entries zeroed.
func (e *Reacher) Reset(seed int64) ([]float64, error) {
	if err := e.beginReset(seed); err != nil {
		return nil, err
	}
	for i := range e.qpos {
		e.qpos[i] = e.gen.Uniform(-0.1, 0.1) + e.initQpos[i]
	}
	var gx, gy float64
	for {
		gx = e.gen.Uniform(-0.2, 0.2)
		gy = e.gen.Uniform(-0.2, 0.2)
		if math.Sqrt(gx*gx+gy*gy) < 0.2 {
			break
		}
	}
	e.qpos[2], e.qpos[3] = gx, gy
	for i := range e.qvel {
		e.qvel[i] = e.gen.Uniform(-0.005, 0.005)
	}
	e.qvel[2], e.qvel[3] = 0, 0
	if err := e.finishReset(); err != nil {
		return nil, err
	}
	e.observe()
	return e.obs, nil
}

func (e *Reacher) observe() {
	q, o := e.data.qpos, e.obs
	o[0], o[1] = math.Cos(q[0]), math.Cos(q[1])
	o[2], o[3] = math.Sin(q[0]), math.Sin(q[1])
	o[4], o[5] = q[2], q[3]
	o[6], o[7] = e.data.qvel[0], e.data.qvel[1]
	f, t := e.data.Xpos(e.fingertip), e.data.Xpos(e.target)
	o[8], o[9], o[10] = f[0]-t[0], f[1]-t[1], f[2]-t[2]
}

// Step computes the reward from the current (pre-step) body positions, then
// applies action for frame_skip physics steps.
func (e *Reacher) Step(action []float64) (envs.Transition, error) {
	if err := e.checkStep(action); err != nil {
		return envs.Transition{}, err
	}
	rewardDist := -dist3(e.data.Xpos(e.fingertip), e.data.Xpos(e.target))
	rewardCtrl := -sumSquares(action)
	if err := e.simulate(action); err != nil {
		return e.unstableStep(err, e.observe)
	}
	e.observe()
	return envs.Transition{
		Obs:    e.obs,
		Reward: rewardDist + rewardCtrl,
		Info:   e.setInfo(rewardDist, rewardCtrl),
	}, nil
}
