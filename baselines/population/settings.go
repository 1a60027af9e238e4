package population

import (
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hyperctl/hyperctl/baselines/pb2"
)

// The population methods that Step decides for.
const (
	PBT = "pbt" // Population Based Training: perturbation or resampling
	PB2 = "pb2" // Population-Based Bandits: GP-UCB on the population's data
	// MFPBT is Multiple-Frequencies PBT (Doulazmi et al. 2025): PBT in
	// sub-populations that evolve at different frequencies, with
	// asymmetric migration between them (see MFPBTMoves).
	MFPBT = "mfpbt"
	// RandomSearch trains the members Initial draws without exploits:
	// Step keeps every member (see Best for its answer).
	RandomSearch = "random"
	// Halving is synchronous successive halving (see Rungs and Promote):
	// it does not step a population, so Step refuses it.
	Halving = "halving"
)

// Methods lists the population methods `hyperctl population` offers.
func Methods() []string { return []string{PBT, PB2, MFPBT, RandomSearch, Halving} }

// CopiesWeights reports whether method's members may copy another
// member's weights (an exploit): PBT, PB2 and MF-PBT do; random search and
// successive halving never do, so every member's weights stay its own.
func CopiesWeights(method string) bool { return method != RandomSearch && method != Halving }

// The selection rules of PBT and PB2's exploit (Settings.Selection).
const (
	// SelectTruncation: the bottom quantile copies the top quantile (the
	// default, also written as the empty string; see Truncation).
	SelectTruncation = "truncation"
	// SelectTTest is Jaderberg et al.'s t-test selection: every member compares
	// its latest episode returns with those of a member drawn uniformly,
	// and copies that member when its returns are significantly better
	// (see TTestSelection).
	SelectTTest = "ttest"
)

// The t-test selection's defaults: Jaderberg et al. (2017, section 4.1.1)
// compare "the last 10 episodic rewards" with Welch's t-test; the paper
// states no significance level, 0.05 is the conventional one.
const (
	DefaultTTestEpisodes = 10
	DefaultTTestLevel    = 0.05
)

// Settings configure a population's exploit and explore steps. The fields
// after PB2 are off at their zero values, so a population defined before
// they existed decodes, validates and decides as it did (and encodes to
// the same JSON: they are omitted when zero).
type Settings struct {
	// Method is PBT, PB2, MFPBT or RandomSearch.
	Method string
	// Quantile is the fraction of members in the bottom quantile (which
	// copy) and in the top quantile (which are copied): Ray's
	// quantile_fraction, 0.25. MF-PBT's brackets are quarters of a
	// sub-population, so MFPBT requires 0.25.
	Quantile float64
	// ResampleProbability is PBT's probability of resampling a key instead
	// of perturbing it (Ray: 0.25). MF-PBT's explore only perturbs: its
	// default is 0.
	ResampleProbability float64
	// PB2 configures PB2's GP (window rule, kernel, β, optimiser budget):
	// the single-run method's settings, whose Time field is unused here
	// (a population's time is its frames).
	PB2 pb2.Settings

	// FirstExploit is the frame before which nobody is exploited: a step
	// whose members have not all reached it keeps every member's weights
	// and configuration (Ray Tune's burn_in_period). 0: from the first
	// ready point.
	FirstExploit int64 `json:"FirstExploit,omitempty"`
	// Selection is PBT and PB2's exploit rule: SelectTruncation (or "")
	// or SelectTTest.
	Selection string `json:"Selection,omitempty"`
	// TTestEpisodes is how many of a member's latest episode returns the
	// t-test compares (DefaultTTestEpisodes); TTestLevel is its
	// significance level (DefaultTTestLevel). Both are set exactly when
	// Selection is SelectTTest.
	TTestEpisodes int     `json:"TTestEpisodes,omitempty"`
	TTestLevel    float64 `json:"TTestLevel,omitempty"`
	// Frequencies are MF-PBT's evolution periods δ_1 < δ_2 < …, in
	// generations: sub-population i evolves after generation g when
	// (g+1) mod δ_i = 0. Set exactly when Method is MFPBT.
	Frequencies []int `json:"Frequencies,omitempty"`
	// Eta and MinFrames are successive halving's reduction factor and
	// the least frames of its first rung (see Rungs). Set exactly when
	// Method is Halving.
	Eta       int   `json:"Eta,omitempty"`
	MinFrames int64 `json:"MinFrames,omitempty"`
	// SameStart starts every member from the start configuration (the run
	// config's [ppo] values), so the members differ only in their seeds:
	// successive halving or random restarts over seeds of one
	// configuration. False: member 0 starts there and the others from
	// uniform draws (Initial), the papers' start.
	SameStart bool `json:"SameStart,omitempty"`
}

