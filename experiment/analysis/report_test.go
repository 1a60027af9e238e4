package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/matrix"
)

// writeRun writes a fixture run folder whose training reward at iteration i
// is base + slope*i and whose controller time grows by ctrlStep per iteration.
// It trains 1000 frames per iteration and evaluates (return 10× the training
// reward) after every fifth iteration.
func writeRun(t *testing.T, dir string, iters int, base, slope, ctrlStep float64, finished bool) {
	t.Helper()
	writeRunFrames(t, dir, iters, 1000, base, slope, ctrlStep, finished)
}

// writeRunFrames is writeRun with framesPer frames per iteration.
func writeRunFrames(t *testing.T, dir string, iters, framesPer int, base, slope, ctrlStep float64, finished bool) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var tr, ev bytes.Buffer
	tr.WriteString("iteration,frames,wall_time_s,controller_time_s,train_reward,objective,lr\n")
	ev.WriteString("iteration,frames,wall_time_s,controller_time_s,eval_return,eval_steps\n")
	for i := 0; i < iters; i++ {
		r := base + slope*float64(i)
		fmt.Fprintf(&tr, "%d,%d,%g,%g,%g,%g,0.0003\n", i, (i+1)*framesPer, float64(i+1)*0.5, float64(i+1)*ctrlStep, r, slope)
		if (i+1)%5 == 0 {
			fmt.Fprintf(&ev, "%d,%d,%g,%g,%g,1000\n", i, (i+1)*framesPer, float64(i+1)*0.5, float64(i+1)*ctrlStep, 10*r)
		}
	}
	os.WriteFile(filepath.Join(dir, rundir.TrainCSV), tr.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, rundir.EvalCSV), ev.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, rundir.ConfigFile), []byte("env = \"reacher\"\n"), 0o644)
	if finished {
		if err := rundir.WriteSummary(dir, rundir.Summary{Iterations: iters}); err != nil {
			t.Fatal(err)
		}
	}
}

func fixture(t *testing.T) string {
	dir := t.TempDir()
	m := matrix.Manifest{Envs: []string{"reacher"}, Controllers: []string{"fixed", "hypercontroller", "random"}, Seeds: []int64{0, 1, 2}, Iterations: 20}
	b, _ := json.Marshal(m)
	os.WriteFile(filepath.Join(dir, matrix.ManifestFile), b, 0o644)
	run := func(ctrl string, seed int) string {
		return filepath.Join(dir, "reacher", ctrl, fmt.Sprintf("seed%d", seed))
	}
	// hypercontroller: final rewards 1+19*{1,2,3} = 20, 39, 58.
	for s := 0; s < 3; s++ {
		writeRun(t, run("hypercontroller", s), 20, 1, float64(s+1), 1e-5, true)
	}
	// random: seeds 0 and 1 finished (final 19*0.5 = 9.5, 19*1 = 19), seed 2 unfinished.
	writeRun(t, run("random", 0), 20, 0, 0.5, 1e-6, true)
	writeRun(t, run("random", 1), 20, 0, 1, 1e-6, true)
	writeRun(t, run("random", 2), 7, 0, 1, 1e-6, false)
	// fixed: only seed 0, no controller time.
	writeRun(t, run("fixed", 0), 20, 5, 0, 0, true)
	return dir
}

