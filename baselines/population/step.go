package population

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hyperctl/hyperctl/baselines/internal/common"
	"github.com/hyperctl/hyperctl/baselines/pb2"
	"github.com/hyperctl/hyperctl/controller"
)

// Interval is one member's generation: from one ready point (or the start)
// to the next, under one configuration.
type Interval struct {
	Start, End float64 // the member's time (frames) at the interval's start and end
	// Before is the score the interval starts from: the member's score at
	// the previous ready point, or its donor's when it was exploited there.
	// HaveBefore is false for the first generation, which starts from
	// scratch.
	Before     float64
	HaveBefore bool
	After      float64           // the member's score at the end
	Config     controller.Config // the configuration in force
	// Returns are the member's latest training episode returns at the
	// end, oldest first: t-test selection's data (read only from
	// Input.Members; at least Settings.TTestEpisodes when available).
	Returns []float64
}

// Points turns intervals into PB2's data: one point per interval with a
// score at both ends and a positive duration, its target the score's change
// per 1000 frames.
func Points(iv []Interval) []pb2.Point {
	var out []pb2.Point
	for _, v := range iv {
		if !v.HaveBefore || !(v.End > v.Start) {
			continue
		}
		out = append(out, pb2.Point{Time: v.Start, Before: v.Before, Config: v.Config, Change: (v.After - v.Before) * 1000 / (v.End - v.Start)})
	}
	return out
}

// Input is what one exploit/explore step decides from.
type Input struct {
	Settings   Settings
	Space      controller.Space
	Seed       uint64 // the population's seed
	Generation int    // the generation that just ended (0-based)
	// Members are the generation's intervals, one per member, in member
	// order; After is each member's score at this ready point.
	Members []Interval
	// History are the earlier generations' intervals, oldest first (PB2's
	// data besides Members).
	History []Interval
}

// Decision is what a member does at a ready point.
type Decision struct {
	// Donor is the member whose weights it copies, or −1 when it keeps its
	// own (and its configuration).
	Donor int
	// From is the member whose configuration Config was made from: the
	// donor, except for an MF-PBT migrant into a slower sub-population,
	// which takes its own sub-population's best member's; −1 when Donor
	// is −1.
	From int
	// Config is its configuration for the next generation.
	Config controller.Config
	// Ops say, per key, how an exploited member's configuration was
	// explored: PBT's "resample", "*0.8" or "*1.2" (MF-PBT's "*0.8" or
	// "*1.25"); PB2's "ucb", "donor" (no data yet: the donor's value kept)
	// or "uniform" (the GP fit failed); "copy" for an MF-PBT migrant, whose
	// configuration is copied as it is. Empty for a member that keeps its
	// own.
	Ops []string
	// Window and Kappa are PB2's: the points its GP used and √β.
	Window int
	Kappa  float64
}

// StepRNG is the generator of one step: seeded with the population's seed
// and the generation, so a step redone after a crash draws the same.
func StepRNG(seed uint64, generation int) *rand.Rand {
	return rand.New(rand.NewPCG(seed^0x243f6a8885a308d3, uint64(generation)+1))
}

