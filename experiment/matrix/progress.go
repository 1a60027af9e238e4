package matrix

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/hyperctl/hyperctl/configs/rundir"
)

// runPos is how far a run folder's train.csv has got.
type runPos struct {
	iterations int   // rows (the last iteration + 1)
	frames     int64 // frames column of the last row
}

// readRunPos reads the last row of dir's train.csv (zero when absent).
func readRunPos(dir string) runPos {
	it, fr, ok := rundir.LastRow(dir)
	if !ok {
		return runPos{}
	}
	return runPos{iterations: it + 1, frames: fr}
}

// fleet measures the progress of a compare's runs from their train.csv.
type fleet struct {
	dirs       []string
	iterations int   // per run
	budget     int64 // frame budget per run (0: none; the ETA then counts iterations)
	start      time.Time
	base       []runPos // at start
}

func newFleet(dirs []string, iterations int, budget int64, now time.Time) *fleet {
	f := &fleet{dirs: dirs, iterations: iterations, budget: budget, start: now, base: make([]runPos, len(dirs))}
	for i, d := range dirs {
		f.base[i] = readRunPos(d)
	}
	return f
}

// measure returns the frames per second trained across the runs since the
// start and the estimated time to finish them (ok false before any
// iteration finished): from the iterations left, or with a frame budget
// from the frames left (runs end at the budget, usually well before the
// iteration cap).
func (f *fleet) measure(now time.Time) (fps float64, eta time.Duration, ok bool) {
	var dIters, remaining int
	var dFrames, framesLeft int64
	for i, d := range f.dirs {
		p := readRunPos(d)
		dIters += max(p.iterations-f.base[i].iterations, 0)
		dFrames += max(p.frames-f.base[i].frames, 0)
		remaining += max(f.iterations-f.base[i].iterations, 0)
		framesLeft += max(f.budget-f.base[i].frames, 0)
	}
	el := now.Sub(f.start).Seconds()
	if el <= 0 || dIters == 0 {
		return 0, 0, false
	}
	fps = float64(dFrames) / el
	left := float64(max(remaining-dIters, 0)) / float64(dIters) * el
	if f.budget > 0 && dFrames > 0 {
		left = float64(max(framesLeft-dFrames, 0)) / float64(dFrames) * el
	}
	return fps, time.Duration(left * float64(time.Second)).Round(time.Second), true
}

// compareProgress is compare's bar on a terminal: runs done out of the
// total, frames per second across the jobs and an ETA, refreshed every
// second. Without a terminal it does nothing (compare logs one line per
// run).
type compareProgress struct {
	bar     *progressbar.ProgressBar
	term    *os.File
	fleet   *fleet
	skipped int
	total   int
	mu      sync.Mutex
	done    int
	stop    chan struct{}
	wg      sync.WaitGroup
}

// newCompareProgress starts the bar on term (nil: no bar); dirs are the
// folders of the runs to do, skipped the number of finished ones.
func newCompareProgress(term *os.File, dirs []string, skipped, iterations int, budget int64) *compareProgress {
	p := &compareProgress{skipped: skipped, total: skipped + len(dirs), term: term}
	if term == nil {
		return p
	}
	p.fleet = newFleet(dirs, iterations, budget, time.Now())
	p.bar = progressbar.NewOptions(p.total,
		progressbar.OptionSetWriter(term),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetDescription("runs"),
		progressbar.OptionSetPredictTime(false), // the description has the ETA from iterations
		progressbar.OptionShowElapsedTimeOnFinish(),
	)
	_ = p.bar.Set(skipped)
	p.stop = everySecond(&p.wg, p.refresh)
	return p
}

// active reports whether the bar is shown.
func (p *compareProgress) active() bool { return p.bar != nil }

func (p *compareProgress) refresh() {
	fps, eta, ok := p.fleet.measure(time.Now())
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bar.Describe(compareLine(fps, eta, ok))
	_ = p.bar.Set(p.skipped + p.done)
}

// compareLine is the bar's description.
func compareLine(fps float64, eta time.Duration, ok bool) string {
	if !ok {
		return "runs | speed and ETA after the first iteration"
	}
	return fmt.Sprintf("runs | %.0f frames/s | ETA %s", fps, eta)
}

// runDone counts a finished (or failed) run.
func (p *compareProgress) runDone() {
	if p.bar == nil {
		return
	}
	p.mu.Lock()
	p.done++
	_ = p.bar.Set(p.skipped + p.done)
	p.mu.Unlock()
}

// finish stops the refresh and ends the bar's line.
func (p *compareProgress) finish() {
	if p.bar == nil {
		return
	}
	close(p.stop)
	p.wg.Wait()
	p.refresh()
	if p.skipped+p.done == p.total {
		_ = p.bar.Finish()
	}
	fmt.Fprintln(p.term)
}

// everySecond calls f every second in a goroutine counted by wg until the
// returned channel is closed.
func everySecond(wg *sync.WaitGroup, f func()) chan struct{} {
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				f()
			}
		}
	}()
	return stop
}
