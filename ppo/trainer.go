package ppo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// Trainer is continuous-action PPO (Schulman et al. 2017) with CleanRL's
// ppo_continuous_action implementation details, on libtorch through gotch.
// One Iterate call is one PPO iteration: collect a batch of frames from the
// vectorized environment, compute GAE advantages, and run the epochs of
// minibatch updates. Its hyperparameters may change at every call.
//
// All randomness (initialisation, action noise, minibatch shuffles,
// environment seeds) comes from Go generators seeded by the trainer's seed,
// so a run is deterministic given its seed and hyperparameters, and the
// generators are checkpointed with everything else (see Snapshot).
//
// A Trainer is not safe for concurrent use. Close frees its native memory.
type Trainer struct {
	envName string
	spec    envs.Spec
	base    ppoconfig.Config // the configuration the trainer was built with (every setting but Hyper's, see Iterate)
	seed    int64
	log     zerolog.Logger

	l   *layout
	ln  *learner
	vec *envs.Vec
	od  int // observation size
	ad  int // action size
	n   int // environment copies

	evalEnv envs.Env

	obsRMS RunningMeanStd
	rew    RewardScaler

	actPCG, mbPCG *rand.PCG
	actRNG, mbRNG *rand.Rand

	iteration int
	frames    int64
	evals     int
	rejected  int

	rawObs []float64 // the observation each copy acts on next; nil: Reset needed
	broken error     // set when an iteration failed midway

	buf rolloutBuffers
}

// rolloutBuffers are reused across iterations.
type rolloutBuffers struct {
	obs                 []float32 // frames×od, normalised as fed to the actor
	act                 []float32 // frames×ad, unclipped samples
	oldMean             []float32 // frames×ad, the collecting policy's means
	logp, values        []float64
	rewards             []float64 // scaled rewards used for learning
	raw                 []float64 // the environments' raw rewards (for trial scores)
	lastV               []float64 // n: values of the observations after the last step
	term, trunc         []bool
	finalValues         []float64
	adv, ret            []float64
	mean                []float32 // n×ad
	val32               []float32 // n
	stepAct             []float64 // n×ad clipped actions sent to the envs
	scaled              []float64 // n
	done                []bool    // n
	finalObs            []float32 // pending truncated final observations (normalised)
	finalIdx            []int     // their frame indices
	finalVal32, lastV32 []float32
	logStd              []float32
	trialMean           []float32 // frames×ad: a trial policy's means (IterateTrials)
	logRatio            []float64 // frames: its log-ratios to the collecting policy
}

// Option configures New.
type Option func(*Trainer)

// WithLogger sets the logger for warnings such as rejected updates
// (default: no logging).
func WithLogger(l zerolog.Logger) Option { return func(t *Trainer) { t.log = l } }

// MaxSeed is the largest seed New accepts (2^61 − 1): derived seeds leave
// room for the environment copies' consecutive seeds. It is the bound of a
// run's seed, controller.MaxSeed.
const MaxSeed = controller.MaxSeed

