// Command customenv trains an environment that hyperctl does not ship, a
// point mass reaching a target in 2-D, with hyperctl's PPO trainer and a
// controller, through the library's public API (envs, configs,
// experiment/run, ppo/policy), as a program outside the hyperctl module
// would. It reads top to bottom: the environment, its registration, the
// run's config, training into a run folder, and evaluating the trained
// policy.
//
//	go run . -out runs/pointmass                            # fixed hyperparameters
//	go run . -out runs/pointmass-hc -controller hypercontroller
//	go run . -eval runs/pointmass                           # the trained policy, 10 episodes
//
// The run folder is an ordinary hyperctl run folder: `hyperctl status`,
// `report` and `dashboard` read it. `hyperctl eval`, `render` and `train
// --resume` refuse it, since the hyperctl binary has no point mass
// registered; -eval and -resume here do eval and resume through the
// library.
package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"syscall"

	"github.com/rs/zerolog"

	_ "github.com/hyperctl/hyperctl/baselines/all" // registers the controllers
	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/experiment/run"
	"github.com/hyperctl/hyperctl/ppo/policy"
)

// The environment: a unit point mass on the plane [-1, 1]², pushed by a
// bounded force, rewarded by its negative distance to a target drawn at
// every reset. Gymnasium's conventions hold: Reset(seed) re-seeds, an
// episode ends only by the time limit (truncation, applied by envs.Make).
const (
	envName  = "pointmass"    // the short name runs and configs use
	envID    = "PointMass-v0" // its Gymnasium-style id
	dt       = 0.05           // seconds per step
	damping  = 0.5            // velocity lost per second, as a fraction
	maxSteps = 100            // steps per episode (the time limit)
)

// pointMass is one instance: position, velocity, target and the generator
// of the targets and starts.
type pointMass struct {
	pos, vel, target [2]float64
	src              *rand.PCG
	rng              *rand.Rand
	obs              [6]float64
	closed           bool
}

// spec describes the environment to the registry: observation (position,
// velocity, target minus position), action (the force), time limit.
func spec() envs.Spec {
	inf := math.Inf(1)
	return envs.Spec{
		ID: envID, Name: envName,
		Observation:     envs.Box{Low: []float64{-1, -1, -inf, -inf, -2, -2}, High: []float64{1, 1, inf, inf, 2, 2}},
		Action:          envs.Box{Low: []float64{-1, -1}, High: []float64{1, 1}},
		MaxEpisodeSteps: maxSteps,
		RewardThreshold: -10,
	}
}

func newPointMass() (envs.Env, error) {
	src := rand.NewPCG(0, 0)
	return &pointMass{src: src, rng: rand.New(src)}, nil
}

// Spec implements envs.Env.
func (p *pointMass) Spec() envs.Spec { return spec() }

// Reset implements envs.Env: a random start and target in [-0.8, 0.8]², at
// rest.
func (p *pointMass) Reset(seed int64) ([]float64, error) {
	if p.closed {
		return nil, envs.ErrClosed
	}
	if seed >= 0 {
		p.src.Seed(uint64(seed), 0x9e3779b97f4a7c15)
	}
	for i := range 2 {
		p.pos[i] = 1.6*p.rng.Float64() - 0.8
		p.target[i] = 1.6*p.rng.Float64() - 0.8
		p.vel[i] = 0
	}
	return p.observe(), nil
}

// Step implements envs.Env: semi-implicit Euler with damping, the position
// clamped to the walls (which stop the mass); the reward is minus the
// distance to the target, minus a small cost of the force.
func (p *pointMass) Step(action []float64) (envs.Transition, error) {
	if p.closed {
		return envs.Transition{}, envs.ErrClosed
	}
	if err := envs.CheckAction(spec(), action); err != nil {
		return envs.Transition{}, err
	}
	var cost float64
	for i := range 2 {
		f := math.Max(-1, math.Min(1, action[i]))
		cost += f * f
		p.vel[i] += dt * (f - damping*p.vel[i])
		p.pos[i] += dt * p.vel[i]
		if p.pos[i] < -1 || p.pos[i] > 1 {
			p.pos[i] = math.Max(-1, math.Min(1, p.pos[i]))
			p.vel[i] = 0
		}
	}
	dist := math.Hypot(p.target[0]-p.pos[0], p.target[1]-p.pos[1])
	return envs.Transition{Obs: p.observe(), Reward: -dist - 0.01*cost}, nil
}

// Close implements envs.Env.
func (p *pointMass) Close() error {
	if p.closed {
		return envs.ErrClosed
	}
	p.closed = true
	return nil
}

func (p *pointMass) observe() []float64 {
	p.obs = [6]float64{p.pos[0], p.pos[1], p.vel[0], p.vel[1], p.target[0] - p.pos[0], p.target[1] - p.pos[1]}
	return p.obs[:]
}

