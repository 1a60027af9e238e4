package matrix

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// FramesBar is a terminal bar of the frames the runs in a set of folders
// have trained (their train.csv's last rows) out of a planned total, with
// frames per second since it started, an ETA from the frames left, and a
// caller's prefix (a population's generation), refreshed every second.
// Without a terminal it does nothing.
type FramesBar struct {
	bar    *progressbar.ProgressBar
	term   *os.File
	dirs   []string
	total  int64
	start  time.Time
	base   int64 // frames at start
	mu     sync.Mutex
	prefix string
	stop   chan struct{}
	wg     sync.WaitGroup
}

// NewFramesBar starts the bar on term (nil: no bar) for the runs in dirs,
// planned to train total frames together.
func NewFramesBar(term *os.File, dirs []string, total int64) *FramesBar {
	b := &FramesBar{term: term, dirs: dirs, total: total}
	if term == nil || total <= 0 {
		return b
	}
	b.start, b.base = time.Now(), b.frames()
	b.bar = progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(term),
		progressbar.OptionSetWidth(20),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetPredictTime(false), // the description has the ETA
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionFullWidth(),
	)
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

// Prefix sets what the bar's description starts with.
func (b *FramesBar) Prefix(p string) {
	if b.bar == nil {
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
	b.bar.Describe(framesLine(b.prefix, done-b.base, max(b.total-done, 0), time.Since(b.start)))
	_ = b.bar.Set64(min(done, b.total))
}

// framesLine is the bar's description: the prefix, frames per second over
// elapsed and the time the frames left take at that speed.
func framesLine(prefix string, trained, left int64, elapsed time.Duration) string {
	if trained <= 0 || elapsed <= 0 {
		return prefix + " | speed and ETA after the first iteration"
	}
	fps := float64(trained) / elapsed.Seconds()
	eta := time.Duration(float64(left) / fps * float64(time.Second)).Round(time.Second)
	return fmt.Sprintf("%s | %.0f frames/s | ETA %s", prefix, fps, eta)
}

// Finish stops the refresh and ends the bar's line.
func (b *FramesBar) Finish() {
	if b.bar == nil {
		return
	}
	close(b.stop)
	b.wg.Wait()
	b.refresh()
	fmt.Fprintln(b.term)
}
