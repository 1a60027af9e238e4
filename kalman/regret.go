package kalman

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/hyperctl/hyperctl/controller"
)

// Reference policies computed by RunRegret next to the controllers. Their
// names cannot collide with registered controller names (which have no ':').
const (
	// RefRandom picks a uniformly random grid configuration every round.
	RefRandom = "ref:random-grid"
	// RefOracle is the Kalman oracle: it knows Γ, Q and σ, runs the Kalman
	// filter (eq. 23) on the latent state and picks the grid configuration
	// with the largest predicted ψ_t.
	RefOracle = "ref:kalman-oracle"
	// RefBestFixed is the best single grid configuration in hindsight:
	// argmax_A Σ_t ψ_t(ζ_A), held for all n rounds.
	RefBestFixed = "ref:best-fixed"
	// RefGridOptimum picks the best grid configuration of every round with
	// hindsight: its regret is the discretisation cost alone.
	RefGridOptimum = "ref:grid-optimum"
)

// RegretConfig is one regret benchmark.
type RegretConfig struct {
	Bandit      BanditConfig
	N           int      // rounds per run (the paper: n = 1000)
	D           int      // grid values per hyperparameter for references and for controllers with a "d" setting
	S           int      // "s" setting for controllers that have one (HyperController)
	Interval    int      // the driver's decision interval (1 = Algorithm 1 as written)
	Seeds       int      // independent bandit realisations
	Seed        uint64   // first seed; run k uses Seed + k for the bandit and the controllers
	Controllers []string // registered controller names
}

// Validate reports the first invalid field.
func (c RegretConfig) Validate() error {
	if err := c.Bandit.Validate(); err != nil {
		return err
	}
	switch {
	case c.N < 1:
		return fmt.Errorf("n: want >= 1 rounds, got %d", c.N)
	case c.D < 2:
		return fmt.Errorf("d: want >= 2 grid values, got %d", c.D)
	case c.S < 1:
		return fmt.Errorf("s: want >= 1, got %d", c.S)
	case c.Interval < 1:
		return fmt.Errorf("interval: want >= 1, got %d", c.Interval)
	case c.Seeds < 1:
		return fmt.Errorf("seeds: want >= 1, got %d", c.Seeds)
	}
	if c.D > 2001 {
		// The references' dynamic programme holds a d×d matrix.
		return fmt.Errorf("d: want at most 2001 grid values, got %d", c.D)
	}
	for _, n := range c.Controllers {
		if _, err := controller.Lookup(n); err != nil {
			return fmt.Errorf("controllers: %w", err)
		}
	}
	return nil
}

// Curve is one method's cumulative regret R_t (eq. 7) per seed.
type Curve struct {
	Name string
	Runs [][]float64 // Runs[k][t] = R_{t+1} of seed k
}

// Mean returns the mean over seeds of R_{t+1} and its standard error.
func (c Curve) Mean(t int) (mean, se float64) {
	v := make([]float64, len(c.Runs))
	for k, r := range c.Runs {
		v[k] = r[t]
	}
	return MeanSE(v)
}

// Result is a regret benchmark's outcome.
type Result struct {
	Config RegretConfig
	Curves []Curve // controllers in the order given, then the references
}

// Curve returns the named curve.
func (r *Result) Curve(name string) (Curve, bool) {
	for _, c := range r.Curves {
		if c.Name == name {
			return c, true
		}
	}
	return Curve{}, false
}

// RunRegret runs every controller and reference on cfg.Seeds bandits.
func RunRegret(ctx context.Context, cfg RegretConfig) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("kalman: regret: %w", err)
	}
	res := &Result{Config: cfg}
	names := append(append([]string(nil), cfg.Controllers...), RefRandom, RefOracle, RefBestFixed, RefGridOptimum)
	for _, n := range names {
		res.Curves = append(res.Curves, Curve{Name: n})
	}
	for k := range cfg.Seeds {
		seed := cfg.Seed + uint64(k)
		b, err := NewBandit(cfg.Bandit, cfg.N, seed)
		if err != nil {
			return nil, err
		}
		for j, n := range cfg.Controllers {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			run, err := RunController(ctx, b, n, nil, cfg.D, cfg.S, cfg.Interval, seed)
			if err != nil {
				return nil, fmt.Errorf("kalman: regret: seed %d: %w", seed, err)
			}
			res.Curves[j].Runs = append(res.Curves[j].Runs, run)
		}
		refs, err := RunReferences(b, cfg.D, seed)
		if err != nil {
			return nil, fmt.Errorf("kalman: regret: seed %d: %w", seed, err)
		}
		for j, n := range []string{RefRandom, RefOracle, RefBestFixed, RefGridOptimum} {
			res.Curves[len(cfg.Controllers)+j].Runs = append(res.Curves[len(cfg.Controllers)+j].Runs, refs[n])
		}
	}
	return res, nil
}

