package analysis

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/hyperctl/hyperctl/experiment/matrix"
)

// Tables are the report's tables for other tools (`report --format json`;
// WriteCSV writes them as CSV files): per run, per environment and
// controller, per controller over environments, and the rule's verdict.
// Numbers that are undefined (no data) are null in JSON and empty in CSV.
type Tables struct {
	Dir              string           `json:"dir"`
	Reference        string           `json:"reference"`
	Runs             []RunRow         `json:"runs"`
	Envs             []EnvTable       `json:"envs"`
	Aggregate        []AggRow         `json:"aggregate"`
	Verdict          string           `json:"verdict"`
	Problems         []string         `json:"problems,omitempty"`
	Manifest         *matrix.Manifest `json:"manifest,omitempty"`
	Random           []RandomRow      `json:"random_policy"`
	AgainstReference []H2HRow         `json:"against_reference"`
	Dropped          []DroppedRow     `json:"left_out_at_budget"`
	// Published is each row beside its environment's published score,
	// for the environments that have one (Set.Published).
	Published []PublishedRow `json:"published,omitempty"`
	// Score is "judge" when the scores (every *_at_budget field, the
	// statistics, the left-out runs) are the runs' judge.json means
	// (Set.Score ScoreJudge); absent for the default, the evaluation
	// return at the matched budget.
	Score string `json:"score,omitempty"`
}

// Num is a number that may be undefined (NaN): null in JSON.
type Num float64

// MarshalJSON writes null for NaN and infinities.
func (n Num) MarshalJSON() ([]byte, error) {
	if f := float64(n); math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(n))
}