// Step decides every member's exploit and explore at the end of a
// generation (see the package comment). It is deterministic in its input.
// Its donors are chained only under t-test selection; the copies must then
// be made in CopyOrder, or each from a copy of its donor taken before any
// copy of the step (experiment/population stages such donors).
func Step(in Input) ([]Decision, error) {
	if err := in.Settings.Validate(); err != nil {
		return nil, err
	}
	if err := in.Settings.ValidateSize(len(in.Members)); err != nil {
		return nil, fmt.Errorf("population step: %w", err)
	}
	if in.Generation < 0 {
		return nil, fmt.Errorf("population step: generation %d, want >= 0", in.Generation)
	}
	if in.Settings.Method == Halving {
		return nil, fmt.Errorf("population step: method %q has no step; its rungs promote (Rungs, Promote)", Halving)
	}
	scores := make([]float64, len(in.Members))
	reached := true // every member at FirstExploit
	for i, m := range in.Members {
		if err := in.Space.Validate(m.Config); err != nil {
			return nil, fmt.Errorf("population step: member %d: %w", i, err)
		}
		if math.IsNaN(m.End) || math.IsInf(m.End, 0) {
			return nil, fmt.Errorf("population step: member %d: time %v; want a finite number", i, m.End)
		}
		if err := finite(m.Returns); err != nil {
			return nil, fmt.Errorf("population step: member %d: episode returns: %w", i, err)
		}
		scores[i] = m.After
		reached = reached && m.End >= float64(in.Settings.FirstExploit)
	}
	out := make([]Decision, len(in.Members))
	for i, m := range in.Members {
		out[i] = Decision{Donor: -1, From: -1, Config: append(controller.Config(nil), m.Config...)}
	}
	if !reached || in.Settings.Method == RandomSearch {
		if err := finiteScores(scores); err != nil {
			return nil, fmt.Errorf("population step: %w", err)
		}
		return out, nil
	}
	rng := StepRNG(in.Seed, in.Generation)
	if in.Settings.Method == MFPBT {
		return mfpbtStep(in, scores, out, rng)
	}
	var donor []int
	var err error
	if in.Settings.Selection == SelectTTest {
		returns := make([][]float64, len(in.Members))
		for i, m := range in.Members {
			returns[i] = m.Returns
		}
		if err := finiteScores(scores); err != nil {
			return nil, fmt.Errorf("population step: %w", err)
		}
		donor, err = TTestSelection(returns, in.Settings.TTestEpisodes, in.Settings.TTestLevel, rng)
	} else {
		donor, err = Truncation(scores, in.Settings.Quantile, rng)
	}
	if err != nil {
		return nil, fmt.Errorf("population step: %w", err)
	}
	var pts []pb2.Point
	if in.Settings.Method == PB2 {
		pts = Points(append(append([]Interval(nil), in.History...), in.Members...))
	}
	var pending []controller.Config
	for i := range in.Members {
		if donor[i] < 0 {
			continue
		}
		d := Decision{Donor: donor[i], From: donor[i]}
		from := in.Members[d.Donor]
		switch in.Settings.Method {
		case PBT:
			if d.Config, d.Ops, err = Perturb(in.Space, from.Config, in.Settings.ResampleProbability, rng); err != nil {
				return nil, fmt.Errorf("population step: member %d: %w", i, err)
			}
		case PB2:
			c, err := pb2.Choose(in.Settings.PB2, in.Space, pts, from.End, from.After, from.Config, pending, rng)
			if err != nil {
				return nil, fmt.Errorf("population step: member %d: %w", i, err)
			}
			op := "ucb"
			switch {
			case c.Window == 0:
				op = "donor"
			case c.Failed:
				op = "uniform"
			}
			d.Config, d.Window, d.Kappa = c.Config, c.Window, c.Kappa
			d.Ops = make([]string, len(c.Config))
			for k := range d.Ops {
				d.Ops[k] = op
			}
			pending = append(pending, c.Config)
		}
		out[i] = d
	}
	return out, nil
}

// mfpbtStep fills out with MF-PBT's moves (MFPBTMoves): an internal
// exploit perturbs its donor's configuration by MFPBTFactors (resampling
// with the settings' probability, 0 by default), a migrant copies its
// configuration's source as it is. Draws are made in member order.
func mfpbtStep(in Input, scores []float64, out []Decision, rng *rand.Rand) ([]Decision, error) {
	moves, err := MFPBTMoves(in.Settings.Frequencies, in.Generation, scores)
	if err != nil {
		return nil, fmt.Errorf("population step: %w", err)
	}
	for i, mv := range moves {
		if mv.Weights < 0 && mv.Config < 0 {
			continue
		}
		d := Decision{Donor: mv.Weights, From: mv.Config, Config: out[i].Config}
		switch {
		case mv.Config < 0: // weights only: never with strictly increasing periods
		case mv.Explore:
			if d.Config, d.Ops, err = PerturbBy(in.Space, in.Members[mv.Config].Config, in.Settings.ResampleProbability, MFPBTFactors, rng); err != nil {
				return nil, fmt.Errorf("population step: member %d: %w", i, err)
			}
		default:
			d.Config = append(controller.Config(nil), in.Members[mv.Config].Config...)
			d.Ops = make([]string, len(d.Config))
			for k := range d.Ops {
				d.Ops[k] = "copy"
			}
		}
		out[i] = d
	}
	return out, nil
}

// Starts returns the n members' first configurations under s: every member
// at start when s.SameStart is set (start is then required), else Initial's.
func (s *Settings) Starts(space controller.Space, n int, start controller.Config, seed uint64) ([]controller.Config, error) {
	out, err := Initial(space, n, start, seed)
	if err != nil || !s.SameStart {
		return out, err
	}
	if start == nil {
		return nil, errors.New("population: same start: the members' config gives no start configuration (controller.start = \"ppo\")")
	}
	for i := range out {
		copy(out[i], start)
	}
	return out, nil
}

// Initial returns the n members' first configurations: drawn uniformly in
// each key's own scale (Ray's PB2 samples its bounds uniformly; PBT starts
// from random hyperparameters), except that member 0 starts from start when
// it is given (a run config's start = "ppo": the population then always
// holds the trainer's defaults). The draws come from a generator seeded
// with seed.
func Initial(space controller.Space, n int, start controller.Config, seed uint64) ([]controller.Config, error) {
	if n < 1 {
		return nil, fmt.Errorf("population: %d members, want at least 1", n)
	}
	rng := rand.New(rand.NewPCG(seed^0x243f6a8885a308d3, 0))
	out := make([]controller.Config, n)
	for i := range out {
		out[i] = make(controller.Config, space.Dim())
		common.Uniform(space, rng, out[i])
	}
	if start != nil {
		if err := space.Validate(start); err != nil {
			return nil, fmt.Errorf("population: start configuration: %w", err)
		}
		copy(out[0], start)
	}
	return out, nil
}
