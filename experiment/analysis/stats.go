package analysis

import (
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"strings"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/envs/rng"
	"github.com/hyperctl/hyperctl/experiment/matrix"
)

// The statistics below follow rliable (Agarwal et al., NeurIPS 2021, "Deep
// RL at the Edge of the Statistical Precipice"): the interquartile mean,
// the probability of improvement and performance profiles, each with a 95 %
// stratified-bootstrap percentile confidence interval. A run's score is its
// evaluation return at its environment's matched budget (budgetEvals).

// DefaultResamples is the number of bootstrap resamples behind every
// confidence interval unless Bootstrap.Resamples says otherwise.
const DefaultResamples = 10000

// ProfilePoints is the number of thresholds τ a performance profile is
// evaluated at.
const ProfilePoints = 201

// Bootstrap configures the stratified bootstrap.
type Bootstrap struct {
	// Resamples per confidence interval (0: DefaultResamples).
	Resamples int
	// Seed of the resampling; every CI draws from its own stream derived
	// from Seed and what it estimates, so a CI does not depend on which
	// other rows the folder has.
	Seed uint64
}

func (b Bootstrap) resamples() int {
	if b.Resamples > 0 {
		return b.Resamples
	}
	return DefaultResamples
}

// RandomBaseline is a uniformly random policy's mean return on one
// environment: the 0 of the normalised scores.
type RandomBaseline struct {
	Mean     float64 // mean return over the episodes
	StdErr   float64 // standard error of Mean
	Episodes int     // number of episodes
	Seed     int64   // episode k was reset with Seed+k
	// Err says why there is no estimate (then Mean is not used).
	Err error
}

// Interval is a point estimate with its 95 % bootstrap percentile
// confidence interval; all NaN when undefined.
type Interval struct{ Point, Lo, Hi float64 }

var nanInterval = Interval{math.NaN(), math.NaN(), math.NaN()}

// Defined reports whether the estimate exists.
func (iv Interval) Defined() bool { return !math.IsNaN(iv.Point) }

// EnvStat is one row's statistics on one environment.
type EnvStat struct {
	Runs int      // finished runs with a score
	IQM  Interval // interquartile mean of the scores (raw returns)
	// NormIQM is IQM normalised (NaN without a normalisation).
	NormIQM Interval
	// PoI is the probability that a run of this row scores higher than a
	// run of the reference row (ties count ½); NaN for the reference row
	// or without reference runs.
	PoI Interval
}

// Normalisation maps an environment's returns to normalised scores:
// (return − Random) / (RefIQM − Random), so a uniformly random policy
// scores 0 and the reference row's IQM scores 1.
type Normalisation struct {
	Random RandomBaseline
	RefIQM float64 // the reference row's IQM (NaN without its runs)
	// Problem says why the environment cannot be normalised ("" when it
	// can); such an environment is left out of the aggregate IQM and the
	// performance profile.
	Problem string
}

// OK reports whether the normalisation is defined.
func (n Normalisation) OK() bool { return n.Problem == "" }

// Apply normalises a return.
func (n Normalisation) Apply(v float64) float64 {
	return (v - n.Random.Mean) / (n.RefIQM - n.Random.Mean)
}

// AggStat is one row's statistics aggregated over environments.
type AggStat struct {
	// Runs is the number of normalised scores pooled into IQM, over Envs
	// environments; Missing lists the normalised environments where the
	// row has no score.
	Runs, Envs int
	Missing    []string
	// IQM is the interquartile mean of the row's normalised scores pooled
	// over the normalised environments; each bootstrap resample draws the
	// runs of each environment with replacement, independently.
	IQM Interval
	// PoI is the row's probability of improvement over the reference,
	// averaged over the PoIEnvs environments where both have scores.
	PoI     Interval
	PoIEnvs int
	// Eligible says whether the row may be chosen by the rule: it has
	// scores on every normalised environment and on every environment of
	// the reference. Why not, otherwise.
	Eligible bool
	Why      string
}

// Profile is the performance profile of every row: the fraction of its
// normalised scores (pooled over the normalised environments) above each
// threshold Tau, with 95 % bootstrap bands.
type Profile struct {
	Tau  []float64
	Rows map[string]ProfileRow
}

// ProfileRow is one row's performance profile.
type ProfileRow struct {
	Runs          int
	Frac, Lo, Hi  []float64 // per τ
	Envs, Missing int       // normalised environments with and without its scores
}

