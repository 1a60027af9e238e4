package envs

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Vec runs n copies of an environment and steps them in parallel, with
// Gymnasium's same-step autoreset (the behaviour of Gymnasium 0.29's
// SyncVectorEnv, AutoresetMode.SAME_STEP in Gymnasium 1.x): when a copy's episode
// ends during Step, the copy is reset at once and the returned observation is
// the first one of its new episode, while the observation that ended the
// episode is kept in VecStep.FinalObs for bootstrapping truncated episodes.
//
// Parallelism: the n copies are split into contiguous chunks, one per worker.
// By default there are min(n, runtime.GOMAXPROCS(0)) workers (see
// WithWorkers). The calling goroutine steps the first chunk itself and
// persistent goroutines step the others. Each copy is claimed with an atomic
// compare-and-swap before it is stepped, and a worker that has finished its
// own chunk claims the copies left in the others' chunks, so a worker that
// wakes late (or is descheduled by other load) costs at most the copy it is
// stepping: Step never takes much longer than stepping the copies one after
// the other on the calling goroutine. Between calls the workers spin for a
// short while (WithSpin) before blocking, because waking a blocked thread
// costs tens of microseconds on a virtual machine, about one MuJoCo env
// step. Step allocates nothing besides what the environments themselves
// allocate. Results do not depend on the number of workers nor on which
// goroutine steps which copy: every copy is stepped exactly once per Step,
// with its own generator, and outputs are written to per-copy rows.
//
// Seeding: the first Reset resets copy i with seed+i; later Resets and all
// autoresets continue each copy's own random stream (NoSeed), as Gymnasium's
// vector env does after reset(seed=s).
//
// Ownership: the slices returned by Reset and Step (including everything in
// a VecStep) are owned by the Vec and overwritten by its next Reset or Step;
// copy what you keep.
//
// Errors: bad input (wrong action length, NaN/Inf action) is rejected before
// any copy is stepped and leaves every copy unchanged. An error from a copy
// (its Step or autoreset failed, it returned a non-finite observation or
// reward, or it panicked) is returned naming the copy's index; other copies
// have then already advanced, so the Vec refuses to Step again until Reset.
//
// A Vec is not safe for concurrent use, except that Close may be called more
// than once.
type Vec struct {
	envs           []Env
	spec           Spec
	n, obsDim, act int
	seed           int64

	seeded bool // a Reset has succeeded, so further resets use NoSeed
	ready  bool // Reset succeeded and no Step has failed since
	closed bool

	// Per-copy rows, written only by the worker that owns the copy.
	obs, finalObs, rewards []float64
	term, trunc            []bool
	epRet                  []float64 // running return of the current episode
	epLen                  []int     // running length of the current episode
	errs                   []error

	actions []float64 // Step's argument, set before waking the workers
	states  [][]byte  // per-copy states for opSave (out) and opLoad (in)

	out      VecStep
	episodes []Episode

	bounds []int // chunk w is [bounds[w], bounds[w+1])

	// Hand-off between the caller (worker 0) and workers 1..k-1; see run.
	epoch  uint64         // number of runs published so far (caller only)
	sig    atomic.Uint64  // epoch<<8 | op of the latest run; opQuit stops the workers
	claims []claimWord    // claims[w]: low 32 bits of the epoch <<32 | next unclaimed copy of chunk w
	left   atomic.Int64   // copies of the current run not yet done
	park   []parker       // park[0]: the caller waiting for left == 0; park[w]: worker w waiting for sig
	spin   time.Duration  // how long to spin before parking
	wg     sync.WaitGroup // live worker goroutines
	once   sync.Once      // Close
}

// DefaultSpin is how long, by default, workers spin waiting for the next
// Step, and the caller for the workers, before blocking. It covers the
// policy inference between two Steps of a PPO rollout (tens of
// microseconds), so the workers do not go to sleep between Steps.
const DefaultSpin = 100 * time.Microsecond