func TestTable(t *testing.T) {
	s, err := Load(fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	rows := s.Table("reacher")
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	byName := map[string]Row{}
	for _, r := range rows {
		byName[r.Controller] = r
	}
	cases := []struct {
		ctrl        string
		finished    int
		trainQ      [3]float64
		evalMedian  float64
		ctrlPer1000 float64
		unfinished  int
		missing     int
	}{
		// quartiles of {20, 39, 58} by linear interpolation: 29.5, 39, 48.5
		{"hypercontroller", 3, [3]float64{29.5, 39, 48.5}, 390, 1e-5 * 1000, 0, 0},
		{"random", 2, [3]float64{11.875, 14.25, 16.625}, 142.5, 1e-6 * 1000, 1, 0},
		{"fixed", 1, [3]float64{5, 5, 5}, 50, 0, 0, 2},
	}
	for _, c := range cases {
		t.Run(c.ctrl, func(t *testing.T) {
			r := byName[c.ctrl]
			if r.Finished != c.finished || r.Expected != 3 {
				t.Errorf("finished %d/%d, want %d/3", r.Finished, r.Expected, c.finished)
			}
			for i := range c.trainQ {
				if math.Abs(r.TrainQ[i]-c.trainQ[i]) > 1e-9 {
					t.Errorf("train quartiles %v, want %v", r.TrainQ, c.trainQ)
					break
				}
			}
			if math.Abs(r.EvalQ[1]-c.evalMedian) > 1e-9 {
				t.Errorf("eval median %g, want %g", r.EvalQ[1], c.evalMedian)
			}
			if math.Abs(r.CtrlPer1000-c.ctrlPer1000) > 1e-12 {
				t.Errorf("controller time per 1000 %g, want %g", r.CtrlPer1000, c.ctrlPer1000)
			}
			if len(r.Unfinished) != c.unfinished || len(r.Missing) != c.missing {
				t.Errorf("unfinished %v missing %v", r.Unfinished, r.Missing)
			}
		})
	}
}

func TestWriteReportAndPlots(t *testing.T) {
	dir := fixture(t)
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Focus = "hypercontroller" // the rank column below is its
	out := filepath.Join(t.TempDir(), "report")
	if d := os.Getenv("REPORT_DEMO_OUT"); d != "" {
		out = d
	}
	files, err := s.Write(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"reacher_fig1_controller_time.png", "reacher_fig1_wall_time.png", "reacher_fig3_frames.png", "reacher_fig2_final.png", "report.md"}
	if len(files) != len(want) {
		t.Fatalf("wrote %v, want %v", files, want)
	}
	for i, f := range files {
		if filepath.Base(f) != want[i] {
			t.Fatalf("file %d is %s, want %s", i, filepath.Base(f), want[i])
		}
		if strings.HasSuffix(f, ".png") {
			fh, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(fh)
			fh.Close()
			if err != nil {
				t.Fatalf("%s: not a PNG: %v", f, err)
			}
			if b := img.Bounds(); b.Dx() < 500 || b.Dy() < 200 {
				t.Fatalf("%s: %v is too small", f, b)
			}
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	for _, w := range []string{"## reacher", "| hypercontroller | 3/3 | 39.00 [29.50, 48.50]", "random: unfinished: seed 2 at iteration 7", "fixed: missing seeds [1 2]",
		"| reacher | hypercontroller 39.00 | 1 of 3 | hypercontroller 390.00 | 1 of 3 | 20000 | hypercontroller 390.00 | 1 of 3 |"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("report.md lacks %q:\n%s", w, md)
		}
	}
}

// TestBudgetAndDrop checks the matched-budget and stability columns on runs
// that train at different frame rates and one whose evaluations fall.
func TestBudgetAndDrop(t *testing.T) {
	dir := t.TempDir()
	run := func(ctrl string, seed int) string {
		return filepath.Join(dir, "pusher", ctrl, fmt.Sprintf("seed%d", seed))
	}
	// "small": 1000 frames/it, 20 iterations → 20000 frames, the budget.
	// Rewards rise (slope 1), so its evals 10·(i) at i = 4, 9, 14, 19 end at
	// the best: drop 0. At the budget its eval is the final one, 190.
	writeRunFrames(t, run("small", 0), 20, 1000, 0, 1, 0, true)
	// "large": 3000 frames/it, rewards fall from 10 (slope −0.5). Evals at
	// i = 4 (15000 frames, 10·8 = 80), i = 9 (30000, 55), 14 (45), 19 (5·…).
	// The last eval with ≤ 20000 frames is i = 4: 80. Final eval
	// 10·(10 − 9.5) = 5, best 80: drop −75.
	writeRunFrames(t, run("large", 0), 20, 3000, 10, -0.5, 0, true)
	// Unfinished runs don't set the budget.
	writeRunFrames(t, run("large", 1), 3, 10, 0, 1, 0, false)
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b := s.Budget("pusher"); b != 20000 {
		t.Fatalf("budget %g, want 20000", b)
	}
	rows := map[string]Row{}
	for _, r := range s.Table("pusher") {
		rows[r.Controller] = r
	}
	cases := []struct {
		ctrl           string
		frames, budget float64
		drop           float64
	}{
		{"small", 20000, 190, 0},
		{"large", 60000, 80, -75},
	}
	for _, c := range cases {
		t.Run(c.ctrl, func(t *testing.T) {
			r := rows[c.ctrl]
			if r.FramesMedian != c.frames || math.Abs(r.BudgetEvalQ[1]-c.budget) > 1e-9 || math.Abs(r.DropQ[1]-c.drop) > 1e-9 {
				t.Errorf("frames %g, eval at budget %g, drop %g; want %g, %g, %g", r.FramesMedian, r.BudgetEvalQ[1], r.DropQ[1], c.frames, c.budget, c.drop)
			}
		})
	}
	var md bytes.Buffer
	if err := s.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	// No hypercontroller: ranks are "–"; the leaders are named.
	if w := "| pusher | small 19.00 | – | small 190.00 | – | 20000 | small 190.00 | – |"; !strings.Contains(md.String(), w) {
		t.Errorf("summary lacks %q:\n%s", w, md.String())
	}
	// With a focus, its ranks are given.
	s.Focus = "large"
	md.Reset()
	if err := s.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if w := "| pusher | small 19.00 | 2 of 2 | small 190.00 | 2 of 2 | 20000 | small 190.00 | 2 of 2 |"; !strings.Contains(md.String(), w) {
		t.Errorf("summary lacks %q:\n%s", w, md.String())
	}
}

// TestFrameBudgetMatching: when every finished run had a frame budget,
// the matched budget is that budget and each run is compared at its
// evaluation after the iteration that reached it, not at an earlier
// evaluation within the budget.
func TestFrameBudgetMatching(t *testing.T) {
	dir := t.TempDir()
	run := func(ctrl string) string { return filepath.Join(dir, "pusher", ctrl, "seed0") }
	// "a": 1000 frames/it; evals at 5000, 10000, 15000, 20000 frames, the
	// last (10·19 = 190) after the iteration that reached 19500.
	writeRunFrames(t, run("a"), 20, 1000, 0, 1, 0, true)
	// "b": 3000 frames/it; evals at 15000 (80) and 30000 (55) frames. The
	// run reached 19500 at 21000 frames, evaluated at 30000 here.
	writeRunFrames(t, run("b"), 10, 3000, 10, -0.5, 0, true)
	for _, c := range []string{"a", "b"} {
		if err := rundir.WriteSummary(run(c), rundir.Summary{Iterations: 20, FrameBudget: 19500}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b, framed := s.budget("pusher"); b != 19500 || !framed {
		t.Fatalf("budget %g (framed %v), want the runs' 19500", b, framed)
	}
	for _, r := range s.Table("pusher") {
		if want := map[string]float64{"a": 190, "b": 55}[r.Controller]; r.BudgetEvalQ[1] != want {
			t.Errorf("%s: eval at the budget %g, want %g", r.Controller, r.BudgetEvalQ[1], want)
		}
	}
	var md bytes.Buffer
	if err := s.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if w := "the runs' frame budget of 19500 frames"; !strings.Contains(md.String(), w) {
		t.Errorf("report lacks %q:\n%s", w, md.String())
	}
	// One run without a budget: back to the fewest frames trained.
	if err := rundir.WriteSummary(run("b"), rundir.Summary{Iterations: 10}); err != nil {
		t.Fatal(err)
	}
	if s, _ = Load(dir); s.Budget("pusher") != 20000 {
		t.Fatalf("mixed budgets: %g, want 20000", s.Budget("pusher"))
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "absent")); err == nil {
		t.Fatal("want an error for a missing folder")
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "reacher", "random", "seed0")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, rundir.TrainCSV), []byte("iteration,frames\n0,1\n"), 0o644)
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Problems) != 1 || !strings.Contains(s.Problems[0], "wall_time_s") {
		t.Fatalf("problems %v, want one naming the missing column", s.Problems)
	}
}