// Verdict is the outcome of the rule that chooses the default controller:
// the row with the highest aggregate IQM whose probability of improvement
// over the reference has a 95 % CI lower bound above 0.5.
type Verdict struct {
	// Winner is that row; "" when no row passes.
	Winner string
	// Passing lists the rows that pass, by decreasing aggregate IQM.
	Passing []string
}

// Stats are the decision statistics of a compare folder.
type Stats struct {
	Envs      []string // environments with scores, sorted
	Rows      []string // controllers with scores, sorted
	Reference string
	// Score says in words what each run's score is: the evaluation return
	// at the matched budget, or its judge score (Set.Score). The profile's
	// title and the aggregate's text use it.
	Score string
	// HasReference says whether the reference row has scores; without it
	// there is no normalisation, aggregate, probability of improvement,
	// profile or verdict.
	HasReference bool
	Bootstrap    Bootstrap
	Norm         map[string]Normalisation      // by environment
	PerEnv       map[string]map[string]EnvStat // env → row
	Aggregate    map[string]AggStat            // by row
	// NormEnvs are the environments whose normalisation is defined: the
	// aggregate IQM and the profile pool these.
	NormEnvs []string
	Profile  Profile
	Verdict  Verdict
}

// scoreSet holds one row's scores on one environment, ordered by seed.
type scoreSet struct {
	seeds []int64
	vals  []float64
}

// tracer receives every resample's indices (kind "row" for a row's
// stratified resample, "poi-x" and "poi-y" for the two independent
// resamples of a probability of improvement). Tests use it to recompute the
// statistics on the very same resamples.
type tracer func(kind, row string, rep int, env string, idx []int)

// Stats computes the decision statistics from each finished run's score
// (the evaluation return at its environment's matched budget, or with
// Score ScoreJudge its judge.json mean), with s.Random as
// the normalisation's zero. A non-finite score is an error naming the run.
func (s *Set) Stats() (*Stats, error) {
	data := map[string]map[string]scoreSet{}
	for _, env := range s.Envs() {
		evals, _ := s.budgetEvals(env)
		for _, c := range sortedKeys(evals) {
			bySeed := evals[c]
			seeds := make([]int64, 0, len(bySeed))
			for sd := range bySeed {
				seeds = append(seeds, sd)
			}
			sort.Slice(seeds, func(i, j int) bool { return seeds[i] < seeds[j] })
			ss := scoreSet{seeds: seeds}
			for _, sd := range seeds {
				ss.vals = append(ss.vals, bySeed[sd])
			}
			if data[env] == nil {
				data[env] = map[string]scoreSet{}
			}
			data[env][c] = ss
		}
	}
	st, err := computeStats(data, s.reference(), s.Random, s.Bootstrap, nil)
	if st != nil {
		st.Score = s.words().what
	}
	return st, err
}