// DefaultSettings returns Ray Tune's defaults for PBT and PB2, for
// MFPBT the paper's quarter brackets and perturbation without resampling
// over DefaultFrequencies, and for Halving DefaultEta with a first rung of
// at least one frame (as many rungs as the population's size allows).
func DefaultSettings(method string) Settings {
	s := Settings{Method: method, Quantile: 0.25, ResampleProbability: 0.25, PB2: pb2.DefaultSettings()}
	switch method {
	case MFPBT:
		s.ResampleProbability = 0
		s.Frequencies = DefaultFrequencies()
	case Halving:
		s.Eta, s.MinFrames = DefaultEta, 1
	}
	return s
}

// Label names the configuration s: its method, then each setting that
// differs from DefaultSettings(s.Method), so that two populations of one
// method with different settings are two rows of a report. In order:
// eta<η> and min<frames> (halving), late<frames> (the first exploit),
// ttest (with <episodes>@<level> when not its defaults), q<quantile>,
// r<resample probability>, f<periods joined by x> (MF-PBT), gp<checksum>
// (PB2's GP settings), same (every member at the start configuration).
// DefaultSettings(m).Label() is m.
func (s Settings) Label() string {
	d := DefaultSettings(s.Method)
	parts := []string{s.Method}
	add := func(format string, a ...any) { parts = append(parts, fmt.Sprintf(format, a...)) }
	if s.Eta != d.Eta {
		add("eta%d", s.Eta)
	}
	if s.MinFrames != d.MinFrames {
		add("min%d", s.MinFrames)
	}
	if s.FirstExploit != 0 {
		add("late%d", s.FirstExploit)
	}
	if s.Selection == SelectTTest {
		if s.TTestEpisodes != DefaultTTestEpisodes || s.TTestLevel != DefaultTTestLevel {
			add("ttest%d@%g", s.TTestEpisodes, s.TTestLevel)
		} else {
			add("ttest")
		}
	}
	if s.Quantile != d.Quantile {
		add("q%g", s.Quantile)
	}
	if s.ResampleProbability != d.ResampleProbability {
		add("r%g", s.ResampleProbability)
	}
	if !slices.Equal(s.Frequencies, d.Frequencies) {
		f := make([]string, len(s.Frequencies))
		for i, v := range s.Frequencies {
			f[i] = strconv.Itoa(v)
		}
		add("f%s", strings.Join(f, "x"))
	}
	if a, b := fmt.Sprintf("%+v", s.PB2), fmt.Sprintf("%+v", d.PB2); a != b {
		add("gp%08x", crc32.ChecksumIEEE([]byte(a)))
	}
	if s.SameStart {
		add("same")
	}
	return strings.Join(parts, "-")
}

// WithTTest returns s with Jaderberg et al.'s t-test selection at its
// defaults.
func (s Settings) WithTTest() Settings {
	s.Selection, s.TTestEpisodes, s.TTestLevel = SelectTTest, DefaultTTestEpisodes, DefaultTTestLevel
	return s
}

// PerturbFactors are PBT's multipliers, drawn with equal probability.
var PerturbFactors = [2]float64{0.8, 1.2}

// MFPBTFactors are MF-PBT's multipliers (the authors' configurations
// perturb by 0.8 or 1.25), drawn with equal probability.
var MFPBTFactors = [2]float64{0.8, 1.25}

