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
		{ScoreJudge, map[int64]float64{0: 7.5}, map[int64]string{1: "no judge.json, and no policy-best here", 2: "judged other policy-best files"}},
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
