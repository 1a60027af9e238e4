package all_test

import (
	"fmt"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
	"github.com/hyperctl/hyperctl/controller/hypercontroller"
)

// BenchmarkHyperControllerInterceptRegret runs HyperController with and
// without the intercept option on the LGDS regret benchmark of `hyperctl
// bench regret` (n = 1000 rounds, d = 10, s = 1, seeds 1–20, h = 2 and 4,
// decision interval 1 and 5). The LGDS objective has no per-value mean
// beyond what the state carries, so this measures what the extra constant
// costs where Algorithm 1's model is right. It reports R_n (mean over the
// seeds) and its standard error; one op is all twenty seeds, so run it with
// -benchtime 1x.
func BenchmarkHyperControllerInterceptRegret(b *testing.B) {
	for _, h := range []int{2, 4} {
		for _, interval := range []int{1, 5} {
			for _, intercept := range []bool{false, true} {
				b.Run(fmt.Sprintf("h=%d/interval=%d/intercept=%t", h, interval, intercept), func(b *testing.B) {
					s := hypercontroller.DefaultSettings()
					s.Intercept = intercept
					methodtest.Regret(b, hypercontroller.Name, &s, h, 1000, interval, 20)
				})
			}
		}
	}
}
