package mujoco

import "github.com/hyperctl/hyperctl/envs"

func init() {
	register(AntSpec(), NewAnt)
	register(HalfCheetahSpec(), NewHalfCheetah)
	register(HopperSpec(), NewHopper)
	register(HumanoidSpec(), NewHumanoid)
	register(InvertedDoublePendulumSpec(), NewInvertedDoublePendulum)
	register(InvertedPendulumSpec(), NewInvertedPendulum)
	register(PusherSpec(), NewPusher)
	register(ReacherSpec(), NewReacher)
	register(SwimmerSpec(), NewSwimmer)
	register(Walker2dSpec(), NewWalker2d)
}

// register adds an environment to envs' registry. A failed constructor
// returns a nil envs.Env, never a typed nil pointer inside one.
func register[E envs.Env](spec envs.Spec, make func() (E, error)) {
	envs.MustRegister(spec, func() (envs.Env, error) {
		e, err := make()
		if err != nil {
			return nil, err
		}
		return e, nil
	})
}
