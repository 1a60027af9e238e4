package analysis

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestIQMAndProbImprovement(t *testing.T) {
	iqmCases := []struct {
		x    []float64
		want float64
	}{
		{[]float64{7}, 7},                                 // n = 1: nothing trimmed
		{[]float64{3, 1}, 2},                              // n = 2, 3: nothing trimmed
		{[]float64{3, 1, 100}, 104.0 / 3},                 // outlier kept
		{[]float64{4, 1, 3, 100}, 3.5},                    // n = 4: one from each end
		{[]float64{5, 1, 2, 3, 4, -50, 90, 6}, 3.5},       // n = 8: two from each end
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9}, 5},         // n = 9: two from each end
		{[]float64{2, 2, 2, 2, 2}, 2},                     // all ties
		{[]float64{10, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0},     // n = 10: two from each end
		{[]float64{-1, -2, -3, -4, -5, -6, -7, -8}, -4.5}, // negative
	}
	for _, c := range iqmCases {
		x := append([]float64(nil), c.x...)
		if got := IQM(x); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("IQM(%v) = %v, want %v", c.x, got, c.want)
		}
		for i := range x {
			if x[i] != c.x[i] {
				t.Errorf("IQM changed its argument: %v, was %v", x, c.x)
				break
			}
		}
	}
	if !math.IsNaN(IQM(nil)) {
		t.Errorf("IQM(nil) = %v, want NaN", IQM(nil))
	}
	poiCases := []struct {
		x, y []float64
		want float64
	}{
		{[]float64{1, 1, 1}, []float64{1, 1, 1}, 0.5},     // all ties
		{[]float64{2}, []float64{1}, 1},                   // one run each
		{[]float64{1}, []float64{2}, 0},                   //
		{[]float64{1}, []float64{1}, 0.5},                 //
		{[]float64{1, 2, 3}, []float64{2}, 0.5},           // 0 + ½ + 1 over 3
		{[]float64{1, 2, 3, 4}, []float64{2, 3}, 4.0 / 8}, // (0 + .5 + 1.5 + 2) / 8
		{[]float64{5, 5}, []float64{1, 5, 9}, 3.0 / 6},    // per 5: 1 + ½ + 0
	}
	for _, c := range poiCases {
		if got := ProbImprovement(c.x, c.y); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("P(%v > %v) = %v, want %v", c.x, c.y, got, c.want)
		}
		// P(X > Y) + P(Y > X) = 1 with ties counted ½.
		if got := ProbImprovement(c.x, c.y) + ProbImprovement(c.y, c.x); math.Abs(got-1) > 1e-12 {
			t.Errorf("P(%v > %v) + P(%v > %v) = %v, want 1", c.x, c.y, c.y, c.x, got)
		}
	}
}

// countPercentileCI must equal percentileCI of the statistics it counts.
func TestCountPercentileCI(t *testing.T) {
	for _, c := range []struct {
		counts []int
		n      int
	}{{[]int{0, 3, 0, 1}, 3}, {[]int{10}, 0}, {[]int{1, 2, 3, 4, 5, 6}, 5}, {[]int{0, 0, 1000, 1}, 3}} {
		var stats []float64
		B := 0
		for k, m := range c.counts {
			for i := 0; i < m; i++ {
				stats = append(stats, float64(k)/float64(max(c.n, 1)))
			}
			B += m
		}
		lo, hi := countPercentileCI(c.counts, B, max(c.n, 1))
		wlo, whi := percentileCI(stats)
		if lo != wlo || hi != whi {
			t.Errorf("counts %v: [%v, %v], want [%v, %v]", c.counts, lo, hi, wlo, whi)
		}
	}
}

// scoreData builds computeStats input from env → row → scores (seeds 0…).
func scoreData(m map[string]map[string][]float64) map[string]map[string]scoreSet {
	out := map[string]map[string]scoreSet{}
	for env, rows := range m {
		out[env] = map[string]scoreSet{}
		for row, v := range rows {
			ss := scoreSet{vals: append([]float64(nil), v...)}
			for i := range v {
				ss.seeds = append(ss.seeds, int64(i))
			}
			out[env][row] = ss
		}
	}
	return out
}

func randomMeans(m map[string]float64) map[string]RandomBaseline {
	out := map[string]RandomBaseline{}
	for env, v := range m {
		out[env] = RandomBaseline{Mean: v, Episodes: 10}
	}
	return out
}

