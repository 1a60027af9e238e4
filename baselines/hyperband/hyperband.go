// Package hyperband is HyperBand (Li et al. 2017, "Hyperband: A Novel
// Bandit-Based Approach to Hyperparameter Optimization") in one online
// training run, registered as "hyperband".
//
// Adaptation to one online training run (Li et al. 2017 train every
// configuration separately and from scratch; here one policy trains
// throughout): the resource is the decision period (Interval iterations of
// the one run). Bracket s samples n configurations; at rung i each surviving
// configuration is put in force for r_i consecutive decision periods, in
// turn, continuing the same training run; its score is the mean objective
// over those periods (under the default objective, the reward change per
// iteration while it was in force); the top ⌊n_i/η⌋ by score survive to the
// next rung. Brackets run s = s_max … 0. Once every bracket has run, the
// configuration with the best score seen at any rung (Li et al. return the
// configuration with the smallest intermediate loss) stays in force for the
// rest of the run.
//
// r_i = R·η^{i−s} periods is rounded to the nearest integer (at least 1)
// when R is not a power of η. With the defaults (R = 18, η = 3) the brackets
// use 156 decision periods — 780 iterations at the paper's interval of 5 —
// leaving the last 220 of the paper's 1000 iterations to the best
// configuration. The HyperController authors' code passes the total frame
// budget (1e6) as R, so in 1000 iterations it never leaves the first rung of
// the first bracket and behaves like random search switching every couple
// of iterations; we use a budget that completes.
package hyperband

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/hyperctl/hyperctl/baselines/internal/common"
	"github.com/hyperctl/hyperctl/controller"
)

// Settings configure HyperBand (see the package documentation).
type Settings struct {
	// R is the most decision periods one configuration gets in one rung
	// (Li et al.'s R, the maximum resource), >= 1.
	R int `toml:"r"`
	// Eta is the halving rate η >= 2 (Li et al.: 3).
	Eta int `toml:"eta"`
}

// DefaultSettings returns R = 18 decision periods and η = 3.
func DefaultSettings() Settings { return Settings{R: 18, Eta: 3} }

// maxR bounds R so that the first bracket's n ≤ R stays small
// enough to hold in memory.
const maxR = 1 << 20

// Validate checks the settings.
func (s *Settings) Validate() error {
	if s.R < 1 || s.R > maxR {
		return fmt.Errorf("r: must be in [1, %d] decision periods, got %d", maxR, s.R)
	}
	if s.Eta < 2 {
		return fmt.Errorf("eta: must be >= 2, got %d", s.Eta)
	}
	return nil
}

// New returns a fresh HyperBand.
func (s *Settings) New() (controller.Method, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("hyperband: %w", err)
	}
	return &HyperBand{set: *s, base: common.NewBase(Name), brackets: Brackets(s.R, s.Eta)}, nil
}

// Bracket is one HyperBand bracket: successive halving with N[i]
// configurations at rung i, each given R[i] units of resource (Periods[i]
// when the unit must be a whole decision period).
type Bracket struct {
	S       int
	N       []int
	R       []float64
	Periods []int
}

// Brackets returns Li et al.'s schedule for maximum resource R and rate η:
// s_max = ⌊log_η R⌋, B = (s_max+1)R, and for s = s_max … 0,
// n = ⌈B/R · η^s/(s+1)⌉, r = R η^{−s}, n_i = ⌊n η^{−i}⌋, r_i = r η^i. The
// arithmetic is exact (integers) so R = 81, η = 3 gives the paper's table.
func Brackets(R, eta int) []Bracket {
	if R < 1 || eta < 2 {
		return nil
	}
	sMax := 0
	for p := eta; p <= R; p *= eta {
		sMax++
	}
	out := make([]Bracket, 0, sMax+1)
	for s := sMax; s >= 0; s-- {
		pow := 1
		for range s {
			pow *= eta
		}
		num := (sMax + 1) * pow
		n := (num + s) / (s + 1) // ⌈(s_max+1) η^s / (s+1)⌉
		b := Bracket{S: s}
		div := 1
		for i := 0; i <= s; i++ {
			ri := float64(R) * float64(div) / float64(pow)
			b.N = append(b.N, n/div)
			b.R = append(b.R, ri)
			b.Periods = append(b.Periods, max(1, int(math.Round(ri))))
			div *= eta
		}
		out = append(out, b)
	}
	return out
}

// HyperBand runs Li et al.'s brackets over decision periods of one run.
type HyperBand struct {
	set      Settings
	brackets []Bracket
	base     common.Base
	st       hyperbandState
	order    []int // scratch for ranking
}

type hyperbandState struct {
	Started   bool
	Done      bool
	B         int       // index into brackets (0 is s_max)
	I         int       // rung
	Configs   []float64 // the bracket's n configurations, row-major, drawn lazily
	Sampled   int       // configurations drawn so far in this bracket
	Active    []int     // this rung's configurations (indices into Configs), in run order
	Pos       int       // position in Active of the configuration in force
	Left      int       // periods left for it after the current one
	Sum       float64   // objective sum while it has been in force this rung
	Count     int       // observations in Sum
	Scores    []float64 // per Active position: mean objective this rung
	Best      []float64
	BestScore float64
	HaveBest  bool
}