// csv formats the number for a CSV field: empty when undefined, in
// exponent form only below 1e-6.
func (n Num) csv() string {
	f := float64(n)
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return ""
	case f != 0 && math.Abs(f) < 1e-6:
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// Quart is a median with its interquartile range.
type Quart struct {
	Q1     Num `json:"q1"`
	Median Num `json:"median"`
	Q3     Num `json:"q3"`
}

func quart(q [3]float64) Quart { return Quart{Num(q[0]), Num(q[1]), Num(q[2])} }

// CI is a point estimate with its 95 % bootstrap CI.
type CI struct {
	Point Num `json:"point"`
	Lo    Num `json:"lo"`
	Hi    Num `json:"hi"`
}

func ci(iv Interval) CI { return CI{Num(iv.Point), Num(iv.Lo), Num(iv.Hi)} }

// interval is ci's inverse.
func (c CI) interval() Interval {
	return Interval{Point: float64(c.Point), Lo: float64(c.Lo), Hi: float64(c.Hi)}
}

// RunRow is one run.
type RunRow struct {
	Env              string `json:"env"`
	Controller       string `json:"controller"`
	Seed             int64  `json:"seed"`
	Dir              string `json:"dir"`
	Finished         bool   `json:"finished"`
	Iterations       int    `json:"iterations"` // rows in train.csv
	Frames           Num    `json:"frames"`
	WallTimeS        Num    `json:"wall_time_s"`
	ControllerTimeS  Num    `json:"controller_time_s"`
	FinalTrainReward Num    `json:"final_train_reward"`
	FinalEvalReturn  Num    `json:"final_eval_return"`
	BudgetFrames     Num    `json:"budget_frames"`
	EvalAtBudget     Num    `json:"eval_return_at_budget"`
	// LeftOut says why a run has no return at the budget ("" when it has).
	LeftOut string `json:"left_out,omitempty"`
}

// EnvTable is one environment's table: a row per controller.
type EnvTable struct {
	Env          string          `json:"env"`
	BudgetFrames Num             `json:"budget_frames"`
	BudgetFramed bool            `json:"budget_is_frame_budget"`
	Controllers  []ControllerRow `json:"controllers"`
}

// ControllerRow is one controller on one environment (a Row).
type ControllerRow struct {
	Env              string   `json:"env"`
	Controller       string   `json:"controller"`
	Finished         int      `json:"finished"`
	Expected         int      `json:"expected"`
	FinalTrainReward Quart    `json:"final_train_reward"`
	FinalEvalReturn  Quart    `json:"final_eval_return"`
	CtrlPer1000S     Num      `json:"controller_time_per_1000_iterations_s"`
	WallMedianS      Num      `json:"wall_time_median_s"`
	FramesMedian     Num      `json:"frames_median"`
	SeedsAtBudget    int      `json:"seeds_at_budget"`
	EvalAtBudget     Quart    `json:"eval_return_at_budget"`
	IQMAtBudget      CI       `json:"iqm_at_budget"`
	FinalMinusBest   Quart    `json:"final_minus_best_eval_return"`
	PoIOverReference CI       `json:"p_over_reference"`
	Unfinished       []string `json:"unfinished,omitempty"`
	Pruned           []string `json:"pruned,omitempty"`
	Missing          []int64  `json:"missing_seeds,omitempty"`
	NormIQMAtBudget  CI       `json:"normalised_iqm_at_budget"`
}

// AggRow is one controller over the normalised environments.
type AggRow struct {
	Controller string   `json:"controller"`
	Runs       int      `json:"runs"`
	Envs       int      `json:"envs"`
	Missing    []string `json:"missing_envs,omitempty"`
	IQM        CI       `json:"normalised_iqm"`
	PoI        CI       `json:"p_over_reference"`
	PoIEnvs    int      `json:"p_over_reference_envs"`
	Passes     bool     `json:"passes_rule"`
	Why        string   `json:"rule"`
}

// RandomRow is a uniformly random policy's return on one environment.
type RandomRow struct {
	Env      string `json:"env"`
	Mean     Num    `json:"mean"`
	StdErr   Num    `json:"stderr"`
	Episodes int    `json:"episodes"`
	Error    string `json:"error,omitempty"`
}

// H2HRow is one controller against the reference on one environment.
type H2HRow struct {
	Env        string   `json:"env"`
	Controller string   `json:"controller"`
	Median     Num      `json:"median"`
	RefMedian  Num      `json:"reference_median"`
	Wins       int      `json:"seeds_higher"`
	Pairs      int      `json:"seeds_paired"`
	Unpaired   []string `json:"unpaired,omitempty"`
}

// DroppedRow is a finished run without a return at the matched budget.
type DroppedRow struct {
	Env string `json:"env"`
	Dropped
}

// Tables computes the tables (the statistics as Markdown's).
func (s *Set) Tables() (*Tables, error) {
	st, err := s.Stats()
	if err != nil {
		return nil, err
	}
	t := &Tables{Dir: s.Dir, Reference: st.Reference, Verdict: st.VerdictText(), Problems: s.Problems, Manifest: s.Manifest}
	if s.Score == ScoreJudge {
		t.Score = ScoreJudge
	}
	for _, env := range s.Envs() {
		budget, framed := s.budget(env)
		scores, dropped := s.budgetEvals(env)
		why := map[string]string{}
		for _, d := range dropped {
			why[fmt.Sprintf("%s/%d", d.Controller, d.Seed)] = d.Why
			t.Dropped = append(t.Dropped, DroppedRow{Env: env, Dropped: d})
		}
		for _, r := range s.Runs {
			if r.Env != env {
				continue
			}
			last := r.Train[len(r.Train)-1]
			rr := RunRow{Env: env, Controller: r.Controller, Seed: r.Seed, Dir: r.Dir, Finished: r.Finished, Iterations: len(r.Train),
				Frames: Num(last.Frames), WallTimeS: Num(last.Wall), ControllerTimeS: Num(last.Ctrl), FinalTrainReward: Num(last.Reward),
				FinalEvalReturn: Num(math.NaN()), BudgetFrames: Num(budget), EvalAtBudget: Num(math.NaN())}
			if len(r.Eval) > 0 {
				rr.FinalEvalReturn = Num(r.Eval[len(r.Eval)-1].Return)
			}
			if v, ok := scores[r.Controller][r.Seed]; ok {
				rr.EvalAtBudget = Num(v)
			} else if !r.Finished {
				rr.LeftOut = "unfinished"
			} else {
				rr.LeftOut = why[fmt.Sprintf("%s/%d", r.Controller, r.Seed)]
			}
			t.Runs = append(t.Runs, rr)
		}
		et := EnvTable{Env: env, BudgetFrames: Num(budget), BudgetFramed: framed}
		for _, r := range s.Table(env) {
			es, ok := st.PerEnv[env][r.Controller]
			if !ok {
				es = EnvStat{IQM: nanInterval, NormIQM: nanInterval, PoI: nanInterval}
			}
			et.Controllers = append(et.Controllers, ControllerRow{Env: env, Controller: r.Controller, Finished: r.Finished, Expected: r.Expected,
				FinalTrainReward: quart(r.TrainQ), FinalEvalReturn: quart(r.EvalQ), CtrlPer1000S: Num(r.CtrlPer1000), WallMedianS: Num(r.WallMedian),
				FramesMedian: Num(r.FramesMedian), SeedsAtBudget: r.BudgetSeeds, EvalAtBudget: quart(r.BudgetEvalQ), IQMAtBudget: ci(es.IQM),
				NormIQMAtBudget: ci(es.NormIQM), FinalMinusBest: quart(r.DropQ), PoIOverReference: ci(es.PoI), Unfinished: r.Unfinished, Pruned: r.Pruned, Missing: r.Missing})
		}
		t.Envs = append(t.Envs, et)
		for _, h := range s.HeadToHead(env, st.Reference) {
			t.AgainstReference = append(t.AgainstReference, H2HRow{Env: env, Controller: h.Controller, Median: Num(h.Median), RefMedian: Num(h.RefMedian), Wins: h.Wins, Pairs: h.Pairs, Unpaired: h.Unpaired})
		}
		rb, ok := s.Random[env]
		rr := RandomRow{Env: env, Mean: Num(math.NaN()), StdErr: Num(math.NaN())}
		switch {
		case !ok:
			rr.Error = "not computed"
		case rb.Err != nil:
			rr.Error = rb.Err.Error()
		default:
			rr.Mean, rr.StdErr, rr.Episodes = Num(rb.Mean), Num(rb.StdErr), rb.Episodes
		}
		t.Random = append(t.Random, rr)
	}
	t.Published = s.publishedRows(st)
	for _, r := range st.byAggregateIQM() {
		a := st.Aggregate[r]
		t.Aggregate = append(t.Aggregate, AggRow{Controller: r, Runs: a.Runs, Envs: a.Envs, Missing: a.Missing, IQM: ci(a.IQM), PoI: ci(a.PoI),
			PoIEnvs: a.PoIEnvs, Passes: a.Passes(), Why: a.Why})
	}
	return t, nil
}

// JSON writes the tables as one indented JSON document.
func (t *Tables) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(t)
}

