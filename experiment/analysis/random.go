package analysis

import (
	"context"
	"sync"

	"github.com/hyperctl/hyperctl/experiment/randompolicy"
)

// RandomBaselines estimates a uniformly random policy's return on each of
// the environments names (randompolicy.Return, episodes episodes from
// randompolicy.DefaultSeed), one goroutine per environment: the zeros of the
// normalised scores (Set.Random). An environment without an estimate (an
// unknown name, a cancelled ctx) gets the error in its Err.
func RandomBaselines(ctx context.Context, names []string, episodes int) map[string]RandomBaseline {
	out := make(map[string]RandomBaseline, len(names))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			est, err := randompolicy.Return(ctx, name, episodes, randompolicy.DefaultSeed)
			rb := RandomBaseline{Mean: est.Mean, StdErr: est.StdErr, Episodes: est.Episodes, Seed: est.Seed, Err: err}
			mu.Lock()
			out[name] = rb
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}
