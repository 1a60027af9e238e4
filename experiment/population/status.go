package population

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	popmethod "github.com/hyperctl/hyperctl/baselines/population"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/matrix"
	"github.com/hyperctl/hyperctl/internal/ground/safefile"
)

// Status is what `hyperctl status` says about a population folder
// beside its members' runs: how far it is, its best member, and how many
// of its starting members' lines of weights survive its exploits.
type Status struct {
	Method string `json:"method"`
	// Label is the method with the settings that differ from its
	// defaults (popmethod.Settings.Label), as report names its row.
	Label       string `json:"label"`
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
	// Pruned lists the members successive halving pruned (Pruned).
	Pruned []PrunedMember `json:"pruned,omitempty"`
	// FramesTrained is what its members' train.csv files hold, summed;
	// FramesPlanned what they will hold at the end (Definition's
	// PlannedFrames), up to the overshoot of whole iterations.
	FramesTrained int64 `json:"frames_trained"`
	FramesPlanned int64 `json:"frames_planned"`
	// Legacy: some of its files were written without checksums (by
	// hyperctl before population files were sealed); they are read, but
	// a damaged byte in them would go unnoticed.
	Legacy bool `json:"legacy_unsealed,omitempty"`
}

// ReadStatus reads dir as a population folder; ok is false when dir holds
// no population.json.
func ReadStatus(dir string) (ps Status, ok bool, err error) {
	v, err := verifyRead(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return ps, false, nil
	}
	if err != nil {
		return ps, false, fmt.Errorf("status: %w", err)
	}
	def := v.Def
	ps = Status{Method: def.Settings.Method, Label: def.Settings.Label(), Size: def.Size, Generations: def.Generations(), Legacy: v.Legacy,
		FramesPlanned: def.PlannedFrames()}
	for k := range def.Size {
		if _, frames, ok := rundir.LastRow(def.MemberDir(dir, k)); ok {
			ps.FramesTrained += frames
		}
	}
	for _, r := range v.Records {
		ps.Logged = max(ps.Logged, r.Generation+1)
	}
	l, err := Lineages(v.Records, def.Size)
	if err != nil {
		return ps, false, fmt.Errorf("status: %s: %w", filepath.Join(dir, LogFile), err)
	}
	ps.Origins, ps.Lineages = l.Origin, l.Roots
	if ps.Pruned, err = v.pruned(); err != nil {
		return ps, false, fmt.Errorf("status: %w", err)
	}
	if l.OneSince >= 0 {
		ps.OneSince = &l.OneSince
	}
	if res := v.Result; res != nil {
		ps.Finished = true
		if _, k, ret, err := res.BestMember(dir); err == nil {
			ps.Best, ps.BestReturn = &k, &ret
		}
		if def.Settings.Method == popmethod.Halving {
			used := res.FramesUsed()
			ps.FramesUsed = &used
		}
	}
	return ps, true, nil
}

// verifyRead is Verify for a reader that steers nothing: when the folder's
// lock is held (its population runs), a refusal is read again once, in
// case a step was written between the files Verify read.
func verifyRead(dir string) (Verified, error) {
	v, err := Verify(dir)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return v, err
	}
	if _, held, herr := safefile.Holder(dir, LockFile); herr == nil && held {
		return Verify(dir)
	}
	return v, err
}

