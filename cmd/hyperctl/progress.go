package main

import (
	"fmt"
	"math"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/ppo"
)

// progress shows a bar on a terminal and periodic log lines otherwise; it
// is the training's Monitor.
type progress struct {
	cmd     *cobra.Command
	bar     *progressbar.ProgressBar
	a       *app
	total   int
	budget  int64 // frame budget (0: none); the bar then counts frames
	lastLog time.Time
}

func newProgress(cmd *cobra.Command, a *app) *progress {
	return &progress{cmd: cmd, a: a}
}

// Start shows the bar at the starting iteration, or at the frames trained
// when the run has a frame budget (on a terminal).
func (p *progress) Start(from, total int, frames, budget int64) {
	p.total, p.budget, p.lastLog = total, budget, time.Now()
	if f, ok := p.cmd.ErrOrStderr().(*os.File); ok && term.IsTerminal(int(f.Fd())) && p.a.logFormat != "json" {
		max, at, desc := int64(total), int64(from), "training"
		if budget > 0 {
			max, at, desc = budget, frames, "training (frames)"
		}
		p.bar = progressbar.NewOptions64(max,
			progressbar.OptionSetWriter(f),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionSetWidth(30),
		)
		_ = p.bar.Set64(at)
	}
}

// done is the fraction of the run completed: of its iterations, or of its
// frame budget if that is further along.
func (p *progress) done(ps rundir.Progress, frames int64) float64 {
	f := float64(ps.Iteration) / float64(max(p.total, 1))
	if p.budget > 0 {
		f = math.Max(f, float64(frames)/float64(p.budget))
	}
	return math.Min(f, 1)
}

// Iteration updates the bar, or logs a line every 10 s and at evaluations.
func (p *progress) Iteration(ps rundir.Progress, rep ppo.Report) {
	st := rep.Stats
	fps := 0.0
	if ps.WallS > 0 {
		fps = float64(st.TotalFrames) / ps.WallS
	}
	eval := "-"
	if ps.HaveEval {
		eval = fmt.Sprintf("%.1f", ps.LastEval)
	}
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("frames %d | %.0f f/s | reward %.3f | eval %s", st.TotalFrames, fps, st.Reward, eval))
		if p.budget > 0 {
			_ = p.bar.Set64(min(st.TotalFrames, p.budget))
		} else {
			_ = p.bar.Set(ps.Iteration)
		}
		return
	}
	if time.Since(p.lastLog) >= 10*time.Second || ps.Iteration == p.total || rep.Eval != nil {
		p.lastLog = time.Now()
		ev := p.a.log.Info().Int("iteration", ps.Iteration).Int("of", p.total).Int64("frames", st.TotalFrames).
			Float64("frames_per_s", math.Round(fps)).Float64("train_reward", st.Reward)
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
func (p *progress) Finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
		fmt.Fprintln(os.Stderr)
	}
}
