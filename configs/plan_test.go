package configs

import (
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/controller"
)

// TestResolve: a plan holds every fact training reads, derived once.
func TestResolve(t *testing.T) {
	hc := WithSet("controller.name=hypercontroller")
	for _, tc := range []struct {
		name string
		o    []Override
		ok   func(*Plan) bool
	}{
		{"fixed, the defaults", []Override{func(r *Run) { r.Frames = 50_000 }}, func(p *Plan) bool {
			return p.Controller == nil && p.ControllerName() == Fixed && p.Run.Frames == 50_000 && !p.Run.AnnealTunedLR &&
				strings.Join(p.Logged, ",") == "batch_size,clip,gae_lambda,lr"
		}},
		{"hypercontroller, the defaults otherwise", []Override{hc}, func(p *Plan) bool {
			c := p.Controller
			return c != nil && c.Name == "hypercontroller" && c.Options.Interval == 5 && c.Options.Start != nil &&
				c.Options.Start[c.Space.Index("clip")] == 0.2 && p.Run.AnnealTunedLR && !c.IntervalAuto && !c.Options.PerInterval
		}},
		{"paper preset", []Override{hc, WithPreset("paper+period")}, func(p *Plan) bool {
			c := p.Controller
			return c.Options.Start == nil && !p.Run.AnnealTunedLR && c.Options.PerInterval && p.Objective == controller.Delta
		}},
		{"population member", []Override{func(r *Run) { r.Controller.Name = Population; r.Seed = 7 }}, func(p *Plan) bool {
			c := p.Controller
			return c != nil && p.ControllerName() == Population && c.Settings == nil && c.Options.Interval == 1 &&
				c.Options.Start == nil && c.Options.Seed == 7 && c.Space.Dim() == 4 && p.Run.AnnealTunedLR
		}},
		{"threads do not count", []Override{func(r *Run) { r.PPO.Threads = 2 }}, func(p *Plan) bool {
			base, _ := Default("reacher")
			bp, _ := base.Resolve()
			return p.Comparable == bp.Comparable && p.Text != bp.Text
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Default("reacher", tc.o...)
			if err != nil {
				t.Fatal(err)
			}
			p, err := r.Resolve()
			if err != nil || !tc.ok(p) {
				t.Fatalf("%+v, %v", p, err)
			}
		})
	}
}
