// Package progress is the terminal display of a long run of hyperctl: a
// line updated in place on a terminal (Line), fitted to its width by
// dropping the fields a glance needs least (Fit), and log lines when the
// output is not a terminal or the logs are JSON. Render follows the frames
// of a video; experiment/run's TrainProgress, a training run's Monitor,
// and experiment/matrix's lines of compare and population show theirs with
// Line, so every command's bar looks the same. It builds without cgo.
package progress

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/hyperctl/hyperctl/internal/ground/termtext"
)

// Fields is what a terminal line of progress shows (train's; render's,
// compare's and population's with fewer fields), field by field; an empty
// field is left out.
type Fields struct {
	Pos    string  // where the work is: "it 12/488", or "frames 24576/1000000" under a frame budget
	Done   float64 // the fraction done, for the bar and the percentage (NaN: unknown)
	ETA    string  // "ETA 5m12s"
	Aside  string  // the other count: "frames 24576", or "it 12" under a frame budget
	FPS    string  // "15000 f/s"
	Rew    string  // "ep_rew_mean 99.5": the mean return of recent episodes
	RewN   string  // " (100 ep)": how many episodes that mean is over
	Eval   string  // "eval -13.9": the last evaluation return
	Reward string  // "reward/step -1.084": the mean reward per step of the last iteration
}

// barWidth is the bar's width in columns, between its brackets, before
// Fit narrows it.
const barWidth = 20

// fitSteps is the order in which Fit makes the line shorter, one step at a
// time, until it fits: the first fields to go are the ones a glance at a
// run needs least. Whatever the width, the line keeps the position.
var fitSteps = []string{
	"drop reward/step",
	"drop the episode count of ep_rew_mean",
	"narrow the bar to half",
	"drop the bar (the percentage stays)",
	"drop f/s",
	"drop the other count (frames, or the iteration under a frame budget)",
	"drop eval",
	"drop ep_rew_mean",
	"drop ETA",
	"drop the percentage",
}

// Fit lays out f in at most width columns: the whole line when it fits,
// else the line after as few of fitSteps as it takes, and on a terminal
// too narrow for the position alone, the position cut to width.
func Fit(f Fields, width int) string {
	width = max(width, 1)
	for step := 0; step <= len(fitSteps); step++ {
		if l := layLine(f, step); utf8.RuneCountInString(l) <= width {
			return l
		}
	}
	return string([]rune(f.Pos)[:min(width, utf8.RuneCountInString(f.Pos))])
}

// layLine is the line after the first steps of fitSteps.
func layLine(f Fields, steps int) string {
	did := func(i int) bool { return steps > i }
	head := f.Pos
	if !math.IsNaN(f.Done) {
		d := math.Min(math.Max(f.Done, 0), 1)
		if !did(3) {
			w := barWidth
			if did(2) {
				w = barWidth / 2
			}
			n := int(d * float64(w))
			head += " [" + strings.Repeat("#", n) + strings.Repeat("-", w-n) + "]"
		}
		if !did(9) {
			head += fmt.Sprintf(" %.0f%%", 100*d)
		}
	}
	parts := []string{head}
	add := func(drop int, s string) {
		if s != "" && !did(drop) {
			parts = append(parts, s)
		}
	}
	add(8, f.ETA)
	add(5, f.Aside)
	add(4, f.FPS)
	rew := f.Rew
	if !did(1) && rew != "" {
		rew += f.RewN
	}
	add(7, rew)
	add(6, f.Eval)
	add(0, f.Reward)
	return strings.Join(parts, " | ")
}

// Terminal is the terminal a progress display draws on: w when it is one
// and the logs are not JSON (json false); nil otherwise (log lines instead).
func Terminal(w io.Writer, json bool) *os.File {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) && !json {
		return f
	}
	return nil
}

// NewLine is the line on w, a terminal, or nil when w is not one or the
// log is JSON (then progress is logged).
func NewLine(w io.Writer, json bool) *Line {
	f := Terminal(w, json)
	if f == nil {
		return nil
	}
	return &Line{w: f, width: func() int { return termWidth(f) }}
}

// termWidth is the width of the terminal f (termtext.Width).
func termWidth(f *os.File) int { return termtext.Width(f) }

// Line is a line of a terminal updated in place: each update returns to
// the line's start (\r), writes the line fitted to one column less than
// the terminal's width (so that it never wraps, which would leave a new
// line at every update), and blanks what remains of a longer previous one.
type Line struct {
	w     io.Writer
	width func() int // the terminal's width, asked at every update (it may be resized)
	last  int        // columns of the line on screen
}

// Show replaces the line with f.
func (s *Line) Show(f Fields) {
	w := s.width() - 1
	l := Fit(f, w)
	n := utf8.RuneCountInString(l)
	pad := strings.Repeat(" ", max(min(s.last, w)-n, 0))
	s.last = n
	fmt.Fprint(s.w, "\r"+l+pad)
}

// End leaves the line as it is and moves to the next.
func (s *Line) End() {
	fmt.Fprintln(s.w)
}
