package deltabo_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hyperctl/hyperctl/baselines/deltabo"
	"github.com/hyperctl/hyperctl/kalman"
)

// The LGDS regret experiment is an experiment, not a test: it runs only
// when -regret-out names an output folder, e.g. (from the repository root)
//
//	go test ./baselines/deltabo -run TestRegretLGDS -v -timeout 2h \
//	    -regret-out $PWD/results/more-controllers -regret-h 2 -regret-rho 0.95,0.99 \
//	    -regret-seeds 5 -regret-n 1000 -regret-interval 5
var (
	regretOut      = flag.String("regret-out", "", "run the DeltaBO LGDS regret experiment and write its outputs to this folder")
	regretH        = flag.String("regret-h", "2", "comma-separated numbers of hyperparameters")
	regretRho      = flag.String("regret-rho", "0.95", "comma-separated persistences ρ of the bandit")
	regretSeeds    = flag.Int("regret-seeds", 5, "bandit realisations")
	regretN        = flag.Int("regret-n", 1000, "rounds per run")
	regretInterval = flag.Int("regret-interval", 5, "decision interval")
	regretProgress = flag.String("regret-progress", "iteration", "DeltaBO's progress setting")
	regretTag      = flag.String("regret-tag", "deltabo_regret", "prefix of the Markdown summary's name (<tag>_<progress>.md)")
)

// Source similarities of the experiment: the source bandit's objective is
// ψ^src_t = a ψ_t + √(1 − a²) ψ'_t, ψ the target bandit (same seed, same
// latent path) and ψ' an independent bandit of the same configuration
// (seed + 10000): a = 1 is the same task, a = 0 an unrelated one, and every
// a gives a bandit with the same marginal statistics.
var regretSimilarity = []float64{1, 0.7, 0}

// sourceRun simulates one source run on the source bandit: a uniformly
// random configuration every round (rounds 0…n−1, iteration = round), its
// objective ψ^src_t(ζ) + N(0, σ²) with fresh noise (σ the bandit's).
func sourceRun(a *kalman.Bandit, b *kalman.Bandit, sim float64, seed uint64) []deltabo.Record {
	cfg := a.Config()
	rng := rand.New(rand.NewPCG(seed, 0x50c))
	w := math.Sqrt(math.Max(0, 1-sim*sim))
	zeta := make([]float64, cfg.H)
	out := make([]deltabo.Record, 0, a.Rounds())
	for t := range a.Rounds() {
		c := map[string]float64{}
		for i := range zeta {
			zeta[i] = rng.Float64()
			c["x"+strconv.Itoa(i+1)] = zeta[i]
		}
		v := sim*a.Value(t, zeta) + w*b.Value(t, zeta) + cfg.Noise*rng.NormFloat64()
		out = append(out, deltabo.Record{Iteration: t, Time: float64(t), Config: c, Objective: v})
	}
	return out
}

