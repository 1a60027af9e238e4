package main

import (
	"fmt"
	"math"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/hyperctl/hyperctl/cmd/hyperctl/rundir"
	"github.com/hyperctl/hyperctl/ppo"
)

// progress shows a bar on a terminal and periodic log lines otherwise; it
// is the training's Monitor.
type progress struct {
	cmd     *cobra.Command
	bar     *progressbar.ProgressBar
	a       *app
	total   int
	lastLog time.Time
}

func newProgress(cmd *cobra.Command, a *app) *progress {
	return &progress{cmd: cmd, a: a}
}

// Start shows the bar at the starting iteration (on a terminal).
func (p *progress) Start(from, total int) {
	p.total, p.lastLog = total, time.Now()
	if f, ok := p.cmd.ErrOrStderr().(*os.File); ok && term.IsTerminal(int(f.Fd())) && p.a.logFormat != "json" {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(f),
			progressbar.OptionSetDescription("training"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionSetWidth(30),
		)
		_ = p.bar.Set(from)
	}
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
		_ = p.bar.Set(ps.Iteration)
		return
	}
	if time.Since(p.lastLog) >= 10*time.Second || ps.Iteration == p.total || rep.Eval != nil {
		p.lastLog = time.Now()
		ev := p.a.log.Info().Int("iteration", ps.Iteration).Int("of", p.total).Int64("frames", st.TotalFrames).
			Float64("frames_per_s", math.Round(fps)).Float64("train_reward", st.Reward)
		if ps.HaveEval {
			ev = ev.Float64("eval_return", ps.LastEval)
		}
		if it := ps.Iteration; it > 0 && ps.WallS > 0 {
			ev = ev.Str("eta", time.Duration(ps.WallS/float64(it)*float64(p.total-it)*float64(time.Second)).Round(time.Second).String())
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
