// Command pporun trains PPO with fixed hyperparameters (no controller, the
// reference baseline) and writes per-iteration and evaluation CSVs. It is
// the experiment runner behind results/ppo (its learning bars); the
// project's CLI is cmd/hyperctl.
//
//	go run ./ppo/internal/pporun -env halfcheetah -seed 0 -frames 1000000 -out results/ppo/halfcheetah/seed0
package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	_ "github.com/hyperctl/hyperctl/envs/all"
	"github.com/hyperctl/hyperctl/ppo"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "pporun:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		env       = flag.String("env", "halfcheetah", "environment")
		seed      = flag.Int64("seed", 0, "seed")
		frames    = flag.Int("frames", 1_000_000, "frame budget: iterations = frames / batch_size (CleanRL's floor)")
		evalEvery = flag.Int("eval-every", 10, "evaluate after every K iterations and after the last (0: only the last)")
		finalEps  = flag.Int("final-episodes", 10, "extra deterministic episodes at the end (reported separately)")
		out       = flag.String("out", "", "output directory for iterations.csv, evals.csv, summary.txt (empty: none)")
		hidden    = flag.String("hidden", "", "hidden widths, e.g. 64,64 (default: config)")
		numEnvs   = flag.Int("num-envs", 0, "environment copies (0: config)")
		batch     = flag.Int("batch", 0, "batch size in frames (0: config)")
		threads   = flag.Int("threads", 0, "ppo.threads (0: automatic)")
		updThr    = flag.Int("update-threads", 1, "ppo.update_threads (1, or 2: two row blocks per minibatch)")
		quiet     = flag.Bool("quiet", false, "no per-iteration progress")
		bootTrunc = flag.Bool("bootstrap-truncated", true, "ppo.bootstrap_truncated (false: CleanRL's treatment of time limits)")
	)
	flag.Parse()
	cfg := ppoconfig.DefaultConfig()
	if *hidden != "" {
		cfg.Hidden = nil
		for _, f := range strings.Split(*hidden, ",") {
			h, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return fmt.Errorf("-hidden: %w", err)
			}
			cfg.Hidden = append(cfg.Hidden, h)
		}
	}
	if *numEnvs > 0 {
		cfg.NumEnvs = *numEnvs
	}
	if *batch > 0 {
		cfg.BatchSize = *batch
	}
	cfg.Threads = *threads
	cfg.UpdateThreads = *updThr
	cfg.BootstrapTruncated = *bootTrunc
	if err := cfg.Validate(); err != nil {
		return err
	}
	iters := *frames / cfg.BatchSize
	if iters < 1 {
		return fmt.Errorf("-frames %d is less than one batch of %d", *frames, cfg.BatchSize)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	tr, err := ppo.New(*env, cfg, *seed)
	if err != nil {
		return err
	}
	defer tr.Close()

	// The hyperparameter columns: the paper's four keys of ppoconfig.Hyper
	// (those with paper bounds), in declaration order.
	var paperKeys []string
	for _, k := range ppoconfig.HyperKeys() {
		if k.InPaper() {
			paperKeys = append(paperKeys, k.Name)
		}
	}
	var itW, evW *csv.Writer
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
		fi, err := os.Create(filepath.Join(*out, "iterations.csv"))
		if err != nil {
			return err
		}
		defer fi.Close()
		fe, err := os.Create(filepath.Join(*out, "evals.csv"))
		if err != nil {
			return err
		}
		defer fe.Close()
		itW, evW = csv.NewWriter(fi), csv.NewWriter(fe)
		header := append([]string{"iteration", "frames", "total_frames", "reward", "episodes", "mean_return"}, paperKeys...)
		_ = itW.Write(append(header, "policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac", "explained_var", "grad_norm", "rejected",
			"elapsed_s", "env_s", "inference_s", "update_s", "wall_s", "rss_mb"))
		_ = evW.Write([]string{"iteration", "total_frames", "return", "length", "wall_s"})
		defer itW.Flush()
		defer evW.Flush()
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 8, 64) }
	start := time.Now()
	var envT, infT, updT time.Duration
	var lastEval, rss10 float64
	lastLen := 0
	every := *evalEvery
	if every == 0 {
		every = iters
	}
	err = ppo.Run(ctx, tr, nil, ppoconfig.RunOptions{Iterations: iters, EvalEvery: every}, func(r ppo.Report) error {
		s := r.Stats
		envT += s.EnvTime
		infT += s.InferenceTime
		updT += s.UpdateTime
		wall := time.Since(start).Seconds()
		if s.Iteration == 9 {
			rss10 = rssMB()
		}
		mr := ""
		if len(s.Returns) > 0 {
			var m float64
			for _, x := range s.Returns {
				m += x
			}
			mr = f(m / float64(len(s.Returns)))
		}
		if itW != nil {
			row := []string{strconv.Itoa(s.Iteration), strconv.Itoa(s.Frames), strconv.FormatInt(s.TotalFrames, 10), f(s.Reward),
				strconv.Itoa(len(s.Returns)), mr}
			hv, err := s.Hyper.ValuesOf(paperKeys)
			if err != nil {
				return err
			}
			for _, v := range hv {
				row = append(row, fmt.Sprint(v))
				if x, ok := v.(float64); ok {
					row[len(row)-1] = f(x)
				}
			}
			_ = itW.Write(append(row,
				f(s.Update.PolicyLoss), f(s.Update.ValueLoss), f(s.Update.Entropy), f(s.Update.ApproxKL), f(s.Update.ClipFrac),
				f(s.Update.ExplainedVar), f(s.Update.GradNorm), strconv.FormatBool(s.Update.Rejected),
				f(s.Elapsed.Seconds()), f(s.EnvTime.Seconds()), f(s.InferenceTime.Seconds()), f(s.UpdateTime.Seconds()), f(wall), f(rssMB())))
		}
		if r.Eval != nil {
			lastEval, lastLen = r.Eval.Returns[0], r.Eval.Lengths[0]
			if evW != nil {
				_ = evW.Write([]string{strconv.Itoa(s.Iteration), strconv.FormatInt(s.TotalFrames, 10), f(lastEval), strconv.Itoa(lastLen), f(wall)})
				evW.Flush()
			}
			if !*quiet {
				fmt.Printf("it %4d frames %8d reward/step %8.3f eval %9.2f (%d steps) %6.0f frames/s\n",
					s.Iteration, s.TotalFrames, s.Reward, lastEval, lastLen, float64(s.TotalFrames)/wall)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	wall := time.Since(start)
	fe, err := tr.Evaluate(ctx, *finalEps)
	if err != nil {
		return err
	}
	var m float64
	for _, x := range fe.Returns {
		m += x
	}
	m /= float64(len(fe.Returns))
	summary := fmt.Sprintf(`env %s seed %d networks %s num_envs %d batch %d bootstrap_truncated %v iterations %d frames %d
GOMAXPROCS %d threads %d update_threads %d
wall %.1f s, %.0f frames/s end to end (training loop incl. evaluations every %d iterations)
time: env %.1f s (%.0f%%), inference %.1f s (%.0f%%), update %.1f s (%.0f%%), other %.1f s
final evaluation (protocol: 1 deterministic episode): return %.2f, %d steps
extra %d deterministic episodes: mean return %.2f, returns %v
rejected updates %d
resident memory: %.1f MB after iteration 10, %.1f MB at the end
`, *env, *seed, tr.Networks(), cfg.NumEnvs, cfg.BatchSize, cfg.BootstrapTruncated, iters, tr.Frames(),
		runtime.GOMAXPROCS(0), cfg.Threads, cfg.UpdateThreads,
		wall.Seconds(), float64(tr.Frames())/wall.Seconds(), every,
		envT.Seconds(), 100*envT.Seconds()/wall.Seconds(), infT.Seconds(), 100*infT.Seconds()/wall.Seconds(),
		updT.Seconds(), 100*updT.Seconds()/wall.Seconds(), (wall - envT - infT - updT).Seconds(),
		lastEval, lastLen, len(fe.Returns), m, fe.Returns, tr.Rejected(), rss10, rssMB())
	fmt.Print(summary)
	if *out != "" {
		cmd := "go run ./ppo/internal/pporun " + strings.Join(os.Args[1:], " ")
		if err := os.WriteFile(filepath.Join(*out, "summary.txt"), []byte("command: "+cmd+"\n"+summary), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// rssMB is the process's resident set size in MB (Linux), or NaN.
func rssMB() float64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return math.NaN()
	}
	fs := strings.Fields(string(b))
	if len(fs) < 2 {
		return math.NaN()
	}
	pages, err := strconv.ParseFloat(fs[1], 64)
	if err != nil {
		return math.NaN()
	}
	return pages * float64(os.Getpagesize()) / (1 << 20)
}
