package mujoco

import (
	"math"

	"github.com/hyperctl/hyperctl/envs"
)

// Pusher is Gymnasium's Pusher-v4: frame_skip 5, dt 0.05, zero gravity.
//
// The reward is computed BEFORE the step, from the body origins already in
// mjData (fresh after Reset, left from the last internal forward pass after
// a Step, as Gymnasium reads them): reward_dist = -|object - goal|,
// reward_near = -|object - tips_arm|, reward_ctrl = -sum(action^2) on the
// raw action; reward = reward_dist + 0.1 reward_ctrl + 0.5 reward_near.
// Observation (23): qpos[0:7], qvel[0:7], then the xpos of tips_arm, object
// and goal. Never terminates. Info: reward_dist, reward_ctrl (unweighted),
// "unstable".
type Pusher struct {
	*sim
	tips, object, goal int
}

// PusherSpec is Pusher-v4's registration.
func PusherSpec() envs.Spec {
	return envs.Spec{
		ID: "Pusher-v4", Name: "pusher",
		Observation:     box(23, math.Inf(-1), math.Inf(1)),
		Action:          box(7, -2, 2),
		MaxEpisodeSteps: 100,
		RewardThreshold: 0,
	}
}

// NewPusher builds a Pusher-v4 (without the time limit).
func NewPusher() (*Pusher, error) {
	s, err := newSim(PusherSpec(), pusherXML, 5, 11, 11, "reward_dist", "reward_ctrl")
	if err != nil {
		return nil, err
	}
	ids, err := lookup(s.model, ObjBody, "tips_arm", "object", "goal")
	if err != nil {
		s.free()
		return nil, err
	}
	return &Pusher{sim: s, tips: ids[0], object: ids[1], goal: ids[2]}, nil
}

// Reset starts an episode. The arm starts at qpos0 (not randomized). The
// object offset is drawn c0 = U(-0.3, 0), c1 = U(-0.2, 0.2), redrawn until
// |(c0, c1)| > 0.17, and written to qpos[7] (obj_slidey) and qpos[8]
// (obj_slidex); the goal stays at 0. Then qvel = U(-0.005, 0.005) (11
// draws) with the object and goal entries zeroed.
func (e *Pusher) Reset(seed int64) ([]float64, error) {
	if err := e.beginReset(seed); err != nil {
		return nil, err
	}
	copy(e.qpos, e.initQpos)
	var c0, c1 float64
	for {
		c0 = e.gen.Uniform(-0.3, 0)
		c1 = e.gen.Uniform(-0.2, 0.2)
		if math.Sqrt(c0*c0+c1*c1) > 0.17 {
			break
		}
	}
	e.qpos[7], e.qpos[8] = c0, c1
	e.qpos[9], e.qpos[10] = 0, 0
	for i := range e.qvel {
		e.qvel[i] = e.gen.Uniform(-0.005, 0.005)
	}
	for i := 7; i < 11; i++ {
		e.qvel[i] = 0
	}
	if err := e.finishReset(); err != nil {
		return nil, err
	}
	e.observe()
	return e.obs, nil
}

func (e *Pusher) observe() {
	o := e.obs
	copy(o[0:7], e.data.qpos[:7])
	copy(o[7:14], e.data.qvel[:7])
	copy(o[14:17], e.data.Xpos(e.tips))
	copy(o[17:20], e.data.Xpos(e.object))
	copy(o[20:23], e.data.Xpos(e.goal))
}

// Step computes the reward from the current (pre-step) body positions, then
// applies action for frame_skip physics steps.
func (e *Pusher) Step(action []float64) (envs.Transition, error) {
	if err := e.checkStep(action); err != nil {
		return envs.Transition{}, err
	}
	obj := e.data.Xpos(e.object)
	rewardNear := -dist3(obj, e.data.Xpos(e.tips))
	rewardDist := -dist3(obj, e.data.Xpos(e.goal))
	rewardCtrl := -sumSquares(action)
	reward := rewardDist + 0.1*rewardCtrl + 0.5*rewardNear
	if err := e.simulate(action); err != nil {
		return e.unstableStep(err, e.observe)
	}
	e.observe()
	return envs.Transition{
		Obs:    e.obs,
		Reward: reward,
		Info:   e.setInfo(rewardDist, rewardCtrl),
	}, nil
}
