package policy_test

import (
	"context"
	"fmt"
	"os"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/ppo/policy"
	"github.com/hyperctl/hyperctl/ppo/policy/policytest"
)

// JudgeRun scores a run folder's policy-best on fresh episodes and writes
// judge.json; judging the same files again changes nothing.
func ExampleJudgeRun() {
	dir, err := os.MkdirTemp("", "judge")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	spec, err := envs.Lookup("reacher")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := policytest.ForEnv(spec, 1).Save(dir, policy.Best); err != nil {
		fmt.Println(err)
		return
	}
	j, written, err := policy.JudgeRun(context.Background(), dir, policy.Best, policy.MinJudgeEpisodes, "example")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(written, j.Episodes, j.Seeds[0] == policy.FreshSeedBase, j.Seeds[0])
	_, written, err = policy.JudgeRun(context.Background(), dir, policy.Best, policy.MinJudgeEpisodes, "example")
	fmt.Println(written, err)
	// Output:
	// true 50 true 6917529027641081856
	// false <nil>
}