// computeStats is Stats on explicit data: data[env][row] are the scores.
func computeStats(data map[string]map[string]scoreSet, ref string, random map[string]RandomBaseline, cfg Bootstrap, trace tracer) (*Stats, error) {
	st := &Stats{
		Reference: ref,
		Bootstrap: Bootstrap{Resamples: cfg.resamples(), Seed: cfg.Seed},
		Norm:      map[string]Normalisation{},
		PerEnv:    map[string]map[string]EnvStat{},
		Aggregate: map[string]AggStat{},
	}
	rowSet := map[string]bool{}
	for _, env := range sortedKeys(data) {
		for _, c := range sortedKeys(data[env]) {
			ss := data[env][c]
			if len(ss.vals) == 0 {
				continue
			}
			for i, v := range ss.vals {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("report: %s: the evaluation return at the matched budget is %v; the statistics need finite scores (check that run's eval.csv)", matrix.Cell{Env: env, Controller: c, Seed: ss.seeds[i]}, v)
				}
			}
			rowSet[c] = true
			if len(st.Envs) == 0 || st.Envs[len(st.Envs)-1] != env {
				st.Envs = append(st.Envs, env)
			}
		}
	}
	st.Rows = sortedKeys(rowSet)
	scores := func(env, row string) []float64 { return data[env][row].vals }
	for _, env := range st.Envs {
		if len(scores(env, ref)) > 0 {
			st.HasReference = true
		}
	}
	B := st.Bootstrap.Resamples

	// Normalisation.
	for _, env := range st.Envs {
		n := Normalisation{RefIQM: math.NaN()}
		rb, ok := random[env]
		switch {
		case !ok:
			n.Problem = "no random-policy return"
		case rb.Err != nil:
			n.Random = rb
			n.Problem = "no random-policy return: " + rb.Err.Error()
		default:
			n.Random = rb
		}
		if r := scores(env, ref); len(r) > 0 {
			n.RefIQM = IQM(r)
		} else if n.Problem == "" {
			n.Problem = fmt.Sprintf("no %s runs", ref)
		}
		if n.Problem == "" && !(n.RefIQM > n.Random.Mean) {
			n.Problem = fmt.Sprintf("%s's IQM (%s) is not above the random policy's return (%s)", ref, fmtNum(n.RefIQM, 2), fmtNum(n.Random.Mean, 2))
		}
		if n.Problem == "" {
			st.NormEnvs = append(st.NormEnvs, env)
		}
		st.Norm[env] = n
	}

	// Per row: one stratified resample gives the per-environment IQMs, the
	// aggregate IQM and the profile.
	st.Profile = Profile{Tau: profileGrid(data, st), Rows: map[string]ProfileRow{}}
	for _, row := range st.Rows {
		st.rowStats(data, row, B, trace)
	}

	// Probability of improvement over the reference.
	if st.HasReference {
		for _, row := range st.Rows {
			if row == ref {
				continue
			}
			st.poiStats(data, row, B, trace)
		}
	}
	st.verdict()
	return st, nil
}

// rowStats fills the per-environment IQMs, aggregate IQM and profile of
// one row.
func (st *Stats) rowStats(data map[string]map[string]scoreSet, row string, B int, trace tracer) {
	// The environments where the row has scores, with what the resampling
	// loop needs of each (no map look-ups inside it).
	type stratum struct {
		env    string
		vals   []float64
		idx    []int
		iqms   []float64 // the IQM of each resample
		normed bool
		norm   Normalisation
	}
	var strata []*stratum
	for _, env := range st.Envs {
		if v := data[env][row].vals; len(v) > 0 {
			n := st.Norm[env]
			strata = append(strata, &stratum{env: env, vals: v, idx: make([]int, len(v)), iqms: make([]float64, 0, B), normed: n.OK(), norm: n})
		}
	}
	agg := AggStat{IQM: nanInterval, PoI: nanInterval}
	var pooled []float64
	for _, env := range st.NormEnvs {
		v := data[env][row].vals
		if len(v) == 0 {
			agg.Missing = append(agg.Missing, env)
			continue
		}
		agg.Envs++
		for _, x := range v {
			pooled = append(pooled, st.Norm[env].Apply(x))
		}
	}
	agg.Runs = len(pooled)
	g := rng.New(streamSeed(st.Bootstrap.Seed, "row", row))
	aggIQM := make([]float64, 0, B)
	taus := st.Profile.Tau
	var counts [][]int // counts[t][k]: resamples with k pooled scores above taus[t]
	above := make([]int, len(taus))
	if len(pooled) > 0 {
		counts = make([][]int, len(taus))
		for t := range counts {
			counts[t] = make([]int, len(pooled)+1)
		}
	}
	buf := make([]float64, 0, 64)
	pool := make([]float64, 0, len(pooled))
	for b := 0; b < B; b++ {
		pool = pool[:0]
		for _, sr := range strata {
			n := int64(len(sr.vals))
			for i := range sr.idx {
				sr.idx[i] = int(g.Integers(0, n))
			}
			if trace != nil {
				trace("row", row, b, sr.env, sr.idx)
			}
			buf = buf[:0]
			for _, i := range sr.idx {
				buf = append(buf, sr.vals[i])
			}
			sr.iqms = append(sr.iqms, iqm(buf))
			if sr.normed {
				for _, x := range buf {
					pool = append(pool, sr.norm.Apply(x))
				}
			}
		}
		if len(pool) > 0 {
			aggIQM = append(aggIQM, iqm(pool)) // iqm sorts pool in place
			countsAbove(pool, taus, above)
			for t, k := range above {
				counts[t][k]++
			}
		}
	}
	for _, sr := range strata {
		lo, hi := percentileCI(sr.iqms)
		es := EnvStat{Runs: len(sr.vals), IQM: Interval{IQM(sr.vals), lo, hi}, NormIQM: nanInterval, PoI: nanInterval}
		if sr.normed {
			es.NormIQM = Interval{sr.norm.Apply(es.IQM.Point), sr.norm.Apply(lo), sr.norm.Apply(hi)}
		}
		if st.PerEnv[sr.env] == nil {
			st.PerEnv[sr.env] = map[string]EnvStat{}
		}
		st.PerEnv[sr.env][row] = es
	}
	if len(pooled) > 0 {
		lo, hi := percentileCI(aggIQM)
		agg.IQM = Interval{IQM(pooled), lo, hi}
		sorted := append([]float64(nil), pooled...)
		sort.Float64s(sorted)
		countsAbove(sorted, taus, above)
		pr := ProfileRow{Runs: len(pooled), Envs: agg.Envs, Missing: len(agg.Missing)}
		for t := range taus {
			pr.Frac = append(pr.Frac, float64(above[t])/float64(len(sorted)))
			lo, hi := countPercentileCI(counts[t], B, len(pooled))
			pr.Lo, pr.Hi = append(pr.Lo, lo), append(pr.Hi, hi)
		}
		st.Profile.Rows[row] = pr
	}
	st.Aggregate[row] = agg
}

