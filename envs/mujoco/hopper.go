package mujoco

import (
	"math"

	"github.com/hyperctl/hyperctl/envs"
)

// Hopper is Gymnasium's Hopper-v4 with its default arguments: a planar
// one-legged robot (rootx, rootz, rooty, thigh, leg, foot), gear 200.
// Observation (11): qpos[1:6], clip(qvel, -10, 10) (6). Reward, termination,
// reset and info as planarWalker; healthy is hopperHealthy.
type Hopper struct {
	*planarWalker
}

// HopperSpec is Hopper-v4's registration.
func HopperSpec() envs.Spec {
	return envs.Spec{
		ID: "Hopper-v4", Name: "hopper",
		Observation:     box(11, math.Inf(-1), math.Inf(1)),
		Action:          box(3, -1, 1),
		MaxEpisodeSteps: 1000,
		RewardThreshold: 3800,
	}
}

// NewHopper builds a Hopper-v4 (without the time limit).
func NewHopper() (*Hopper, error) {
	w, err := newPlanarWalker(HopperSpec(), hopperXML, 6, hopperHealthy)
	if err != nil {
		return nil, err
	}
	return &Hopper{planarWalker: w}, nil
}

// hopperHealthy is Hopper-v4's is_healthy, all bounds strict, on the raw
// (unclipped) state: 0.7 < qpos[1] (no upper bound), -0.2 < qpos[2] < 0.2,
// and every entry of state_vector()[2:] (qpos[2:], then all of qvel) in
// (-100, 100). A NaN fails every comparison, so it is unhealthy.
func hopperHealthy(qpos, qvel []float64) bool {
	for _, v := range qpos[2:] {
		if !(-100 < v && v < 100) {
			return false
		}
	}
	for _, v := range qvel {
		if !(-100 < v && v < 100) {
			return false
		}
	}
	z, angle := qpos[1], qpos[2]
	return 0.7 < z && z < math.Inf(1) && -0.2 < angle && angle < 0.2
}
