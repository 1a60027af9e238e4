package mujoco

import (
	"math"

	"github.com/hyperctl/hyperctl/envs"
)

// Walker2d is Gymnasium's Walker2d-v4 with its default arguments: a planar
// biped (rootx, rootz, rooty, then thigh, leg, foot of the right leg and of
// the left), gear 100; v4's feet have friction 0.9 (right) and 1.9 (left).
// Observation (17): qpos[1:9], clip(qvel, -10, 10) (9). Reward,
// termination, reset and info as planarWalker; healthy is walker2dHealthy.
type Walker2d struct {
	*planarWalker
}

// Walker2dSpec is Walker2d-v4's registration. Gymnasium registers no reward
// threshold for it (0 here, as for Pusher).
func Walker2dSpec() envs.Spec {
	return envs.Spec{
		ID: "Walker2d-v4", Name: "walker2d",
		Observation:     box(17, math.Inf(-1), math.Inf(1)),
		Action:          box(6, -1, 1),
		MaxEpisodeSteps: 1000,
	}
}

// NewWalker2d builds a Walker2d-v4 (without the time limit).
func NewWalker2d() (*Walker2d, error) {
	w, err := newPlanarWalker(Walker2dSpec(), walker2dXML, 9, walker2dHealthy)
	if err != nil {
		return nil, err
	}
	return &Walker2d{planarWalker: w}, nil
}

// walker2dHealthy is Walker2d-v4's is_healthy, strict: 0.8 < qpos[1] < 2
// and -1 < qpos[2] < 1. There is no state-range or finiteness check beyond
// these two (a NaN height or angle fails them).
func walker2dHealthy(qpos, _ []float64) bool {
	z, angle := qpos[1], qpos[2]
	return 0.8 < z && z < 2 && -1 < angle && angle < 1
}