// poiStats fills a row's probability of improvement over the reference,
// per environment and averaged, resampling the runs of the row and of the
// reference independently within each environment.
func (st *Stats) poiStats(data map[string]map[string]scoreSet, row string, B int, trace tracer) {
	ref := st.Reference
	type stratum struct {
		env        string
		x, y       []float64 // the row's and the reference's scores
		xIdx, yIdx []int
		xb, yb     []float64
		pois       []float64 // P(X > Y) of each resample
	}
	var strata []*stratum
	for _, env := range st.Envs {
		x, y := data[env][row].vals, data[env][ref].vals
		if len(x) > 0 && len(y) > 0 {
			strata = append(strata, &stratum{env: env, x: x, y: y, xIdx: make([]int, len(x)), yIdx: make([]int, len(y)),
				xb: make([]float64, len(x)), yb: make([]float64, len(y)), pois: make([]float64, 0, B)})
		}
	}
	agg := st.Aggregate[row]
	agg.PoIEnvs = len(strata)
	if len(strata) == 0 {
		st.Aggregate[row] = agg
		return
	}
	g := rng.New(streamSeed(st.Bootstrap.Seed, "poi", row+"\x00"+ref))
	mean := make([]float64, 0, B)
	for b := 0; b < B; b++ {
		sum := 0.0
		for _, sr := range strata {
			nx, ny := int64(len(sr.x)), int64(len(sr.y))
			for i := range sr.xIdx {
				sr.xIdx[i] = int(g.Integers(0, nx))
				sr.xb[i] = sr.x[sr.xIdx[i]]
			}
			for i := range sr.yIdx {
				sr.yIdx[i] = int(g.Integers(0, ny))
				sr.yb[i] = sr.y[sr.yIdx[i]]
			}
			if trace != nil {
				trace("poi-x", row, b, sr.env, sr.xIdx)
				trace("poi-y", row, b, sr.env, sr.yIdx)
			}
			p := probImprovement(sr.xb, sr.yb)
			sr.pois = append(sr.pois, p)
			sum += p
		}
		mean = append(mean, sum/float64(len(strata)))
	}
	point := 0.0
	for _, sr := range strata {
		p := ProbImprovement(sr.x, sr.y)
		point += p
		lo, hi := percentileCI(sr.pois)
		es := st.PerEnv[sr.env][row]
		es.PoI = Interval{p, lo, hi}
		st.PerEnv[sr.env][row] = es
	}
	lo, hi := percentileCI(mean)
	agg.PoI = Interval{point / float64(len(strata)), lo, hi}
	st.Aggregate[row] = agg
}

