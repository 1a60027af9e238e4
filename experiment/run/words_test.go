package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/internal/ground/words"
	"github.com/hyperctl/hyperctl/ppo/policy"
)

// TestWordedErrors: run's refusals and advice name Options fields (and
// Go functions) by themselves and, in the command line's words, read as
// hyperctl prints them.
func TestWordedErrors(t *testing.T) {
	flags := words.Words{Force: "--force", Continue: "hyperctl train --out %s --resume", Resuming: "train --resume",
		Retrain: "hyperctl train --config %s --out NEW_FOLDER", Kernels: "--kernels pinned or native",
		Population: "`hyperctl population`", RunPopulation: "run that command on the population folder",
		Policy: "--policy %s"}
	stopped, finished, withFinal := t.TempDir(), t.TempDir(), t.TempDir()
	for _, dir := range []string{finished, withFinal} {
		if err := rundir.WriteSummary(dir, rundir.Summary{}); err != nil {
			t.Fatal(err)
		}
	}
	// withFinal keeps its policy-final (the file policy.Exists looks for).
	if _, meta := policy.Paths(withFinal, policy.Final); os.WriteFile(meta, []byte("{}"), 0o644) != nil {
		t.Fatal("writing", meta)
	}
	_, ctlErr := buildController(&configs.ControllerPlan{Name: configs.Population}, nil, zerolog.Nop())
	for _, tc := range []struct {
		name  string
		err   error
		flags string
	}{
		{"other kernels", checkKernels("runs/r", "a", "b"),
			`train --resume: no exact resume: runs/r was trained on the float kernels "a", and this process runs "b"; continue it on its own kernels (--kernels pinned or native, or the OPENBLAS_CORETYPE and ATEN_CPU_CAPABILITY it ran with), or start it over with --force`},
		{"stopped without policy", missingPolicy(stopped, policy.Best),
			stopped + " has no policy-best: the run stopped before its first evaluation. Continue it with: hyperctl train --out " + stopped + " --resume"},
		{"finished with the other policy", missingPolicy(withFinal, policy.Best),
			withFinal + " has no policy-best: the run finished, but its policy-best was not kept (a run copied without its policy files, such as a study run whose policies were not committed). --policy final evaluates its policy-final. To get one, train the run again from its config: hyperctl train --config " + filepath.Join(withFinal, rundir.ConfigFile) + " --out NEW_FOLDER"},
		{"finished without policy", missingPolicy(finished, policy.Best),
			finished + " has no policy-best: the run finished, but its policy-best was not kept (a run copied without its policy files, such as a study run whose policies were not committed). To get one, train the run again from its config: hyperctl train --config " + filepath.Join(finished, rundir.ConfigFile) + " --out NEW_FOLDER"},
		{"population member alone", ctlErr,
			"controller population: a population member trains only under `hyperctl population`, which gives it its hyperparameters for each generation; run that command on the population folder"},
	} {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if got := words.Say(tc.err, flags); got != tc.flags {
			t.Errorf("%s: in flags %q, want %q", tc.name, got, tc.flags)
		}
		if s := tc.err.Error(); strings.Contains(s, "--") || strings.Contains(s, "hyperctl") {
			t.Errorf("%s: %q names a flag or a command", tc.name, s)
		}
	}
}
