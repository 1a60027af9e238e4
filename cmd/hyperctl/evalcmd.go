package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hyperctl/hyperctl/experiment/population"
	"github.com/hyperctl/hyperctl/experiment/progress"
	"github.com/hyperctl/hyperctl/experiment/run"
	"github.com/hyperctl/hyperctl/ppo/policy"
	"github.com/hyperctl/hyperctl/ppo/policy/video"
)

// policyNames maps --policy values to file names.
var policyNames = map[string]string{"best": policy.Best, "final": policy.Final}

// policyFile is the file name of --policy which, or the usage error.
func policyFile(which string) (string, error) {
	name, ok := policyNames[which]
	if !ok {
		return "", usagef("--policy %q: want best or final", which)
	}
	return name, nil
}

// loadRunPolicy loads the policy which ("best" or "final") of the run in
// dir, for cmd (eval, render or judge), and checks it against the run's
// environment (config.toml). dir may also be a finished population folder
// or hold runs below it (population.PolicyRun, with a line on cmd's stderr
// and cmd's command line with the flags given). It returns the run folder
// it read.
func loadRunPolicy(cmd *cobra.Command, dir, which string) (*policy.Policy, string, error) {
	name, err := policyFile(which)
	if err != nil {
		return nil, "", err
	}
	dir, err = population.PolicyRun(cmd.ErrOrStderr(), dir, name, func(pick string) string { return commandWith(cmd, pick) })
	if err != nil {
		return nil, "", err
	}
	p, err := run.LoadPolicy(dir, name)
	return p, dir, err
}

// commandWith is the command line of cmd with arg as its one argument and
// the flags that were given.
func commandWith(cmd *cobra.Command, arg string) string {
	parts := []string{cmd.CommandPath(), arg}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		switch v := f.Value.String(); {
		case f.Value.Type() == "bool" && v == "true":
			parts = append(parts, "--"+f.Name)
		case strings.ContainsAny(v, " \t'\"") || v == "":
			parts = append(parts, "--"+f.Name, strconv.Quote(v))
		default:
			parts = append(parts, "--"+f.Name, v)
		}
	})
	return strings.Join(parts, " ")
}

func newEvalCmd(a *app) *cobra.Command {
	var which string
	var episodes int
	var seed int64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "eval RUN_DIR",
		Short: "Evaluate a run's saved policy with deterministic episodes",
		Long: `eval loads a run's policy (policy-best, the highest evaluation return so
far, or policy-final, the latest) and runs deterministic episodes: the
actor's mean action on the normalised observation, clipped to the action
bounds, as training's evaluations. Episode k is reset with seed S+k. It
prints the mean ± standard deviation (population, as SB3's
evaluate_policy), the minimum and the maximum of the returns.

It works on finished runs and on runs still training (policies are written
atomically). A policy whose environment or sizes differ from the run's
config.toml is refused. RUN_DIR may be a finished population folder: its
best member (the highest final evaluation return, as result.json names it)
is evaluated, and a line on stderr says which.`,
		Example: `  hyperctl eval runs/halfcheetah-hypercontroller-seed0
  hyperctl eval runs/pop --episodes 100         # a population's best member
  hyperctl eval runs/reacher-gpucb-3 --policy final --episodes 20 --seed 100 --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := policy.CheckEpisodes(episodes, seed); err != nil {
				return &usageError{err: err}
			}
			if _, err := policyFile(which); err != nil {
				return err
			}
			if isDryRun(cmd.Context()) {
				return nil
			}
			p, dir, err := loadRunPolicy(cmd, args[0], which)
			if err != nil {
				return err
			}
			res, err := policy.Evaluate(cmd.Context(), p, episodes, seed)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					RunDir string `json:"run_dir"`
					Policy string `json:"policy"`
					policy.EvalResult
					Iteration  int      `json:"iteration"`
					Frames     int64    `json:"frames"`
					EvalReturn *float64 `json:"training_eval_return,omitempty"`
				}{dir, policyNames[which], res, p.Meta.Iteration, p.Meta.Frames, p.Meta.EvalReturn})
			}
			say(cmd, "%s\n%d deterministic episodes (seeds %d-%d): return %.2f ± %.2f, min %.2f, max %.2f, mean length %.0f\n", p.Describe(policyNames[which]),
				episodes, seed, seed+int64(episodes)-1, res.Mean, res.Std, res.Min, res.Max, res.MeanLength())
			return nil
		},
	}
	cmd.Flags().StringVar(&which, "policy", "best", "which policy: best (highest evaluation return so far) or final")
	cmd.Flags().IntVar(&episodes, "episodes", 10, "deterministic episodes")
	cmd.Flags().Int64Var(&seed, "seed", 0, "seed of the first episode (episode k uses seed+k)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func newRenderCmd(a *app) *cobra.Command {
	var which, out, size, still string
	var episodes, stillStep int
	var seed int64
	cmd := &cobra.Command{
		Use:   "render RUN_DIR (--out FILE.mp4 | --still FILE.png)",
		Short: "Record a video, or a still, of a run's saved policy acting",
		Long: `render runs deterministic episodes of a run's policy (as 'hyperctl eval')
and records them as an H.264 MP4, one frame after each reset and each step,
played at the environment's real-time rate (1/dt: 20 fps for Ant,
HalfCheetah, InvertedDoublePendulum and Pusher, 25 for Swimmer and
InvertedPendulum, 50 for Reacher and BipedalWalker, 66.7 for Humanoid, 125
for Hopper and Walker2d).

