package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// renderLogEvery is how often render logs its progress when stderr is not
// a terminal.
const renderLogEvery = 5 * time.Second

// renderProgress shows render's frames: a bar on a terminal, a log line
// every renderLogEvery otherwise (and none for a render shorter than that).
type renderProgress struct {
	a       *app
	out     io.Writer // the terminal of the bar; nil: log lines
	bar     *progressbar.ProgressBar
	start   time.Time
	lastLog time.Time
	done    int
	now     func() time.Time
}

func newRenderProgress(cmd *cobra.Command, a *app) *renderProgress {
	p := &renderProgress{a: a, now: time.Now}
	if f, ok := cmd.ErrOrStderr().(*os.File); ok && term.IsTerminal(int(f.Fd())) && a.logFormat != "json" {
		p.out = f
	}
	p.start, p.lastLog = p.now(), p.now()
	return p
}

// frame is video.Options.Progress: done frames drawn of at most most (0:
// unknown).
func (p *renderProgress) frame(done, most int) {
	p.done = done
	if p.out != nil {
		if p.bar == nil {
			if most <= 0 {
				most = -1 // a spinner: no time limit, no total
			}
			p.bar = progressbar.NewOptions(most,
				progressbar.OptionSetWriter(p.out),
				progressbar.OptionSetDescription("rendering frames"),
				progressbar.OptionShowCount(),
				progressbar.OptionShowIts(),
				progressbar.OptionSetItsString("frames"),
				progressbar.OptionSetPredictTime(true),
				progressbar.OptionThrottle(200*time.Millisecond),
				progressbar.OptionSetWidth(30),
			)
		}
		_ = p.bar.Set(done)
		return
	}
	if now := p.now(); now.Sub(p.lastLog) >= renderLogEvery {
		p.lastLog = now
		ev := p.a.log.Info().Int("frames", done)
		if most > 0 {
			ev = ev.Int("of_at_most", most)
		}
		if s := now.Sub(p.start).Seconds(); s > 0 {
			ev = ev.Float64("frames_per_s", float64(int(float64(done)/s*10))/10)
		}
		ev.Msg("rendering")
	}
}

// finish ends the bar's line: full after a render that succeeded (its
// episodes may have ended before the bar's total), as it was otherwise.
func (p *renderProgress) finish(ok bool) {
	if p.bar == nil {
		return
	}
	if ok {
		_ = p.bar.Finish()
	} else {
		_ = p.bar.Exit()
	}
	fmt.Fprintln(p.out)
}