// New builds a trainer for the registered environment env (short name or
// Gymnasium id; import envs/all to register the built-in ones) with
// configuration cfg and seed (>= 0). It makes cfg.NumEnvs environment
// copies stepped in parallel (envs.Vec) and the actor and critic networks.
func New(env string, cfg ppoconfig.Config, seed int64, opts ...Option) (*Trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if seed < 0 || seed > MaxSeed {
		return nil, fmt.Errorf("ppo: seed = %d, want an integer in [0, %d]", seed, int64(MaxSeed))
	}
	if err := checkThreadsHere(cfg.Threads, runtime.NumCPU()); err != nil {
		return nil, err
	}
	spec, err := envs.Lookup(env)
	if err != nil {
		return nil, fmt.Errorf("ppo: %w", err)
	}
	t := &Trainer{envName: env, spec: spec, base: cfg, seed: seed, log: zerolog.Nop()}
	t.base.Hidden = slices.Clone(cfg.Hidden)
	for _, o := range opts {
		o(t)
	}
	t.od, t.ad, t.n = spec.Observation.Dim(), spec.Action.Dim(), cfg.NumEnvs
	if t.od < 1 || t.ad < 1 {
		return nil, fmt.Errorf("ppo: %s has observation size %d and action size %d, want both >= 1", spec.ID, t.od, t.ad)
	}
	for j := 0; j < t.ad; j++ {
		lo, hi := spec.Action.Low[j], spec.Action.High[j]
		if !finite(lo) || !finite(hi) || lo > hi {
			return nil, fmt.Errorf("ppo: %s action bound %d is [%v, %v], want finite bounds with low <= high", spec.ID, j, lo, hi)
		}
	}
	t.l = newLayout(t.od, t.ad, cfg.Hidden, cfg.Activation)

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	setTorchThreads(torchThreadsFor(cfg.Threads))

	initRNG := rand.New(rand.NewPCG(uint64(seed), 0x0f1e2d3c4b5a6978))
	ln, err := newLearner(t.l, t.l.initParams(initRNG, initSettingsOf(cfg)))
	if err != nil {
		return nil, fmt.Errorf("ppo: build networks: %w", err)
	}
	t.ln = ln
	if err := ln.sh.setHalves(cfg.UpdateThreads); err != nil {
		t.Close()
		return nil, fmt.Errorf("ppo.update_threads = %d: %w", cfg.UpdateThreads, err)
	}
	t.actPCG = rand.NewPCG(uint64(seed), 0x5851f42d4c957f2d)
	t.mbPCG = rand.NewPCG(uint64(seed), 0x14057b7ef767814f)
	t.actRNG, t.mbRNG = rand.New(t.actPCG), rand.New(t.mbPCG)
	t.obsRMS = NewRunningMeanStd(t.od)
	t.rew = NewRewardScaler(t.n)
	if t.vec, err = t.newVec(seed); err != nil {
		t.Close()
		return nil, fmt.Errorf("ppo: %w", err)
	}
	return t, nil
}

// MaxThreadsPerCPU bounds ppo.threads on the machine that trains: more
// threads than this many per CPU only make the run slower (a config of 200
// threads took 34 s for one 2048-frame iteration on 2 CPUs). Validate keeps
// the machine-independent bound, so a config stays portable; New checks
// this one.
const MaxThreadsPerCPU = 4

// checkThreadsHere refuses a threads setting beyond MaxThreadsPerCPU ×
// cpus, naming the key.
func checkThreadsHere(threads, cpus int) error {
	if limit := MaxThreadsPerCPU * cpus; threads > limit {
		return fmt.Errorf("ppo.threads: want at most %d × this machine's %d CPUs = %d (0: automatic), got %d", MaxThreadsPerCPU, cpus, limit, threads)
	}
	return nil
}

// torchThreadsFor maps the threads setting to libtorch intra-op threads.
// Automatic (0) is one thread: the networks are small (64×64 on a 64-frame
// minibatch), and on this project's 2-core machine a second libtorch thread
// made each minibatch update several times slower (OpenMP hand-off costs
// more than the matrix products it splits).
func torchThreadsFor(threads int) int {
	if threads <= 0 {
		return 1
	}
	return threads
}

// newVec makes the trainer's vector of environment copies, seeded with
// vecSeed, with the configured number of workers.
func (t *Trainer) newVec(vecSeed int64) (*envs.Vec, error) {
	var vopts []envs.VecOption
	if t.base.Threads > 0 {
		vopts = append(vopts, envs.WithWorkers(t.base.Threads))
	}
	return envs.NewVec(t.envName, t.n, vecSeed, vopts...)
}

// derivedSeed maps (seed, stream, k) to a non-negative seed that leaves room
// for NumEnvs consecutive copies (envs.Vec seeds copy i with seed+i).
func derivedSeed(seed int64, stream, k uint64) int64 {
	z := uint64(seed)*0x9e3779b97f4a7c15 ^ stream*0xbf58476d1ce4e5b9 ^ (k+1)*0x94d049bb133111eb
	z ^= z >> 31
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 29
	return int64(z >> 2) // < 2^62
}

// Close frees the networks and closes the environments.
func (t *Trainer) Close() error {
	var errs []error
	if t.vec != nil {
		errs = append(errs, t.vec.Close())
		t.vec = nil
	}
	if t.evalEnv != nil {
		errs = append(errs, t.evalEnv.Close())
		t.evalEnv = nil
	}
	if t.ln != nil {
		runtime.LockOSThread()
		t.ln.close()
		runtime.UnlockOSThread()
		t.ln = nil
	}
	return errors.Join(errs...)
}

