package run

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/progress"
	"github.com/hyperctl/hyperctl/ppo"
)

// TrainProgress shows a training run's progress: a line updated in place on a
// terminal and periodic log lines otherwise; it is the run's Monitor
// (Options.Monitor).
type TrainProgress struct {
	w       io.Writer      // where the line goes, if a terminal
	json    bool           // the logs are JSON: no line
	log     zerolog.Logger // for the log lines
	line    *progress.Line // on a terminal; nil: log lines
	total   int
	budget  int64 // frame budget (0: none); the bar then counts frames
	lastLog time.Time
	recent  recentReturns
}

// epRewWindow is the number of recent training episodes whose mean return
// the progress shows, as Stable-Baselines3's rollout/ep_rew_mean does.
const epRewWindow = 100

// recentReturns keeps the returns of the last epRewWindow training
// episodes finished since the process started (a resumed run starts empty).
type recentReturns struct {
	r    [epRewWindow]float64
	n    int // episodes seen
	next int
}

func (w *recentReturns) add(rs []float64) {
	for _, v := range rs {
		w.r[w.next] = v
		w.next = (w.next + 1) % epRewWindow
		w.n++
	}
}

// mean is the mean return of the kept episodes and how many they are.
func (w *recentReturns) mean() (float64, int) {
	k := min(w.n, epRewWindow)
	if k == 0 {
		return 0, 0
	}
	var s float64
	for _, v := range w.r[:k] {
		s += v
	}
	return s / float64(k), k
}

// NewTrainProgress is the progress of a training run: a line on w when it is a
// terminal and the logs are not JSON (json false), log lines on log
// otherwise.
func NewTrainProgress(w io.Writer, log zerolog.Logger, json bool) *TrainProgress {
	return &TrainProgress{w: w, log: log, json: json}
}

// Start shows the line at the starting iteration, or at the frames trained
// when the run has a frame budget (on a terminal).
func (p *TrainProgress) Start(from, total int, frames, budget int64) {
	p.total, p.budget, p.lastLog = total, budget, time.Now()
	if p.line = progress.NewLine(p.w, p.json); p.line != nil {
		p.line.Show(p.fields(rundir.Progress{Iteration: from}, frames, 0, 0, math.NaN(), false))
	}
}

// done is the fraction of the run completed: of its iterations, or of its
// frame budget if that is further along.
func (p *TrainProgress) done(ps rundir.Progress, frames int64) float64 {
	f := float64(ps.Iteration) / float64(max(p.total, 1))
	if p.budget > 0 {
		f = math.Max(f, float64(frames)/float64(p.budget))
	}
	return math.Min(f, 1)
}

// eta is the time left to the end of the run, from the time spent and the
// fraction done (ok false before any progress).
func (p *TrainProgress) eta(ps rundir.Progress, frames int64) (time.Duration, bool) {
	d := p.done(ps, frames)
	if d <= 0 || ps.WallS <= 0 {
		return 0, false
	}
	return time.Duration(ps.WallS / d * (1 - d) * float64(time.Second)).Round(time.Second), true
}

// Iteration updates the line, or logs a line every 10 s and at evaluations.
func (p *TrainProgress) Iteration(ps rundir.Progress, rep ppo.Report) {
	st := rep.Stats
	fps := 0.0
	if ps.WallS > 0 {
		fps = float64(st.TotalFrames) / ps.WallS
	}
	p.recent.add(st.Returns)
	if p.line != nil {
		p.line.Show(p.fields(ps, st.TotalFrames, fps, p.done(ps, st.TotalFrames), st.Reward, true))
		return
	}
	if time.Since(p.lastLog) >= 10*time.Second || ps.Iteration == p.total || rep.Eval != nil {
		p.lastLog = time.Now()
		ev := p.log.Info().Int("iteration", ps.Iteration)
		if p.budget > 0 {
			// Frames done of the budget, which ends the run; the
			// iterations' cap would only mislead.
			ev = ev.Int64("frames", st.TotalFrames).Int64("frame_budget", p.budget)
		} else {
			ev = ev.Int("of", p.total).Int64("frames", st.TotalFrames)
		}
		ev = ev.Float64("frames_per_s", math.Round(fps)).Float64("train_reward", st.Reward)
		if m, k := p.recent.mean(); k > 0 {
			ev = ev.Float64("ep_rew_mean", m).Int("ep_rew_episodes", k)
		}
		if ps.HaveEval {
			ev = ev.Float64("eval_return", ps.LastEval)
		}
		if eta, ok := p.eta(ps, st.TotalFrames); ok {
			ev = ev.Str("eta", eta.String())
		}
		ev.Msg("progress")
	}
}

// fields is the terminal line's content for the run at ps with frames
// trained: where it is (iterations, or frames of the budget), how far
// (done, a fraction; the bar and the percentage), the time left, speed,
// the mean return of recent episodes (SB3's ep_rew_mean), the mean reward
// per step (R_t, what the controller sees) and the last evaluation. started
// is false for the line shown before the first iteration.
func (p *TrainProgress) fields(ps rundir.Progress, frames int64, fps, done, reward float64, started bool) progress.Fields {
	f := progress.Fields{Done: done, Eval: "eval -", Reward: "reward/step -", FPS: "- f/s", ETA: "ETA -"}
	if p.budget > 0 {
		f.Pos = fmt.Sprintf("frames %d/%d", frames, p.budget)
		f.Aside = fmt.Sprintf("it %d", ps.Iteration)
	} else {
		f.Pos = fmt.Sprintf("it %d/%d", ps.Iteration, p.total)
		f.Aside = fmt.Sprintf("frames %d", frames)
	}
	f.Rew, f.RewN = "ep_rew_mean -", ""
	if m, k := p.recent.mean(); k > 0 {
		f.Rew, f.RewN = fmt.Sprintf("ep_rew_mean %.1f", m), fmt.Sprintf(" (%d ep)", k)
	}
	if started {
		f.FPS = fmt.Sprintf("%.0f f/s", fps)
		f.Reward = fmt.Sprintf("reward/step %.3f", reward)
		if eta, ok := p.eta(ps, frames); ok {
			f.ETA = "ETA " + eta.String()
		}
	}
	if ps.HaveEval {
		f.Eval = fmt.Sprintf("eval %.1f", ps.LastEval)
	}
	return f
}

// Finish ends the line.
func (p *TrainProgress) Finish() {
	if p.line != nil {
		p.line.End()
	}
}
