package analysis

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTablesJSONAndCSV: the tables of the fixture (see TestTable) as JSON
// and CSV carry the same numbers as the Markdown: per run, the return at
// the budget or why there is none; per controller, the quartiles and the
// seeds at the budget; undefined numbers null (JSON) or empty (CSV).
func TestTablesJSONAndCSV(t *testing.T) {
	s, err := Load(fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	s.Bootstrap = Bootstrap{Resamples: 200}
	tb, err := s.Tables()
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := tb.JSON(&js); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Runs []struct {
			Controller   string
			Seed         int64
			Finished     bool
			EvalAtBudget *float64 `json:"eval_return_at_budget"`
			LeftOut      string   `json:"left_out"`
		}
		Envs []struct {
			Env          string
			BudgetFrames float64 `json:"budget_frames"`
			Controllers  []struct {
				Controller       string
				Finished         int
				SeedsAtBudget    int                               `json:"seeds_at_budget"`
				FinalTrainReward struct{ Q1, Median, Q3 *float64 } `json:"final_train_reward"`
				PoI              struct{ Point *float64 }          `json:"p_over_reference"`
			}
		}
		Against []struct {
			Controller string
			Pairs      int `json:"seeds_paired"`
		} `json:"against_reference"`
		Verdict string
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatalf("%v:\n%s", err, js.String())
	}
	if len(got.Runs) != 7 || len(got.Envs) != 1 || got.Envs[0].BudgetFrames != 20000 || len(got.Envs[0].Controllers) != 3 {
		t.Fatalf("runs %d, envs %+v", len(got.Runs), got.Envs)
	}
	for _, r := range got.Runs {
		switch {
		case r.Controller == "random" && r.Seed == 2:
			if r.Finished || r.EvalAtBudget != nil || r.LeftOut != "unfinished" {
				t.Errorf("random seed 2: %+v, want unfinished, null", r)
			}
		case r.Controller == "hypercontroller" && r.Seed == 1:
			if r.EvalAtBudget == nil || *r.EvalAtBudget != 390 {
				t.Errorf("hypercontroller seed 1: %+v, want 390 at the budget", r)
			}
		}
	}
	for _, c := range got.Envs[0].Controllers {
		if c.Controller == "hypercontroller" {
			q := c.FinalTrainReward
			if c.Finished != 3 || c.SeedsAtBudget != 3 || *q.Q1 != 29.5 || *q.Median != 39 || *q.Q3 != 48.5 || c.PoI.Point == nil {
				t.Errorf("hypercontroller: %+v", c)
			}
		}
		if c.Controller == "fixed" && c.PoI.Point != nil {
			t.Errorf("fixed against itself: %v, want null", *c.PoI.Point)
		}
	}
	if len(got.Against) != 2 || got.Verdict == "" {
		t.Errorf("against %+v, verdict %q", got.Against, got.Verdict)
	}

	dir := t.TempDir()
	files, err := tb.WriteCSV(dir)
	if err != nil || len(files) != 3 {
		t.Fatalf("%v, %v", files, err)
	}
	read := func(name string) [][]string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return recs
	}
	runs := read(RunsCSV)
	if len(runs) != 8 || runs[0][12] != "eval_return_at_budget" {
		t.Fatalf("runs.csv: %v", runs)
	}
	for _, r := range runs[1:] {
		if r[1] == "random" && r[2] == "2" && (r[12] != "" || r[13] != "unfinished") {
			t.Errorf("runs.csv random seed 2: %v", r)
		}
	}
	ctl := read(ControllersCSV)
	var stdout bytes.Buffer
	if err := tb.ControllersTable(&stdout); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ControllersCSV))
	if !bytes.Equal(stdout.Bytes(), b) || len(ctl) != 4 || !strings.HasPrefix(strings.Join(ctl[2], ","), "reacher,hypercontroller,3,3,29.5,39,48.5,") {
		t.Fatalf("controllers.csv: %v", ctl)
	}
	if agg := read(AggregateCSV); len(agg) != 4 {
		t.Fatalf("aggregate.csv: %v", agg)
	}
}
