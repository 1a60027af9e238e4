package ppo

// gaeInput is a rollout of steps×envs transitions, indexed t*envs+e.
type gaeInput struct {
	steps, envs int
	rewards     []float64 // (scaled) rewards r_t
	values      []float64 // V(s_t)
	terminated  []bool    // s_{t+1} is terminal: no bootstrap
	truncated   []bool    // the episode was cut after this step: bootstrap from the final observation
	finalValues []float64 // V(final observation) where truncated (else unused)
	lastValues  []float64 // V(s_T) per environment: the observation after the rollout's last step
}

// gae computes generalized advantage estimates (Schulman et al. 2016) and
// the value targets (returns = advantages + values) into adv and ret:
//
//	δ_t = r_t + γ·V(s_{t+1})·(1 − terminated_t) − V(s_t)
//	A_t = δ_t + γλ·(1 − done_t)·A_{t+1},  done_t = terminated_t ∨ truncated_t
//
// where V(s_{t+1}) is the value of the final observation when the episode
// was truncated after step t (the time limit is not part of the MDP, so the
// return is bootstrapped), the next step's value inside an episode, and
// lastValues at the end of the rollout. A step both terminated and truncated
// counts as terminated.
func gae(in gaeInput, gamma, lambda float64, adv, ret []float64) {
	n := in.envs
	for e := 0; e < n; e++ {
		next := 0.0 // A_{t+1}
		for t := in.steps - 1; t >= 0; t-- {
			i := t*n + e
			var nextV float64
			switch {
			case in.terminated[i]:
				nextV = 0
			case in.truncated[i]:
				nextV = in.finalValues[i]
			case t == in.steps-1:
				nextV = in.lastValues[e]
			default:
				nextV = in.values[i+n]
			}
			delta := in.rewards[i] + gamma*nextV - in.values[i]
			if in.terminated[i] || in.truncated[i] {
				next = 0
			}
			next = delta + gamma*lambda*next
			adv[i] = next
			ret[i] = next + in.values[i]
		}
	}
}
