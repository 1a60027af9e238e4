package matrix

import (
	"fmt"
	"math"
	"os"
	"sync"
	"time"

	"github.com/hyperctl/hyperctl/configs/rundir"
	progressline "github.com/hyperctl/hyperctl/experiment/progress"
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
	skipped    int // the compare's runs finished before it started, not in dirs
	iterations int // per run
	budget     int64
	start      time.Time
	base       []runPos // at start
	ended      []bool   // runs of dirs that ended (finished or failed) since the start
}

func newFleet(dirs []string, skipped, iterations int, budget int64, now time.Time) *fleet {
	f := &fleet{dirs: dirs, skipped: skipped, iterations: iterations, budget: budget, start: now,
		base: make([]runPos, len(dirs)), ended: make([]bool, len(dirs))}
	for i, d := range dirs {
		f.base[i] = readRunPos(d)
	}
	return f
}

// fleetNow is how far a compare's runs are at one moment.
type fleetNow struct {
	done float64       // the fraction of the compare done: each run's as train's bar has it, averaged over all its runs
	fps  float64       // frames per second trained across the runs since the start
	eta  time.Duration // the time left to finish them
	ok   bool          // fps and eta are known: false before any iteration finished
}

// runDone is the fraction of a run at p done, as train's bar has it: of
// its iterations, or of its frame budget if that is further along.
func (f *fleet) runDone(p runPos) float64 {
	d := 0.0
	if f.iterations > 0 {
		d = float64(p.iterations) / float64(f.iterations)
	}
	if f.budget > 0 {
		d = math.Max(d, float64(p.frames)/float64(f.budget))
	}
	return math.Min(d, 1)
}

// measure is how far the runs are at now. The fraction done counts the
// runs finished before the start and those that ended since as whole.
// The speed is the frames trained across the runs since the start; the
// time left is from the iterations left, or with a frame budget from the
// frames left (runs end at the budget, usually well before the iteration
// cap).
func (f *fleet) measure(now time.Time) fleetNow {
	var dIters, remaining int
	var dFrames, framesLeft int64
	done := float64(f.skipped)
	for i, d := range f.dirs {
		p := readRunPos(d)
		dIters += max(p.iterations-f.base[i].iterations, 0)
		dFrames += max(p.frames-f.base[i].frames, 0)
		remaining += max(f.iterations-f.base[i].iterations, 0)
		framesLeft += max(f.budget-f.base[i].frames, 0)
		if f.ended[i] {
			done++
		} else {
			done += f.runDone(p)
		}
	}
	m := fleetNow{done: done / float64(max(f.skipped+len(f.dirs), 1))}
	el := now.Sub(f.start).Seconds()
	if el <= 0 || dIters == 0 {
		return m
	}
	m.fps = float64(dFrames) / el
	left := float64(max(remaining-dIters, 0)) / float64(dIters) * el
	if f.budget > 0 && dFrames > 0 {
		left = float64(max(framesLeft-dFrames, 0)) / float64(dFrames) * el
	}
	m.eta, m.ok = time.Duration(left*float64(time.Second)).Round(time.Second), true
	return m
}

// compareProgress is compare's line on a terminal, drawn as train's,
// render's and population's are (progress.Line): the runs done out of the
// total, the bar and the percentage of the compare done, the ETA and the
// frames per second across the jobs, refreshed every second and at the
// end of every run. Without a terminal it does nothing (compare logs one
// line per run).
type compareProgress struct {
	line    *progressline.Line // nil: no terminal
	fleet   *fleet
	skipped int
	total   int
	mu      sync.Mutex // the fleet's ended runs, done and the line
	done    int        // runs ended since the start
	stop    chan struct{}
	wg      sync.WaitGroup
}

// newCompareProgress starts the line on term (nil: no line); dirs are the
// folders of the runs to do, skipped the number of finished ones.
func newCompareProgress(term *os.File, dirs []string, skipped, iterations int, budget int64) *compareProgress {
	p := &compareProgress{skipped: skipped, total: skipped + len(dirs)}
	if term == nil {
		return p
	}
	if p.line = progressline.NewLine(term, false); p.line == nil {
		return p
	}
	p.fleet = newFleet(dirs, skipped, iterations, budget, time.Now())
	p.refresh()
	p.stop = everySecond(&p.wg, p.refresh)
	return p
}

// active reports whether the line is shown.
func (p *compareProgress) active() bool { return p.line != nil }

func (p *compareProgress) refresh() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.line.Show(compareFields(p.skipped+p.done, p.total, p.fleet.measure(time.Now())))
}

// compareFields is the line's content with runs of total ended: the runs,
// the bar and percentage of the compare done, and when the first
// iteration has given them, the ETA and the speed.
func compareFields(runs, total int, m fleetNow) progressline.Fields {
	f := progressline.Fields{Pos: fmt.Sprintf("runs %d/%d", runs, total), Done: m.done, ETA: "ETA after the first iteration"}
	if m.ok {
		f.ETA = "ETA " + m.eta.String()
		f.FPS = fmt.Sprintf("%.0f f/s", m.fps)
	}
	return f
}

// runDone counts the run of dirs[i] as ended (finished or failed) and
// updates the line.
func (p *compareProgress) runDone(i int) {
	if p.line == nil {
		return
	}
	p.mu.Lock()
	p.done++
	p.fleet.ended[i] = true
	p.mu.Unlock()
	p.refresh()
}

// finish stops the refresh and ends the line.
func (p *compareProgress) finish() {
	if p.line == nil {
		return
	}
	close(p.stop)
	p.wg.Wait()
	p.refresh()
	p.line.End()
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