// CSV files WriteCSV writes.
const (
	RunsCSV        = "runs.csv"
	ControllersCSV = "controllers.csv"
	AggregateCSV   = "aggregate.csv"
)

// ControllersTable writes controllers.csv's rows (a header, then one row
// per environment and controller) to w.
func (t *Tables) ControllersTable(w io.Writer) error {
	header := []string{"env", "controller", "finished", "expected",
		"final_train_reward_q1", "final_train_reward_median", "final_train_reward_q3",
		"final_eval_return_q1", "final_eval_return_median", "final_eval_return_q3",
		"controller_time_per_1000_iterations_s", "wall_time_median_s", "frames_median", "budget_frames", "seeds_at_budget",
		"eval_return_at_budget_q1", "eval_return_at_budget_median", "eval_return_at_budget_q3",
		"iqm_at_budget", "iqm_at_budget_lo", "iqm_at_budget_hi",
		"final_minus_best_q1", "final_minus_best_median", "final_minus_best_q3",
		"p_over_reference", "p_over_reference_lo", "p_over_reference_hi"}
	var rows [][]string
	for _, e := range t.Envs {
		for _, c := range e.Controllers {
			q := func(x Quart) []string { return []string{x.Q1.csv(), x.Median.csv(), x.Q3.csv()} }
			iv := func(x CI) []string { return []string{x.Point.csv(), x.Lo.csv(), x.Hi.csv()} }
			row := []string{e.Env, c.Controller, strconv.Itoa(c.Finished), strconv.Itoa(c.Expected)}
			row = append(row, q(c.FinalTrainReward)...)
			row = append(row, q(c.FinalEvalReturn)...)
			row = append(row, c.CtrlPer1000S.csv(), c.WallMedianS.csv(), c.FramesMedian.csv(), e.BudgetFrames.csv(), strconv.Itoa(c.SeedsAtBudget))
			row = append(row, q(c.EvalAtBudget)...)
			row = append(row, iv(c.IQMAtBudget)...)
			row = append(row, q(c.FinalMinusBest)...)
			row = append(row, iv(c.PoIOverReference)...)
			rows = append(rows, row)
		}
	}
	return writeCSV(w, header, rows)
}

