package analysis

import (
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/ppo/policy"
)

// With Score ScoreJudge a run's score is its judge.json mean; a run
// without one, or with an unusable one, is left out with the reason; the
// default score stays the evaluation return at the matched budget.
func TestJudgeScore(t *testing.T) {
	run := func(seed int64, j *policy.Judgement, problem string) *Run {
		return &Run{Env: "reacher", Controller: "fixed", Seed: seed, Dir: t.TempDir(), Finished: true,
			Train: []TrainRow{{Iteration: 0, Frames: 100}}, Eval: []EvalRow{{Iteration: 0, Frames: 100, Return: float64(-seed)}},
			Judge: j, JudgeProblem: problem}
	}
	s := &Set{Runs: []*Run{
		run(0, &policy.Judgement{Mean: 7.5}, ""),
		run(1, nil, ""),
		run(2, nil, "judge.json judged other policy-best files than the run's"),
	}}
	for _, tc := range []struct {
		score   string
		want    map[int64]float64
		dropped map[int64]string
	}{
		{"", map[int64]float64{0: 0, 1: -1, 2: -2}, nil},
		{ScoreBudget, map[int64]float64{0: 0, 1: -1, 2: -2}, nil},
		{ScoreJudge, map[int64]float64{0: 7.5}, map[int64]string{1: "no judge.json, and no policy here", 2: "judged other policy-best files"}},
	} {
		t.Run("score="+tc.score, func(t *testing.T) {
			s.Score = tc.score
			got, dropped := s.budgetEvals("reacher")
			if len(got["fixed"]) != len(tc.want) {
				t.Fatalf("scores %v, want %v", got["fixed"], tc.want)
			}
			for sd, v := range tc.want {
				if g, ok := got["fixed"][sd]; !ok || g != v {
					t.Fatalf("seed %d: score %v (%v), want %v", sd, g, ok, v)
				}
			}
			if len(dropped) != len(tc.dropped) {
				t.Fatalf("left out %+v, want %v", dropped, tc.dropped)
			}
			for _, d := range dropped {
				if !strings.Contains(d.Why, tc.dropped[d.Seed]) {
					t.Fatalf("seed %d left out because %q, want %q", d.Seed, d.Why, tc.dropped[d.Seed])
				}
			}
		})
	}
}

// Every sentence and figure title that says what the score is names the
// judge score in a judged report, and the default report's words stay the
// evaluation return at the matched budget.
func TestScoreIsNamed(t *testing.T) {
	var runs []*Run
	for _, ctrl := range []string{"fixed", "pbt"} {
		for seed := range int64(3) {
			runs = append(runs, &Run{Env: "reacher", Controller: ctrl, Seed: seed, Dir: t.TempDir(), Finished: true,
				Train: []TrainRow{{Iteration: 0, Frames: 100}}, Eval: []EvalRow{{Iteration: 0, Frames: 100, Return: float64(-seed)}},
				Judge: &policy.Judgement{Mean: float64(seed), Policy: policy.Final}})
		}
	}
	const judged = "judge score (its judge.json mean, its policy-final on fresh episodes)"
	for _, tc := range []struct {
		score, stats string
		want         []string
		not          string
	}{
		{ScoreBudget, "evaluation return at the matched budget", []string{
			"At equal experience (each run's evaluation return at its environment's matched budget), each controller against `fixed`",
			"Per environment: median evaluation return at the matched budget, the controller's",
		}, judged},
		{ScoreJudge, judged, []string{
			"By each run's " + judged + ", each controller against `fixed`",
			"Per environment: median " + judged + ", the controller's",
		}, "median evaluation return at the matched budget"},
	} {
		t.Run(tc.score, func(t *testing.T) {
			s := &Set{Runs: runs, Score: tc.score, Reference: "fixed", Bootstrap: Bootstrap{Resamples: 10}}
			st, err := s.Stats()
			if err != nil {
				t.Fatal(err)
			}
			if st.Score != tc.stats {
				t.Errorf("Stats().Score = %q (the profile's title), want %q", st.Score, tc.stats)
			}
			var md strings.Builder
			if err := s.Markdown(&md); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(md.String(), w) {
					t.Errorf("report lacks %q:\n%s", w, md.String())
				}
			}
			if strings.Contains(md.String(), tc.not) {
				t.Errorf("report says %q:\n%s", tc.not, md.String())
			}
		})
	}
}

// The report names the policy its runs' judge.json files judged:
// policy-final, policy-best, or both when the runs differ.
func TestJudgedPolicyNamed(t *testing.T) {
	for _, tc := range []struct {
		policies []string
		want     string
	}{
		{nil, policy.Final},
		{[]string{policy.Final, policy.Final}, policy.Final},
		{[]string{policy.Best}, policy.Best},
		{[]string{policy.Final, policy.Best}, policy.Best + " or " + policy.Final},
	} {
		s := &Set{}
		for _, p := range tc.policies {
			s.Runs = append(s.Runs, &Run{Judge: &policy.Judgement{Policy: p}})
		}
		s.Runs = append(s.Runs, &Run{}) // an unjudged run names nothing
		if got := s.judgedPolicy(); got != tc.want {
			t.Errorf("judged %v: names %q, want %q", tc.policies, got, tc.want)
		}
	}
}