// verdict applies the rule and sets each row's eligibility.
func (st *Stats) verdict() {
	if !st.HasReference {
		return
	}
	var refEnvs []string
	for _, env := range st.Envs {
		if _, ok := st.PerEnv[env][st.Reference]; ok {
			refEnvs = append(refEnvs, env)
		}
	}
	for _, row := range st.Rows {
		a := st.Aggregate[row]
		var missing []string
		for _, env := range refEnvs {
			if _, ok := st.PerEnv[env][row]; !ok {
				missing = append(missing, env)
			}
		}
		switch {
		case row == st.Reference:
			a.Why = "the reference"
		case !a.IQM.Defined():
			a.Why = "no normalised scores"
		case len(missing) > 0:
			a.Why = fmt.Sprintf("no scores on %v", missing)
		case !(a.PoI.Lo > 0.5):
			a.Eligible = true
			a.Why = fmt.Sprintf("fails: CI lower bound %s ≤ 0.5", fmtLow(a.PoI.Lo))
		default:
			a.Eligible = true
			st.Verdict.Passing = append(st.Verdict.Passing, row)
		}
		st.Aggregate[row] = a
	}
	sort.SliceStable(st.Verdict.Passing, func(i, j int) bool {
		return st.Aggregate[st.Verdict.Passing[i]].IQM.Point > st.Aggregate[st.Verdict.Passing[j]].IQM.Point
	})
	if len(st.Verdict.Passing) > 0 {
		st.Verdict.Winner = st.Verdict.Passing[0]
	}
}

// Passes reports whether the row passes the rule.
func (a AggStat) Passes() bool { return a.Eligible && a.PoI.Lo > 0.5 }

// fmtIv formats an interval as "point [lo, hi]" with prec decimals.
func fmtIv(iv Interval, prec int) string {
	if !iv.Defined() {
		return "–"
	}
	return fmt.Sprintf("%s [%s, %s]", fmtNum(iv.Point, prec), fmtNum(iv.Lo, prec), fmtNum(iv.Hi, prec))
}

// RuleText states the rule: against `fixed` (configs.Fixed) the one that
// chooses the default controller (the control study, docs/study.md), against another reference (a
// population's best-of-N fixed runs, say) which rows beat it.
func RuleText(ref string) string {
	if ref != configs.Fixed {
		return fmt.Sprintf("a row beats `%s` when its probability of improvement over `%s` has a 95 %% CI lower bound above 0.5; of those, the one with the highest aggregate IQM is the best", ref, ref)
	}
	return fmt.Sprintf("the default controller becomes the row with the highest aggregate IQM whose probability of improvement over `%s` has a 95 %% CI lower bound above 0.5; if no row passes, `%s` stays the default", ref, ref)
}

// VerdictText is the rule's outcome in one sentence.
func (st *Stats) VerdictText() string {
	ref := st.Reference
	if !st.HasReference {
		return fmt.Sprintf("no verdict: the folder has no finished `%s` run to compare with", ref)
	}
	if w := st.Verdict.Winner; w != "" {
		a := st.Aggregate[w]
		t := fmt.Sprintf("`%s` passes the rule with the highest aggregate IQM, %s, and P(> %s) %s", w, fmtIv(a.IQM, 2), ref, fmtIv(a.PoI, 2))
		if len(st.Verdict.Passing) > 1 {
			t += fmt.Sprintf("; also passing: %s", strings.Join(st.Verdict.Passing[1:], ", "))
		}
		return t + "."
	}
	best, bestLo := "", math.Inf(-1)
	for _, r := range st.Rows {
		if a := st.Aggregate[r]; a.Eligible && r != ref && a.PoI.Lo > bestLo {
			best, bestLo = r, a.PoI.Lo
		}
	}
	t := fmt.Sprintf("no row passes the rule: no controller's probability of improvement over `%s` has a 95 %% CI lower bound above 0.5", ref)
	if best != "" {
		t += fmt.Sprintf(" (the highest lower bound is `%s`'s, %s)", best, fmtLow(bestLo))
	}
	if ref != configs.Fixed {
		return t + fmt.Sprintf(". No row beats `%s` by the rule.", ref)
	}
	return t + fmt.Sprintf(". By the rule, `%s` stays the default.", ref)
}

// fmtLow formats a CI lower bound that is at most 0.5 with two decimals,
// or more when two would print 0.50.
func fmtLow(v float64) string {
	for prec := 2; prec < 6; prec++ {
		if s := fmtNum(v, prec); s != fmtNum(0.5, prec) {
			return s
		}
	}
	return fmt.Sprintf("%g", v)
}