// TestFewEvaluationsExplained: runs shorter than eval_every have one
// evaluation each (after the last iteration); the report says so in the
// table, and the evaluation panel draws points with the reason in its title.
func TestFewEvaluationsExplained(t *testing.T) {
	for _, tc := range []struct {
		name  string
		iters int
		want  string
	}{
		{"one evaluation", 5, "Evaluations: each run has one evaluation, after its last iteration"},
		{"none", 3, "Evaluations: no run has an evaluation yet"},
		{"several", 10, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for s := 0; s < 2; s++ {
				// writeRun evaluates after every fifth iteration.
				writeRun(t, filepath.Join(dir, "reacher", "random", fmt.Sprintf("seed%d", s)), tc.iters, 0, 1, 1e-6, true)
			}
			set, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := set.Markdown(&b); err != nil {
				t.Fatal(err)
			}
			if tc.want == "" && strings.Contains(b.String(), "Evaluations:") || tc.want != "" && !strings.Contains(b.String(), tc.want) {
				t.Fatalf("report does not say %q:\n%s", tc.want, b.String())
			}
			p, err := set.Figure1("reacher", t.TempDir(), WallTime)
			if err != nil || p == "" {
				t.Fatalf("figure: %q, %v", p, err)
			}
		})
	}
}

