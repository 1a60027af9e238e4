package baselines

import (
	"math/rand/v2"

	"github.com/hyperctl/hyperctl/baselines/gp"
	"github.com/hyperctl/hyperctl/baselines/internal/common"
)

// ucbMaximizer maximises the upper confidence bound μ(x) + κσ(x) of a GP
// over the free (hyperparameter) columns of its input, [0, 1]^free, with the
// leading fixed columns (PB2's time and reward) held at given values; see
// common.Maximizer, where the implementation lives so that the methods in
// baselines' subpackages share it.
type ucbMaximizer common.Maximizer

// maximize returns the free coordinates (in [0, 1]) with the highest UCB
// found, and that UCB (in the model's standardised units). extra are
// additional candidates (free coordinates only), e.g. the observed ones.
func (a ucbMaximizer) maximize(m *gp.Model, fixed []float64, free int, kappa float64, rng *rand.Rand, extra [][]float64) ([]float64, float64) {
	return common.Maximizer(a).Maximize(m, fixed, free, kappa, rng, extra)
}

// alwaysRestartBelow: with fewer data points than this, fits are cheap and
// the ML-II surface is most multimodal, so GP-UCB and PB2 run their random
// restarts at every decision; above it, every RestartEvery-th decision.
const alwaysRestartBelow = 64
