package ppoconfig

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Config is the trainer's configuration, the [ppo] table of a run config.
// Defaults follow CleanRL's ppo_continuous_action for MuJoCo (see
// DefaultConfig); every implementation detail is a key.
type Config struct {
	// Hyper holds the per-iteration hyperparameters, the keys a controller
	// may tune; the values here are in force where a key is not tuned.
	Hyper

	// Networks.
	Hidden     []int   `toml:"hidden"`       // hidden layer widths of actor and critic (separate MLPs)
	Activation string  `toml:"activation"`   // "tanh" or "relu"
	InitLogStd float64 `toml:"init_log_std"` // initial state-independent log std of the Gaussian policy
	// Orthogonal initialisation gains (CleanRL's layer_init): hidden layers,
	// the policy mean head and the value head. Biases start at 0.
	InitGainHidden float64 `toml:"init_gain_hidden"` // √2 in CleanRL
	InitGainPolicy float64 `toml:"init_gain_policy"` // 0.01 in CleanRL
	InitGainValue  float64 `toml:"init_gain_value"`  // 1 in CleanRL

	// Rollout.
	NumEnvs int `toml:"num_envs"` // parallel environment copies; one forward pass serves them all

	// Advantage estimation (gamma is in Hyper).
	//
	// BootstrapTruncated bootstraps the return of a time-limit-truncated
	// episode from the value of its final observation; false treats
	// truncation as termination (CleanRL's ppo_continuous_action does).
	BootstrapTruncated bool `toml:"bootstrap_truncated"`

	// Losses (value_coef and entropy_coef are in Hyper).
	ClipValueLoss bool `toml:"clip_value_loss"` // clip the value loss as in CleanRL
	NormAdvantage bool `toml:"norm_advantage"`  // normalise advantages per minibatch

	// Optimiser (max_grad_norm, epochs, minibatch_size and target_kl are in
	// Hyper).
	AnnealLR  bool    `toml:"anneal_lr"`  // linear decay of lr to 0 over the run, or over its frame budget (ignored when lr is tuned)
	AdamEps   float64 `toml:"adam_eps"`   // Adam epsilon
	AdamBeta1 float64 `toml:"adam_beta1"` // Adam first-moment decay (PyTorch default 0.9)
	AdamBeta2 float64 `toml:"adam_beta2"` // Adam second-moment decay (PyTorch default 0.999)

	// Normalisation (saved with the model).
	NormObs     bool    `toml:"norm_obs"`     // running observation normalisation
	ObsClip     float64 `toml:"obs_clip"`     // clip normalised observations to ±obs_clip
	ScaleReward bool    `toml:"scale_reward"` // divide rewards by the running std of the discounted return
	RewardClip  float64 `toml:"reward_clip"`  // clip scaled rewards to ±reward_clip
	// Threads sets libtorch's intra-op threads and the number of goroutines
	// stepping the environment copies. 0 is automatic: one libtorch thread
	// (the networks are too small to gain from more) and GOMAXPROCS
	// environment workers.
	Threads int `toml:"threads"`
	// UpdateThreads is the number of threads computing each minibatch's
	// forward and backward pass: 1 computes the whole minibatch on the
	// training thread; 2 splits it into two row blocks computed
	// concurrently, adds the two gradients in a fixed order (first block +
	// second block) and takes one Adam step. The algorithm is the same;
	// float32 summation order of the gradient differs, so a run with 2 takes
	// a different (still deterministic) path than with 1. 2 needs a BLAS
	// that is safe to call from two threads (Debian's libopenblas0-pthread,
	// installed by scripts/setup.sh); the serial OpenBLAS is refused when
	// the trainer is built.
	UpdateThreads int `toml:"update_threads"`
	EvalEpisodes  int `toml:"eval_episodes"` // deterministic episodes per evaluation
	// FinalEvalEpisodes is the deterministic episodes of the run's last
	// evaluation (the one after its last iteration, which at a frame budget
	// is also the evaluation at the matched budget): one episode is too
	// noisy to compare runs by (docs/study.md).
	FinalEvalEpisodes int `toml:"final_eval_episodes"`
}

// MaxHiddenWeights bounds the weights between hidden layers of each network
// (2^22: with Adam's two moments and the gradient, about 64 MiB per network).
const MaxHiddenWeights = 1 << 22