MuJoCo tasks are drawn by MuJoCo's own renderer offscreen (OSMesa, no display
needed), BipedalWalker by a 2-D rasteriser with Gymnasium's colours. Frames
are piped to ffmpeg (Debian's package; scripts/setup.sh installs it).
--still saves one frame of the first episode as a PNG, with the video or,
without --out, alone (drawn up to --still-step; no ffmpeg needed).

RUN_DIR may be a finished population folder: its best member is recorded,
as with 'hyperctl eval'.

A progress bar shows the frames drawn on a terminal (a log line every 5 s
otherwise); its total assumes every episode runs to the time limit.`,
		Example: `  hyperctl render runs/halfcheetah-hypercontroller-seed0 --out cheetah.mp4
  hyperctl render runs/reacher-gpucb-3 --out reacher.mp4 --policy final --size 600x400 --still reacher.png --still-step 20
  hyperctl render runs/reacher-gpucb-3 --still reacher.png`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" && still == "" {
				return usagef("render: want --out FILE.mp4 (a video), --still FILE.png (one frame), or both")
			}
			if out != "" && !strings.EqualFold(filepath.Ext(out), ".mp4") {
				return usagef("--out %q: want a .mp4 file", out)
			}
			if still != "" && !strings.EqualFold(filepath.Ext(still), ".png") {
				return usagef("--still %q: want a .png file", still)
			}
			if err := policy.CheckEpisodes(episodes, seed); err != nil {
				return &usageError{err: err}
			}
			if stillStep < 0 {
				return usagef("--still-step: want an integer >= 0, got %d", stillStep)
			}
			w, h, ok := video.ParseSize(size)
			if !ok {
				return usagef("--size %q: want WIDTHxHEIGHT with even sizes from 16 to 4096, e.g. 640x480", size)
			}
			if _, err := policyFile(which); err != nil {
				return err
			}
			if isDryRun(cmd.Context()) {
				return nil
			}
			p, _, err := loadRunPolicy(cmd, args[0], which)
			if err != nil {
				return err
			}
			// The policy is named before the bar, so the bar's frames
			// are known to be of it.
			say(cmd, "%s\n", p.Describe(policyNames[which]))
			prog := progress.NewRender(cmd.ErrOrStderr(), a.log, a.logFormat == "json")
			res, err := video.Record(cmd.Context(), p, out, video.Options{Width: w, Height: h, Episodes: episodes, Seed: seed,
				StillPath: still, StillStep: stillStep, Progress: prog.Frame})
			prog.Finish(err == nil)
			if err != nil {
				return err
			}
			if out != "" {
				say(cmd, "wrote %s: %d frames of %dx%d at %g fps (%.1f s); returns %v\n",
					out, res.Frames, w, h, res.FPS, float64(res.Frames)/res.FPS, fmtReturns(res.Returns))
			}
			if still != "" {
				say(cmd, "wrote %s: step %d of the episode with seed %d, %dx%d\n", still, res.StillStep, seed, w, h)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&out, "out", "", "output video (.mp4); optional with --still")
	fl.StringVar(&which, "policy", "best", "which policy: best or final")
	fl.IntVar(&episodes, "episodes", 1, "episodes to record, one after the other")
	fl.Int64Var(&seed, "seed", 0, "seed of the first episode (episode k uses seed+k)")
	fl.StringVar(&size, "size", "640x480", "frame size WIDTHxHEIGHT (even numbers)")
	fl.StringVar(&still, "still", "", "save one frame of the first episode as this PNG (with --out, or alone)")
	fl.IntVar(&stillStep, "still-step", 100, "step of the --still frame (the last one if the episode is shorter)")
	return cmd
}

func fmtReturns(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