// profileGrid is the τ grid of the performance profile: ProfilePoints
// evenly spaced thresholds from min(0, lowest normalised score) to
// max(2, highest normalised score), rounded outward to tenths.
func profileGrid(data map[string]map[string]scoreSet, st *Stats) []float64 {
	lo, hi := 0.0, 2.0
	for _, env := range st.NormEnvs {
		for _, ss := range data[env] {
			for _, v := range ss.vals {
				x := st.Norm[env].Apply(v)
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
		}
	}
	lo, hi = math.Floor(lo*10)/10, math.Ceil(hi*10)/10
	taus := make([]float64, ProfilePoints)
	for i := range taus {
		taus[i] = lo + (hi-lo)*float64(i)/float64(ProfilePoints-1)
	}
	return taus
}

// iqm is the interquartile mean as scipy.stats.trim_mean(x, 0.25): the mean
// of x without its ⌊n/4⌋ lowest and ⌊n/4⌋ highest values. It sorts x in
// place. NaN for no data.
func iqm(x []float64) float64 {
	n := len(x)
	if n == 0 {
		return math.NaN()
	}
	sort.Float64s(x)
	cut := n / 4
	sum := 0.0
	for _, v := range x[cut : n-cut] {
		sum += v
	}
	return sum / float64(n-2*cut)
}

// IQM returns the interquartile mean of x (the 25 % trimmed mean, as
// rliable's aggregate_iqm) without changing x.
func IQM(x []float64) float64 { return iqm(append([]float64(nil), x...)) }

// ProbImprovement is the probability of improvement of x over y, P(X > Y)
// + ½ P(X = Y) for X drawn from x and Y from y (rliable's
// probability_of_improvement on one task), without changing x or y.
func ProbImprovement(x, y []float64) float64 {
	return probImprovement(append([]float64(nil), x...), append([]float64(nil), y...))
}

// probImprovement is P(X > Y) + ½ P(X = Y) for X drawn from x and Y from y:
// the Mann–Whitney U statistic of x over y divided by len(x)·len(y). It
// sorts x and y in place and counts in one merge of the two.
func probImprovement(x, y []float64) float64 {
	sort.Float64s(x)
	sort.Float64s(y)
	u := 0.0
	below, notAbove := 0, 0 // y values < v and ≤ v
	for _, v := range x {
		for below < len(y) && y[below] < v {
			below++
		}
		if notAbove < below {
			notAbove = below
		}
		for notAbove < len(y) && y[notAbove] <= v {
			notAbove++
		}
		u += float64(below) + 0.5*float64(notAbove-below)
	}
	return u / float64(len(x)*len(y))
}

// countsAbove sets above[t] to the number of values of sorted (ascending)
// above taus[t], for ascending taus, in one merge of the two.
func countsAbove(sorted, taus []float64, above []int) {
	i := 0 // values ≤ taus[t]
	for t, tau := range taus {
		for i < len(sorted) && sorted[i] <= tau {
			i++
		}
		above[t] = len(sorted) - i
	}
}

// percentileCI is the 95 % percentile interval of bootstrap statistics:
// their 2.5th and 97.5th percentiles with linear interpolation (NumPy's
// default, as rliable through arch). It sorts stats in place.
func percentileCI(stats []float64) (lo, hi float64) {
	if len(stats) == 0 {
		return math.NaN(), math.NaN()
	}
	sort.Float64s(stats)
	return quantile7(stats, 0.025), quantile7(stats, 0.975)
}

// countPercentileCI is percentileCI of B statistics k/n given as counts[k],
// the number of statistics equal to k/n.
func countPercentileCI(counts []int, B, n int) (lo, hi float64) {
	at := func(pos int) float64 { // the pos-th smallest statistic (0-based)
		c := 0
		for k, m := range counts {
			c += m
			if pos < c {
				return float64(k) / float64(n)
			}
		}
		return float64(len(counts)-1) / float64(n)
	}
	q := func(p float64) float64 {
		h := float64(B-1) * p
		i := int(math.Floor(h))
		if i+1 >= B {
			return at(B - 1)
		}
		a, b := at(i), at(i+1)
		return a + (h-float64(i))*(b-a)
	}
	return q(0.025), q(0.975)
}

// streamSeed derives the seed of one statistic's resampling stream from
// the bootstrap seed, a kind and a name: FNV-1a of kind and name, mixed
// with the seed by SplitMix64's finaliser.
func streamSeed(seed uint64, kind, name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(kind))
	h.Write([]byte{0})
	h.Write([]byte(name))
	z := seed ^ h.Sum64()
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
