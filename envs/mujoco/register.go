package mujoco

import "github.com/hyperctl/hyperctl/envs"

func init() {
	envs.MustRegister(AntSpec(), func() (envs.Env, error) {
		e, err := NewAnt()
		if err != nil {
			return nil, err
		}
		return e, nil
	})
	envs.MustRegister(HalfCheetahSpec(), func() (envs.Env, error) {
		e, err := NewHalfCheetah()
		if err != nil {
			return nil, err
		}
		return e, nil
	})
	envs.MustRegister(HumanoidSpec(), func() (envs.Env, error) {
		e, err := NewHumanoid()
		if err != nil {
			return nil, err
		}
		return e, nil
	})
	envs.MustRegister(InvertedDoublePendulumSpec(), func() (envs.Env, error) {
		e, err := NewInvertedDoublePendulum()
		if err != nil {
			return nil, err
		}
		return e, nil
	})
	envs.MustRegister(PusherSpec(), func() (envs.Env, error) {
		e, err := NewPusher()
		if err != nil {
			return nil, err
		}
		return e, nil
	})
	envs.MustRegister(ReacherSpec(), func() (envs.Env, error) {
		e, err := NewReacher()
		if err != nil {
			return nil, err
		}
		return e, nil
	})
}