// degenerate is a data set with every degenerate case: all ties (e1), one
// run per row (e2), a row missing an environment (e3 has no row b), an
// environment where fixed is below the random policy (e4, not normalised)
// and one without a random-policy return (e5).
func degenerate() (map[string]map[string][]float64, map[string]float64) {
	return map[string]map[string][]float64{
			"e1": {"fixed": {1, 1, 1}, "a": {1, 1, 1}, "b": {1, 1}},
			"e2": {"fixed": {5}, "a": {7}, "b": {3}},
			"e3": {"fixed": {10, 12, 11, 30}, "a": {9, 13, 13}},
			"e4": {"fixed": {-5, -6}, "a": {-1, -2}, "b": {0}},
			"e5": {"fixed": {1, 2}, "a": {3, 4}, "b": {2, 2}},
		}, map[string]float64{
			"e1": 0, "e2": 1, "e3": 2, "e4": -3,
		}
}

func TestStatsDegenerate(t *testing.T) {
	data, random := degenerate()
	st, err := computeStats(scoreData(data), "fixed", randomMeans(random), Bootstrap{Resamples: 500, Seed: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(st.NormEnvs, ","); got != "e1,e2,e3" {
		t.Errorf("normalised environments %s, want e1,e2,e3", got)
	}
	if p := st.Norm["e4"].Problem; !strings.Contains(p, "not above the random policy") {
		t.Errorf("e4: problem %q, want fixed's IQM not above random", p)
	}
	if p := st.Norm["e5"].Problem; !strings.Contains(p, "no random-policy return") {
		t.Errorf("e5: problem %q, want no random-policy return", p)
	}
	cases := []struct {
		name     string
		got      Interval
		want     Interval
		tolPoint float64
	}{
		// All ties: every resample gives the same value.
		{"e1 IQM of a", st.PerEnv["e1"]["a"].IQM, Interval{1, 1, 1}, 0},
		{"e1 P(a > fixed)", st.PerEnv["e1"]["a"].PoI, Interval{0.5, 0.5, 0.5}, 0},
		// One run per row: the resamples are the data.
		{"e2 IQM of b", st.PerEnv["e2"]["b"].IQM, Interval{3, 3, 3}, 0},
		{"e2 P(a > fixed)", st.PerEnv["e2"]["a"].PoI, Interval{1, 1, 1}, 0},
		{"e2 P(b > fixed)", st.PerEnv["e2"]["b"].PoI, Interval{0, 0, 0}, 0},
		{"e2 normalised IQM of a", st.PerEnv["e2"]["a"].NormIQM, Interval{1.5, 1.5, 1.5}, 1e-12},
		// e3: a's 9 beats no run of fixed {10, 12, 11, 30}, each 13 beats three.
		{"e3 P(a > fixed)", Interval{st.PerEnv["e3"]["a"].PoI.Point, 0, 0}, Interval{6.0 / 12, 0, 0}, 1e-12},
	}
	for _, c := range cases {
		if math.Abs(c.got.Point-c.want.Point) > c.tolPoint || (c.want.Lo != 0 || c.want.Hi != 0) && (math.Abs(c.got.Lo-c.want.Lo) > c.tolPoint || math.Abs(c.got.Hi-c.want.Hi) > c.tolPoint) {
			t.Errorf("%s = %+v, want %+v", c.name, c.got, c.want)
		}
	}
	// b has no run on e3: its aggregate pools e1 and e2 only, it is not
	// eligible, and its P(b > fixed) averages the 4 environments it shares.
	b := st.Aggregate["b"]
	if b.Envs != 2 || strings.Join(b.Missing, ",") != "e3" || b.Runs != 3 || b.Eligible || !strings.Contains(b.Why, "e3") {
		t.Errorf("aggregate of b = %+v, want 3 runs on 2 environments, e3 missing, not eligible", b)
	}
	if b.PoIEnvs != 4 {
		t.Errorf("P(b > fixed) over %d environments, want 4", b.PoIEnvs)
	}
	// a: P(a > fixed) averages e1 ½, e2 1, e3 ½, e4 1, e5 1.
	a := st.Aggregate["a"]
	if want := (0.5 + 1 + 0.5 + 1 + 1) / 5; math.Abs(a.PoI.Point-want) > 1e-12 || a.PoIEnvs != 5 {
		t.Errorf("P(a > fixed) = %v over %d environments, want %v over 5", a.PoI.Point, a.PoIEnvs, want)
	}
	if !a.Eligible {
		t.Errorf("a is not eligible (%s), want eligible", a.Why)
	}
	if f := st.Aggregate["fixed"]; f.Eligible || f.PoI.Defined() {
		t.Errorf("fixed: %+v, want the reference, without a probability of improvement over itself", f)
	}
	for _, iv := range []Interval{a.IQM, a.PoI, b.IQM, st.PerEnv["e3"]["a"].IQM} {
		if !(iv.Lo <= iv.Hi) {
			t.Errorf("interval %+v: low above high", iv)
		}
	}
}

func TestStatsRefusesNonFinite(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		data := scoreData(map[string]map[string][]float64{
			"reacher": {"fixed": {1, 2}, "random": {1, bad, 3}},
		})
		_, err := computeStats(data, "fixed", nil, Bootstrap{Resamples: 10}, nil)
		if err == nil || !strings.Contains(err.Error(), "reacher/random/seed1") || !strings.Contains(err.Error(), "finite") {
			t.Errorf("score %v: error %v, want one naming reacher/random/seed1 and finite scores", bad, err)
		}
	}
}

func TestStatsWithoutReference(t *testing.T) {
	data := scoreData(map[string]map[string][]float64{"e1": {"a": {1, 2, 3}, "b": {2, 3}}})
	st, err := computeStats(data, "fixed", randomMeans(map[string]float64{"e1": 0}), Bootstrap{Resamples: 100}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.HasReference || len(st.NormEnvs) != 0 || st.Verdict.Winner != "" || len(st.Profile.Rows) != 0 {
		t.Errorf("without fixed: %+v, want no normalisation, profile or winner", st)
	}
	if iv := st.PerEnv["e1"]["a"].IQM; iv.Point != 2 || !(iv.Lo >= 1 && iv.Hi <= 3) {
		t.Errorf("IQM of a = %+v, want 2 within [1, 3]", iv)
	}
	if !strings.Contains(st.VerdictText(), "no verdict") {
		t.Errorf("verdict %q, want no verdict", st.VerdictText())
	}
}

func TestVerdict(t *testing.T) {
	// a beats fixed on every run of 3 environments; b is higher still but
	// only on one environment, so it is not eligible; c never beats fixed.
	data := map[string]map[string][]float64{}
	for k, env := range []string{"e1", "e2", "e3"} {
		off := float64(10 * k)
		data[env] = map[string][]float64{
			"fixed": {off + 1, off + 2, off + 3, off + 4, off + 5},
			"a":     {off + 6, off + 7, off + 8, off + 9, off + 10},
			"c":     {off + 0.1, off + 0.2, off + 0.3, off + 0.4, off + 0.5},
		}
	}
	data["e1"]["b"] = []float64{100, 101, 102}
	random := randomMeans(map[string]float64{"e1": -10, "e2": -10, "e3": -10})
	st, err := computeStats(scoreData(data), "fixed", random, Bootstrap{Resamples: 2000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Verdict.Winner != "a" || len(st.Verdict.Passing) != 1 {
		t.Errorf("verdict %+v, want a alone", st.Verdict)
	}
	if b := st.Aggregate["b"]; b.Eligible || b.IQM.Point <= st.Aggregate["a"].IQM.Point {
		t.Errorf("b: %+v; want the highest IQM but not eligible", b)
	}
	if !strings.Contains(st.VerdictText(), "`a` passes") {
		t.Errorf("verdict text %q", st.VerdictText())
	}
	delete(data["e1"], "b")
	for env := range data {
		delete(data[env], "a")
	}
	st, err = computeStats(scoreData(data), "fixed", random, Bootstrap{Resamples: 2000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Verdict.Winner != "" || !strings.Contains(st.VerdictText(), "no row passes") || !strings.Contains(st.VerdictText(), "`fixed` stays the default") {
		t.Errorf("without a: verdict %+v %q, want no row passes", st.Verdict, st.VerdictText())
	}
	// Against another reference the rule names no default.
	st.Reference = "fixed-best8"
	if v, r := st.VerdictText(), RuleText(st.Reference); strings.Contains(v+r, "default") || !strings.Contains(v, "No row beats `fixed-best8` by the rule") {
		t.Errorf("against fixed-best8: rule %q, verdict %q", r, v)
	}
}

// Seeded: the same data and seed give the same CIs; another seed others.
func TestStatsDeterministic(t *testing.T) {
	data, random := degenerate()
	run := func(seed uint64) *Stats {
		st, err := computeStats(scoreData(data), "fixed", randomMeans(random), Bootstrap{Resamples: 300, Seed: seed}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	a, b, c := run(1), run(1), run(2)
	if a.Aggregate["a"].IQM != b.Aggregate["a"].IQM || a.Aggregate["a"].PoI != b.Aggregate["a"].PoI {
		t.Errorf("seed 1 twice: %+v then %+v", a.Aggregate["a"], b.Aggregate["a"])
	}
	if a.Aggregate["a"].IQM == c.Aggregate["a"].IQM && a.Aggregate["a"].PoI == c.Aggregate["a"].PoI {
		t.Errorf("seeds 1 and 2 give the same CIs %+v", a.Aggregate["a"])
	}
}

// numpyCase is one data set for scripts/rliable_check.py.
type numpyCase struct {
	Name      string                          `json:"name"`
	Ref       string                          `json:"ref"`
	Data      map[string]map[string][]float64 `json:"data"`
	Random    map[string]float64              `json:"random"`
	Resamples struct {
		Row map[string][]map[string][]int   `json:"row"`
		PoI map[string][]map[string][][]int `json:"poi"`
	} `json:"resamples"`
	Independent *struct {
		Reps int `json:"reps"`
		Seed int `json:"seed"`
	} `json:"independent,omitempty"`
}

// numpyResult is what the script computes for one case.
type numpyResult struct {
	NormEnvs   []string                        `json:"norm_envs"`
	RefIQM     map[string]float64              `json:"ref_iqm"`
	Normalised map[string]map[string][]float64 `json:"normalised"`
	Tau        []float64                       `json:"tau"`
	EnvIQM     map[string]map[string]float64   `json:"env_iqm"`
	AggIQM     map[string]float64              `json:"agg_iqm"`
	Profile    map[string][]float64            `json:"profile"`
	EnvPoI     map[string]map[string]float64   `json:"env_poi"`
	AggPoI     map[string]float64              `json:"agg_poi"`
	Same       numpyCIs                        `json:"same"`
	Indep      *numpyCIs                       `json:"independent"`
}

type numpyCIs struct {
	EnvIQM  map[string]map[string][2]float64 `json:"env_iqm"`
	AggIQM  map[string][2]float64            `json:"agg_iqm"`
	Profile map[string]struct {
		Lo []float64 `json:"lo"`
		Hi []float64 `json:"hi"`
	} `json:"profile"`
	EnvPoI map[string]map[string][2]float64 `json:"env_poi"`
	AggPoI map[string][2]float64            `json:"agg_poi"`
	// Dist holds the independent bootstrap's statistics.
	Dist *struct {
		EnvIQM map[string]map[string][]float64 `json:"env_iqm"`
		AggIQM map[string][]float64            `json:"agg_iqm"`
		EnvPoI map[string]map[string][]float64 `json:"env_poi"`
		AggPoI map[string][]float64            `json:"agg_poi"`
	} `json:"dist"`
}

// rankBand is the range [F(x−), F(x)] of numpy's bootstrap distribution
// function at x: the levels p for which x is a p-quantile of dist.
func rankBand(dist []float64, x float64) (below, atOrBelow float64) {
	for _, v := range dist {
		if v < x {
			below++
		}
		if v <= x {
			atOrBelow++
		}
	}
	n := float64(len(dist))
	return below / n, atOrBelow / n
}

// mainData is a smooth data set: 4 environments on different scales, 3
// rows, 6–10 runs, one row short of runs on one environment.
func mainData() (map[string]map[string][]float64, map[string]float64) {
	return map[string]map[string][]float64{
			"halfcheetah": {
				"fixed": {1774, 1716.9, 1828.4, 4808.5, 1955.8, 1690.2, 1802.3, 3300},
				"rl":    {2867.3, 1861.4, 3516.3, 4276.2, 1706.2, 2548.1, 1950, 4100},
				"plain": {1686.7, 1613.8, 3432.8, 1650, 1500.5, 1720, 1600},
			},
			"reacher": {
				"fixed": {-4.31, -3.9, -5.2, -2.08, -4.8, -3.3, -6.1, -4.0, -3.75},
				"rl":    {-4.79, -3.5, -6.0, -3.1, -5.5, -2.9, -4.4, -7.2, -4.1},
				"plain": {-7.82, -6.5, -8.1, -5.9, -7.0, -6.6, -9.3, -7.7, -8.8},
			},
			"pusher": {
				"fixed": {-20.72, -19.66, -35.58, -21.4, -20.1, -22.9},
				"rl":    {-27.42, -23.76, -25.1, -30.0, -21.9, -24.4},
				"plain": {-31.44, -32.43, -33.21, -29.7, -30.5, -34.0},
			},
			"inverteddoublependulum": {
				"fixed": {473.96, 9358.7, 88.8, 9350.1, 3310.3, 120.4, 9340.2, 560, 9357, 2000},
				"rl":    {9337.97, 9353.8, 603.5, 9358.3, 9357.0, 9349.9, 98.2, 9351.1, 9356.6, 9300},
				"plain": {603.53, 129.6, 9353.8, 140.2, 88.0, 9301.4, 300.3},
			},
		}, map[string]float64{
			"halfcheetah": -293.56, "reacher": -43.59, "pusher": -147.38, "inverteddoublependulum": 55.84,
		}
}

// TestStatsAgainstNumpy checks the statistics against scripts/
// rliable_check.py, written from the definitions with numpy alone: the
// normalised scores, IQMs, probabilities of improvement, the profile and its
// τ grid exactly (1e-9), the percentile CIs recomputed on Go's very
// resamples exactly (1e-9), and the CIs of an independent numpy bootstrap
// within a Monte Carlo tolerance.
func TestStatsAgainstNumpy(t *testing.T) {
	const python = "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		t.Skipf("%s not found: the numpy cross-check needs Debian's python3 and python3-numpy (scripts/setup.sh)", python)
	}
	if out, err := exec.Command(python, "-c", "import numpy").CombinedOutput(); err != nil {
		t.Skipf("%s cannot import numpy (%v: %s): install Debian's python3-numpy", python, err, strings.TrimSpace(string(out)))
	}
	_, self, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(self), "..", "..", "scripts", "rliable_check.py")

	const sameB, indepB, numpyB = 1000, 10000, 4000
	type goCase struct {
		st    *Stats // on the traced resamples
		indep *Stats // an untraced run with indepB resamples
	}
	mainD, mainR := mainData()
	degD, degR := degenerate()
	sets := []struct {
		name   string
		data   map[string]map[string][]float64
		random map[string]float64
		indep  bool
	}{{"main", mainD, mainR, true}, {"degenerate", degD, degR, false}}
	var in struct {
		Cases []*numpyCase `json:"cases"`
	}
	gos := map[string]goCase{}
	for _, set := range sets {
		nc := &numpyCase{Name: set.name, Ref: "fixed", Data: set.data, Random: set.random}
		nc.Resamples.Row = map[string][]map[string][]int{}
		nc.Resamples.PoI = map[string][]map[string][][]int{}
		trace := func(kind, row string, rep int, env string, idx []int) {
			cp := append([]int(nil), idx...)
			switch kind {
			case "row":
				for len(nc.Resamples.Row[row]) <= rep {
					nc.Resamples.Row[row] = append(nc.Resamples.Row[row], map[string][]int{})
				}
				nc.Resamples.Row[row][rep][env] = cp
			case "poi-x", "poi-y":
				for len(nc.Resamples.PoI[row]) <= rep {
					nc.Resamples.PoI[row] = append(nc.Resamples.PoI[row], map[string][][]int{})
				}
				m := nc.Resamples.PoI[row][rep]
				if m[env] == nil {
					m[env] = make([][]int, 2)
				}
				m[env][map[string]int{"poi-x": 0, "poi-y": 1}[kind]] = cp
			}
		}
		st, err := computeStats(scoreData(set.data), "fixed", randomMeans(set.random), Bootstrap{Resamples: sameB, Seed: 11}, trace)
		if err != nil {
			t.Fatal(err)
		}
		gc := goCase{st: st}
		if set.indep {
			nc.Independent = &struct {
				Reps int `json:"reps"`
				Seed int `json:"seed"`
			}{numpyB, 2021}
			if gc.indep, err = computeStats(scoreData(set.data), "fixed", randomMeans(set.random), Bootstrap{Resamples: indepB, Seed: 5}, nil); err != nil {
				t.Fatal(err)
			}
		}
		gos[set.name] = gc
		in.Cases = append(in.Cases, nc)
	}
	dir := t.TempDir()
	inPath, outPath := filepath.Join(dir, "in.json"), filepath.Join(dir, "out.json")
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(inPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(python, script, inPath, outPath).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", python, script, err, out)
	}
	var res map[string]numpyResult
	if b, err = os.ReadFile(outPath); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}

	exact := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) || math.IsNaN(got) != math.IsNaN(want) {
			t.Errorf("%s: Go %.17g, numpy %.17g", what, got, want)
		}
	}
	exactCI := func(what string, got Interval, want [2]float64) {
		t.Helper()
		exact(what+" CI low", got.Lo, want[0])
		exact(what+" CI high", got.Hi, want[1])
	}
	compared := map[string]int{}
	worst := 0.0 // the independent bootstrap's largest level difference over its tolerance
	for _, set := range sets {
		st, py := gos[set.name].st, res[set.name]
		name := set.name
		if strings.Join(st.NormEnvs, ",") != strings.Join(py.NormEnvs, ",") {
			t.Errorf("%s: normalised environments Go %v, numpy %v", name, st.NormEnvs, py.NormEnvs)
		}
		for env, want := range py.RefIQM {
			exact(fmt.Sprintf("%s %s fixed's IQM", name, env), st.Norm[env].RefIQM, want)
		}
		for env, rows := range py.Normalised {
			for row, want := range rows {
				for i, w := range want {
					exact(fmt.Sprintf("%s %s/%s run %d normalised", name, env, row, i), st.Norm[env].Apply(set.data[env][row][i]), w)
					compared["normalised score"]++
				}
			}
		}
		if len(py.Tau) != len(st.Profile.Tau) {
			t.Fatalf("%s: τ grid of %d points in Go, %d in numpy", name, len(st.Profile.Tau), len(py.Tau))
		}
		for i := range py.Tau {
			exact(fmt.Sprintf("%s τ[%d]", name, i), st.Profile.Tau[i], py.Tau[i])
		}
		for row, envs := range py.EnvIQM {
			for env, want := range envs {
				es := st.PerEnv[env][row]
				exact(fmt.Sprintf("%s %s/%s IQM", name, env, row), es.IQM.Point, want)
				exactCI(fmt.Sprintf("%s %s/%s IQM", name, env, row), es.IQM, py.Same.EnvIQM[row][env])
				compared["per-env IQM and CI"]++
			}
		}
		for row, want := range py.AggIQM {
			a := st.Aggregate[row]
			exact(fmt.Sprintf("%s %s aggregate IQM", name, row), a.IQM.Point, want)
			exactCI(fmt.Sprintf("%s %s aggregate IQM", name, row), a.IQM, py.Same.AggIQM[row])
			compared["aggregate IQM and CI"]++
		}
		for row, envs := range py.EnvPoI {
			for env, want := range envs {
				es := st.PerEnv[env][row]
				exact(fmt.Sprintf("%s %s/%s P(> fixed)", name, env, row), es.PoI.Point, want)
				exactCI(fmt.Sprintf("%s %s/%s P(> fixed)", name, env, row), es.PoI, py.Same.EnvPoI[row][env])
				compared["per-env P(> fixed) and CI"]++
			}
		}
		for row, want := range py.AggPoI {
			a := st.Aggregate[row]
			exact(fmt.Sprintf("%s %s aggregate P(> fixed)", name, row), a.PoI.Point, want)
			exactCI(fmt.Sprintf("%s %s aggregate P(> fixed)", name, row), a.PoI, py.Same.AggPoI[row])
			compared["aggregate P(> fixed) and CI"]++
		}
		if len(py.Profile) != len(st.Profile.Rows) {
			t.Errorf("%s: profiles of %d rows in Go, %d in numpy", name, len(st.Profile.Rows), len(py.Profile))
		}
		for row, want := range py.Profile {
			pr := st.Profile.Rows[row]
			band := py.Same.Profile[row]
			for i := range want {
				exact(fmt.Sprintf("%s %s profile at τ %g", name, row, py.Tau[i]), pr.Frac[i], want[i])
				exact(fmt.Sprintf("%s %s profile band low at τ %g", name, row, py.Tau[i]), pr.Lo[i], band.Lo[i])
				exact(fmt.Sprintf("%s %s profile band high at τ %g", name, row, py.Tau[i]), pr.Hi[i], band.Hi[i])
				compared["profile point and band"]++
			}
		}
		// The independent bootstrap: Go's endpoints, from its own 10000
		// resamples, must be 2.5th and 97.5th percentiles of numpy's 4000
		// resampled statistics within 0.01 in probability: x passes for
		// level p when F(x−) ≤ p + 0.01 and F(x) ≥ p − 0.01, F being numpy's
		// bootstrap distribution function. Both are Monte Carlo estimates;
		// the standard error of such a level is about 0.003. (Comparing
		// the endpoints' values instead fails on bimodal data, whose
		// bootstrap distributions have gaps near their tails.)
		if ind := gos[set.name].indep; ind != nil && py.Indep != nil && py.Indep.Dist != nil {
			const tol = 0.01
			near := func(what string, got Interval, dist []float64, ci [2]float64) {
				t.Helper()
				for k, e := range []struct {
					x, p float64
				}{{got.Lo, 0.025}, {got.Hi, 0.975}} {
					below, at := rankBand(dist, e.x)
					miss := math.Max(below-(e.p+tol), (e.p-tol)-at)
					worst = math.Max(worst, (miss+tol)/tol)
					if miss > 0 {
						t.Errorf("%s: Go's CI endpoint %d, %.6g, lies at levels [%.4f, %.4f] of numpy's independent bootstrap (CI [%.6g, %.6g]); want %.3f ± %.2f", what, k, e.x, below, at, ci[0], ci[1], e.p, tol)
					}
				}
				compared["independent bootstrap CI"]++
			}
			d := py.Indep.Dist
			for row, dist := range d.AggIQM {
				near(name+" "+row+" aggregate IQM", ind.Aggregate[row].IQM, dist, py.Indep.AggIQM[row])
			}
			for row, dist := range d.AggPoI {
				near(name+" "+row+" aggregate P(> fixed)", ind.Aggregate[row].PoI, dist, py.Indep.AggPoI[row])
			}
			for row, envs := range d.EnvIQM {
				for env, dist := range envs {
					near(fmt.Sprintf("%s %s/%s IQM", name, env, row), ind.PerEnv[env][row].IQM, dist, py.Indep.EnvIQM[row][env])
				}
			}
			for row, envs := range d.EnvPoI {
				for env, dist := range envs {
					near(fmt.Sprintf("%s %s/%s P(> fixed)", name, env, row), ind.PerEnv[env][row].PoI, dist, py.Indep.EnvPoI[row][env])
				}
			}
		}
	}
	for _, k := range []string{"normalised score", "per-env IQM and CI", "aggregate IQM and CI", "per-env P(> fixed) and CI", "aggregate P(> fixed) and CI", "profile point and band", "independent bootstrap CI"} {
		if compared[k] == 0 {
			t.Errorf("compared no %s", k)
		}
	}
	t.Logf("compared with numpy: %v; the independent bootstrap's largest level difference is %.2f of its tolerance", compared, worst)
}

// BenchmarkStats250 times the statistics of a 250-run report (5
// environments × 5 rows × 10 seeds) at the default 10000 resamples:
//
//	go test -run '^$' -bench Stats250 ./experiment/analysis/
func BenchmarkStats250(b *testing.B) {
	data := map[string]map[string][]float64{}
	random := map[string]float64{}
	x := uint64(1)
	next := func() float64 { // a fixed pseudo-random stream
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return float64(x>>11) / (1 << 53)
	}
	for e := 0; e < 5; e++ {
		env := fmt.Sprintf("env%d", e)
		data[env] = map[string][]float64{}
		random[env] = -100
		for r, row := range []string{"fixed", "a", "b", "c", "d"} {
			for s := 0; s < 10; s++ {
				data[env][row] = append(data[env][row], 1000*next()+50*float64(r))
			}
		}
	}
	sd, rb := scoreData(data), randomMeans(random)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := computeStats(sd, "fixed", rb, Bootstrap{}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
