package ppo

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/ppo/policy"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// maxNumEnvs is ppoconfig's bound of num_envs, which the fresh seed base's
// proof assumes; TestFreshSeedBaseIsAboveEverySeed checks the bound holds.
const maxNumEnvs = 256

// The fresh seed base lies above every seed that training and selection
// use: derivedSeed stays below 2^62 on many inputs (edge cases and seeded
// random ones), a run's seed and its copies stay below 2^61 + 256, and the
// arithmetic of policy.FreshSeedBase's doc comment holds.
func TestFreshSeedBaseIsAboveEverySeed(t *testing.T) {
	if got, want := policy.FreshSeedBase, int64(6917529027641081856); got != want {
		t.Fatalf("FreshSeedBase = %d, want 2^62 + 2^61 = %d", got, want)
	}
	if got := uint64(policy.FreshSeedBase); got != 1<<62+1<<61 {
		t.Fatalf("FreshSeedBase = %d, want 2^62 + 2^61", got)
	}
	if MaxSeed != controller.MaxSeed || controller.MaxSeed != 1<<61-1 {
		t.Fatalf("MaxSeed = %d, controller.MaxSeed = %d, want both 2^61 - 1 (the proof's bound)", int64(MaxSeed), int64(controller.MaxSeed))
	}
	cfg := ppoconfig.DefaultConfig()
	cfg.NumEnvs = maxNumEnvs + 1
	if cfg.Validate() == nil {
		t.Fatalf("num_envs = %d accepted; the proof assumes at most %d", cfg.NumEnvs, maxNumEnvs)
	}
	if int64(MaxSeed)+maxNumEnvs >= policy.FreshSeedBase {
		t.Fatalf("a run's copies reach %d, not below %d", int64(MaxSeed)+maxNumEnvs, policy.FreshSeedBase)
	}
	const derivedBound = int64(1) << 62
	if derivedBound+maxNumEnvs >= policy.FreshSeedBase {
		t.Fatalf("2^62 + %d is not below the base", maxNumEnvs)
	}
	if k := int64(math.MaxInt64) - policy.FreshSeedBase; k < policy.MaxJudgeEpisodes {
		t.Fatalf("only %d fresh seeds fit in an int64, want %d", k, policy.MaxJudgeEpisodes)
	}
	check := func(seed int64, stream, k uint64) {
		t.Helper()
		d := derivedSeed(seed, stream, k)
		if d < 0 || d >= derivedBound {
			t.Fatalf("derivedSeed(%d, %d, %d) = %d, want it in [0, 2^62)", seed, stream, k, d)
		}
	}
	for _, tc := range []struct {
		seed   int64
		stream uint64
		k      uint64
	}{
		{0, 0, 0}, {0, 2, 0}, {int64(MaxSeed), 2, math.MaxUint64 - 1}, {int64(MaxSeed), math.MaxUint64, math.MaxUint64},
		{1, 2, 999_999}, {math.MaxInt64, 2, 0}, {-1, 2, 7},
	} {
		check(tc.seed, tc.stream, tc.k)
	}
	rng := rand.New(rand.NewPCG(36, 1))
	for range 200_000 {
		check(rng.Int64N(int64(MaxSeed)+1), rng.Uint64N(4), rng.Uint64())
		check(rng.Int64(), rng.Uint64(), rng.Uint64N(1<<20))
	}
}
