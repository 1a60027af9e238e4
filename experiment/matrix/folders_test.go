package matrix

import (
	"errors"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/envs"
)

// A stopped run of an environment hyperctl registers continues with
// hyperctl train; one of the user's own environment, from their program.
func TestContinueHint(t *testing.T) {
	envs.MustRegister(envs.Spec{ID: "HintTest-v0", Name: "hinttest", MaxEpisodeSteps: 1,
		Observation: envs.Box{Low: []float64{0}, High: []float64{1}}, Action: envs.Box{Low: []float64{0}, High: []float64{1}}},
		func() (envs.Env, error) { return nil, errors.New("not built in this test") })
	for _, tc := range []struct{ env, want string }{
		{"hinttest", "continue with: hyperctl train --out runs/a --resume"},
		{"?", "continue with: hyperctl train --out runs/a --resume"},
		{"pointmass", `continue it from the program that trained it: run.Train with Options{Out: "runs/a", Resume: true} (environment pointmass is not one of hyperctl's)`},
	} {
		if got := continueHint("runs/a", tc.env); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.env, got, tc.want)
		}
	}
	if strings.Contains(continueHint("runs/a", "pointmass"), "hyperctl train") {
		t.Error("the hint for a user's environment names hyperctl train")
	}
}
