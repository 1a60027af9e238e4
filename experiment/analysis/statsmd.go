package analysis

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// byAggregateIQM returns the rows sorted by decreasing aggregate IQM, rows
// without one last, by name.
func (st *Stats) byAggregateIQM() []string {
	rows := append([]string(nil), st.Rows...)
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := st.Aggregate[rows[i]].IQM.Point, st.Aggregate[rows[j]].IQM.Point
		if math.IsNaN(b) {
			return !math.IsNaN(a)
		}
		return a > b
	})
	return rows
}

// decisionMarkdown writes the aggregate table (IQM of normalised scores and
// probability of improvement, with CIs) and the rule's verdict, naming the
// score as st.Score says.
func (st *Stats) decisionMarkdown(sb *strings.Builder) {
	ref := st.Reference
	fmt.Fprintf(sb, "### Aggregate over environments\n\n")
	if !st.HasReference {
		fmt.Fprintf(sb, "No finished `%s` run: the scores cannot be normalised (1 = `%s`'s IQM), so there is no aggregate, probability of improvement, performance profile or verdict. The per-environment IQMs are in the environments' tables.\n\n", ref, ref)
		return
	}
	fmt.Fprintf(sb, "A run's score is its %s, normalised per environment: 0 = a uniformly random policy's mean return, 1 = `%s`'s IQM (see [Normalisation and bootstrap](#normalisation-and-bootstrap)). ", st.Score, ref)
	fmt.Fprintf(sb, "IQM: the interquartile mean (the mean of the middle half) of a row's normalised scores pooled over the %d normalised environments. ", len(st.NormEnvs))
	fmt.Fprintf(sb, "P(> %s): the probability that a run of the row scores higher than a run of `%s` on the same environment (ties count ½), averaged over the environments where both have runs. ", ref, ref)
	fmt.Fprintf(sb, "Brackets: 95 %% stratified-bootstrap percentile CIs (%d resamples, seed %d).\n\n", st.Bootstrap.Resamples, st.Bootstrap.Seed)
	fmt.Fprintf(sb, "| controller | runs | environments | IQM of normalised score [95 %% CI] | P(> %s) [95 %% CI] | rule |\n|---|---|---|---|---|---|\n", ref)
	for _, r := range st.byAggregateIQM() {
		a := st.Aggregate[r]
		rule := a.Why
		if a.Passes() {
			rule = "passes"
		}
		poi := fmtIv(a.PoI, 2)
		if a.PoI.Defined() && a.PoIEnvs != a.Envs {
			poi += fmt.Sprintf(" (%d envs)", a.PoIEnvs)
		}
		fmt.Fprintf(sb, "| %s | %d | %d of %d | %s | %s | %s |\n", r, a.Runs, a.Envs, len(st.NormEnvs), fmtIv(a.IQM, 2), poi, rule)
	}
	if len(st.NormEnvs) < len(st.Envs) {
		var out []string
		for _, env := range st.Envs {
			if n := st.Norm[env]; !n.OK() {
				out = append(out, fmt.Sprintf("%s (%s)", env, n.Problem))
			}
		}
		fmt.Fprintf(sb, "\nLeft out of the aggregate IQM and the profile: %s.\n", strings.Join(out, "; "))
	}
	fmt.Fprintf(sb, "\nRule: %s.\n\n**Verdict:** %s\n\n", RuleText(ref), st.VerdictText())
}

// normalisationMarkdown writes how each environment's scores are
// normalised and how the CIs are computed.
func (st *Stats) normalisationMarkdown(sb *strings.Builder) {
	if len(st.Envs) == 0 {
		return
	}
	ref := st.Reference
	sb.WriteString("## Normalisation and bootstrap\n\n")
	fmt.Fprintf(sb, "Per environment, a score s becomes (s − random) / (%s's IQM − random). random is the mean return of a uniformly random policy: each action coordinate drawn uniformly from the action box, episode k on a fresh environment reset with seed k, computed by this report. An environment where `%s` has no run, or its IQM is not above random, is left out of the aggregate.\n\n", ref, ref)
	fmt.Fprintf(sb, "| env | random policy's return, mean ± s.e. (episodes) | %s's IQM [95 %% CI] | %s's runs | normalised |\n|---|---|---|---|---|\n", ref, ref)
	for _, env := range st.Envs {
		n := st.Norm[env]
		random := "–"
		if n.Random.Episodes > 0 && n.Random.Err == nil {
			random = fmt.Sprintf("%s ± %s (%d)", fmtNum(n.Random.Mean, 2), fmtNum(n.Random.StdErr, 2), n.Random.Episodes)
		}
		es, ok := st.PerEnv[env][ref]
		iq, runs := "–", 0
		if ok {
			iq, runs = fmtIv(es.IQM, 2), es.Runs
		}
		status := "yes"
		if !n.OK() {
			status = "no: " + n.Problem
		}
		fmt.Fprintf(sb, "| %s | %s | %s | %d | %s |\n", env, random, iq, runs, status)
	}
	fmt.Fprintf(sb, "\nBootstrap: %d resamples per CI, seed %d. A resample draws, within each environment independently, as many runs as it has, with replacement (for P(> %s), the runs of the row and of `%s` independently); the CI is the 2.5th and 97.5th percentiles of the statistic over the resamples (linear interpolation). The IQM is the 25 %% trimmed mean: ⌊n/4⌋ scores are dropped from each end.\n\n", st.Bootstrap.Resamples, st.Bootstrap.Seed, ref, ref)
}