// VecStep is the outcome of one Vec.Step. All slices are owned by the Vec
// and valid until its next Step or Reset.
type VecStep struct {
	// Obs holds n rows of obsDim values (row i is Obs[i*obsDim:(i+1)*obsDim]):
	// the observation to act on next. Where copy i's episode ended this step
	// it is the first observation of its new episode.
	Obs []float64
	// Rewards, Terminated and Truncated have one entry per copy, for the step
	// just taken (a step can be both terminated and truncated).
	Rewards               []float64
	Terminated, Truncated []bool
	// FinalObs holds n rows of obsDim values: the observation each copy's
	// Step returned, before any autoreset. Where Terminated[i] or
	// Truncated[i] it is the last observation of the finished episode (use
	// it to bootstrap the value of truncated episodes); elsewhere it equals
	// the row in Obs.
	FinalObs []float64
	// Episodes lists the episodes that ended this step, by increasing copy
	// index.
	Episodes []Episode
}

// Episode summarises a finished episode.
type Episode struct {
	Env        int     // index of the copy, 0..n-1
	Return     float64 // undiscounted sum of the episode's rewards
	Length     int     // number of steps
	Terminated bool    // ended in a terminal state
	Truncated  bool    // cut off (time limit); both may be true
}

// VecOption configures NewVec and NewVecFrom.
type VecOption func(*vecConfig)

type vecConfig struct {
	workers int
	spin    time.Duration
	spinSet bool
}

// WithWorkers sets the number of workers (goroutines stepping chunks of
// copies, the caller's included). k <= 0 selects the default,
// min(n, runtime.GOMAXPROCS(0)); k > n is reduced to n. More workers than
// cores is allowed (useful for tests) but does not run faster.
func WithWorkers(k int) VecOption { return func(c *vecConfig) { c.workers = k } }

// WithSpin sets how long workers spin waiting for work, and the caller for
// the workers, before blocking (default DefaultSpin; d <= 0 never spins).
// Spinning keeps a core busy for up to d after each Step; blocking costs a
// thread wake-up, tens of microseconds on a virtual machine. With more
// workers than GOMAXPROCS nobody spins: a spinning goroutine would hold a P
// another one needs. The setting does not change results.
func WithSpin(d time.Duration) VecOption {
	return func(c *vecConfig) { c.spin, c.spinSet = d, true }
}

// NewVec makes n copies of the registered environment name with Make (so
// each has its TimeLimit) and runs them as a Vec. Copy i is reset with seed
// seed+i on the first Reset; seed must be >= 0.
func NewVec(name string, n int, seed int64, opts ...VecOption) (*Vec, error) {
	if n < 1 {
		return nil, fmt.Errorf("new vec %q: n = %d, want at least 1", name, n)
	}
	if err := checkVecSeed(seed, n); err != nil {
		return nil, fmt.Errorf("new vec %q: %w", name, err)
	}
	list := make([]Env, 0, n)
	for i := 0; i < n; i++ {
		e, err := Make(name)
		if err != nil {
			for _, made := range list {
				made.Close()
			}
			return nil, fmt.Errorf("new vec %q: env %d: %w", name, i, err)
		}
		list = append(list, e)
	}
	v, err := NewVecFrom(list, seed, opts...)
	if err != nil {
		for _, made := range list {
			made.Close()
		}
		return nil, err
	}
	return v, nil
}