// maxEta bounds successive halving's reduction factor.
const maxEta = 1000

// maxTTestEpisodes bounds TTestEpisodes (a member's score reads far fewer).
const maxTTestEpisodes = 10000

// Validate checks the settings; errors name the field.
func (s *Settings) Validate() error {
	switch {
	case !slices.Contains(Methods(), s.Method):
		return fmt.Errorf("method: want one of %s, got %q", strings.Join(Methods(), ", "), s.Method)
	case !(s.Quantile > 0 && s.Quantile <= 0.5):
		return fmt.Errorf("quantile: want a fraction in (0, 0.5], got %v", s.Quantile)
	case !(s.ResampleProbability >= 0 && s.ResampleProbability <= 1) || math.IsNaN(s.ResampleProbability):
		return fmt.Errorf("resample probability: want a number in [0, 1], got %v", s.ResampleProbability)
	case s.FirstExploit < 0:
		return fmt.Errorf("first exploit: want a frame >= 0, got %d", s.FirstExploit)
	}
	switch s.Selection {
	case "", SelectTruncation:
		if s.TTestEpisodes != 0 {
			return fmt.Errorf("t-test episodes: set only with selection %q (selection is %q)", SelectTTest, s.Selection)
		}
		if s.TTestLevel != 0 {
			return fmt.Errorf("t-test level: set only with selection %q (selection is %q)", SelectTTest, s.Selection)
		}
	case SelectTTest:
		if s.Method != PBT && s.Method != PB2 {
			return fmt.Errorf("selection: %q is PBT and PB2's; method %q selects its own way", SelectTTest, s.Method)
		}
		if s.TTestEpisodes < 2 || s.TTestEpisodes > maxTTestEpisodes {
			return fmt.Errorf("t-test episodes: want an integer in [2, %d], got %d", maxTTestEpisodes, s.TTestEpisodes)
		}
		if !(s.TTestLevel > 0 && s.TTestLevel < 1) {
			return fmt.Errorf("t-test level: want a probability in (0, 1), got %v", s.TTestLevel)
		}
	default:
		return fmt.Errorf("selection: want %q or %q, got %q", SelectTruncation, SelectTTest, s.Selection)
	}
	if s.Method == MFPBT {
		if s.Quantile != 0.25 {
			return fmt.Errorf("quantile: %s ranks sub-populations in quarters; want 0.25, got %v", MFPBT, s.Quantile)
		}
		if err := validFrequencies(s.Frequencies); err != nil {
			return fmt.Errorf("frequencies: %w", err)
		}
	} else if len(s.Frequencies) != 0 {
		return fmt.Errorf("frequencies: set only for method %q (method is %q)", MFPBT, s.Method)
	}
	if s.Method == Halving {
		if s.Eta < 2 || s.Eta > maxEta {
			return fmt.Errorf("eta: want an integer in [2, %d], got %d", maxEta, s.Eta)
		}
		if s.MinFrames < 1 {
			return fmt.Errorf("min frames: want a frame >= 1, got %d", s.MinFrames)
		}
	} else if s.Eta != 0 {
		return fmt.Errorf("eta: set only for method %q (method is %q)", Halving, s.Method)
	} else if s.MinFrames != 0 {
		return fmt.Errorf("min frames: set only for method %q (method is %q)", Halving, s.Method)
	}
	if s.Method == PB2 {
		if err := s.PB2.Validate(); err != nil {
			return fmt.Errorf("pb2: %w", err)
		}
	}
	return nil
}

// ValidateSize checks that a population of n members suits the settings:
// MF-PBT needs n to split into len(Frequencies) equal sub-populations
// whose size is a multiple of 4 (the paper's quarters); the other methods
// take any n.
func (s *Settings) ValidateSize(n int) error {
	if s.Method != MFPBT {
		return nil
	}
	if _, err := SubPopulationSize(n, len(s.Frequencies)); err != nil {
		return fmt.Errorf("size: %w", err)
	}
	return nil
}