// Spec is the environment's spec.
func (t *Trainer) Spec() envs.Spec { return t.spec }

// Config returns the configuration the trainer was built with.
func (t *Trainer) Config() ppoconfig.Config {
	c := t.base
	c.Hidden = slices.Clone(c.Hidden)
	return c
}

// Iteration is the number of iterations completed (the next one's index).
func (t *Trainer) Iteration() int { return t.iteration }

// Frames is the number of environment frames collected so far.
func (t *Trainer) Frames() int64 { return t.frames }

// Rejected is the number of updates rejected for non-finite values.
func (t *Trainer) Rejected() int { return t.rejected }

// Networks describes the actor and critic, e.g. "actor 17-64-64-6, critic
// 17-64-64-1, 11147 parameters".
func (t *Trainer) Networks() string { return t.l.String() }

// IterStats is the outcome of one iteration.
type IterStats struct {
	Iteration   int   // 0-based index of this iteration
	Frames      int   // frames collected this iteration (batch_size rounded up to a multiple of num_envs)
	TotalFrames int64 // frames collected so far, this iteration included

	// Reward is R_t, the iteration's mean training reward: the mean of the
	// raw (unscaled) environment rewards over all frames collected this
	// iteration, i.e. the mean per-step reward, as the paper authors' code
	// logs it (tensordict["next", "reward"].mean()). It is defined for
	// every iteration, even when no episode finished.
	Reward float64
	// Returns and Lengths are the undiscounted returns and lengths of the
	// training episodes that finished this iteration, in the order they
	// finished (environment index order within a step).
	Returns []float64
	Lengths []int

	// Hyper is the hyperparameters in force.
	ppoconfig.Hyper

	Update UpdateStats
	// Trial is set by IterateTrials: every candidate's score.
	Trial *TrialStats

	// Wall time of the iteration and where it went: stepping the
	// environments, policy inference and sampling during the rollout, and
	// GAE (advantages and value targets), and the update phase. The rest
	// (observation and reward normalisation, bookkeeping) is
	// Elapsed − EnvTime − InferenceTime − GAETime − UpdateTime.
	Elapsed, EnvTime, InferenceTime, GAETime, UpdateTime time.Duration
}

// Result converts the stats into what a controller observes.
func (s IterStats) Result() controller.Result {
	return controller.Result{Reward: s.Reward, Frames: s.Frames, Elapsed: s.Elapsed, Returns: s.Returns}
}

// Iterate runs one PPO iteration with the hyperparameters h, every field of
// which is used as given for this iteration; every other setting is the
// trainer's configuration (ppoconfig.Config). Adam's step size is h.LR × h.LRScale:
// annealing, if any, is the caller's (see Run, ppoconfig.HyperFor and
// ppoconfig.AnnealedLR). h is checked with Hyper.Validate, an error naming the key.
//
// An iteration runs to completion once started, so the trainer is always at
// an iteration boundary when Iterate returns (ctx is checked before it
// starts). If the update produced a non-finite loss, gradient or parameter,
// it was rolled back and counted (stats.Update.Rejected) and training goes
// on. Any other error (an environment or libtorch failure) leaves the trainer
// unusable until Restore.
func (t *Trainer) Iterate(ctx context.Context, h ppoconfig.Hyper) (IterStats, error) {
	if err := t.ready(ctx); err != nil {
		return IterStats{}, err
	}
	if err := h.Validate(); err != nil {
		return IterStats{}, err
	}
	return t.run(func() (IterStats, error) { return t.iterate(h, nil) })
}

// ready reports whether an iteration may start: ctx is live, the trainer
// open and not broken by an earlier failure.
func (t *Trainer) ready(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if t.ln == nil {
		return errors.New("ppo: trainer is closed")
	}
	if t.broken != nil {
		return fmt.Errorf("ppo: a previous iteration failed (%v); restore a checkpoint", t.broken)
	}
	return nil
}

