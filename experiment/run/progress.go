package run

import (
	"fmt"
	"math"
	"os"
	"time"

	"github.com/rs/zerolog"
	"github.com/schollz/progressbar/v3"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/ppo"
)

// Progress is the Monitor of `hyperctl train`: a bar on a terminal, log
// lines every 10 s and at evaluations otherwise.
type Progress struct {
	term    *os.File // the bar's terminal (nil: log lines)
	log     zerolog.Logger
	bar     *progressbar.ProgressBar
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

// describe is the bar's text: where the run is in iterations and frames
// (the same point, from the first line on), speed, the mean return of
// recent episodes (SB3's ep_rew_mean), the mean reward per step (R_t, what
// the controller sees) and the last evaluation.
func (p *Progress) describe(it int, frames int64, fps float64) string {
	rew := "ep_rew_mean -"
	if m, k := p.recent.mean(); k > 0 {
		rew = fmt.Sprintf("ep_rew_mean %.1f (%d ep)", m, k)
	}
	if p.budget > 0 { // the bar counts frames; the iterations' cap means little
		return fmt.Sprintf("it %d | frames %d/%d | %.0f f/s | %s", it, frames, p.budget, fps, rew)
	}
	return fmt.Sprintf("it %d/%d | frames %d | %.0f f/s | %s", it, p.total, frames, fps, rew)
}

// NewProgress returns a Monitor that draws its bar on term, or logs to log
// when term is nil.
func NewProgress(term *os.File, log zerolog.Logger) *Progress {
	return &Progress{term: term, log: log}
}

// Start shows the bar at the starting iteration, or at the frames trained
// when the run has a frame budget (on a terminal).
func (p *Progress) Start(from, total int, frames, budget int64) {
	p.total, p.budget, p.lastLog = total, budget, time.Now()
	if f := p.term; f != nil {
		max, at, desc := int64(total), int64(from), "training"
		if budget > 0 {
			max, at, desc = budget, frames, "training (frames)"
		}
		p.bar = progressbar.NewOptions64(max,
			progressbar.OptionSetWriter(f),
			progressbar.OptionSetDescription(desc+" | "+p.describe(from, frames, 0)),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			// No throttle: every call renders, and Iteration sets the
			// text and then the count, so the line left on screen never
			// shows two iterations (a throttled render could leave the
			// new text over the previous iteration's count).
			progressbar.OptionThrottle(0),
			progressbar.OptionSetWidth(30),
		)
		_ = p.bar.Set64(at)
	}
}

// done is the fraction of the run completed: of its iterations, or of its
// frame budget if that is further along.
func (p *Progress) done(ps rundir.Progress, frames int64) float64 {
	f := float64(ps.Iteration) / float64(max(p.total, 1))
	if p.budget > 0 {
		f = math.Max(f, float64(frames)/float64(p.budget))
	}
	return math.Min(f, 1)
}

// Iteration updates the bar, or logs a line every 10 s and at evaluations.
func (p *Progress) Iteration(ps rundir.Progress, rep ppo.Report) {
	st := rep.Stats
	fps := 0.0
	if ps.WallS > 0 {
		fps = float64(st.TotalFrames) / ps.WallS
	}
	eval := "-"
	if ps.HaveEval {
		eval = fmt.Sprintf("%.1f", ps.LastEval)
	}
	p.recent.add(st.Returns)
	if p.bar != nil {
		// The text first, then the count: the second render has both,
		// also at the end (a finished bar renders no more text).
		p.bar.Describe(fmt.Sprintf("%s | reward/step %.3f | eval %s", p.describe(ps.Iteration, st.TotalFrames, fps), st.Reward, eval))
		if p.budget > 0 {
			_ = p.bar.Set64(min(st.TotalFrames, p.budget))
		} else {
			_ = p.bar.Set(ps.Iteration)
		}
		return
	}
	if time.Since(p.lastLog) >= 10*time.Second || ps.Iteration == p.total || rep.Eval != nil {
		p.lastLog = time.Now()
		ev := p.log.Info().Int("iteration", ps.Iteration).Int("of", p.total).Int64("frames", st.TotalFrames).
			Float64("frames_per_s", math.Round(fps)).Float64("train_reward", st.Reward)
		if m, k := p.recent.mean(); k > 0 {
			ev = ev.Float64("ep_rew_mean", m).Int("ep_rew_episodes", k)
		}
		if ps.HaveEval {
			ev = ev.Float64("eval_return", ps.LastEval)
		}
		if p.budget > 0 {
			ev = ev.Int64("frame_budget", p.budget)
		}
		if d := p.done(ps, st.TotalFrames); d > 0 && ps.WallS > 0 {
			ev = ev.Str("eta", time.Duration(ps.WallS/d*(1-d)*float64(time.Second)).Round(time.Second).String())
		}
		ev.Msg("progress")
	}
}

// Finish ends the bar's line.
func (p *Progress) Finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
		fmt.Fprintln(p.term)
	}
}
