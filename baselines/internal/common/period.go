package common

import "slices"

// Period accumulates one decision period: the consecutive iterations run
// under one configuration. The GP-style methods turn each closed period into
// one data point (the configuration and its mean objective).
type Period struct {
	Open  bool
	X     []float64 // configuration in force, in [0, 1]^d
	Sum   float64   // objective sum
	Count int       // iterations observed in the period
}

// Add records one iteration's objective under configuration u. If an open
// period holds a different configuration (a method used without the
// driver, whose configuration changed mid-period), closePeriod is called
// first. Add reports whether it opened a new period, so the caller can stamp
// it (start time, progress).
func (p *Period) Add(u []float64, objective float64, closePeriod func()) (opened bool) {
	if p.Open && !slices.Equal(p.X, u) {
		closePeriod()
	}
	if !p.Open {
		p.Open = true
		p.X = append(p.X[:0], u...)
		opened = true
	}
	p.Sum += objective
	p.Count++
	return opened
}

// Mean returns the period's mean objective, and false when it holds no
// iteration (then there is nothing to turn into a data point).
func (p *Period) Mean() (float64, bool) {
	if !p.Open || p.Count == 0 {
		return 0, false
	}
	return p.Sum / float64(p.Count), true
}

// Reset closes the period, keeping X's storage.
func (p *Period) Reset() { *p = Period{X: p.X[:0]} }

// Fits reports whether a restored period is consistent with d dimensions.
func (p *Period) Fits(d int) bool { return !p.Open || len(p.X) == d }

// Slide keeps the newest n rows of rows, a row-major table of width w, and
// drops the oldest, in place. The windowed GP methods call it on each of
// their per-point slices after appending a closed period.
func Slide(rows []float64, w, n int) []float64 {
	if over := len(rows)/w - n; over > 0 {
		return append(rows[:0], rows[over*w:]...)
	}
	return rows
}