// NewVecFrom runs the given environments as a Vec and takes ownership of
// them (Close closes them). They must all have the same observation and
// action sizes; the Vec reports the first one's Spec. Copy i is reset with
// seed seed+i on the first Reset; seed must be >= 0. On error the
// environments are not closed.
func NewVecFrom(list []Env, seed int64, opts ...VecOption) (*Vec, error) {
	n := len(list)
	if n == 0 {
		return nil, errors.New("new vec: no environments")
	}
	if err := checkVecSeed(seed, n); err != nil {
		return nil, fmt.Errorf("new vec: %w", err)
	}
	for i, e := range list {
		if e == nil {
			return nil, fmt.Errorf("new vec: env %d is nil", i)
		}
	}
	spec := list[0].Spec()
	obsDim, actDim := spec.Observation.Dim(), spec.Action.Dim()
	if obsDim < 1 || actDim < 1 {
		return nil, fmt.Errorf("new vec: %s has observation size %d and action size %d, want both >= 1", spec.ID, obsDim, actDim)
	}
	for i, e := range list[1:] {
		s := e.Spec()
		if s.Observation.Dim() != obsDim || s.Action.Dim() != actDim {
			return nil, fmt.Errorf("new vec: env %d (%s) has observation/action sizes %d/%d, env 0 (%s) has %d/%d",
				i+1, s.ID, s.Observation.Dim(), s.Action.Dim(), spec.ID, obsDim, actDim)
		}
	}
	var cfg vecConfig
	for _, o := range opts {
		o(&cfg)
	}
	workers := cfg.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers > n {
		workers = n
	}
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("new vec: %d environments, want at most %d", n, math.MaxInt32)
	}
	spin := DefaultSpin
	if cfg.spinSet {
		spin = cfg.spin
	}
	if spin < 0 || workers > runtime.GOMAXPROCS(0) {
		spin = 0
	}

	v := &Vec{
		envs:     append([]Env(nil), list...),
		spec:     spec,
		n:        n,
		obsDim:   obsDim,
		act:      actDim,
		seed:     seed,
		obs:      make([]float64, n*obsDim),
		finalObs: make([]float64, n*obsDim),
		rewards:  make([]float64, n),
		term:     make([]bool, n),
		trunc:    make([]bool, n),
		epRet:    make([]float64, n),
		epLen:    make([]int, n),
		errs:     make([]error, n),
		episodes: make([]Episode, 0, n),
		bounds:   make([]int, workers+1),
		claims:   make([]claimWord, workers),
		park:     make([]parker, workers),
		spin:     spin,
	}
	for w := 0; w <= workers; w++ {
		v.bounds[w] = w * n / workers
	}
	for w := range v.park {
		v.park[w].wake = make(chan struct{}, 1)
	}
	for w := 1; w < workers; w++ {
		v.wg.Add(1)
		go v.worker(w)
	}
	return v, nil
}

func checkVecSeed(seed int64, n int) error {
	if seed < 0 {
		return fmt.Errorf("seed = %d, want >= 0", seed)
	}
	if seed > math.MaxInt64-int64(n-1) {
		return fmt.Errorf("seed = %d: seed+%d overflows int64", seed, n-1)
	}
	return nil
}

// NumEnvs is the number of copies n.
func (v *Vec) NumEnvs() int { return v.n }

// Workers is the number of workers stepping the copies.
func (v *Vec) Workers() int { return len(v.bounds) - 1 }

// Spec is the first copy's Spec (all copies share its sizes).
func (v *Vec) Spec() Spec { return v.spec }

// Reset resets every copy and returns the n×obsDim observations, row i for
// copy i. The first successful Reset seeds copy i with seed+i; later ones
// continue each copy's random stream. Reset also clears the running episode
// returns and lengths, and re-arms a Vec whose Step failed.
func (v *Vec) Reset() ([]float64, error) {
	if v.closed {
		return nil, fmt.Errorf("vec reset: %w", ErrClosed)
	}
	v.ready = false
	if err := v.run(opReset); err != nil {
		return nil, fmt.Errorf("vec reset: %w", err)
	}
	v.seeded = true
	v.ready = true
	return v.obs, nil
}

// Step applies actions (n×actDim values, row i for copy i, all finite) to
// every copy, autoresets the copies whose episode ended, and returns the
// outcome (owned by the Vec, valid until the next Step or Reset).
func (v *Vec) Step(actions []float64) (*VecStep, error) {
	if v.closed {
		return nil, fmt.Errorf("vec step: %w", ErrClosed)
	}
	if !v.ready {
		if !v.seeded {
			return nil, errors.New("vec step: call Reset before Step")
		}
		return nil, errors.New("vec step: a previous Reset or Step failed; call Reset before stepping again")
	}
	if len(actions) != v.n*v.act {
		return nil, fmt.Errorf("vec step: actions has %d values, want %d (%d envs × %d)", len(actions), v.n*v.act, v.n, v.act)
	}
	for k, a := range actions {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return nil, fmt.Errorf("vec step: actions[%d] (env %d, action[%d]) is %v, want a finite number", k, k/v.act, k%v.act, a)
		}
	}
	v.actions = actions
	err := v.run(opStep)
	v.actions = nil
	if err != nil {
		v.ready = false
		return nil, fmt.Errorf("vec step: %w", err)
	}
	v.episodes = v.episodes[:0]
	for i := 0; i < v.n; i++ {
		if v.term[i] || v.trunc[i] {
			v.episodes = append(v.episodes, Episode{Env: i, Return: v.epRet[i], Length: v.epLen[i], Terminated: v.term[i], Truncated: v.trunc[i]})
			v.epRet[i], v.epLen[i] = 0, 0
		}
	}
	v.out = VecStep{Obs: v.obs, Rewards: v.rewards, Terminated: v.term, Truncated: v.trunc, FinalObs: v.finalObs, Episodes: v.episodes}
	return &v.out, nil
}