// run runs one iteration on a locked OS thread (libtorch's thread-local
// settings); a failure breaks the trainer until Restore.
func (t *Trainer) run(iteration func() (IterStats, error)) (IterStats, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	st, err := iteration()
	if err != nil {
		t.broken = err
		return st, fmt.Errorf("ppo: iteration %d: %w", t.iteration, err)
	}
	return st, nil
}

// iterate runs one iteration with h; lc (nil: none) is the KL-adaptive lr
// of IterateLR, whose final lr becomes the stats' LR.
func (t *Trainer) iterate(h ppoconfig.Hyper, lc *lrControl) (IterStats, error) {
	start := time.Now()
	st, err := t.rollout(h)
	if err != nil {
		return st, err
	}
	tg := time.Now()
	t.advantages(h, st.Frames)
	tu := time.Now()
	st.GAETime = tu.Sub(tg)
	p := t.updateParams(h, h.Epochs)
	p.lr = lc
	us, err := t.ln.update(t.batch(st.Frames), p, t.mbRNG)
	st.UpdateTime = time.Since(tu)
	if err != nil {
		return st, err
	}
	if lc != nil && !us.Rejected {
		st.LR = lc.lr
	}
	t.finish(&st, us, start)
	return st, nil
}

// updateParams are the update settings of an iteration with h that runs
// epochs epochs.
func (t *Trainer) updateParams(h ppoconfig.Hyper, epochs int) updateParams {
	cfg := &t.base
	h.Epochs = epochs
	return updateParams{Hyper: h, adamEps: cfg.AdamEps, adamBeta1: cfg.AdamBeta1, adamBeta2: cfg.AdamBeta2,
		clipValueLoss: cfg.ClipValueLoss, normAdvantage: cfg.NormAdvantage}
}

// batch is the collected batch of frames frames, as the update reads it.
func (t *Trainer) batch(frames int) *updateBatch {
	b := &t.buf
	return &updateBatch{n: frames, obs: b.obs, act: b.act, logp: b.logp, values: b.values, adv: b.adv, ret: b.ret,
		oldMean: b.oldMean, oldLogStd: b.logStd}
}

// advantages computes GAE advantages and value targets of the collected
// batch with h's γ and λ.
func (t *Trainer) advantages(h ppoconfig.Hyper, frames int) {
	b := &t.buf
	n := t.n
	gae(gaeInput{steps: frames / n, envs: n, rewards: b.rewards, values: b.values, terminated: b.term,
		truncated: b.trunc, finalValues: b.finalValues, lastValues: b.lastV}, h.Gamma, h.GAELambda, b.adv, b.ret)
}

// finish records an applied (or rejected) update us and closes the
// iteration that started at start.
func (t *Trainer) finish(st *IterStats, us UpdateStats, start time.Time) {
	st.Update = us
	if us.Rejected {
		t.rejected++
		t.log.Warn().Int("iteration", t.iteration).Str("reason", us.RejectReason).Int("rejected_total", t.rejected).
			Msg("ppo: update rejected; parameters and Adam state restored")
	}
	t.iteration++
	t.frames += int64(st.Frames)
	st.TotalFrames = t.frames
	st.Elapsed = time.Since(start)
}

