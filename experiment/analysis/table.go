package analysis

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/ppo/policy"
)

// Quartiles returns the 25th, 50th and 75th percentiles with linear
// interpolation between order statistics (Hyndman and Fan's type 7, NumPy's
// and matplotlib's default, so box plots match the paper's). gonum's
// stat.LinInterp is a different estimator (its median of {1, 2, 3} is 1.5).
// NaN for no data.
func Quartiles(x []float64) (q1, med, q3 float64) {
	if len(x) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return quantile7(s, 0.25), quantile7(s, 0.5), quantile7(s, 0.75)
}

// quantile7 is the type-7 quantile of sorted data.
func quantile7(s []float64, p float64) float64 {
	h := float64(len(s)-1) * p
	lo := int(math.Floor(h))
	if lo+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

// Row is one line of an environment's table.
type Row struct {
	Controller     string
	Finished       int
	Expected       int
	TrainQ         [3]float64 // final training reward quartiles over finished runs
	EvalQ          [3]float64 // final evaluation return quartiles over finished runs
	CtrlPer1000    float64    // median controller seconds per 1000 iterations
	WallMedian     float64    // median total wall time, s
	Unfinished     []string   // seeds started but unfinished, with progress
	Pruned         []string   // seeds successive halving pruned, with their rungs
	Missing        []int64    // seeds expected but never started
	EvalIterations int        // median iteration of the final evaluation

	// FramesMedian is the median number of frames a finished run trained on.
	FramesMedian float64
	// BudgetEvalQ are the quartiles of the evaluation return at the
	// environment's matched frame budget (see Set.Budget): per run, the last
	// evaluation made with at most that many frames. Controllers that choose
	// larger batches see more frames in the same iterations; this column
	// compares them at equal experience.
	BudgetEvalQ [3]float64
	// BudgetSeeds is the number of finished runs with a return at the
	// matched budget (the others are Set.Dropped's).
	BudgetSeeds int
	// DropQ are the quartiles of final evaluation return minus the best
	// evaluation return of the run (≤ 0): how much of its best a run still
	// holds at the end, the paper's "stability" at the final iteration.
	DropQ [3]float64
}

// Budget is the matched frame budget of an environment (NaN without
// finished runs). When every finished run of it had a frame budget
// (summary.json's frame_budget, `train --frames`), it is the smallest of
// those budgets, and framed is true; otherwise it is the fewest frames any
// finished run trained on.
func (s *Set) Budget(env string) float64 {
	b, _ := s.budget(env)
	return b
}

func (s *Set) budget(env string) (b float64, framed bool) {
	b, fb := math.NaN(), math.NaN()
	framed = true
	for _, r := range s.Runs {
		if r.Env != env || !r.Finished {
			continue
		}
		if f := r.Train[len(r.Train)-1].Frames; math.IsNaN(b) || f < b {
			b = f
		}
		if g := float64(r.Summary.FrameBudget); r.Summary.FrameBudget <= 0 {
			framed = false
		} else if math.IsNaN(fb) || g < fb {
			fb = g
		}
	}
	if framed && !math.IsNaN(fb) {
		return fb, true
	}
	return b, false
}

// evalAt returns the return of the run's evaluation at the matched budget
// frames; without one, ok is false and why says why. Without frame budgets
// (framed false) it is the last evaluation made with at most frames
// frames. With them it is the evaluation after the first iteration that
// reached frames: each run stops there and evaluates, overshooting the
// budget by less than one iteration's frames, whereas the last evaluation
// within the budget may lie up to eval_every iterations earlier.
func (r *Run) evalAt(frames float64, framed bool) (v float64, ok bool, why string) {
	if len(r.Eval) == 0 {
		return 0, false, "no evaluation (eval.csv has no row)"
	}
	for _, e := range r.Eval {
		if framed && e.Frames >= frames {
			return e.Return, true, ""
		}
		if e.Frames > frames {
			break
		}
		v, ok = e.Return, true
	}
	switch {
	case framed:
		return 0, false, fmt.Sprintf("no evaluation at or after the frame budget of %s frames (its last at %s)", fmtNum(frames, 0), fmtNum(r.Eval[len(r.Eval)-1].Frames, 0))
	case !ok:
		return 0, false, fmt.Sprintf("no evaluation within the matched budget of %s frames (its first at %s)", fmtNum(frames, 0), fmtNum(r.Eval[0].Frames, 0))
	}
	return v, true, ""
}

// Controllers lists the controllers present or expected, sorted.
func (s *Set) Controllers() []string {
	m := map[string]bool{}
	for _, r := range s.Runs {
		m[r.Controller] = true
	}
	if s.Manifest != nil {
		for _, c := range s.Manifest.Controllers {
			m[c] = true
		}
	}
	return sortedKeys(m)
}

// Envs lists the environments present or expected, sorted.
func (s *Set) Envs() []string {
	m := map[string]bool{}
	for _, r := range s.Runs {
		m[r.Env] = true
	}
	if s.Manifest != nil {
		for _, e := range s.Manifest.Envs {
			m[e] = true
		}
	}
	return sortedKeys(m)
}

// Table computes the rows for one environment.
func (s *Set) Table(env string) []Row {
	ctrls := map[string]bool{}
	byKey := map[string]*Run{}
	for _, r := range s.Runs {
		if r.Env != env {
			continue
		}
		ctrls[r.Controller] = true
		byKey[fmt.Sprintf("%s/%d", r.Controller, r.Seed)] = r
	}
	if s.Manifest != nil {
		for _, c := range s.Manifest.Controllers {
			ctrls[c] = true
		}
	}
	atBudgetBySeed, _ := s.budgetEvals(env)
	var rows []Row
	for _, c := range sortedKeys(ctrls) {
		expectedSeeds := s.expectedSeeds(env, c)
		row := Row{Controller: c, Expected: len(expectedSeeds)}
		var train, eval, ctrl, wall, evalIt, frames, atBudget, drop []float64
		for _, sd := range expectedSeeds {
			r := byKey[fmt.Sprintf("%s/%d", c, sd)]
			switch {
			case r == nil:
				row.Missing = append(row.Missing, sd)
			case !r.Finished && r.Pruned != "":
				row.Pruned = append(row.Pruned, fmt.Sprintf("seed %d at %s", sd, r.Pruned))
			case !r.Finished:
				last := r.Train[len(r.Train)-1]
				row.Unfinished = append(row.Unfinished, fmt.Sprintf("seed %d at iteration %d", sd, last.Iteration+1))
			default:
				row.Finished++
				last := r.Train[len(r.Train)-1]
				train = append(train, last.Reward)
				if len(r.Eval) > 0 {
					ev := r.Eval[len(r.Eval)-1]
					eval = append(eval, ev.Return)
					evalIt = append(evalIt, float64(ev.Iteration))
					best := math.Inf(-1)
					for _, e := range r.Eval {
						best = math.Max(best, e.Return)
					}
					drop = append(drop, ev.Return-best)
				}
				if v, ok := atBudgetBySeed[c][sd]; ok {
					atBudget = append(atBudget, v)
				}
				frames = append(frames, last.Frames)
				ctrl = append(ctrl, last.Ctrl/float64(last.Iteration+1)*1000)
				wall = append(wall, last.Wall)
			}
		}
		q := func(x []float64) [3]float64 { a, b, c := Quartiles(x); return [3]float64{a, b, c} }
		row.TrainQ, row.EvalQ = q(train), q(eval)
		row.BudgetEvalQ, row.DropQ = q(atBudget), q(drop)
		row.BudgetSeeds = len(atBudget)
		_, row.FramesMedian, _ = Quartiles(frames)
		_, row.CtrlPer1000, _ = Quartiles(ctrl)
		_, row.WallMedian, _ = Quartiles(wall)
		_, m, _ := Quartiles(evalIt)
		if !math.IsNaN(m) {
			row.EvalIterations = int(m)
		}
		rows = append(rows, row)
	}
	return rows
}

// expectedSeeds are the seeds controller ctrl was given on env, sorted:
// the compare's (compare.json) when its matrix has the controller, else
// the seeds of its runs on disk. A run is missing only when its matrix
// asked for it; seeds another controller has are not expected of this one
// (a population's members, or a fixed run beside a tuned pair).
func (s *Set) expectedSeeds(env, ctrl string) []int64 {
	if s.Manifest != nil && slices.Contains(s.Manifest.Controllers, ctrl) {
		return slices.Sorted(slices.Values(s.Manifest.Seeds))
	}
	var seeds []int64
	for _, r := range s.Runs {
		if r.Env == env && r.Controller == ctrl {
			seeds = append(seeds, r.Seed)
		}
	}
	slices.Sort(seeds)
	return slices.Compact(seeds)
}

// DefaultFocus is the controller whose rank the summary reports when
// Set.Focus names none: the folder's only controller, else the default
// controller (configs.DefaultController, fixed).
func DefaultFocus(controllers []string) string {
	if len(controllers) == 1 {
		return controllers[0]
	}
	return configs.DefaultController
}

// focus returns the controller the summary ranks.
func (s *Set) focus() string {
	if s.Focus != "" {
		return s.Focus
	}
	return DefaultFocus(s.Controllers())
}

// rank returns the competition rank (1 + the number of strictly larger
// values) of controller focus's value among the rows' finite values, and
// the number of ranked rows; 0 when focus has no value.
func rank(rows []Row, focus string, get func(Row) float64) (rk, n int) {
	var fv float64
	found := false
	for _, r := range rows {
		if r.Controller == focus && !math.IsNaN(get(r)) {
			fv, found = get(r), true
		}
	}
	for _, r := range rows {
		if v := get(r); !math.IsNaN(v) {
			n++
			if found && v > fv {
				rk++
			}
		}
	}
	if !found {
		return 0, n
	}
	return rk + 1, n
}

// best returns "controller value" for the row with the largest value.
func best(rows []Row, get func(Row) float64, prec int) string {
	bi := -1
	for i, r := range rows {
		if v := get(r); !math.IsNaN(v) && (bi < 0 || v > get(rows[bi])) {
			bi = i
		}
	}
	if bi < 0 {
		return "–"
	}
	return fmt.Sprintf("%s %s", rows[bi].Controller, fmtNum(get(rows[bi]), prec))
}

// Markdown writes a summary of the leaders per environment and the
// decision statistics aggregated over environments with the rule's verdict
// (see Stats), the comparison with the reference row, how scores are
// normalised, then per environment a table of final values and a table of
// matched-budget (with IQMs) and stability figures, plus what is missing.
func (s *Set) Markdown(w io.Writer) error {
	st, err := s.Stats()
	if err != nil {
		return err
	}
	return s.markdown(w, st)
}

// markdown is Markdown with the statistics already computed.
func (s *Set) markdown(w io.Writer, st *Stats) error {
	var sb strings.Builder
	if s.Manifest != nil {
		length := fmt.Sprintf("%d iterations", s.Manifest.Iterations)
		if s.Manifest.Frames > 0 {
			length = fmt.Sprintf("a frame budget of %d frames (at most %d iterations)", s.Manifest.Frames, s.Manifest.Iterations)
		}
		fmt.Fprintf(&sb, "Matrix: envs %s; controllers %s; seeds %v; %s.\n",
			strings.Join(s.Manifest.Envs, ", "), strings.Join(s.Manifest.Controllers, ", "), s.Manifest.Seeds, length)
		if s.Manifest.Command != "" {
			fmt.Fprintf(&sb, "Command: `%s`\n", s.Manifest.Command)
		}
		sb.WriteString("\n")
	}
	envs := s.Envs()
	tables := make(map[string][]Row, len(envs))
	for _, env := range envs {
		tables[env] = s.Table(env)
	}
	trainMed := func(r Row) float64 { return r.TrainQ[1] }
	evalMed := func(r Row) float64 { return r.EvalQ[1] }
	budgetMed := func(r Row) float64 { return r.BudgetEvalQ[1] }
	fmtRank := func(rk, n int) string {
		if rk == 0 {
			return "–"
		}
		return fmt.Sprintf("%d of %d", rk, n)
	}
	if s.Score == ScoreJudge {
		fmt.Fprintf(&sb, "Score: each run's %s mean, its %s on at least %d fresh deterministic episodes (seeds from %d, which no training or selection used), in place of the evaluation return at the matched budget, in the columns and statistics of scores.\n\n", policy.JudgeFile, s.judgedPolicy(), policy.MinJudgeEpisodes, policy.FreshSeedBase)
	}
	sb.WriteString("## Summary\n\n")
	focusRuns := slices.ContainsFunc(s.Runs, func(r *Run) bool { return r.Controller == s.focus() })
	if focusRuns {
		fmt.Fprintf(&sb, "Medians over finished seeds; the rank is %s's among the controllers with a value (1 = highest).\n\n", s.focus())
	} else {
		fmt.Fprintf(&sb, "Medians over finished seeds. No rank: the ranked controller, %s, has no runs here (--focus names another).\n\n", s.focus())
	}
	fmt.Fprintf(&sb, "| env | best final training reward | rank | best final evaluation return | rank | matched budget (frames) | best %s | rank |\n", s.words().name)
	sb.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, env := range envs {
		rows := tables[env]
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", env,
			best(rows, trainMed, 2), fmtRank(rank(rows, s.focus(), trainMed)),
			best(rows, evalMed, 2), fmtRank(rank(rows, s.focus(), evalMed)),
			fmtNum(s.Budget(env), 0), best(rows, budgetMed, 2), fmtRank(rank(rows, s.focus(), budgetMed)))
	}
	sb.WriteString("\n")
	st.decisionMarkdown(&sb)
	s.headToHeadMarkdown(&sb, envs, st)
	s.publishedMarkdown(&sb, st)
	st.normalisationMarkdown(&sb)
	for _, env := range envs {
		rows := tables[env]
		fmt.Fprintf(&sb, "## %s\n\n", env)
		sb.WriteString("| controller | seeds | final training reward, median [IQR] | final evaluation return, median [IQR] | controller time per 1000 it. (s) | total wall time, median (s) |\n")
		sb.WriteString("|---|---|---|---|---|---|\n")
		var notes []string
		for _, r := range rows {
			fmt.Fprintf(&sb, "| %s | %d/%d | %s | %s | %s | %s |\n", r.Controller, r.Finished, r.Expected,
				fmtQ(r.TrainQ), fmtQ(r.EvalQ), fmtNum(r.CtrlPer1000, 4), fmtNum(r.WallMedian, 1))
			if len(r.Unfinished) > 0 {
				notes = append(notes, fmt.Sprintf("%s: unfinished: %s", r.Controller, strings.Join(r.Unfinished, "; ")))
			}
			if len(r.Pruned) > 0 {
				notes = append(notes, fmt.Sprintf("%s: pruned by successive halving: %s", r.Controller, strings.Join(r.Pruned, "; ")))
			}
			if len(r.Missing) > 0 {
				notes = append(notes, fmt.Sprintf("%s: missing seeds %v", r.Controller, r.Missing))
			}
		}
		if b, framed := s.budget(env); framed {
			fmt.Fprintf(&sb, "\nAt equal experience and at the end (matched budget: the runs' frame budget of %s frames; each run's evaluation after the iteration that reached it):\n\n", fmtNum(b, 0))
		} else {
			fmt.Fprintf(&sb, "\nAt equal experience and at the end (matched budget: %s frames, the fewest any finished run of %s trained on):\n\n", fmtNum(b, 0), env)
		}
		fmt.Fprintf(&sb, "| controller | seeds at the budget | frames trained, median | %s, median [IQR] | IQM [95 %% CI] | final minus best evaluation return, median [IQR] |\n", s.words().name)
		sb.WriteString("|---|---|---|---|---|---|\n")
		for _, r := range rows {
			iq := nanInterval
			if es, ok := st.PerEnv[env][r.Controller]; ok {
				iq = es.IQM
			}
			fmt.Fprintf(&sb, "| %s | %d of %d | %s | %s | %s | %s |\n", r.Controller, r.BudgetSeeds, r.Finished, fmtNum(r.FramesMedian, 0), fmtQ(r.BudgetEvalQ), fmtIv(iq, 2), fmtQ(r.DropQ))
		}
		if note := s.evalNote(env); note != "" {
			fmt.Fprintf(&sb, "\nEvaluations: %s.\n", note)
		}
		if _, dropped := s.budgetEvals(env); len(dropped) > 0 {
			if s.Score == ScoreJudge {
				sb.WriteString("\nLeft out (finished, but without a judge score; not in the statistics):\n")
			} else {
				sb.WriteString("\nLeft out at the matched budget (finished, but without an evaluation return there; not in the statistics):\n")
			}
			for _, d := range dropped {
				fmt.Fprintf(&sb, "- %s seed %d: %s\n", d.Controller, d.Seed, d.Why)
			}
		}
		if len(notes) > 0 {
			head := "Missing or unfinished"
			for _, r := range rows {
				if len(r.Pruned) > 0 {
					head = "Missing, unfinished or pruned"
				}
			}
			fmt.Fprintf(&sb, "\n%s (not in the statistics):\n", head)
			for _, n := range notes {
				fmt.Fprintf(&sb, "- %s\n", n)
			}
		}
		sb.WriteString("\n")
	}
	if len(s.Problems) > 0 {
		sb.WriteString("Unreadable runs:\n")
		for _, p := range s.Problems {
			fmt.Fprintf(&sb, "- %s\n", p)
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// evalNote explains thin evaluation data of env's runs: none at all, or at
// most one evaluation per run (the runs are shorter than eval_every, so
// they evaluate only after their last iteration). "" otherwise.
func (s *Set) evalNote(env string) string {
	switch s.evalCount(env) {
	case -1, 2:
		return ""
	case 0:
		return "no run has an evaluation yet (eval.csv is empty: eval_every = 0, or the runs stopped before their first)"
	}
	return "each run has one evaluation, after its last iteration, because it is shorter than eval_every; the curves are single points, and a run has a return at the matched budget only if it ended within it (– otherwise)"
}

// evalCount is the most evaluations any run of env has, capped at 2; -1
// without runs.
func (s *Set) evalCount(env string) int {
	most := -1
	for _, r := range s.Runs {
		if r.Env == env {
			most = max(most, min(len(r.Eval), 2))
		}
	}
	return most
}

func fmtQ(q [3]float64) string {
	if math.IsNaN(q[1]) {
		return "–"
	}
	return fmt.Sprintf("%s [%s, %s]", fmtNum(q[1], 2), fmtNum(q[0], 2), fmtNum(q[2], 2))
}

func fmtNum(v float64, prec int) string {
	if math.IsNaN(v) {
		return "–"
	}
	if v != 0 && (math.Abs(v) < math.Pow(10, -float64(prec)) || math.Abs(v) >= 1e7) {
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.*f", prec, v)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// DefaultReference is the row every controller is compared with, seed by
// seed, when the folder has it: PPO without a controller, i.e. what a user
// would do without a tuner.
const DefaultReference = "fixed"

// reference returns the row the head-to-head section compares with.
func (s *Set) reference() string {
	if s.Reference != "" {
		return s.Reference
	}
	return DefaultReference
}

// HeadToHead is one controller against the reference row in one
// environment, at equal experience: each finished run's evaluation return
// at the environment's matched budget (see Set.Budget).
type HeadToHead struct {
	Controller string
	// Median and RefMedian are the medians over the finished runs of the
	// controller and of the reference (NaN without values).
	Median, RefMedian float64
	// Wins is the number of seeds, among the Pairs seeds where both have a
	// value, on which the controller's return is strictly higher.
	Wins, Pairs int
	// Unpaired says, for each finished seed of the controller that is not
	// among the Pairs, why ("seed 3: no evaluation within ...").
	Unpaired []string
}

// Beats reports whether the controller's median is strictly higher than
// the reference's (false when either is missing).
func (h HeadToHead) Beats() bool {
	return !math.IsNaN(h.Median) && !math.IsNaN(h.RefMedian) && h.Median > h.RefMedian
}

// judged returns the run's judge score (its judge.json mean); without
// one, ok is false and why says why and how to get one.
func (r *Run) judged() (v float64, ok bool, why string) {
	switch {
	case r.JudgeProblem != "":
		return 0, false, r.JudgeProblem
	case r.Judge == nil && !policy.Exists(r.Dir, policy.Final) && !policy.Exists(r.Dir, policy.Best):
		return 0, false, fmt.Sprintf("no %s, and no policy here to judge (a copy of a run without its policy: judge the run it was copied from, hyperctl judge RUN, and copy RUN/%s here)", policy.JudgeFile, policy.JudgeFile)
	case r.Judge == nil:
		return 0, false, fmt.Sprintf("no %s (judge its policy on fresh episodes: hyperctl judge %s)", policy.JudgeFile, r.Dir)
	}
	return r.Judge.Mean, true, ""
}

// judgedPolicy names the policy the runs' judge.json files judged:
// policy-final (the weights a selection ranks) or policy-best, or both
// names joined by "or" when the runs differ. Without any judgement it
// names policy-final, what hyperctl judge scores by default.
func (s *Set) judgedPolicy() string {
	var names []string
	for _, r := range s.Runs {
		if r.Judge != nil && !slices.Contains(names, r.Judge.Policy) {
			names = append(names, r.Judge.Policy)
		}
	}
	if len(names) == 0 {
		return policy.Final
	}
	slices.Sort(names)
	return strings.Join(names, " or ")
}

// scoreWords is how the report words a run's score: every sentence,
// header and title that names the score takes its words from here.
type scoreWords struct {
	name string // a column's header
	what string // what a run's score is, as a noun phrase
	a    string // what, with its article
	by   string // how the "Against" section compares the runs
}

// words returns the wording of s's score.
func (s *Set) words() scoreWords {
	if s.Score == ScoreJudge {
		what := "judge score (its " + policy.JudgeFile + " mean, its " + s.judgedPolicy() + " on fresh episodes)"
		return scoreWords{name: "judge score (fresh episodes)", what: what, a: "a " + what, by: "By each run's " + what}
	}
	what := "evaluation return at the matched budget"
	return scoreWords{name: "evaluation return at the budget", what: what, a: "an " + what,
		by: "At equal experience (each run's evaluation return at its environment's matched budget)"}
}

// Dropped is a finished run left out of the scores at the matched budget.
type Dropped struct {
	Controller string `json:"controller"`
	Seed       int64  `json:"seed"`
	Dir        string `json:"dir"`
	Why        string `json:"why"`
}

// budgetEvals returns each finished run's score, by controller and seed,
// and the finished runs without one, with the reason. The score is the
// evaluation return at env's matched budget, or with Score ScoreJudge the
// mean of the run's judge.json.
func (s *Set) budgetEvals(env string) (map[string]map[int64]float64, []Dropped) {
	budget, framed := s.budget(env)
	out := map[string]map[int64]float64{}
	var dropped []Dropped
	for _, r := range s.Runs {
		if r.Env != env || !r.Finished {
			continue
		}
		v, ok, why := r.evalAt(budget, framed)
		if s.Score == ScoreJudge {
			v, ok, why = r.judged()
		}
		if !ok {
			dropped = append(dropped, Dropped{Controller: r.Controller, Seed: r.Seed, Dir: r.Dir, Why: why})
			continue
		}
		if out[r.Controller] == nil {
			out[r.Controller] = map[int64]float64{}
		}
		out[r.Controller][r.Seed] = v
	}
	return out, dropped
}

// HeadToHead compares every controller of env except ref with ref, sorted
// by controller name; nil when env has no finished run of ref with a
// return at the matched budget (empty, not nil, when ref is alone).
func (s *Set) HeadToHead(env, ref string) []HeadToHead {
	evals, dropped := s.budgetEvals(env)
	refs, ok := evals[ref]
	if !ok {
		return nil
	}
	why := map[string]string{} // controller/seed → why it has no score
	for _, d := range dropped {
		why[fmt.Sprintf("%s/%d", d.Controller, d.Seed)] = d.Why
	}
	values := func(m map[int64]float64) []float64 {
		x := make([]float64, 0, len(m))
		for _, v := range m {
			x = append(x, v)
		}
		return x
	}
	_, refMed, _ := Quartiles(values(refs))
	out := []HeadToHead{} // not nil: env has the reference
	for _, c := range sortedKeys(evals) {
		if c == ref {
			continue
		}
		h := HeadToHead{Controller: c, RefMedian: refMed}
		_, h.Median, _ = Quartiles(values(evals[c]))
		for sd, v := range evals[c] {
			if rv, ok := refs[sd]; ok {
				h.Pairs++
				if v > rv {
					h.Wins++
				}
			}
		}
		for _, r := range s.Runs {
			if r.Env != env || r.Controller != c || !r.Finished {
				continue
			}
			_, mine := evals[c][r.Seed]
			_, theirs := refs[r.Seed]
			switch {
			case !mine:
				h.Unpaired = append(h.Unpaired, fmt.Sprintf("seed %d: %s", r.Seed, why[fmt.Sprintf("%s/%d", c, r.Seed)]))
			case !theirs && why[fmt.Sprintf("%s/%d", ref, r.Seed)] != "":
				h.Unpaired = append(h.Unpaired, fmt.Sprintf("seed %d: %s's run has %s", r.Seed, ref, why[fmt.Sprintf("%s/%d", ref, r.Seed)]))
			case !theirs:
				h.Unpaired = append(h.Unpaired, fmt.Sprintf("seed %d: no finished %s run with that seed", r.Seed, ref))
			}
		}
		out = append(out, h)
	}
	return out
}

// headToHeadMarkdown writes the section comparing every controller with
// the reference row: per controller, the environments where its median
// evaluation return at the matched budget is higher than the reference's,
// then per environment the medians and per-seed wins. Nothing when no
// environment has the reference row.
func (s *Set) headToHeadMarkdown(sb *strings.Builder, envs []string, st *Stats) {
	ref := s.reference()
	tables := map[string][]HeadToHead{}
	ctrls := map[string]bool{}
	for _, env := range envs {
		if h := s.HeadToHead(env, ref); h != nil {
			tables[env] = h
			for _, x := range h {
				ctrls[x.Controller] = true
			}
		}
	}
	fmt.Fprintf(sb, "## Against %s\n\n", ref)
	switch {
	case len(tables) == 0:
		fmt.Fprintf(sb, "Left out: no environment has a finished `%s` run with %s, so no controller can be compared with it (`%s` is the reference row; --reference names another).\n\n", ref, s.words().a, ref)
		return
	case len(ctrls) == 0:
		fmt.Fprintf(sb, "Left out: the runs have no controller other than `%s` (the reference row; --reference names another) to compare with it.\n\n", ref)
		return
	}
	var without []string
	for _, env := range envs {
		if _, ok := tables[env]; !ok {
			without = append(without, env)
		}
	}
	fmt.Fprintf(sb, "%s, each controller against `%s`: the environments where its median is higher than `%s`'s, out of the environments where both have finished runs.\n\n", s.words().by, ref, ref)
	sb.WriteString("| controller | beats it on | environments |\n|---|---|---|\n")
	for _, c := range sortedKeys(ctrls) {
		var won []string
		n := 0
		for _, env := range envs {
			for _, h := range tables[env] {
				if h.Controller == c && !math.IsNaN(h.Median) {
					n++
					if h.Beats() {
						won = append(won, env)
					}
				}
			}
		}
		names := strings.Join(won, ", ")
		if names == "" {
			names = "–"
		}
		fmt.Fprintf(sb, "| %s | %d of %d | %s |\n", c, len(won), n, names)
	}
	fmt.Fprintf(sb, "\nPer environment: median %s, the controller's against the reference's, the seeds on which the controller's run is higher (among seeds both finished), and the probability that a run of the controller scores higher than a run of `%s` (ties count ½; all runs against all runs) with its 95 %% stratified-bootstrap CI.\n\n", s.words().what, ref)
	sb.WriteString("| env | controller | median | " + ref + "'s median | difference | seeds higher | P(> " + ref + ") [95 % CI] |\n|---|---|---|---|---|---|---|\n")
	for _, env := range envs {
		for _, h := range tables[env] {
			poi := nanInterval
			if es, ok := st.PerEnv[env][h.Controller]; ok {
				poi = es.PoI
			}
			fmt.Fprintf(sb, "| %s | %s | %s | %s | %s | %d of %d | %s |\n", env, h.Controller, fmtNum(h.Median, 2), fmtNum(h.RefMedian, 2), fmtNum(h.Median-h.RefMedian, 2), h.Wins, h.Pairs, fmtIv(poi, 2))
		}
	}
	var unpaired []string
	for _, env := range envs {
		for _, h := range tables[env] {
			if len(h.Unpaired) > 0 {
				unpaired = append(unpaired, fmt.Sprintf("- %s, %s: %s", env, h.Controller, strings.Join(h.Unpaired, "; ")))
			}
		}
	}
	if len(unpaired) > 0 {
		sb.WriteString("\nSeeds not counted in \"seeds higher\" (finished, but not paired):\n")
		sb.WriteString(strings.Join(unpaired, "\n") + "\n")
	}
	if len(without) > 0 {
		fmt.Fprintf(sb, "\nLeft out of this section: %s (no finished `%s` run with an evaluation return at the matched budget).\n", strings.Join(without, ", "), ref)
	}
	sb.WriteString("\n")
}