// TestHeadToHead compares each controller with a reference row at the
// matched budget: medians, per-seed wins among seeds both finished, and the
// count of environments won in the markdown.
func TestHeadToHead(t *testing.T) {
	s, err := Load(fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	// Evaluations at the budget (20000 frames, iteration 19): hypercontroller
	// 200, 390, 580; random 95, 190 (seed 2 unfinished); fixed 50 (seed 0).
	cases := []struct {
		ref  string
		want []HeadToHead
	}{
		{"fixed", []HeadToHead{
			{Controller: "hypercontroller", Median: 390, RefMedian: 50, Wins: 1, Pairs: 1,
				Unpaired: []string{"seed 1: no finished fixed run with that seed", "seed 2: no finished fixed run with that seed"}},
			{Controller: "random", Median: 142.5, RefMedian: 50, Wins: 1, Pairs: 1,
				Unpaired: []string{"seed 1: no finished fixed run with that seed"}},
		}},
		{"hypercontroller", []HeadToHead{
			{Controller: "fixed", Median: 50, RefMedian: 390, Wins: 0, Pairs: 1},
			{Controller: "random", Median: 142.5, RefMedian: 390, Wins: 0, Pairs: 2},
		}},
		{"nosuch", nil},
	}
	// The reference alone: an empty comparison, not "no reference".
	alone := &Set{Runs: nil}
	for _, r := range s.Runs {
		if r.Controller == "fixed" {
			alone.Runs = append(alone.Runs, r)
		}
	}
	if h := alone.HeadToHead("reacher", "fixed"); h == nil || len(h) != 0 {
		t.Errorf("fixed alone: %v, want an empty, non-nil comparison", h)
	}
	wantMarkdown(t, alone, "## Against fixed\n\nLeft out: the runs have no controller other than `fixed`")
	for _, c := range cases {
		t.Run(c.ref, func(t *testing.T) {
			got := s.HeadToHead("reacher", c.ref)
			if len(got) != len(c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
			for i := range got {
				if !reflect.DeepEqual(got[i], c.want[i]) {
					t.Errorf("row %d: got %+v, want %+v", i, got[i], c.want[i])
				}
				if got[i].Beats() != (c.want[i].Median > c.want[i].RefMedian) {
					t.Errorf("row %d: Beats() = %v", i, got[i].Beats())
				}
			}
		})
	}
	var md bytes.Buffer
	if err := s.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"## Against fixed", "| hypercontroller | 1 of 1 | reacher |", "| reacher | random | 142.50 | 50.00 | 92.50 | 1 of 1 |",
		"Seeds not counted in \"seeds higher\" (finished, but not paired):\n- reacher, hypercontroller: seed 1: no finished fixed run with that seed; seed 2: no finished fixed run with that seed\n- reacher, random: seed 1: no finished fixed run with that seed\n"} {
		if !strings.Contains(md.String(), w) {
			t.Errorf("report lacks %q:\n%s", w, md.String())
		}
	}
	s.Reference = "hypercontroller"
	md.Reset()
	if err := s.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if w := "| random | 0 of 1 | – |"; !strings.Contains(md.String(), w) {
		t.Errorf("report lacks %q:\n%s", w, md.String())
	}
}

// TestLeftOutIsExplained: a finished seed without an evaluation within the
// matched budget is listed with the reason, the table says how many seeds
// each row has there, and a folder without the reference row says why the
// "Against" section is empty.
func TestLeftOutIsExplained(t *testing.T) {
	dir := t.TempDir()
	run := func(ctrl string, seed int) string {
		return filepath.Join(dir, "pusher", ctrl, fmt.Sprintf("seed%d", seed))
	}
	// The budget is 20000 frames (small's). big trains 7000 frames per
	// iteration and first evaluates after iteration 4, at 35000 frames.
	writeRunFrames(t, run("small", 0), 20, 1000, 0, 1, 0, true)
	writeRunFrames(t, run("small", 1), 20, 1000, 0, 2, 0, true)
	writeRunFrames(t, run("big", 0), 20, 7000, 0, 1, 0, true)
	writeRunFrames(t, run("big", 1), 20, 1000, 0, 1, 0, true)
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	scores, dropped := s.budgetEvals("pusher")
	want := []Dropped{{Controller: "big", Seed: 0, Dir: run("big", 0), Why: "no evaluation within the matched budget of 20000 frames (its first at 35000)"}}
	if !reflect.DeepEqual(dropped, want) || len(scores["big"]) != 1 || len(scores["small"]) != 2 {
		t.Fatalf("scores %v, dropped %+v; want big's seed 1 and small's two scored, %+v", scores, dropped, want)
	}
	s.Reference = "small"
	wantMarkdown(t, s,
		"| big | 1 of 2 | 80000 |",
		"| small | 2 of 2 | 20000 |",
		"Left out at the matched budget (finished, but without an evaluation return there; not in the statistics):\n- big seed 0: no evaluation within the matched budget of 20000 frames (its first at 35000)\n",
		"| pusher | big | 190.00 | 285.00 | -95.00 | 0 of 1 |",
		"- pusher, big: seed 0: no evaluation within the matched budget of 20000 frames (its first at 35000)")
	s.Reference = "fixed"
	wantMarkdown(t, s, "## Against fixed\n\nLeft out: no environment has a finished `fixed` run with an evaluation return at the matched budget")
}

// wantMarkdown checks that s's Markdown report contains every string of
// want.
func wantMarkdown(t *testing.T, s *Set, want ...string) {
	t.Helper()
	var md bytes.Buffer
	if err := s.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(md.String(), w) {
			t.Errorf("report lacks %q:\n%s", w, md.String())
		}
	}
}

