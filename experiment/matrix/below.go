package matrix

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hyperctl/hyperctl/configs/rundir"
)

// maxListedRuns bounds the runs Below.List names.
const maxListedRuns = 8

// Below describes the run folders below a folder that is not a run
// itself (a compare or population folder), for a message that points to
// one of them.
type Below struct {
	Dir  string         // the folder
	Runs []rundir.Found // the run folders below it
	Pick string         // the run to suggest: the first finished one, else the first
}

// RunsBelow finds the run folders below dir (an unreadable folder counts
// as none).
func RunsBelow(dir string) Below {
	runs, _ := rundir.Runs(dir)
	b := Below{Dir: dir, Runs: runs}
	if len(runs) == 0 {
		return b
	}
	b.Pick = runs[0].Dir
	for _, r := range runs {
		if r.Finished {
			b.Pick = r.Dir
			break
		}
	}
	return b
}

// Only is b with only the runs keep keeps, and its Pick among them (the
// first finished one, else the first; "" for none).
func (b Below) Only(keep func(dir string) bool) Below {
	o := Below{Dir: b.Dir}
	for _, r := range b.Runs {
		if keep(r.Dir) {
			o.Runs = append(o.Runs, r)
		}
	}
	for _, r := range o.Runs {
		if o.Pick == "" || (r.Finished && !o.pickFinished()) {
			o.Pick = r.Dir
		}
	}
	return o
}

// pickFinished reports whether b's Pick is a finished run.
func (b Below) pickFinished() bool {
	for _, r := range b.Runs {
		if r.Dir == b.Pick {
			return r.Finished
		}
	}
	return false
}

// List names at most 8 of the runs, relative to the folder, the unfinished
// ones marked, and how many more there are.
func (b Below) List() string {
	var names []string
	for _, r := range b.Runs[:min(len(b.Runs), maxListedRuns)] {
		n, _ := filepath.Rel(b.Dir, r.Dir)
		if !r.Finished {
			n += " (unfinished)"
		}
		names = append(names, n)
	}
	s := strings.Join(names, ", ")
	if len(b.Runs) > maxListedRuns {
		s += fmt.Sprintf(" and %d more", len(b.Runs)-maxListedRuns)
	}
	return s
}
