package main

import (
	"fmt"
	"math"
	"time"

	"github.com/spf13/cobra"
)

// renderLogEvery is how often render logs its progress when stderr is not
// a terminal.
const renderLogEvery = 5 * time.Second

// renderShowEvery is how often render's terminal line is updated.
const renderShowEvery = 200 * time.Millisecond

// renderProgress shows render's frames: a line updated in place on a
// terminal (train's statusLine, fitted to its width), a log line every
// renderLogEvery otherwise (and none for a render shorter than that).
type renderProgress struct {
	a        *app
	line     *statusLine // on a terminal; nil: log lines
	start    time.Time
	lastLog  time.Time
	lastShow time.Time
	done     int
	most     int // the frames at most (0: unknown)
	now      func() time.Time
}

func newRenderProgress(cmd *cobra.Command, a *app) *renderProgress {
	p := &renderProgress{a: a, now: time.Now, line: newStatusLine(cmd.ErrOrStderr(), a)}
	p.start, p.lastLog = p.now(), p.now()
	return p
}

// frame is video.Options.Progress: done frames drawn of at most most (0:
// unknown).
func (p *renderProgress) frame(done, most int) {
	p.done, p.most = done, most
	now := p.now()
	if p.line != nil {
		if now.Sub(p.lastShow) >= renderShowEvery || done == most {
			p.lastShow = now
			p.line.show(p.fields(now, false))
		}
		return
	}
	if now.Sub(p.lastLog) >= renderLogEvery {
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

// fields is the terminal line: the frames drawn of at most how many (its
// total assumes every episode runs to the time limit), the bar, the time
// left and the rate; full is a render that ended well, shown whole.
func (p *renderProgress) fields(now time.Time, full bool) lineFields {
	f := lineFields{pos: fmt.Sprintf("rendering frame %d", p.done), done: math.NaN()}
	el := now.Sub(p.start).Seconds()
	if el > 0 {
		f.fps = fmt.Sprintf("%.0f frames/s", float64(p.done)/el)
	}
	if p.most > 0 {
		f.pos += fmt.Sprintf("/%d", p.most)
		f.done = float64(p.done) / float64(p.most)
		if full {
			f.done = 1
		}
		if p.done > 0 && el > 0 {
			left := time.Duration(el / float64(p.done) * float64(max(p.most-p.done, 0)) * float64(time.Second))
			f.eta = "ETA " + left.Round(time.Second).String()
		}
	}
	return f
}

// finish ends the line: full after a render that succeeded (its episodes
// may have ended before the total), as it was otherwise.
func (p *renderProgress) finish(ok bool) {
	if p.line == nil {
		return
	}
	p.line.show(p.fields(p.now(), ok))
	p.line.end()
}