// rollout collects one batch with h's collection keys (batch_size, gamma)
// into t.buf, with the values needed to bootstrap it. The stats it returns
// have the rollout's fields set (frames, reward, episodes, times).
func (t *Trainer) rollout(h ppoconfig.Hyper) (IterStats, error) {
	cfg := &t.base
	st := IterStats{Iteration: t.iteration, Hyper: h}
	n, od, ad := t.n, t.od, t.ad
	steps := (h.BatchSize + n - 1) / n
	frames := steps * n
	b := &t.buf
	b.obs = grow(b.obs, frames*od)
	b.act = grow(b.act, frames*ad)
	b.oldMean = grow(b.oldMean, frames*ad)
	b.logp = growF(b.logp, frames)
	b.values = growF(b.values, frames)
	b.rewards = growF(b.rewards, frames)
	b.raw = growF(b.raw, frames)
	b.lastV = growF(b.lastV, n)
	b.finalValues = growF(b.finalValues, frames)
	b.adv = growF(b.adv, frames)
	b.ret = growF(b.ret, frames)
	b.term = growB(b.term, frames)
	b.trunc = growB(b.trunc, frames)
	b.mean = grow(b.mean, n*ad)
	b.val32 = grow(b.val32, n)
	b.stepAct = growF(b.stepAct, n*ad)
	b.scaled = growF(b.scaled, n)
	b.done = growB(b.done, n)
	b.logStd = grow(b.logStd, ad)
	b.lastV32 = grow(b.lastV32, n)
	b.finalObs = b.finalObs[:0]
	b.finalIdx = b.finalIdx[:0]

	if t.rawObs == nil {
		te := time.Now()
		o, err := t.vec.Reset()
		st.EnvTime += time.Since(te)
		if err != nil {
			return st, err
		}
		t.rawObs = append(t.rawObs[:0], o...)
	}
	// The policy's σ for this rollout.
	s := t.ln.s
	s.copyTo(t.ln.inf[t.l.logStd], b.logStd)
	if s.err != nil {
		return st, s.err
	}
	std := make([]float64, ad)
	var sumLogStd float64
	for j, v := range b.logStd {
		std[j] = math.Exp(float64(v))
		sumLogStd += float64(v)
	}
	lows, highs := t.spec.Action.Low, t.spec.Action.High
	var rewardSum float64

	for step := 0; step < steps; step++ {
		base := step * n
		obs := b.obs[base*od : (base+n)*od]
		if cfg.NormObs {
			t.obsRMS.Update(t.rawObs, n)
		}
		normalizeObs(&t.obsRMS, cfg.NormObs, cfg.ObsClip, t.rawObs, obs)
		ti := time.Now()
		if err := t.ln.infer(obs, n, b.mean, b.val32); err != nil {
			return st, err
		}
		act := b.act[base*ad : (base+n)*ad]
		copy(b.oldMean[base*ad:(base+n)*ad], b.mean[:n*ad])
		for e := 0; e < n; e++ {
			lp := -sumLogStd - float64(ad)*halfLog2Pi
			for j := 0; j < ad; j++ {
				k := e*ad + j
				eps := t.actRNG.NormFloat64()
				a := float32(float64(b.mean[k]) + std[j]*eps)
				act[k] = a
				// log-density of the stored (float32) sample
				z := (float64(a) - float64(b.mean[k])) / std[j]
				lp -= 0.5 * z * z
				b.stepAct[k] = math.Max(lows[j], math.Min(highs[j], float64(a)))
			}
			b.logp[base+e] = lp
			b.values[base+e] = float64(b.val32[e])
		}
		st.InferenceTime += time.Since(ti)

		te := time.Now()
		vs, err := t.vec.Step(b.stepAct)
		st.EnvTime += time.Since(te)
		if err != nil {
			return st, err
		}
		for e := 0; e < n; e++ {
			r := vs.Rewards[e]
			rewardSum += r
			b.raw[base+e] = r
			b.term[base+e] = vs.Terminated[e]
			b.trunc[base+e] = vs.Truncated[e]
			b.done[e] = vs.Terminated[e] || vs.Truncated[e]
			if !cfg.BootstrapTruncated {
				b.term[base+e] = b.done[e] // truncation treated as termination
			}
			if cfg.BootstrapTruncated && vs.Truncated[e] && !vs.Terminated[e] {
				// Bootstrap target: the value of the final observation,
				// normalised with the statistics in force (not updated).
				row := len(b.finalObs)
				b.finalObs = append(b.finalObs, make([]float32, od)...)
				normalizeObs(&t.obsRMS, cfg.NormObs, cfg.ObsClip, vs.FinalObs[e*od:(e+1)*od], b.finalObs[row:row+od])
				b.finalIdx = append(b.finalIdx, base+e)
			}
		}
		rw := b.rewards[base : base+n]
		if cfg.ScaleReward {
			t.rew.Scale(h.Gamma, cfg.RewardClip, vs.Rewards, b.done, rw)
		} else {
			copy(rw, vs.Rewards)
		}
		for _, ep := range vs.Episodes {
			st.Returns = append(st.Returns, ep.Return)
			st.Lengths = append(st.Lengths, ep.Length)
		}
		copy(t.rawObs, vs.Obs)
	}

	// Values for bootstrapping: the observation after the last step, and
	// the final observations of truncated episodes.
	ti := time.Now()
	lastObs := make([]float32, n*od)
	normalizeObs(&t.obsRMS, cfg.NormObs, cfg.ObsClip, t.rawObs, lastObs)
	if err := t.ln.values(lastObs, n, b.lastV32); err != nil {
		return st, err
	}
	if k := len(b.finalIdx); k > 0 {
		b.finalVal32 = grow(b.finalVal32, k)
		if err := t.ln.values(b.finalObs, k, b.finalVal32); err != nil {
			return st, err
		}
		for r, i := range b.finalIdx {
			b.finalValues[i] = float64(b.finalVal32[r])
		}
	}
	st.InferenceTime += time.Since(ti)
	for e := range n {
		b.lastV[e] = float64(b.lastV32[e])
	}
	st.Frames = frames
	st.Reward = rewardSum / float64(frames)
	return st, nil
}

