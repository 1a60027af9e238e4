package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	_ "github.com/hyperctl/hyperctl/baselines/all" // register every controller
	"github.com/hyperctl/hyperctl/controller/hypercontroller"
	"github.com/hyperctl/hyperctl/kalman"
)

func newBenchCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "bench",
		Short: "Benchmarks: the controllers on synthetic bandits (regret), the service's latency (serve)",
		Args:  cobra.NoArgs,
	}
	c.AddCommand(newBenchRegretCmd(a), newBenchServeCmd(a))
	return c
}

type regretFlags struct {
	controllers []string
	hs          []int
	d, s, n     int
	seeds       int
	seed        uint64
	interval    int
	bandit      kalman.BanditConfig
	sweepD      []int
	sweepS      []int
	out         string
	tag         string
}

func newBenchRegretCmd(a *app) *cobra.Command {
	f := &regretFlags{bandit: kalman.DefaultBanditConfig(2)}
	c := &cobra.Command{
		Use:   "regret",
		Short: "Cumulative regret (eq. 7) of controllers on synthetic LGDS bandits",
		Long: `regret runs controllers on synthetic bandits whose objective is the output of
a linear Gaussian dynamical system (the paper's model, Section II), and
reports cumulative regret R_n = Σ_t ψ*_t − ψ_t(ζ_t) (eq. 7) against four
references on the same grid of d values per hyperparameter: uniform random
choice, a Kalman oracle that knows Γ, Q and σ and picks its predicted argmax,
the best fixed configuration in hindsight, and the per-round best grid
configuration (the discretisation cost alone).

Each hyperparameter lies in [0, 1]; ψ_t is a smooth random function driven by
a latent LGDS with Γ = ρI on a cosine basis (see package kalman, BanditConfig).
Every controller meets the same bandit realisations and measurement noise.
Any registered controller can be named; the keys d and s of its settings are
set from --d and --s when it has them, the rest are its defaults.

Per h it prints a Markdown table and writes <out>/<tag>_h<h>.csv (mean and
standard error of R_t at every t) and .png, and all tables to <tag>.md.
With --sweep-d it instead runs every (d, s) of --sweep-d × --sweep-s and
writes <tag>_sweep_h<h>.csv/.png and <tag>_sweep.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runBenchRegret(cmd, a, f) },
	}
	fl := c.Flags()
	fl.StringSliceVar(&f.controllers, "controllers", []string{hypercontroller.Name}, "registered controllers to run (list them with: hyperctl controllers)")
	fl.IntSliceVar(&f.hs, "h", []int{2, 3, 4}, "numbers of hyperparameters, one benchmark each (1–8)")
	fl.IntVar(&f.d, "d", 10, "grid values per hyperparameter (references, and controllers with a d setting)")
	fl.IntVar(&f.s, "s", 1, "s setting of controllers that have one (HyperController's history length)")
	fl.IntVar(&f.n, "n", 1000, "rounds per run")
	fl.IntVar(&f.seeds, "seeds", 20, "bandit realisations (seeds seed … seed+seeds−1)")
	fl.Uint64Var(&f.seed, "seed", 1, "first seed")
	fl.IntVar(&f.interval, "interval", 1, "the driver's decision interval (1: Algorithm 1 as written; the paper's PPO runs: 5)")
	fl.Float64Var(&f.bandit.Rho, "rho", f.bandit.Rho, "persistence ρ of the latent LGDS, Γ = ρI, 0 <= ρ < 1 (near 1: slow drift)")
	fl.Float64Var(&f.bandit.Interaction, "interaction", f.bandit.Interaction, "scale of the chain interactions between neighbouring hyperparameters (0: separable)")
	fl.Float64Var(&f.bandit.Noise, "noise", f.bandit.Noise, "measurement-noise standard deviation σ")
	fl.IntVar(&f.bandit.Basis, "basis", f.bandit.Basis, "cosine basis functions per hyperparameter")
	fl.Float64Var(&f.bandit.Lengthscale, "lengthscale", f.bandit.Lengthscale, "length scale of ψ along each hyperparameter")
	fl.IntVar(&f.bandit.Fine, "fine", f.bandit.Fine, "fine-grid points per hyperparameter for the optimum ψ*")
	fl.IntSliceVar(&f.sweepD, "sweep-d", nil, "sweep these d values (with --sweep-s) instead of one run per h")
	fl.IntSliceVar(&f.sweepS, "sweep-s", []int{1, 2, 3}, "s values of the sweep")
	fl.StringVar(&f.out, "out", "results/regret", "output directory (\"\": print only)")
	fl.StringVar(&f.tag, "tag", "regret", "file-name prefix of the outputs")
	return c
}

func runBenchRegret(cmd *cobra.Command, a *app, f *regretFlags) error {
	if len(f.hs) == 0 {
		return usagef("--h: give at least one number of hyperparameters")
	}
	if strings.ContainsAny(f.tag, `/\`) || f.tag == "" {
		return usagef("--tag %q: want a non-empty file-name prefix without slashes", f.tag)
	}
	cfgs := make([]kalman.RegretConfig, 0, len(f.hs))
	for _, h := range f.hs {
		b := f.bandit
		b.H = h
		c := kalman.RegretConfig{Bandit: b, N: f.n, D: f.d, S: f.s, Interval: f.interval, Seeds: f.seeds, Seed: f.seed, Controllers: f.controllers}
		if err := c.Validate(); err != nil {
			return usagef("--%v", err)
		}
		for _, d := range f.sweepD {
			for _, s := range f.sweepS {
				c2 := c
				c2.D, c2.S = d, s
				if err := c2.Validate(); err != nil {
					return usagef("--sweep-d/--sweep-s: %v", err)
				}
			}
		}
		cfgs = append(cfgs, c)
	}
	if f.out != "" {
		if err := os.MkdirAll(f.out, 0o755); err != nil {
			return fmt.Errorf("bench regret: %w", err)
		}
	}
	w := cmd.OutOrStdout()
	ctx := cmd.Context()
	var md bytes.Buffer
	fmt.Fprintf(&md, "command: hyperctl %s\n\n", strings.Join(os.Args[1:], " "))
	for _, c := range cfgs {
		start := time.Now()
		title := fmt.Sprintf("h=%d d=%d s=%d n=%d seeds=%d interval=%d rho=%g interaction=%g noise=%g", c.Bandit.H, c.D, c.S, c.N, c.Seeds, c.Interval, c.Bandit.Rho, c.Bandit.Interaction, c.Bandit.Noise)
		if len(f.sweepD) > 0 {
			title = fmt.Sprintf("sweep h=%d n=%d seeds=%d interval=%d rho=%g interaction=%g noise=%g", c.Bandit.H, c.N, c.Seeds, c.Interval, c.Bandit.Rho, c.Bandit.Interaction, c.Bandit.Noise)
			a.log.Info().Str("bench", title).Msg("running")
			pts, err := kalman.RunSweep(ctx, c, f.sweepD, f.sweepS)
			if err != nil {
				return fmt.Errorf("bench regret: %w", err)
			}
			table := kalman.SweepTable(pts)
			fmt.Fprintf(w, "## %s\n\nfinal cumulative regret R_n, mean ± s.e. over seeds\n\n%s\n", title, table)
			fmt.Fprintf(&md, "## %s\n\nfinal cumulative regret R_n, mean ± s.e. over seeds\n\n%s\n", title, table)
			if f.out != "" {
				base := filepath.Join(f.out, fmt.Sprintf("%s_sweep_h%d", f.tag, c.Bandit.H))
				if err := writeFileWith(base+".csv", func(b io.Writer) error { return kalman.WriteSweepCSV(b, pts) }); err != nil {
					return err
				}
				if err := kalman.PlotSweep(base+".png", title, pts); err != nil {
					return err
				}
			}
		} else {
			a.log.Info().Str("bench", title).Msg("running")
			res, err := kalman.RunRegret(ctx, c)
			if err != nil {
				return fmt.Errorf("bench regret: %w", err)
			}
			fmt.Fprintf(w, "## %s\n\n%s\n", title, res.Table())
			fmt.Fprintf(&md, "## %s\n\n%s\n", title, res.Table())
			if f.out != "" {
				base := filepath.Join(f.out, fmt.Sprintf("%s_h%d", f.tag, c.Bandit.H))
				if err := writeFileWith(base+".csv", res.WriteCSV); err != nil {
					return err
				}
				if err := res.Plot(base+".png", title); err != nil {
					return err
				}
			}
		}
		a.log.Info().Float64("elapsed_s", time.Since(start).Seconds()).Msg("done")
	}
	if f.out != "" {
		name := f.tag + ".md"
		if len(f.sweepD) > 0 {
			name = f.tag + "_sweep.md"
		}
		if err := os.WriteFile(filepath.Join(f.out, name), md.Bytes(), 0o644); err != nil {
			return fmt.Errorf("bench regret: %w", err)
		}
	}
	return nil
}

// writeFileWith writes what fill produces to path.
func writeFileWith(path string, fill func(io.Writer) error) error {
	var b bytes.Buffer
	if err := fill(&b); err != nil {
		return fmt.Errorf("bench regret: %s: %w", path, err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("bench regret: %w", err)
	}
	return nil
}