// TestLogTicks: plain numeric labels on log axes, over many decades (powers
// of ten), a few (1, 2, 5 times them) and less than one (every multiple),
// the ends of a range too narrow for two of those, never in exponent form
// inside 1e-6 to 1e9.
func TestLogTicks(t *testing.T) {
	for _, tc := range []struct {
		min, max float64
		want     []string // the labels, in order
	}{
		{2e-6, 6e-3, []string{"1e-5", "1e-4", "1e-3"}},
		{0.3, 80, []string{"0.3", "1", "3", "10", "30"}},
		{0.3, 20, []string{"0.5", "1", "2", "5", "10", "20"}},
		{2e-5, 0.015, []string{"3e-5", "1e-4", "3e-4", "1e-3", "3e-3", "1e-2"}},
		{20, 75, []string{"20", "30", "40", "50", "60", "70"}},
		{1, 1000, []string{"1", "10", "100", "1000"}},
		{0.0012, 0.0019, []string{"0.0012", "0.0019"}},
		{0.00123456, 0.00198765, []string{"0.0013", "0.0019"}},
		{5e8, 3e10, []string{"5e8", "1e9", "2e9", "5e9", "1e10", "2e10"}},      // one form: not 500000000 beside 1e+09
		{5e-8, 3e-6, []string{"5e-8", "1e-7", "2e-7", "5e-7", "1e-6", "2e-6"}}, // not 0.000001 beside 1e-07
		// 6e-6, 8e-6 and 9e-6 have no room beside 5e-6, 7e-6 and 1e-5.
		{4.3e-6, 4.2e-5, []string{"5e-6", "7e-6", "1e-5", "2e-5", "3e-5", "4e-5"}},
	} {
		var labels []string
		minor := 0
		for _, tk := range (logTicks{}).Ticks(tc.min, tc.max) {
			if tk.Value < tc.min*(1-1e-9) || tk.Value > tc.max*(1+1e-9) {
				t.Errorf("[%g, %g]: tick %g out of range", tc.min, tc.max, tk.Value)
			}
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			} else {
				minor++
			}
		}
		if labels == nil {
			labels = []string{}
		}
		if !reflect.DeepEqual(labels, tc.want) {
			t.Errorf("[%g, %g]: labels %q, want %q (%d minor ticks)", tc.min, tc.max, labels, tc.want, minor)
		}
	}
	if got := (logTicks{}).Ticks(0, 1); got != nil {
		t.Errorf("a range from 0: %v, want no ticks", got)
	}
}

