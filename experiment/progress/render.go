package progress

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/rs/zerolog"
)

// renderLogEvery is how often Render logs its progress when its output is
// not a terminal.
const renderLogEvery = 5 * time.Second

// renderShowEvery is how often Render's terminal line is updated.
const renderShowEvery = 200 * time.Millisecond

// Render shows a render's frames: a line updated in place on a terminal
// (a Line, fitted to its width), a log line every renderLogEvery otherwise
// (and none for a render shorter than that).
type Render struct {
	log      zerolog.Logger
	line     *Line // on a terminal; nil: log lines
	start    time.Time
	lastLog  time.Time
	lastShow time.Time
	done     int
	most     int // the frames at most (0: unknown)
	now      func() time.Time
}

// NewRender is the progress of a render: a line on w when it is a
// terminal and the logs are not JSON (json false), log lines on log
// otherwise.
func NewRender(w io.Writer, log zerolog.Logger, json bool) *Render {
	p := &Render{log: log, now: time.Now, line: NewLine(w, json)}
	p.start, p.lastLog = p.now(), p.now()
	return p
}

// Frame is video.Options.Progress: done frames drawn of at most most (0:
// unknown).
func (p *Render) Frame(done, most int) {
	p.done, p.most = done, most
	now := p.now()
	if p.line != nil {
		if now.Sub(p.lastShow) >= renderShowEvery || done == most {
			p.lastShow = now
			p.line.Show(p.fields(now, false))
		}
		return
	}
	if now.Sub(p.lastLog) >= renderLogEvery {
		p.lastLog = now
		ev := p.log.Info().Int("frames", done)
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
func (p *Render) fields(now time.Time, full bool) Fields {
	f := Fields{Pos: fmt.Sprintf("rendering frame %d", p.done), Done: math.NaN()}
	el := now.Sub(p.start).Seconds()
	if el > 0 {
		f.FPS = fmt.Sprintf("%.0f f/s", float64(p.done)/el)
	}
	if p.most > 0 {
		f.Pos += fmt.Sprintf("/%d", p.most)
		f.Done = float64(p.done) / float64(p.most)
		if full {
			f.Done = 1
		}
		if p.done > 0 && el > 0 {
			left := time.Duration(el / float64(p.done) * float64(max(p.most-p.done, 0)) * float64(time.Second))
			f.ETA = "ETA " + left.Round(time.Second).String()
		}
	}
	return f
}

// Finish ends the line: full after a render that succeeded (its episodes
// may have ended before the total), as it was otherwise.
func (p *Render) Finish(ok bool) {
	if p.line == nil {
		return
	}
	p.line.Show(p.fields(p.now(), ok))
	p.line.End()
}