// WriteStatus writes the population's lines above `hyperctl status`'s run
// table: its method, size, generations logged, state and best member, then
// its lineages (WriteLineages).
func WriteStatus(w io.Writer, ps Status) error {
	state := "in progress"
	if ps.Finished {
		state = "finished"
	}
	fmt.Fprintf(w, "population: %s, %d members, %d of %d %ss logged, %s", ps.Label, ps.Size, ps.Logged, ps.Generations, GenerationWord(ps.Method), state)
	if !ps.Finished && ps.FramesPlanned > 0 {
		fmt.Fprintf(w, "; %d of %d frames trained (%.0f %%)", ps.FramesTrained, ps.FramesPlanned,
			min(100, 100*float64(ps.FramesTrained)/float64(ps.FramesPlanned)))
	}
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

// PrunedIn is Pruned for the folder dir, with its number of rungs, its
// files verified (Verify) first; nil when dir is not a successive halving
// population.
func PrunedIn(dir string) (pruned []PrunedMember, rungs int, err error) {
	v, err := verifyRead(dir)
	if errors.Is(err, fs.ErrNotExist) || err == nil && v.Def.Settings.Method != popmethod.Halving {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	pruned, err = v.pruned()
	return pruned, v.Def.Generations(), err
}

// PrunedText is how status and report describe a member that successive
// halving did not promote.
func (m PrunedMember) PrunedText(rungs int) string {
	return fmt.Sprintf("rung %d of %d, not promoted", m.Rung+1, rungs)
}

// MarkMembers sets what a population knows of its members and their run
// folders do not, in st, the runs of the compare folder dir: each missing
// run that successive halving pruned (PrunedRuns) becomes matrix.Pruned,
// with its rung in its detail, and while the population runs (a process
// holds its lock) each other missing run becomes matrix.Pending: the
// population trains it when its turn comes. Inspect, which reads a run
// folder alone, calls both missing. A run that a process writes keeps its
// state, and folders that are no population are left as they are.
func MarkMembers(dir string, st *matrix.Status) error {
	m := newMemberStates()
	for i := range st.Runs {
		r := &st.Runs[i]
		if r.State != matrix.Missing {
			continue
		}
		pruned, waits, err := m.of(filepath.Join(dir, r.Dir), r.Seed)
		if err != nil {
			return err
		}
		switch {
		case pruned != "":
			r.State, r.StateName, r.Detail = matrix.Pruned, matrix.Pruned.String(), pruned
		case waits != "":
			r.State, r.StateName, r.Detail = matrix.Pending, matrix.Pending.String(), waits
		}
	}
	return nil
}

// memberStates decides, for run folders anywhere, what their populations
// know of them (MarkMembers), reading each population folder once.
type memberStates struct {
	pruned PrunedRuns
	waits  map[string]string // population folder → a waiting member's detail ("": it does not run)
}

func newMemberStates() memberStates {
	return memberStates{pruned: PrunedRuns{}, waits: map[string]string{}}
}

// of returns, for the unfinished run in dir (of seed seed) that no process
// writes, where successive halving pruned it (PrunedText), else, when its
// population runs now, the detail of a member that waits for its turn;
// "" for both when dir is no population's member or neither holds.
func (m memberStates) of(dir string, seed int64) (pruned, waits string, err error) {
	top := matrix.CompareFolderOf(dir)
	if !matrix.IsPopulation(top) {
		return "", "", nil
	}
	if pruned, err = m.pruned.At(dir, seed); err != nil || pruned != "" {
		return pruned, "", err
	}
	waits, ok := m.waits[top]
	if !ok {
		pid, held, err := safefile.Holder(top, LockFile)
		if err != nil {
			return "", "", fmt.Errorf("%s: %w", top, err)
		}
		switch {
		case held && pid > 0:
			waits = fmt.Sprintf("waits for its turn: its population runs (process %d)", pid)
		case held:
			waits = "waits for its turn: its population runs"
		}
		m.waits[top] = waits
	}
	return "", waits, nil
}

// PrunedRuns says, for run folders anywhere, whether successive halving
// pruned them, reading each population folder once: a member's folder is
// <population>/<env>/<method>/seed<S>. Make one with PrunedRuns{}.
type PrunedRuns map[string]map[int64]string

// At is where the run in dir, of seed seed, was pruned (PrunedText), or
// "" when it was not (or is no member of a successive halving population).
// A population whose files cannot be read is an error once, at its first
// member; its other members are then "" (as their folders say).
func (p PrunedRuns) At(dir string, seed int64) (string, error) {
	top := matrix.CompareFolderOf(dir)
	if !matrix.IsPopulation(top) {
		return "", nil
	}
	at, ok := p[top]
	if !ok {
		pruned, rungs, err := PrunedIn(top)
		if err != nil {
			p[top] = map[int64]string{}
			return "", fmt.Errorf("%s: %w", top, err)
		}
		at = map[int64]string{}
		for _, m := range pruned {
			at[m.Seed] = m.PrunedText(rungs)
		}
		p[top] = at
	}
	return at[seed], nil
}

// MarkMemberFolders is MarkMembers for run folders found outside a matrix
// (matrix.Folders: status of a folder that holds populations): each
// stopped run that successive halving pruned becomes "pruned", with its
// rung, and each other stopped member of a population that runs now
// becomes matrix.FolderPending.
func MarkMemberFolders(runs []matrix.FolderRun) error {
	m := newMemberStates()
	for i := range runs {
		r := &runs[i]
		if r.State != matrix.FolderStopped {
			continue
		}
		pruned, waits, err := m.of(r.Dir, r.Seed)
		if err != nil {
			return err
		}
		switch {
		case pruned != "":
			r.State, r.Detail = matrix.Pruned.String(), pruned
		case waits != "":
			r.State, r.Detail = matrix.FolderPending, waits
		}
	}
	return nil
}
