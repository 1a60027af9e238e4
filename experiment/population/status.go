package population

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	popmethod "github.com/hyperctl/hyperctl/baselines/population"
	"github.com/hyperctl/hyperctl/experiment/matrix"
)

// Status is what `hyperctl status` says about a population folder
// beside its members' runs: how far it is, its best member, and how many
// of its starting members' lines of weights survive its exploits.
type Status struct {
	Method      string `json:"method"`
	Size        int    `json:"size"`
	Generations int    `json:"generations"`
	// Logged is the number of generations the population log records.
	Logged   int  `json:"generations_logged"`
	Finished bool `json:"finished"`
	// Best and BestReturn are result.json's pick (finished populations).
	Best       *int     `json:"best,omitempty"`
	BestReturn *float64 `json:"best_final_eval_return,omitempty"`
	// Origins[k] is the starting member whose weights member k's descend
	// from; Lineages lists the surviving origins; OneSince is the
	// generation whose step left one lineage (absent: more survive).
	Origins  []int `json:"origins"`
	Lineages []int `json:"lineages"`
	OneSince *int  `json:"one_lineage_since_generation,omitempty"`
	// FramesUsed is the frames all members trained together (successive
	// halving, finished: Result.FramesUsed).
	FramesUsed *int64 `json:"frames_used,omitempty"`
	// Stopped lists the members successive halving stopped (Stopped).
	Stopped []StoppedMember `json:"stopped,omitempty"`
	// Legacy: some of its files were written without checksums (by
	// hyperctl before population files were sealed); they are read, but
	// a damaged byte in them would go unnoticed.
	Legacy bool `json:"legacy_unsealed,omitempty"`
}

// ReadStatus reads dir as a population folder; ok is false when dir holds
// no population.json.
func ReadStatus(dir string) (ps Status, ok bool, err error) {
	def, legacy, err := ReadDefinitionLegacy(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return ps, false, nil
	}
	if err != nil {
		return ps, false, fmt.Errorf("status: %w", err)
	}
	ps = Status{Method: def.Settings.Method, Size: def.Size, Generations: def.Generations(), Legacy: legacy}
	recs, legacy, err := ReadLogLegacy(dir)
	ps.Legacy = ps.Legacy || legacy
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return ps, false, fmt.Errorf("status: %w", err)
	}
	for _, r := range recs {
		ps.Logged = max(ps.Logged, r.Generation+1)
	}
	l, err := Lineages(recs, def.Size)
	if err != nil {
		return ps, false, fmt.Errorf("status: %s: %w", filepath.Join(dir, LogFile), err)
	}
	ps.Origins, ps.Lineages = l.Origin, l.Roots
	if ps.Stopped, err = Stopped(dir, def); err != nil {
		return ps, false, fmt.Errorf("status: %w", err)
	}
	if l.OneSince >= 0 {
		ps.OneSince = &l.OneSince
	}
	switch res, legacy, err := ReadResultLegacy(dir); {
	case err == nil:
		ps.Finished, ps.Legacy = true, ps.Legacy || legacy
		if _, k, ret, err := res.BestMember(dir); err == nil {
			ps.Best, ps.BestReturn = &k, &ret
		}
		if def.Settings.Method == popmethod.Halving {
			used := res.FramesUsed()
			ps.FramesUsed = &used
		}
	case !errors.Is(err, fs.ErrNotExist):
		return ps, false, fmt.Errorf("status: %w", err)
	}
	return ps, true, nil
}

// WriteStatus writes the population's lines above `hyperctl status`'s run
// table: its method, size, generations logged, state and best member, then
// its lineages (WriteLineages).
func WriteStatus(w io.Writer, ps Status) error {
	state := "in progress"
	if ps.Finished {
		state = "finished"
	}
	fmt.Fprintf(w, "population: %s, %d members, %d of %d %ss logged, %s", ps.Method, ps.Size, ps.Logged, ps.Generations, GenerationWord(ps.Method), state)
	if ps.Best != nil && ps.BestReturn != nil {
		fmt.Fprintf(w, "; best member %d (final evaluation return %.2f)", *ps.Best, *ps.BestReturn)
	}
	if ps.FramesUsed != nil {
		fmt.Fprintf(w, "; %d frames used", *ps.FramesUsed)
	}
	if ps.Legacy {
		fmt.Fprint(w, "; legacy files without checksums (read as they are; it cannot be continued)")
	}
	fmt.Fprintln(w)
	return WriteLineages(w, ps)
}

// WriteLineages writes how many starting members' lines of weights
// survive, and the starting member each member's weights descend from;
// nothing for a method whose members never copy weights
// (popmethod.CopiesWeights), where each line is the member's own.
func WriteLineages(w io.Writer, ps Status) error {
	if !popmethod.CopiesWeights(ps.Method) {
		return nil
	}
	roots := make([]string, len(ps.Lineages))
	for i, o := range ps.Lineages {
		roots[i] = fmt.Sprint(o)
	}
	origins := make([]string, len(ps.Origins))
	for k, o := range ps.Origins {
		origins[k] = fmt.Sprint(o)
	}
	since := ""
	if ps.OneSince != nil {
		since = fmt.Sprintf(", since the step after generation %d", *ps.OneSince)
	}
	_, err := fmt.Fprintf(w, "lineages: the members' weights descend from %d of %d starting members (%s%s); by member: %s\n",
		len(ps.Lineages), ps.Size, strings.Join(roots, ", "), since, strings.Join(origins, " "))
	return err
}

// StoppedIn is Stopped for the folder dir, with its number of rungs; nil
// when dir is not a successive halving population.
func StoppedIn(dir string) (stopped []StoppedMember, rungs int, err error) {
	def, _, err := ReadDefinitionLegacy(dir)
	if errors.Is(err, fs.ErrNotExist) || err == nil && def.Settings.Method != popmethod.Halving {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	stopped, err = Stopped(dir, def)
	return stopped, def.Generations(), err
}

// StoppedText is how status and report describe a member that successive
// halving did not promote.
func (m StoppedMember) StoppedText(rungs int) string {
	return fmt.Sprintf("rung %d of %d, not promoted", m.Rung+1, rungs)
}

// MarkStopped sets the state of the runs in st, the runs of the folder
// dir, that successive halving stopped (StoppedIn) to matrix.Stopped, with
// the rung in their detail: Inspect, which reads a run folder alone, finds
// them unfinished and calls them missing. A run that a process still
// writes keeps its state. Folders that are not a successive halving
// population are left as they are.
func MarkStopped(dir string, st *matrix.Status) error {
	stopped, rungs, err := StoppedIn(dir)
	if err != nil {
		return err
	}
	for i := range st.Runs {
		r := &st.Runs[i]
		for _, m := range stopped {
			if r.Seed == m.Seed && r.State == matrix.Missing {
				r.State, r.StateName = matrix.Stopped, matrix.Stopped.String()
				r.Detail = m.StoppedText(rungs)
			}
		}
	}
	return nil
}