// Close stops the workers and closes every copy, returning the copies'
// Close errors joined (each naming its index). Later calls return nil, and
// Reset and Step return errors wrapping ErrClosed.
func (v *Vec) Close() error {
	var err error
	v.once.Do(func() {
		v.closed = true
		v.ready = false
		if v.Workers() > 1 {
			v.epoch++
			v.sig.Store(v.epoch<<8 | uint64(opQuit))
			for w := 1; w < len(v.park); w++ {
				v.park[w].wakeUp()
			}
			v.wg.Wait()
		}
		var errs []error
		for i, e := range v.envs {
			if err := e.Close(); err != nil {
				errs = append(errs, fmt.Errorf("env %d: %w", i, err))
			}
		}
		if len(errs) > 0 {
			err = fmt.Errorf("vec close: %w", errors.Join(errs...))
		}
	})
	return err
}

// joinErrs returns the copies' errors joined, in copy order (nil if none).
func (v *Vec) joinErrs() error {
	failed := 0
	for _, err := range v.errs {
		if err != nil {
			failed++
		}
	}
	if failed == 0 {
		return nil
	}
	errs := make([]error, 0, failed)
	for _, err := range v.errs {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// one performs op on copy i. A panic in the copy becomes its error.
func (v *Vec) one(op vecOp, i int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("env %d: panic: %v", i, r)
		}
	}()
	switch op {
	case opReset:
		return v.resetOne(i, v.seeded)
	case opStep:
		return v.stepOne(i)
	case opSave:
		return v.saveOne(i)
	case opLoad:
		return v.loadOne(i)
	}
	return fmt.Errorf("env %d: unknown vec operation %d", i, op)
}

// resetOne resets copy i into its Obs row.
func (v *Vec) resetOne(i int, continued bool) error {
	seed := NoSeed
	if !continued {
		seed = v.seed + int64(i)
	}
	o, err := v.envs[i].Reset(seed)
	if err != nil {
		return fmt.Errorf("env %d: reset: %w", i, err)
	}
	if err := v.checkObs(i, "reset", o); err != nil {
		return err
	}
	copy(v.obs[i*v.obsDim:(i+1)*v.obsDim], o)
	v.epRet[i], v.epLen[i] = 0, 0
	return nil
}

// stepOne steps copy i and autoresets it when its episode ends.
func (v *Vec) stepOne(i int) error {
	tr, err := v.envs[i].Step(v.actions[i*v.act : (i+1)*v.act])
	if err != nil {
		return fmt.Errorf("env %d: step: %w", i, err)
	}
	if err := v.checkObs(i, "step", tr.Obs); err != nil {
		return err
	}
	if math.IsNaN(tr.Reward) || math.IsInf(tr.Reward, 0) {
		return fmt.Errorf("env %d: step returned reward %v, want a finite number", i, tr.Reward)
	}
	row := v.finalObs[i*v.obsDim : (i+1)*v.obsDim]
	copy(row, tr.Obs)
	v.rewards[i] = tr.Reward
	v.term[i], v.trunc[i] = tr.Terminated, tr.Truncated
	// The running totals are reported and cleared by Step after the workers
	// finish, so an autoreset here must not clear them.
	v.epRet[i] += tr.Reward
	v.epLen[i]++
	if !tr.Terminated && !tr.Truncated {
		copy(v.obs[i*v.obsDim:(i+1)*v.obsDim], row)
		return nil
	}
	o, err := v.envs[i].Reset(NoSeed)
	if err != nil {
		return fmt.Errorf("env %d: autoreset: %w", i, err)
	}
	if err := v.checkObs(i, "autoreset", o); err != nil {
		return err
	}
	copy(v.obs[i*v.obsDim:(i+1)*v.obsDim], o)
	return nil
}

// checkObs rejects an observation of the wrong size or with NaN/Inf entries.
func (v *Vec) checkObs(i int, what string, o []float64) error {
	if len(o) != v.obsDim {
		return fmt.Errorf("env %d: %s returned %d observation values, want %d", i, what, len(o), v.obsDim)
	}
	for k, x := range o {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("env %d: %s returned observation[%d] = %v, want a finite number", i, what, k, x)
		}
	}
	return nil
}
