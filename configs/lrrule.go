package configs

import (
	"github.com/hyperctl/hyperctl/baselines/kladaptive"
)

// fitLRRule fits a run whose controller moves the learning rate within the
// update (kladaptive, a controller.LRRule) to it: the tuned list becomes
// lr alone over the rule's [lr_min, lr_max] on a log scale, whatever
// [[controller.tune]] said, and a tuned lr replaces the annealed one
// (tuned_lr = "replace"), so the rule's lr is never annealed. Parse calls
// it after the overrides and presets, so config.toml records the space the
// run tunes. Invalid settings are left as they are, for Validate to
// report.
func fitLRRule(r *Run) {
	if r.Controller.Name != kladaptive.Name {
		return
	}
	s, err := r.Controller.MethodSettings(kladaptive.Name)
	if err != nil {
		return
	}
	ks, ok := s.(*kladaptive.Settings)
	if !ok || ks.Validate() != nil {
		return
	}
	p := ks.Space()
	r.Controller.Tune = []TuneParam{{Name: p.Name, Low: p.Low, High: p.High, Scale: p.Scale}}
	r.Controller.TunedLR = TunedLRReplace
}