// ApplySettings sets the keys "d" and "s" on a method's settings when its
// settings struct has them (decoded through its toml tags, so the names are
// the ones a config file uses), and validates the result.
func ApplySettings(settings controller.Settings, d, s int) error {
	for _, kv := range []struct {
		key string
		val int
	}{{"d", d}, {"s", s}} {
		// A key the settings struct lacks is left undecoded (the method
		// has no such setting) and ignored.
		if _, err := toml.Decode(fmt.Sprintf("%s = %d", kv.key, kv.val), settings); err != nil {
			return fmt.Errorf("setting %s = %d: %w", kv.key, kv.val, err)
		}
	}
	return settings.Validate()
}

// unitSpace is h parameters x1…xh on [0, 1], linear.
func unitSpace(h int) (controller.Space, error) {
	ps := make([]controller.Param, h)
	for i := range ps {
		ps[i] = controller.Param{Name: fmt.Sprintf("x%d", i+1), Low: 0, High: 1}
	}
	return controller.NewSpace(ps...)
}

// RunController runs the registered controller name on b through the
// driver (objective: the raw bandit output X_t, so the method sees X_t
// itself) and returns its cumulative regret path. settings may be nil (the
// method's defaults, with d and s applied by ApplySettings). It stops with
// ctx's error when ctx is done.
func RunController(ctx context.Context, b *Bandit, name string, settings controller.Settings, d, s, interval int, seed uint64) ([]float64, error) {
	e, err := controller.Lookup(name)
	if err != nil {
		return nil, err
	}
	if settings == nil {
		settings = e.Defaults()
		if err := ApplySettings(settings, d, s); err != nil {
			return nil, fmt.Errorf("controller %s: %w", name, err)
		}
	}
	space, err := unitSpace(b.cfg.H)
	if err != nil {
		return nil, err
	}
	ctl, err := controller.Build(name, settings, space, controller.Options{Interval: interval, Objective: controller.Reward, Seed: seed})
	if err != nil {
		return nil, err
	}
	out := make([]float64, b.n)
	cum := 0.0
	for t := range b.n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cfg, err := ctl.Suggest()
		if err != nil {
			return nil, err
		}
		x := b.Observe(t, cfg)
		cum += b.Optimum(t) - b.Value(t, cfg)
		out[t] = cum
		if err := ctl.Observe(controller.Result{Reward: x}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// RunReferences returns the cumulative regret paths of the four reference
// policies on the grid of d values per hyperparameter.
func RunReferences(b *Bandit, d int, seed uint64) (map[string][]float64, error) {
	ga, err := NewGridArgmax(b.cfg, d)
	if err != nil {
		return nil, err
	}
	h, n, m := b.cfg.H, b.n, b.m
	pts := ga.Points()
	zeta := make([]float64, h)
	idx := make([]int, h)
	setZeta := func() {
		for i, j := range idx {
			zeta[i] = pts[j]
		}
	}
	out := map[string][]float64{}
	path := func(val func(t int) float64) []float64 {
		p := make([]float64, n)
		cum := 0.0
		for t := range n {
			cum += b.Optimum(t) - val(t)
			p[t] = cum
		}
		return p
	}

	rng := rand.New(rand.NewPCG(seed, 0x7a11d0))
	out[RefRandom] = path(func(t int) float64 {
		for i := range idx {
			idx[i] = rng.IntN(d)
		}
		setZeta()
		return b.Value(t, zeta)
	})

	f, err := NewFilter(b.model)
	if err != nil {
		return nil, err
	}
	c := make([]float64, m)
	var ferr error
	out[RefOracle] = path(func(t int) float64 {
		ga.Argmax(f.StateView(), idx)
		setZeta()
		b.Features(zeta, c)
		v := b.Value(t, zeta)
		if err := f.Update(c, v+b.eta[t]); err != nil && ferr == nil {
			ferr = err
		}
		return v
	})
	if ferr != nil {
		return nil, ferr
	}

	sum := make([]float64, m)
	for t := range n {
		for j, v := range b.W(t) {
			sum[j] += v
		}
	}
	ga.Argmax(sum, idx)
	setZeta()
	fixed := append([]float64(nil), zeta...)
	out[RefBestFixed] = path(func(t int) float64 { return b.Value(t, fixed) })

	out[RefGridOptimum] = path(func(t int) float64 {
		_, v := ga.Argmax(b.W(t), idx)
		return v
	})
	return out, nil
}

// Row is one line of a regret summary.
type Row struct {
	Name        string
	Final, SE   float64 // mean R_n over seeds and its standard error
	PerRound    float64 // Final / n
	VsRandom    float64 // Final / the random reference's Final
	BelowRandom int     // seeds on which R_n < the random reference's R_n
	Seeds       int
}

// Summary returns one row per curve, in the result's order.
func (r *Result) Summary() []Row {
	n := r.Config.N
	rnd, _ := r.Curve(RefRandom)
	rm, _ := rnd.Mean(n - 1)
	var rows []Row
	for _, c := range r.Curves {
		m, se := c.Mean(n - 1)
		row := Row{Name: c.Name, Final: m, SE: se, PerRound: m / float64(n), VsRandom: m / rm, Seeds: len(c.Runs)}
		for k, run := range c.Runs {
			if run[n-1] < rnd.Runs[k][n-1] {
				row.BelowRandom++
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// Table formats the summary as a Markdown table.
func (r *Result) Table() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "| method | R_n mean | ± s.e. | per round | vs random | seeds below random |\n")
	fmt.Fprintf(&sb, "|---|---:|---:|---:|---:|---:|\n")
	for _, row := range r.Summary() {
		fmt.Fprintf(&sb, "| %s | %.1f | %.1f | %.4f | %.3f | %d/%d |\n", row.Name, row.Final, row.SE, row.PerRound, row.VsRandom, row.BelowRandom, row.Seeds)
	}
	return sb.String()
}

// SweepPoint is the final regret of one method at one (d, s).
type SweepPoint struct {
	D, S      int
	Name      string
	Final, SE float64
}

// RunSweep runs the named controllers over every (d, s) pair, and the
// references over every d, on the same cfg.Seeds bandits.
func RunSweep(ctx context.Context, cfg RegretConfig, ds, ss []int) ([]SweepPoint, error) {
	if len(ds) == 0 || len(ss) == 0 {
		return nil, errors.New("kalman: sweep: empty d or s list")
	}
	for _, d := range ds {
		for _, s := range ss {
			c := cfg
			c.D, c.S = d, s
			if err := c.Validate(); err != nil {
				return nil, fmt.Errorf("kalman: sweep: %w", err)
			}
		}
	}
	type key struct {
		d, s int
		name string
	}
	runs := map[key][]float64{} // final regrets per seed
	for k := range cfg.Seeds {
		seed := cfg.Seed + uint64(k)
		b, err := NewBandit(cfg.Bandit, cfg.N, seed)
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			refs, err := RunReferences(b, d, seed)
			if err != nil {
				return nil, err
			}
			for name, p := range refs {
				runs[key{d, 0, name}] = append(runs[key{d, 0, name}], p[cfg.N-1])
			}
			for _, s := range ss {
				for _, name := range cfg.Controllers {
					if err := ctx.Err(); err != nil {
						return nil, err
					}
					p, err := RunController(ctx, b, name, nil, d, s, cfg.Interval, seed)
					if err != nil {
						return nil, fmt.Errorf("kalman: sweep: d=%d s=%d seed %d: %w", d, s, seed, err)
					}
					runs[key{d, s, name}] = append(runs[key{d, s, name}], p[cfg.N-1])
				}
			}
		}
	}
	var out []SweepPoint
	for k, v := range runs {
		m, se := MeanSE(v)
		out = append(out, SweepPoint{D: k.d, S: k.s, Name: k.name, Final: m, SE: se})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		if a.S != b.S {
			return a.S < b.S
		}
		return a.D < b.D
	})
	return out, nil
}

// MeanSE returns the mean of v and its standard error (0 for one value).
func MeanSE(v []float64) (mean, se float64) {
	n := float64(len(v))
	for _, x := range v {
		mean += x
	}
	mean /= n
	if len(v) > 1 {
		var ss float64
		for _, x := range v {
			ss += (x - mean) * (x - mean)
		}
		se = math.Sqrt(ss / (n - 1) / n)
	}
	return mean, se
}
