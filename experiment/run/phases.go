package run

import (
	"math"
	"time"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/ppo"
)

// phases is where this process's training time went, logged once at the
// end of a finished run as the "time split" line at debug level (the
// profile scripts/bench.sh reads): the trainer's phases (environment stepping, rollout
// inference, GAE, update and the rest of each iteration, ppo.IterStats),
// the controller, evaluation, the run folder's rows and artifacts (I/O) and
// checkpoints. It covers this process's segment only: a resumed run's
// earlier segments are not in it. A method with trials (HOOF) makes its
// search inside the trainer's update; the split counts the search under
// the controller (as controller_time_s does) and the rest under the update,
// so that no time is counted twice.
type phases struct {
	env, inference, gae, update, iterRest time.Duration
	controller, eval, io, checkpoint      time.Duration
}

// iteration adds one reported iteration's trainer, controller and
// evaluation times.
func (p *phases) iteration(rep ppo.Report) {
	st := rep.Stats
	p.env += st.EnvTime
	p.inference += st.InferenceTime
	p.gae += st.GAETime
	var search time.Duration // inside UpdateTime, and in rep.ControllerTime too
	if st.Trial != nil {
		search = st.Trial.SearchTime
	}
	p.update += st.UpdateTime - search
	p.iterRest += st.Elapsed - st.EnvTime - st.InferenceTime - st.GAETime - st.UpdateTime
	p.controller += rep.ControllerTime
	if rep.Eval != nil {
		p.eval += rep.Eval.Elapsed
	}
}

// log writes the "time split" line at debug level (--log-level debug):
// each phase in seconds, the wall time of the segment and what no phase
// accounts for (the rest), rounded to the millisecond.
func (p *phases) log(l zerolog.Logger, wall time.Duration) {
	sum := p.env + p.inference + p.gae + p.update + p.iterRest + p.controller + p.eval + p.io + p.checkpoint
	s := func(d time.Duration) float64 { return math.Round(d.Seconds()*1000) / 1000 }
	l.Debug().Float64("wall_s", s(wall)).Float64("env_s", s(p.env)).
		Float64("inference_s", s(p.inference)).Float64("gae_s", s(p.gae)).
		Float64("update_s", s(p.update)).Float64("iteration_rest_s", s(p.iterRest)).
		Float64("controller_s", s(p.controller)).Float64("eval_s", s(p.eval)).
		Float64("io_s", s(p.io)).Float64("checkpoint_s", s(p.checkpoint)).
		Float64("unaccounted_s", s(wall-sum)).Msg("time split")
}
