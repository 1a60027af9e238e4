package mujoco

import "github.com/hyperctl/hyperctl/envs"

func init() {
	register(AntSpec(), NewAnt)
	register(HalfCheetahSpec(), NewHalfCheetah)
	register(HumanoidSpec(), NewHumanoid)
	register(InvertedDoublePendulumSpec(), NewInvertedDoublePendulum)
	register(PusherSpec(), NewPusher)
	register(ReacherSpec(), NewReacher)
}

// register registers an environment's constructor. On failure it returns a
// nil envs.Env, not an interface holding a nil *E.
func register[E envs.Env](spec envs.Spec, make func() (E, error)) {
	envs.MustRegister(spec, func() (envs.Env, error) {
		e, err := make()
		if err != nil {
			return nil, err
		}
		return e, nil
	})
}
