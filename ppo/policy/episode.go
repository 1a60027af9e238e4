package policy

import (
	"context"
	"fmt"
	"math"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/internal/ground/words"
)

// MaxEpisodeSteps bounds an episode of an environment registered without a
// time limit (as ppo's evaluation does).
const MaxEpisodeSteps = 1_000_000

// Episode runs one deterministic episode of p on env, reset with seed
// (envs.NoSeed continues the environment's stream). each, when not nil, is
// called after the reset with step 0 and after every step with the number
// of steps taken; its error stops the episode. Episode returns the
// undiscounted return and the number of steps. It refuses an environment
// whose id or sizes differ from the policy's.
func Episode(ctx context.Context, p *Policy, env envs.Env, seed int64, each func(step int) error) (ret float64, steps int, err error) {
	spec := env.Spec()
	if err := p.CheckEnv(spec.ID, spec.Observation.Dim(), spec.Action.Dim()); err != nil {
		return 0, 0, err
	}
	obs, err := env.Reset(seed)
	if err != nil {
		return 0, 0, fmt.Errorf("reset %s: %w", spec.ID, err)
	}
	if each != nil {
		if err := each(0); err != nil {
			return 0, 0, err
		}
	}
	act := make([]float64, p.Meta.ActSize)
	for steps < MaxEpisodeSteps {
		if steps%256 == 0 {
			if err := ctx.Err(); err != nil {
				return ret, steps, err
			}
		}
		if err := p.Act(obs, act); err != nil {
			return ret, steps, err
		}
		tr, err := env.Step(act)
		if err != nil {
			return ret, steps, fmt.Errorf("%s step %d: %w", spec.ID, steps, err)
		}
		ret += tr.Reward
		steps++
		if each != nil {
			if err := each(steps); err != nil {
				return ret, steps, err
			}
		}
		if tr.Terminated || tr.Truncated {
			break
		}
		obs = tr.Obs
	}
	return ret, steps, nil
}

// EvalResult summarises deterministic episodes.
type EvalResult struct {
	Env      string    `json:"env"`
	Episodes int       `json:"episodes"`
	Seed     int64     `json:"seed"`
	Returns  []float64 `json:"returns"`
	Lengths  []int     `json:"lengths"`
	Mean     float64   `json:"mean"`
	Std      float64   `json:"std"` // population standard deviation, as SB3's evaluate_policy (np.std)
	Min      float64   `json:"min"`
	Max      float64   `json:"max"`
}

// MeanLength is the episodes' mean length in steps (0 without episodes).
func (r EvalResult) MeanLength() float64 {
	s := 0
	for _, n := range r.Lengths {
		s += n
	}
	return float64(s) / float64(max(len(r.Lengths), 1))
}

// Evaluate runs episodes deterministic episodes of p, each on a fresh
// instance of its registered environment (envs/all must be imported), reset
// with seed+k for episode k. A fresh instance per episode makes an episode
// depend on its seed alone: BipedalWalker keeps its Box2D world across
// resets, as Gymnasium does, and the world's broad-phase state after one
// episode changes the contact order of the next.
func Evaluate(ctx context.Context, p *Policy, episodes int, seed int64) (EvalResult, error) {
	res := EvalResult{Env: p.Meta.Env, Episodes: episodes, Seed: seed}
	if episodes < 1 {
		return res, fmt.Errorf("evaluate: episodes = %d, want >= 1", episodes)
	}
	if seed < 0 {
		return res, fmt.Errorf("evaluate: seed = %d, want >= 0", seed)
	}
	for k := 0; k < episodes; k++ {
		env, err := envs.Make(p.Meta.Env)
		if err != nil {
			return res, fmt.Errorf("evaluate: %w", err)
		}
		ret, n, err := Episode(ctx, p, env, seed+int64(k), nil)
		env.Close()
		if err != nil {
			return res, fmt.Errorf("evaluate: episode %d: %w", k, err)
		}
		res.Returns = append(res.Returns, ret)
		res.Lengths = append(res.Lengths, n)
	}
	res.Mean, res.Std, res.Min, res.Max = stats(res.Returns)
	return res, nil
}

func stats(xs []float64) (mean, std, lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		mean += x
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		std += (x - mean) * (x - mean)
	}
	std = math.Sqrt(std / float64(len(xs)))
	return mean, std, lo, hi
}

// MaxEpisodes bounds the episodes of an evaluation or a recording (a
// million episodes of 1000 steps is already days of work).
const MaxEpisodes = 1_000_000

// CheckEpisodes checks a number of episodes and the seed of the first, as
// Evaluate takes them (and eval's and render's --episodes and --seed):
// episode k is reset with seed+k, which must stay a valid int64 seed. Its
// error is a words.Worded one: it names the parameter, episodes or seed.
func CheckEpisodes(episodes int, seed int64) error {
	if episodes < 1 || episodes > MaxEpisodes {
		return &words.AdviceError{Msg: fmt.Sprintf("{episodes}: want an integer in [1, %d], got %d", MaxEpisodes, episodes)}
	}
	if seed < 0 || seed > math.MaxInt64-int64(episodes-1) {
		return &words.AdviceError{Msg: fmt.Sprintf("{seed}: want an integer in [0, %d] for %d episodes (episode k uses seed+k), got %d", int64(math.MaxInt64)-int64(episodes-1), episodes, seed)}
	}
	return nil
}
