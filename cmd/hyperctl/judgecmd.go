package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/hyperctl/hyperctl/ppo/policy"
)

// judge is its own command rather than eval --fresh: eval reads and
// prints, for any seeds and either policy, and never writes into a run
// folder; judge writes judge.json, the score report --score judge uses,
// so its seeds (policy.FreshSeedBase on) and its minimum of episodes are
// fixed, its policy is by default the one selections pick on
// (policy-final: every selection here ranks runs by their final
// evaluation), and it takes several folders (every selected policy of a
// study at once).
func newJudgeCmd(a *app) *cobra.Command {
	var episodes int
	var which string
	cmd := &cobra.Command{
		Use:   "judge DIR...",
		Short: "Score selected policies on fresh episodes, seeds no training or selection used (judge.json)",
		Long: fmt.Sprintf(`judge evaluates the policy of each run folder DIR on deterministic
episodes whose seeds no training or selection used: episode k is reset
with %d + k (2^62 + 2^61 + k; training's and in-run
evaluation's seeds are all below 2^62 + 256). A selection (best-of-N, a
population's best member, a halving survivor, a random-search winner)
picks on in-run evaluations; the maximum of noisy estimates is biased
upwards, so the score that counts is this new evaluation of the policy it
picked.

The judged policy is the one the selection picked on: by default
policy-final, the weights as training ended, which every selection here
ranks by their final evaluation. --policy best judges policy-best (the
checkpoint with the best in-run evaluation) instead; judge.json names the
policy it judged, and so does the report.

DIR may be a finished population folder: its best member (as result.json
names it) is judged, and a line on stderr says which.

judge writes DIR/judge.json atomically: the episodes, their seeds, returns
and lengths, mean and standard deviation (population), the SHA-256 of the
policy's two files and the hyperctl version. A judge.json of the same
policy files and episodes is left as it is (judging again is a no-op); one
of other files (the policy changed) is replaced. 'hyperctl report --score
judge' uses its mean as the run's score.

--episodes is at least %d (the default).`, policy.FreshSeedBase, policy.MinJudgeEpisodes),
		Example: `  hyperctl judge runs/halfcheetah-fixed-seed0
  hyperctl judge runs/cmp/*/*/*                    # every run of a compare
  hyperctl judge runs/pop runs/sha --episodes 100  # their best members
  hyperctl judge runs/pop --policy best`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := policy.CheckJudgeEpisodes(episodes); err != nil {
				return usagef("--episodes: %w", err)
			}
			if _, err := policyFile(which); err != nil {
				return err
			}
			if isDryRun(cmd.Context()) {
				return nil
			}
			var errs []error
			for _, dir := range args {
				if err := judgeOne(cmd, dir, which, episodes); err != nil {
					errs = append(errs, err)
				}
			}
			return errors.Join(errs...)
		},
	}
	cmd.Flags().IntVar(&episodes, "episodes", policy.MinJudgeEpisodes, fmt.Sprintf("fresh deterministic episodes (at least %d)", policy.MinJudgeEpisodes))
	cmd.Flags().StringVar(&which, "policy", "final", "the policy judged: final (the weights the selection ranked) or best")
	return cmd
}

// judgeOne judges the policy which ("final" or "best") of the run (or a
// population's best member) in dir and prints the result.
func judgeOne(cmd *cobra.Command, dir, which string, episodes int) error {
	// The same run folder rules as eval's, and a policy that fits the
	// run's config.toml.
	p, runDir, err := loadRunPolicy(cmd, dir, which)
	if err != nil {
		return err
	}
	name, _ := policyFile(which)
	j, written, err := policy.JudgeRun(cmd.Context(), runDir, name, episodes, versionString())
	if err != nil {
		return err
	}
	if note := p.UnsealedNote(runDir, name); note != "" {
		say(cmd, "note: %s\n", note)
	}
	if j.Unsealed {
		say(cmd, "note: %s: written by an older hyperctl (no format_version) without a checksum: read as it is\n", filepath.Join(runDir, policy.JudgeFile))
	}
	what := "wrote"
	if !written {
		what = "unchanged (the same policy files were judged already):"
	}
	say(cmd, "%s: %s on %d fresh episodes (seeds %d-%d): return %.2f ± %.2f; %s %s\n",
		runDir, name, j.Episodes, j.Seeds[0], j.Seeds[len(j.Seeds)-1], j.Mean, j.Std, what, filepath.Join(runDir, policy.JudgeFile))
	return nil
}