func parseList[T any](s string, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for _, p := range strings.Split(s, ",") {
		v, err := parse(strings.TrimSpace(p))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func TestRegretLGDS(t *testing.T) {
	if *regretOut == "" {
		t.Skip("experiment: run with -regret-out DIR")
	}
	hs, err := parseList(*regretH, strconv.Atoi)
	if err != nil {
		t.Fatal(err)
	}
	rhos, err := parseList(*regretRho, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(*regretOut, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var md strings.Builder
	fmt.Fprintf(&md, "# DeltaBO on the LGDS regret benchmark\n\nCommand (repository root):\n\n```\ngo test ./baselines/deltabo -run TestRegretLGDS -v -timeout 2h -regret-out %s -regret-h %s -regret-rho %s -regret-seeds %d -regret-n %d -regret-interval %d -regret-progress %s -regret-tag %s\n```\n\n",
		"$PWD/results/more-controllers", *regretH, *regretRho, *regretSeeds, *regretN, *regretInterval, *regretProgress, *regretTag)
	for _, h := range hs {
		for _, rho := range rhos {
			bc := kalman.DefaultBanditConfig(h)
			bc.Rho = rho
			rc := kalman.RegretConfig{Bandit: bc, N: *regretN, D: 10, S: 1, Interval: *regretInterval, Seeds: *regretSeeds, Seed: 1}
			names := []string{"gpucb"}
			for _, a := range regretSimilarity {
				names = append(names, fmt.Sprintf("deltabo (source a=%g)", a))
			}
			names = append(names, kalman.RefRandom, kalman.RefOracle, kalman.RefBestFixed)
			res := &kalman.Result{Config: rc}
			for _, n := range names {
				res.Curves = append(res.Curves, kalman.Curve{Name: n})
			}
			start := time.Now()
			for k := range rc.Seeds {
				seed := rc.Seed + uint64(k)
				tb, err := kalman.NewBandit(bc, rc.N, seed)
				if err != nil {
					t.Fatal(err)
				}
				other, err := kalman.NewBandit(bc, rc.N, seed+10000)
				if err != nil {
					t.Fatal(err)
				}
				run, err := kalman.RunController(ctx, tb, "gpucb", nil, rc.D, rc.S, rc.Interval, seed)
				if err != nil {
					t.Fatal(err)
				}
				res.Curves[0].Runs = append(res.Curves[0].Runs, run)
				for j, a := range regretSimilarity {
					s := deltabo.DefaultSettings()
					s.Records = sourceRun(tb, other, a, seed)
					s.Progress = *regretProgress
					run, err := kalman.RunController(ctx, tb, deltabo.Name, &s, rc.D, rc.S, rc.Interval, seed)
					if err != nil {
						t.Fatal(err)
					}
					res.Curves[1+j].Runs = append(res.Curves[1+j].Runs, run)
				}
				refs, err := kalman.RunReferences(tb, rc.D, seed)
				if err != nil {
					t.Fatal(err)
				}
				for j, n := range []string{kalman.RefRandom, kalman.RefOracle, kalman.RefBestFixed} {
					res.Curves[1+len(regretSimilarity)+j].Runs = append(res.Curves[1+len(regretSimilarity)+j].Runs, refs[n])
				}
			}
			tag := fmt.Sprintf("deltabo_regret_h%d_rho%g_%s", h, rho, *regretProgress)
			f, err := os.Create(filepath.Join(*regretOut, tag+".csv"))
			if err != nil {
				t.Fatal(err)
			}
			if err := res.WriteCSV(f); err != nil {
				t.Fatal(err)
			}
			f.Close()
			title := fmt.Sprintf("DeltaBO vs GP-UCB, LGDS bandit h=%d, rho=%g, interval %d, %d seeds", h, rho, rc.Interval, rc.Seeds)
			if err := res.Plot(filepath.Join(*regretOut, tag+".png"), title); err != nil {
				t.Fatal(err)
			}
			// Per-seed comparison with GP-UCB.
			g := res.Curves[0]
			fmt.Fprintf(&md, "## h = %d, ρ = %g, progress = %s (n = %d, interval %d, %d seeds; %s)\n\n%s\n", h, rho, *regretProgress, rc.N, rc.Interval, rc.Seeds, time.Since(start).Round(time.Second), res.Table())
			fmt.Fprintf(&md, "| DeltaBO source | R_n / GP-UCB's R_n (mean of per-seed ratios) | seeds below GP-UCB |\n|---|---:|---:|\n")
			for j, a := range regretSimilarity {
				c := res.Curves[1+j]
				below, ratio := 0, 0.0
				for k := range c.Runs {
					x, y := c.Runs[k][rc.N-1], g.Runs[k][rc.N-1]
					ratio += x / y / float64(len(c.Runs))
					if x < y {
						below++
					}
				}
				fmt.Fprintf(&md, "| a = %g | %.3f | %d/%d |\n", a, ratio, below, len(c.Runs))
			}
			fmt.Fprintf(&md, "\nFiles: `%s.csv` (mean and s.e. of R_t at every t), `%s.png`.\n\n", tag, tag)
			t.Logf("h=%d rho=%g done in %s\n%s", h, rho, time.Since(start).Round(time.Second), res.Table())
		}
	}
	if err := os.WriteFile(filepath.Join(*regretOut, *regretTag+"_"+*regretProgress+".md"), []byte(md.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