// Init prepares a run over space.
func (m *HyperBand) Init(space controller.Space, rng *rand.Rand) error {
	if err := m.base.Init(space, rng); err != nil {
		return err
	}
	if len(m.brackets) == 0 {
		return fmt.Errorf("hyperband: init: no brackets for r = %d, eta = %d", m.set.R, m.set.Eta)
	}
	m.st = hyperbandState{Best: make([]float64, space.Dim())}
	return nil
}

func (m *HyperBand) startBracket(b int) {
	st := &m.st
	br := m.brackets[b]
	d := m.base.Space().Dim()
	st.B, st.I, st.Pos, st.Sampled = b, 0, 0, 0
	n := br.N[0]
	st.Configs = slices.Grow(st.Configs[:0], n*d)[:n*d]
	st.Active = slices.Grow(st.Active[:0], n)[:n]
	for i := range st.Active {
		st.Active[i] = i
	}
	st.Scores = slices.Grow(st.Scores[:0], n)[:n]
}

// config returns the configuration at Active[Pos], drawing it if new.
func (m *HyperBand) config() []float64 {
	st := &m.st
	d := m.base.Space().Dim()
	idx := st.Active[st.Pos]
	for st.Sampled <= idx {
		common.Uniform(m.base.Space(), m.base.Rng(), st.Configs[st.Sampled*d:(st.Sampled+1)*d])
		st.Sampled++
	}
	return st.Configs[idx*d : (idx+1)*d]
}

// finish scores the configuration in force for this rung.
func (m *HyperBand) finish() {
	st := &m.st
	score := math.Inf(-1)
	if st.Count > 0 {
		score = st.Sum / float64(st.Count)
	}
	st.Scores[st.Pos] = score
	if st.Count > 0 && (!st.HaveBest || score > st.BestScore) {
		copy(st.Best, m.config())
		st.BestScore, st.HaveBest = score, true
	}
	st.Sum, st.Count = 0, 0
}

// promote keeps the top ⌊n_i/η⌋ of the rung, best first.
func (m *HyperBand) promote() {
	st := &m.st
	k := len(st.Active) / m.set.Eta
	m.order = slices.Grow(m.order[:0], len(st.Active))[:len(st.Active)]
	for i := range m.order {
		m.order[i] = i
	}
	slices.SortStableFunc(m.order, func(a, b int) int {
		sa, sb := st.Scores[a], st.Scores[b]
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	next := make([]int, k)
	for j := range k {
		next[j] = st.Active[m.order[j]]
	}
	st.Active = append(st.Active[:0], next...)
	st.Scores = st.Scores[:k]
	st.I++
	st.Pos = 0
}

// Suggest writes the configuration for the next decision period.
func (m *HyperBand) Suggest(dst controller.Config) error {
	if err := m.base.ReadyFor(dst); err != nil {
		return err
	}
	st := &m.st
	switch {
	case !st.Started:
		st.Started = true
		m.startBracket(0)
		st.Left = m.brackets[0].Periods[0] - 1
	case st.Done:
		copy(dst, st.Best)
		return nil
	case st.Left > 0:
		st.Left--
	default:
		m.finish()
		st.Pos++
		if st.Pos == len(st.Active) {
			if st.I < m.brackets[st.B].S {
				m.promote()
			} else if st.B+1 < len(m.brackets) {
				m.startBracket(st.B + 1)
			} else {
				st.Done = true
				if !st.HaveBest {
					// No objective was ever observed: keep the last one run.
					st.Pos = len(st.Active) - 1
					copy(st.Best, m.config())
					st.HaveBest = true
				}
				copy(dst, st.Best)
				return nil
			}
		}
		st.Left = m.brackets[st.B].Periods[st.I] - 1
	}
	copy(dst, m.config())
	return nil
}

// Observe adds o's objective to the score of the configuration in force.
func (m *HyperBand) Observe(o controller.Observation) error {
	if err := m.base.Check(o); err != nil {
		return err
	}
	if m.st.Started && !m.st.Done {
		m.st.Sum += o.Objective
		m.st.Count++
	}
	return nil
}

// Done reports whether every bracket has run (the best configuration is
// then kept).
func (m *HyperBand) Done() bool { return m.st.Done }

// MarshalBinary returns the full bracket state.
func (m *HyperBand) MarshalBinary() ([]byte, error) { return common.Encode(Name, m.st) }

// UnmarshalBinary restores a state from MarshalBinary.
func (m *HyperBand) UnmarshalBinary(b []byte) error {
	var st hyperbandState
	if err := common.Decode(Name, b, &st); err != nil {
		return err
	}
	d := m.base.Space().Dim()
	if len(st.Best) != d || st.B < 0 || st.B >= len(m.brackets) || len(st.Configs)%max(d, 1) != 0 ||
		len(st.Scores) != len(st.Active) || (st.Started && !st.Done && (st.Pos < 0 || st.Pos >= len(st.Active))) {
		return fmt.Errorf("hyperband: unmarshal state: inconsistent with this space and settings")
	}
	for _, idx := range st.Active {
		if idx < 0 || idx*d >= len(st.Configs) {
			return fmt.Errorf("hyperband: unmarshal state: configuration index %d out of range", idx)
		}
	}
	m.st = st
	return nil
}
