package randompolicy

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/envs"
	_ "github.com/hyperctl/hyperctl/envs/all"
)

func TestReturn(t *testing.T) {
	ctx := context.Background()
	for _, env := range []string{"reacher", "halfcheetah", "bipedalwalker"} {
		t.Run(env, func(t *testing.T) {
			spec, err := envs.Lookup(env)
			if err != nil {
				t.Fatal(err)
			}
			a, err := Return(ctx, env, 3, 7)
			if err != nil {
				t.Fatal(err)
			}
			// The episodes again, not Return's memo of them.
			b, err := estimate(ctx, env, 3, 7)
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Returns) != 3 || a.ID != spec.ID {
				t.Fatalf("returns %v id %q, want 3 returns of %s", a.Returns, a.ID, spec.ID)
			}
			for k := range a.Returns {
				if a.Returns[k] != b.Returns[k] {
					t.Errorf("episode %d: %v then %v; want the same return for the same seed", k, a.Returns[k], b.Returns[k])
				}
			}
			if a.Steps < 3 || a.Steps > 3*spec.MaxEpisodeSteps {
				t.Errorf("%d steps over 3 episodes, want 3..%d", a.Steps, 3*spec.MaxEpisodeSteps)
			}
			mean := (a.Returns[0] + a.Returns[1] + a.Returns[2]) / 3
			if math.Abs(a.Mean-mean) > 1e-9*math.Max(1, math.Abs(mean)) {
				t.Errorf("mean %v, want %v", a.Mean, mean)
			}
			if a.Returns[0] == a.Returns[1] && a.Returns[1] == a.Returns[2] {
				t.Errorf("returns %v: every episode has the same return; the seeds do not vary", a.Returns)
			}
			// Episode k depends on its seed alone: the second episode of
			// seed 7 is the first of seed 8.
			c, err := Return(ctx, env, 1, 8)
			if err != nil {
				t.Fatal(err)
			}
			if c.Returns[0] != a.Returns[1] {
				t.Errorf("seed 8 alone gives %v, the second episode from seed 7 %v; want equal", c.Returns[0], a.Returns[1])
			}
			// The memo hands out copies: a caller's change stays its own.
			first := a.Returns[0]
			a.Returns[0] = math.NaN()
			d, err := Return(ctx, env, 3, 7)
			if err != nil {
				t.Fatal(err)
			}
			if d.Returns[0] != first {
				t.Errorf("after a caller changed its copy, Return gives %v, want %v", d.Returns[0], first)
			}
			// An estimate under an episode cap is its own: neither the
			// memo's uncapped one nor kept for the uncapped episodes.
			restore := envs.CapEpisodes(5)
			capped, err := Return(ctx, env, 3, 7)
			restore()
			if err != nil {
				t.Fatal(err)
			}
			if capped.Steps > 15 {
				t.Errorf("under a cap of 5 steps: %d steps over 3 episodes, want at most 15 (the memo's uncapped estimate?)", capped.Steps)
			}
			if e, err := Return(ctx, env, 3, 7); err != nil {
				t.Fatal(err)
			} else if e.Steps != a.Steps {
				t.Errorf("after the cap: %d steps, want the uncapped %d", e.Steps, a.Steps)
			}
		})
	}
}

func TestReturnErrors(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		env      string
		episodes int
		seed     int64
		want     string
	}{
		{"nosuchenv", 1, 0, "unknown environment"},
		{"reacher", 0, 0, "episodes = 0"},
		{"reacher", 1, -1, "seed = -1"},
	}
	for _, c := range cases {
		_, err := Return(ctx, c.env, c.episodes, c.seed)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Return(%q, %d, %d) = %v, want an error containing %q", c.env, c.episodes, c.seed, err, c.want)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Return(cancelled, "reacher", 1, 0); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("cancelled context: %v, want context canceled", err)
	}
}
