package population

import (
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
	// Config is its configuration for the next generation.
	Config controller.Config
	// Ops say, per key, how an exploited member's configuration was
	// explored: PBT's "resample", "*0.8" or "*1.2"; PB2's "ucb", "donor"
	// (no data yet: the donor's value kept) or "uniform" (the GP fit
	// failed). Empty for a member that keeps its own.
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
func Step(in Input) ([]Decision, error) {
	if err := in.Settings.Validate(); err != nil {
		return nil, err
	}
	if in.Generation < 0 {
		return nil, fmt.Errorf("population step: generation %d, want >= 0", in.Generation)
	}
	scores := make([]float64, len(in.Members))
	for i, m := range in.Members {
		if err := in.Space.Validate(m.Config); err != nil {
			return nil, fmt.Errorf("population step: member %d: %w", i, err)
		}
		if math.IsNaN(m.End) || math.IsInf(m.End, 0) {
			return nil, fmt.Errorf("population step: member %d: time %v; want a finite number", i, m.End)
		}
		scores[i] = m.After
	}
	rng := StepRNG(in.Seed, in.Generation)
	donor, err := Truncation(scores, in.Settings.Quantile, rng)
	if err != nil {
		return nil, fmt.Errorf("population step: %w", err)
	}
	var pts []pb2.Point
	if in.Settings.Method == PB2 {
		pts = Points(append(append([]Interval(nil), in.History...), in.Members...))
	}
	out := make([]Decision, len(in.Members))
	var pending []controller.Config
	for i, m := range in.Members {
		d := Decision{Donor: donor[i]}
		if d.Donor < 0 {
			d.Config = append(controller.Config(nil), m.Config...)
			out[i] = d
			continue
		}
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