// SaveState implements envs.StateSaver, which the trainer's checkpoints
// need: the six numbers of the state, then the generator's.
func (p *pointMass) SaveState() ([]byte, error) {
	b, err := binary.Append(nil, binary.LittleEndian, [6]float64{p.pos[0], p.pos[1], p.vel[0], p.vel[1], p.target[0], p.target[1]})
	if err != nil {
		return nil, fmt.Errorf("%s: save state: %w", envID, err)
	}
	return p.src.AppendBinary(b)
}

// LoadState implements envs.StateSaver; on error the state is unchanged.
func (p *pointMass) LoadState(b []byte) error {
	var s [6]float64
	n, err := binary.Decode(b, binary.LittleEndian, &s)
	if err != nil {
		return fmt.Errorf("%s: load state: %w", envID, err)
	}
	src := rand.NewPCG(0, 0)
	if err := src.UnmarshalBinary(b[n:]); err != nil {
		return fmt.Errorf("%s: load state: generator: %w", envID, err)
	}
	p.pos, p.vel, p.target = [2]float64{s[0], s[1]}, [2]float64{s[2], s[3]}, [2]float64{s[4], s[5]}
	p.src, p.rng = src, rand.New(src)
	return nil
}

// Registration: from here on, "pointmass" is an environment like the
// shipped ones, for the trainer, its evaluations and ppo/policy.
func init() { envs.MustRegister(spec(), newPointMass) }

// The run's config: the same TOML as `hyperctl train --config`, decoded
// strictly over the built-in defaults. A small network and batch suit a
// six-number observation; the controller tunes lr and clip.
const config = `
env = "pointmass"
iterations = 200     # about 6 s on one core; the evaluation return goes from about -90 to about -30 (fixed, seed 0)
eval_every = 5
checkpoint_every = 10

[ppo]
hidden = [32, 32]
num_envs = 4
batch_size = 1024
minibatch_size = 128
epochs = 4
threads = 1
eval_episodes = 2
final_eval_episodes = 10

[controller]
name = "fixed"   # the -controller flag replaces it
interval = 5

[[controller.tune]]
name = "lr"
low = 1e-4
high = 3e-3
scale = "log"

[[controller.tune]]
name = "clip"
low = 0.1
high = 0.4
`

func main() {
	out := flag.String("out", "runs/pointmass", "the run folder to train into")
	ctlName := flag.String("controller", configs.Fixed, "fixed, or a registered controller (hypercontroller, hoof, ...)")
	iterations := flag.Int("iterations", 0, "PPO iterations (0: the config's)")
	seed := flag.Int64("seed", 0, "seed of the environments, the networks and the controller")
	resume := flag.Bool("resume", false, "continue the unfinished run in -out")
	force := flag.Bool("force", false, "overwrite the run in -out")
	evalDir := flag.String("eval", "", "evaluate the trained policy of this run folder instead of training")
	episodes := flag.Int("episodes", 10, "episodes of -eval")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if *evalDir != "" {
		err = evaluate(ctx, *evalDir, *episodes)
	} else {
		err = train(ctx, *out, *ctlName, *iterations, *seed, *resume, *force)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "customenv:", err)
		os.Exit(1)
	}
}

// train resolves the config with the flags applied and trains it into out.
func train(ctx context.Context, out, ctlName string, iterations int, seed int64, resume, force bool) error {
	cfg, err := configs.Parse("customenv", config, func(r *configs.Run) {
		r.Controller.Name = ctlName
		r.Seed = seed
		if iterations > 0 {
			r.Iterations = iterations
		}
	})
	if err != nil {
		return err
	}
	plan, err := cfg.Resolve()
	if err != nil {
		return err
	}
	log := zerolog.New(zerolog.ConsoleWriter{Out: os.Stderr}).With().Timestamp().Logger()
	res, err := run.Train(ctx, plan, run.Options{Out: out, Resume: resume, Force: force, Log: log})
	if err != nil {
		return err
	}
	if res.AlreadyFinished {
		fmt.Printf("%s is already finished\n", out)
		return nil
	}
	s := res.Summary
	fmt.Printf("%s: %s, %s, %d iterations, %d frames, final training reward %.2f", out, s.Env, s.Controller, s.Iterations, s.Frames, s.FinalTrainReward)
	if s.FinalEvalReturn != nil {
		fmt.Printf(", final evaluation return %.2f", *s.FinalEvalReturn)
	}
	fmt.Println()
	return nil
}

// evaluate runs deterministic episodes of a run folder's final policy, as
// `hyperctl eval` does for the shipped environments.
func evaluate(ctx context.Context, dir string, episodes int) error {
	p, err := policy.Load(dir, policy.Final)
	if err != nil {
		return err
	}
	res, err := policy.Evaluate(ctx, p, episodes, 0)
	if err != nil {
		return err
	}
	fmt.Printf("%s: %s, %d episodes, mean return %.2f ± %.2f (min %.2f, max %.2f)\n", dir, res.Env, res.Episodes, res.Mean, res.Std, res.Min, res.Max)
	return nil
}