func growF(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

func growB(b []bool, n int) []bool {
	if cap(b) < n {
		return make([]bool, n)
	}
	return b[:n]
}

// maxEvalSteps bounds an evaluation episode of an environment registered
// without a time limit.
const maxEvalSteps = 1_000_000

// EvalStats is the outcome of a deterministic evaluation.
type EvalStats struct {
	Iteration int           // iterations completed when evaluated
	Frames    int64         // training frames collected when evaluated
	Returns   []float64     // undiscounted return of each episode
	Lengths   []int         // steps of each episode
	Mean      float64       // mean of Returns
	Elapsed   time.Duration // wall time of the evaluation
}

// Evaluate runs episodes full deterministic episodes (the policy's mean
// action, clipped to the bounds) on a separate environment instance, with
// the observation normalisation frozen (used, not updated). episodes <= 0
// means cfg.EvalEpisodes. Evaluation k of the run resets its environment
// with a seed derived from the trainer's seed and k, so evaluations are
// reproducible and checkpointed. Evaluate does not change the training
// state beyond the evaluation counter.
func (t *Trainer) Evaluate(ctx context.Context, episodes int) (EvalStats, error) {
	es := EvalStats{Iteration: t.iteration, Frames: t.frames}
	start := time.Now()
	if t.ln == nil {
		return es, errors.New("ppo: trainer is closed")
	}
	if episodes <= 0 {
		episodes = t.base.EvalEpisodes
	}
	if t.evalEnv == nil {
		e, err := envs.Make(t.envName)
		if err != nil {
			return es, fmt.Errorf("ppo: evaluation environment: %w", err)
		}
		t.evalEnv = e
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	obs32 := make([]float32, t.od)
	mean := make([]float32, t.ad)
	act := make([]float64, t.ad)
	lows, highs := t.spec.Action.Low, t.spec.Action.High
	k := t.evals
	t.evals++
	for ep := 0; ep < episodes; ep++ {
		o, err := t.evalEnv.Reset(derivedSeed(t.seed, 2, uint64(k*1000+ep)))
		if err != nil {
			return es, fmt.Errorf("ppo: evaluation reset: %w", err)
		}
		var ret float64
		steps := 0
		for {
			if steps >= maxEvalSteps {
				break // no time limit: stop as if truncated
			}
			if steps%256 == 0 {
				if err := ctx.Err(); err != nil {
					return es, err
				}
			}
			normalizeObs(&t.obsRMS, t.base.NormObs, t.base.ObsClip, o, obs32)
			if err := t.ln.infer(obs32, 1, mean, nil); err != nil {
				return es, fmt.Errorf("ppo: evaluation: %w", err)
			}
			for j := range act {
				act[j] = math.Max(lows[j], math.Min(highs[j], float64(mean[j])))
			}
			tr, err := t.evalEnv.Step(act)
			if err != nil {
				return es, fmt.Errorf("ppo: evaluation step %d: %w", steps, err)
			}
			ret += tr.Reward
			steps++
			if tr.Terminated || tr.Truncated {
				break
			}
			o = tr.Obs
		}
		es.Returns = append(es.Returns, ret)
		es.Lengths = append(es.Lengths, steps)
		es.Mean += ret / float64(episodes)
	}
	es.Elapsed = time.Since(start)
	return es, nil
}