// TestSameForm: two panels' axes of one quantity label their ticks in one
// form, exponent form on both when either needs it (the controller-time
// panels of a committed report read 1e-5 1e-4 on the left and 0.0001 on
// the right), decimals on both otherwise; a linear axis takes the same
// rule.
func TestSameForm(t *testing.T) {
	for _, tc := range []struct {
		name        string
		log         bool
		left, right [2]float64
		want        [2][]string
	}{
		{"exponent form on both", true, [2]float64{8e-6, 0.02}, [2]float64{9e-5, 0.02}, [2][]string{{"1e-5", "1e-4", "1e-3", "1e-2"}, {"1e-4", "3e-4", "1e-3", "3e-3", "1e-2"}}},
		{"decimals on both", true, [2]float64{2e-4, 0.02}, [2]float64{9e-4, 0.02}, [2][]string{{"0.0003", "0.001", "0.003", "0.01"}, {"0.001", "0.002", "0.005", "0.01", "0.02"}}},
		{"linear", false, [2]float64{0, 3e-7}, [2]float64{0, 0.001}, [2][]string{{"0", "1e-7", "2e-7", "3e-7"}, {"0", "2e-4", "4e-4", "6e-4", "8e-4", "1e-3"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var axes [2]plot.Axis
			for i, r := range [][2]float64{tc.left, tc.right} {
				axes[i].Min, axes[i].Max = r[0], r[1]
				axes[i].Tick.Marker = linearTicks{}
				if tc.log {
					axes[i].Tick.Marker = logTicks{}
				}
			}
			sameForm(&axes[0], &axes[1])
			for i, a := range axes {
				var labels []string
				for _, tk := range a.Tick.Marker.Ticks(a.Min, a.Max) {
					if tk.Label != "" {
						labels = append(labels, tk.Label)
					}
				}
				if !reflect.DeepEqual(labels, tc.want[i]) {
					t.Errorf("panel %d [%g, %g]: labels %q, want %q", i, a.Min, a.Max, labels, tc.want[i])
				}
			}
		})
	}
}

func TestLinearTicks(t *testing.T) {
	for _, tc := range []struct {
		min, max float64
		want     []string // the labelled ticks, in order
	}{
		{-10, 5200, []string{"0", "2000", "4000"}},
		{-1.25, -0.15, []string{"-1.25", "-1", "-0.75", "-0.5", "-0.25"}}, // gonum: -1.25, -0.75, -0.25
		{-0.4, 1.9, []string{"0", "0.5", "1", "1.5"}},                     // gonum: -0.25, 0.75, 1.75
		{0, 1, []string{"0", "0.2", "0.4", "0.6", "0.8", "1"}},
		{0, 1e6, []string{"0", "200000", "400000", "600000", "800000", "1000000"}},
		{-1.245, -1.085, []string{"-1.2", "-1.15", "-1.1"}}, // gonum rounded -1.23 and -1.17 both to -1.2
		{0.1, 0.35, []string{"0.1", "0.15", "0.2", "0.25", "0.3", "0.35"}},
		{0, 3e-7, []string{"0", "1e-7", "2e-7", "3e-7"}},                // one form: never 0.0000001 beside 1e-07
		{-1.79e308, 1e6, []string{"-1.5e308", "-1e308", "-5e307", "0"}}, // no float noise at the float range's end
	} {
		var labels []string
		for _, tk := range (linearTicks{}).Ticks(tc.min, tc.max) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if !reflect.DeepEqual(labels, tc.want) {
			t.Errorf("[%g, %g]: labels %q, want %q", tc.min, tc.max, labels, tc.want)
		}
	}
	for in, want := range map[string]string{"5000.00": "5000", "0.50": "0.5", "-0.00": "0", "1e+06": "1e+06", "120": "120", "2.5": "2.5"} {
		if got := trimZeros(in); got != want {
			t.Errorf("trimZeros(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFigure1OnePointOnALogAxis: a panel whose curves reduce to one point
// on a log axis (here a row with one evaluation, beside a row with two
// whose controller time is 0 and so has no point there) is drawn, not a
// panic of the plotting library (a degenerate range widened by ±1 is not
// positive).
func TestFigure1OnePointOnALogAxis(t *testing.T) {
	dir := t.TempDir()
	// pbt-2: 5 iterations, so one evaluation; a little controller time.
	writeRun(t, filepath.Join(dir, "reacher", "pbt-2", "seed0"), 5, 0, 1, 1e-6, true)
	// fixed-best2: 10 iterations, two evaluations, no controller time.
	writeRun(t, filepath.Join(dir, "reacher", "fixed-best2", "seed0"), 10, 0, 1, 0, true)
	set, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, axis := range []XAxis{ControllerTime, WallTime, Frames} {
		p, err := set.Figure1("reacher", t.TempDir(), axis)
		if err != nil || p == "" {
			t.Fatalf("axis %v: figure %q, %v", axis, p, err)
		}
	}
}

// TestMedianCurve: past a run's last row, the run is held at that row, so
// the median stays over every run rather than the ones with the most rows.
func TestMedianCurve(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rows   [][][2]float64 // per run, its (x, y) rows
		wantYs []float64
	}{
		{"equal lengths", [][][2]float64{{{1, 1}, {2, 2}}, {{1, 3}, {2, 4}}, {{1, 5}, {2, 6}}}, []float64{3, 4}},
		// The two short runs hold 2 and 4; the long one climbs to 100: the
		// median stays 4, where the survivors' median was 100.
		{"one long run", [][][2]float64{{{1, 1}, {2, 2}}, {{1, 3}, {2, 4}}, {{1, 5}, {2, 6}, {3, 50}, {4, 100}}}, []float64{3, 4, 4, 4}},
		{"a run without rows", [][][2]float64{{}, {{1, 3}}, {{1, 5}, {2, 7}}}, []float64{4, 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			for _, r := range tc.rows {
				n = max(n, len(r))
			}
			c := medianCurve(n, func(r, k int) (float64, float64, bool) {
				if k >= len(tc.rows[r]) {
					return 0, 0, false
				}
				return tc.rows[r][k][0], tc.rows[r][k][1], true
			}, len(tc.rows))
			if !reflect.DeepEqual(c.ys, tc.wantYs) {
				t.Errorf("medians %v, want %v", c.ys, tc.wantYs)
			}
		})
	}
}

// TestExpectedSeeds: a row expects only the seeds its controller was given
// (its compare's matrix, else its runs on disk), never the seeds of
// another controller: a fixed run beside two tuned seeds, populations of
// two sizes side by side, and a compare whose matrix really misses a run.
func TestExpectedSeeds(t *testing.T) {
	type run struct {
		ctrl string
		seed int64
	}
	type want struct {
		finished, expected int
		missing            []int64
	}
	cases := []struct {
		name     string
		manifest *matrix.Manifest
		runs     []run
		want     map[string]want
	}{
		{"fixed seed 0 beside hoof seeds 0-1", nil,
			[]run{{"fixed", 0}, {"hoof", 0}, {"hoof", 1}},
			map[string]want{"fixed": {1, 1, nil}, "hoof": {2, 2, nil}}},
		{"populations of 4 and 8 members", nil,
			[]run{{"pb2-4", 0}, {"pb2-4", 1}, {"pb2-4", 2}, {"pb2-4", 3},
				{"pb2-8", 0}, {"pb2-8", 1}, {"pb2-8", 2}, {"pb2-8", 3}, {"pb2-8", 4}, {"pb2-8", 5}, {"pb2-8", 6}, {"pb2-8", 7}},
			map[string]want{"pb2-4": {4, 4, nil}, "pb2-8": {8, 8, nil}}},
		{"a compare missing hoof seed 1", &matrix.Manifest{Envs: []string{"reacher"}, Controllers: []string{"fixed", "hoof"}, Seeds: []int64{0, 1}, Iterations: 20},
			[]run{{"fixed", 0}, {"fixed", 1}, {"hoof", 0}},
			map[string]want{"fixed": {2, 2, nil}, "hoof": {1, 2, []int64{1}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.manifest != nil {
				if err := matrix.WriteManifest(dir, *c.manifest); err != nil {
					t.Fatal(err)
				}
			}
			for _, r := range c.runs {
				d := filepath.Join(dir, "reacher", r.ctrl, fmt.Sprintf("seed%d", r.seed))
				writeRun(t, d, 20, 1, 1, 0, true)
				writeConfig(t, d, "reacher", r.ctrl, r.seed)
			}
			s, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			rows := s.Table("reacher")
			if len(rows) != len(c.want) {
				t.Fatalf("%d rows, want %d", len(rows), len(c.want))
			}
			for _, r := range rows {
				w := c.want[r.Controller]
				if r.Finished != w.finished || r.Expected != w.expected || !reflect.DeepEqual(r.Missing, w.missing) {
					t.Errorf("%s: %d/%d, missing %v; want %d/%d, missing %v", r.Controller, r.Finished, r.Expected, r.Missing, w.finished, w.expected, w.missing)
				}
			}
		})
	}
}