// WriteCSV writes runs.csv, controllers.csv and aggregate.csv into dir
// and returns the files written.
func (t *Tables) WriteCSV(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("report: output folder %s: %w", dir, err)
	}
	var runs [][]string
	for _, r := range t.Runs {
		runs = append(runs, []string{r.Env, r.Controller, strconv.FormatInt(r.Seed, 10), r.Dir, strconv.FormatBool(r.Finished), strconv.Itoa(r.Iterations),
			r.Frames.csv(), r.WallTimeS.csv(), r.ControllerTimeS.csv(), r.FinalTrainReward.csv(), r.FinalEvalReturn.csv(), r.BudgetFrames.csv(), r.EvalAtBudget.csv(), r.LeftOut})
	}
	var agg [][]string
	for _, a := range t.Aggregate {
		agg = append(agg, []string{a.Controller, strconv.Itoa(a.Runs), strconv.Itoa(a.Envs), a.IQM.Point.csv(), a.IQM.Lo.csv(), a.IQM.Hi.csv(),
			a.PoI.Point.csv(), a.PoI.Lo.csv(), a.PoI.Hi.csv(), strconv.Itoa(a.PoIEnvs), strconv.FormatBool(a.Passes), a.Why})
	}
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{RunsCSV, func(w io.Writer) error {
			return writeCSV(w, []string{"env", "controller", "seed", "dir", "finished", "iterations", "frames", "wall_time_s", "controller_time_s",
				"final_train_reward", "final_eval_return", "budget_frames", "eval_return_at_budget", "left_out"}, runs)
		}},
		{ControllersCSV, t.ControllersTable},
		{AggregateCSV, func(w io.Writer) error {
			return writeCSV(w, []string{"controller", "runs", "envs", "normalised_iqm", "normalised_iqm_lo", "normalised_iqm_hi",
				"p_over_reference", "p_over_reference_lo", "p_over_reference_hi", "p_over_reference_envs", "passes_rule", "rule"}, agg)
		}},
	}
	var out []string
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := writeFile(path, f.write); err != nil {
			return out, err
		}
		out = append(out, path)
	}
	return out, nil
}

// JSONFile is the file WriteJSON writes.
const JSONFile = "report.json"

// WriteJSON writes the tables to dir/report.json and returns its path.
func (t *Tables) WriteJSON(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("report: output folder %s: %w", dir, err)
	}
	path := filepath.Join(dir, JSONFile)
	return path, writeFile(path, t.JSON)
}

// writeFile creates path and writes it with write; errors name the file.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("report: %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

func writeCSV(w io.Writer, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	if err := cw.WriteAll(rows); err != nil {
		return err
	}
	return cw.Error()
}
