package matrix

import (
	"fmt"
	"os"
	"sync"
	"time"

	progressline "github.com/hyperctl/hyperctl/experiment/progress"
)

// FramesBar is a terminal line of the frames the runs in a set of folders
// have trained (their train.csv's last rows) out of a planned total, drawn
// as train's and render's are (progress.Line: the caller's prefix, such as
// a population's generation, a bar, the percentage, an ETA from the frames
// left, the frames and frames per second since it started), refreshed
// every second. Without a terminal it does nothing.
type FramesBar struct {
	line   *progressline.Line
	dirs   []string
	total  int64
	start  time.Time
	base   int64 // frames at start
	mu     sync.Mutex
	prefix string
	stop   chan struct{}
	wg     sync.WaitGroup
}

// NewFramesBar starts the line on term (nil: none) for the runs in dirs,
// planned to train total frames together.
func NewFramesBar(term *os.File, dirs []string, total int64) *FramesBar {
	b := &FramesBar{dirs: dirs, total: total}
	if term == nil || total <= 0 {
		return b
	}
	b.line = progressline.NewLine(term, false)
	if b.line == nil {
		return b
	}
	b.start, b.base = time.Now(), b.frames()
	b.stop = everySecond(&b.wg, b.refresh)
	b.refresh()
	return b
}

// frames is the frames the runs have trained together.
func (b *FramesBar) frames() int64 {
	var n int64
	for _, d := range b.dirs {
		n += readRunPos(d).frames
	}
	return n
}

// Prefix sets what the line starts with.
func (b *FramesBar) Prefix(p string) {
	if b.line == nil {
		return
	}
	b.mu.Lock()
	b.prefix = p
	b.mu.Unlock()
	b.refresh()
}

func (b *FramesBar) refresh() {
	done := b.frames()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.line.Show(framesFields(b.prefix, done, b.total, done-b.base, time.Since(b.start)))
}

// framesFields is the line's content: the prefix, the fraction of total
// done, the frames, and the speed over elapsed with the time the frames
// left take at it; before the first frames, when speed and ETA come.
func framesFields(prefix string, done, total, trained int64, elapsed time.Duration) progressline.Fields {
	f := progressline.Fields{Pos: prefix, Done: float64(min(done, total)) / float64(total), Aside: fmt.Sprintf("frames %d/%d", done, total)}
	if trained <= 0 || elapsed <= 0 {
		f.ETA = "ETA after the first iteration"
		return f
	}
	fps := float64(trained) / elapsed.Seconds()
	f.FPS = fmt.Sprintf("%.0f f/s", fps)
	f.ETA = "ETA " + time.Duration(float64(max(total-done, 0))/fps*float64(time.Second)).Round(time.Second).String()
	return f
}

// Finish stops the refresh and ends the line.
func (b *FramesBar) Finish() {
	if b.line == nil {
		return
	}
	close(b.stop)
	b.wg.Wait()
	b.refresh()
	b.line.End()
}