// DefaultConfig returns CleanRL-like MuJoCo defaults.
func DefaultConfig() Config {
	return Config{
		Hyper: Hyper{BatchSize: 2048, Clip: 0.2, GAELambda: 0.95, LR: 3e-4, Gamma: 0.99, EntropyCoef: 0, ValueCoef: 0.5,
			Epochs: 10, MinibatchSize: 64, MaxGradNorm: 0.5, TargetKL: 0, LRScale: 1},
		Hidden:             []int{64, 64},
		Activation:         "tanh",
		InitLogStd:         0,
		InitGainHidden:     math.Sqrt2,
		InitGainPolicy:     0.01,
		InitGainValue:      1,
		BootstrapTruncated: true,
		AdamBeta1:          0.9,
		AdamBeta2:          0.999,
		NumEnvs:            8,
		ClipValueLoss:      true,
		NormAdvantage:      true,
		AnnealLR:           true,
		AdamEps:            1e-5,
		NormObs:            true,
		ObsClip:            10,
		ScaleReward:        true,
		RewardClip:         10,
		Threads:            0,
		UpdateThreads:      1,
		EvalEpisodes:       1,
		FinalEvalEpisodes:  10,
	}
}

// Validate reports every out-of-range key (joined with errors.Join, one
// error per key), each named as in TOML.
func (c Config) Validate() error {
	var errs []error
	bad := func(key, want string, got any) {
		errs = append(errs, fmt.Errorf("ppo.%s: %s, got %v", key, want, got))
	}
	if err := c.Hyper.Validate(); err != nil {
		errs = append(errs, err)
	}
	if len(c.Hidden) == 0 || len(c.Hidden) > 8 {
		bad("hidden", "want 1 to 8 layer widths", c.Hidden)
	} else if slices.ContainsFunc(c.Hidden, func(h int) bool { return h < 1 || h > 4096 }) {
		bad("hidden", "want widths in [1, 4096]", c.Hidden)
	} else {
		weights := 0
		for i := 1; i < len(c.Hidden); i++ {
			weights += c.Hidden[i-1] * c.Hidden[i]
		}
		if weights > MaxHiddenWeights {
			bad("hidden", fmt.Sprintf("want at most %d weights between hidden layers (the sum of the products of neighbouring widths; e.g. [2048, 2048])", MaxHiddenWeights), fmt.Sprintf("%v (%d weights)", c.Hidden, weights))
		}
	}
	if c.Activation != "tanh" && c.Activation != "relu" {
		bad("activation", `want "tanh" or "relu"`, fmt.Sprintf("%q", c.Activation))
	}
	for _, r := range []struct {
		key, want string
		v         float64
		ok        bool
	}{
		{"init_log_std", "want a value in [-5, 2]", c.InitLogStd, c.InitLogStd >= -5 && c.InitLogStd <= 2},
		{"init_gain_hidden", "want a value in (0, 100]", c.InitGainHidden, c.InitGainHidden > 0 && c.InitGainHidden <= 100},
		{"init_gain_policy", "want a value in (0, 100]", c.InitGainPolicy, c.InitGainPolicy > 0 && c.InitGainPolicy <= 100},
		{"init_gain_value", "want a value in (0, 100]", c.InitGainValue, c.InitGainValue > 0 && c.InitGainValue <= 100},
		{"adam_eps", "want a value > 0", c.AdamEps, c.AdamEps > 0},
		{"adam_beta1", "want a value in [0, 1)", c.AdamBeta1, c.AdamBeta1 >= 0 && c.AdamBeta1 < 1},
		{"adam_beta2", "want a value in [0, 1)", c.AdamBeta2, c.AdamBeta2 >= 0 && c.AdamBeta2 < 1},
		{"obs_clip", "want a value > 0", c.ObsClip, c.ObsClip > 0},
		{"reward_clip", "want a value > 0", c.RewardClip, c.RewardClip > 0},
	} {
		if !finite(r.v) || !r.ok {
			bad(r.key, r.want, r.v)
		}
	}
	for _, r := range []struct {
		key, want string
		v         int
		ok        bool
	}{
		{"num_envs", "want an integer in [1, 256]", c.NumEnvs, c.NumEnvs >= 1 && c.NumEnvs <= 256},
		{"threads", "want an integer in [0, 256] (0: automatic)", c.Threads, c.Threads >= 0 && c.Threads <= 256},
		{"update_threads", "want 1 or 2", c.UpdateThreads, c.UpdateThreads == 1 || c.UpdateThreads == 2},
		{"eval_episodes", "want an integer in [1, 1000]", c.EvalEpisodes, c.EvalEpisodes >= 1 && c.EvalEpisodes <= 1000},
		{"final_eval_episodes", "want an integer in [1, 1000]", c.FinalEvalEpisodes, c.FinalEvalEpisodes >= 1 && c.FinalEvalEpisodes <= 1000},
	} {
		if !r.ok {
			bad(r.key, r.want, r.v)
		}
	}
	return errors.Join(errs...)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
