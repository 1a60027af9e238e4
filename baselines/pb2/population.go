package pb2

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hyperctl/hyperctl/baselines/gp"
	"github.com/hyperctl/hyperctl/baselines/internal/common"
	"github.com/hyperctl/hyperctl/controller"
)

// This file is PB2's explore step for a real population (Parker-Holder et
// al. 2020; Ray Tune's PB2 scheduler, pb2.py and pb2_utils.py, for the
// details). The population's data replace the single run's decision
// periods; the GP, its window rule, its kernel and β are the ones above.
//
//   - A point is one member's interval between two ready points under one
//     configuration: inputs (the time and the member's score at the
//     interval's start, the configuration in [0, 1]^d), target the score's
//     change per unit time. After an exploit the interval starts from the
//     copied member's score, as Ray records a new entry with the donor's
//     reward for the exploited trial.
//   - The explored member's configuration maximises the UCB with (time,
//     score) held at the current time and the donor's current score. Ray
//     conditions on the donor's last data row (its end time and the score
//     before it) instead; we take the values the new configuration will
//     start from, as the single-run method does.
//   - Several members explore at one ready point. Ray takes the mean from
//     the GP of the data and the variance from a second GP that also holds
//     the configurations already chosen at this ready point (with target 0),
//     re-fitted from its starting point; we condition the second GP on those
//     inputs with the first GP's hyperparameters, which is GP-BUCB's
//     hallucination (its variance does not depend on the targets).
//   - Ray's UCB adds κ times the variance; we add κσ (as the single-run
//     method), with Ray's κ = √β, β = c1 + max(0, log(c2·N)), N the rows in
//     the window.
//   - Without points (the first ready point: no member has an interval
//     that starts at a ready point yet) Ray keeps the donor's
//     configuration; so does Choose. A failed fit draws uniformly.
//   - Every fit starts from Ray's starting point (Ray builds a new GP at
//     every explore), with the settings' random restarts.

// Point is one interval of one population member.
type Point struct {
	Time   float64           // time at the interval's start (any unit; min-max scaled)
	Before float64           // the member's score at the interval's start
	Config controller.Config // the configuration in force during the interval
	Change float64           // (score at the end − Before) / (time at the end − Time)
}

// Choice is the outcome of one PB2 explore.
type Choice struct {
	Config controller.Config
	// Window is the number of points the GP used; 0 when there were none
	// and the donor's configuration was kept.
	Window int
	Kappa  float64 // the UCB multiplier √β
	Failed bool    // the fit failed and the configuration was drawn uniformly
}

// Choose returns the configuration of a member that starts its next
// interval at time now from score, in the place of the donor whose
// configuration is donor, given the population's points (oldest first) and
// the configurations already chosen at this ready point (pending). It
// draws from rng only.
func Choose(set Settings, space controller.Space, pts []Point, now, score float64, donor controller.Config, pending []controller.Config, rng *rand.Rand) (Choice, error) {
	if err := set.Validate(); err != nil {
		return Choice{}, fmt.Errorf("pb2: %w", err)
	}
	if err := space.Validate(donor); err != nil {
		return Choice{}, fmt.Errorf("pb2: donor configuration: %w", err)
	}
	if math.IsNaN(now) || math.IsInf(now, 0) || math.IsNaN(score) || math.IsInf(score, 0) {
		return Choice{}, fmt.Errorf("pb2: time %v and score %v must be finite", now, score)
	}
	if len(pts) > set.WindowMax {
		pts = pts[len(pts)-set.WindowMax:] // Ray keeps the newest 1000
	}
	if len(pts) == 0 {
		return Choice{Config: append(controller.Config(nil), donor...)}, nil
	}
	dim := space.Dim()
	d := data{w: 2 + dim}
	u := make([]float64, dim)
	for i, p := range pts {
		if err := space.Validate(p.Config); err != nil {
			return Choice{}, fmt.Errorf("pb2: point %d: %w", i, err)
		}
		for _, v := range []float64{p.Time, p.Before, p.Change} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Choice{}, fmt.Errorf("pb2: point %d: time, score and change must be finite, got %v, %v, %v", i, p.Time, p.Before, p.Change)
			}
		}
		u = common.ToUnit(space, p.Config, u)
		d.x = append(append(d.x, p.Time, p.Before), u...)
		d.y = append(d.y, p.Change)
	}
	L := set.selectWindow(d, nil, rng)
	out := Choice{Config: make(controller.Config, dim), Window: L, Kappa: math.Sqrt(Beta(L, set.C1, set.C2))}
	f, err := set.fit(d, L, nil, set.Fitting.Restarts, rng)
	if err != nil {
		out.Failed = true
		common.Uniform(space, rng, out.Config)
		return out, nil
	}
	fixed := f.fixedAt(now, score)
	v := f.model
	if len(pending) > 0 {
		x := append([]float64(nil), f.x...)
		for i, c := range pending {
			if err := space.Validate(c); err != nil {
				return Choice{}, fmt.Errorf("pb2: pending configuration %d: %w", i, err)
			}
			x = append(append(x, fixed...), common.ToUnit(space, c, u)...)
		}
		if v, err = gp.New(f.model.Kernel(), f.model.Hyper(), x, make([]float64, len(x)/d.w)); err != nil {
			v = f.model // a singular covariance: the pending points add nothing
		}
	}
	best, _ := set.Search.Maximizer().MaximizeSplit(f.model, v, fixed, dim, out.Kappa, rng, nil)
	common.FromUnit(space, best, out.Config)
	return out, nil
}
