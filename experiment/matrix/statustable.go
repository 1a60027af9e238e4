package matrix

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hyperctl/hyperctl/internal/ground/termtext"
)

// WriteFolderTable writes runs (as Folders returns them) as `hyperctl
// status`'s table for run folders: RUN (the folder relative to root), ENV,
// CONTROLLER, SEED, STATE, PROGRESS and DETAIL, then a line of counts by
// state.
//
// With width > 0 (a terminal's columns) a wider table is fitted to width − 1
// columns, so that no line wraps, step by step until it fits: ENV,
// CONTROLLER and SEED go (the run folders hyperctl lays out name them),
// PROGRESS becomes a percentage of the frame budget or "done/planned"
// iterations, RUN keeps its last 30 characters (a leading "…"), DETAIL its
// first 20, RUN its last 16, DETAIL its first 6, and last DETAIL goes. A
// line after the table says what was dropped or cut (`status --json` has
// every field). width <= 0 writes the whole table.
func WriteFolderTable(w io.Writer, root string, runs []FolderRun, width int) error {
	t := table{header: []string{"RUN", "ENV", "CONTROLLER", "SEED", "STATE", "PROGRESS", "DETAIL"}}
	counts := map[string]int{}
	for _, r := range runs {
		counts[r.State]++
		rel, err := filepath.Rel(root, r.Dir)
		if err != nil || rel == "." { // "." is root itself, a run folder: name it as given
			rel = r.Dir
		}
		t.rows = append(t.rows, []string{rel, r.Env, r.Controller, fmt.Sprint(r.Seed), r.State, ProgressText(r.Done, r.Iterations, r.FramesDone, r.Frames), r.Detail})
	}
	t.fit(width, fitDrop("ENV", "CONTROLLER", "SEED"), fitProgress, fitCut("RUN", runKeep, true), fitCut("DETAIL", 20, false),
		fitCut("RUN", 16, true), fitCut("DETAIL", 6, false), fitDrop("DETAIL"))
	var parts []string
	for _, s := range []string{FolderFinished, Pruned.String(), FolderRunning, FolderPending, FolderStopped} {
		if (s == Pruned.String() || s == FolderPending) && counts[s] == 0 {
			continue // only populations have pruned or pending runs
		}
		parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
	}
	return t.write(w, fmt.Sprintf("status: %s: %s", Plural(len(runs), "run", "runs"), strings.Join(parts, ", ")))
}

// WriteStatusTable writes a compare folder's Status as `hyperctl status`'s
// table: ENV, CONTROLLER, SEED, STATE, PROGRESS, SLURM TASK ("-" for none)
// and DETAIL, then a line of counts by state. With width > 0 a wider table
// is fitted as WriteFolderTable fits its: SLURM TASK goes when no run has a
// task (a local compare), PROGRESS is shortened, DETAIL keeps its first 20
// characters, ENV its first 12, DETAIL its first 12, CONTROLLER its last 16
// (its @preset is what tells variants apart), DETAIL its first 6,
// CONTROLLER its last 10, and last DETAIL goes.
func WriteStatusTable(w io.Writer, st Status, width int) error {
	t := table{header: []string{"ENV", "CONTROLLER", "SEED", "STATE", "PROGRESS", "SLURM TASK", "DETAIL"}}
	tasks := false
	for _, r := range st.Runs {
		task := r.Task
		if task == "" {
			task = "-"
		}
		tasks = tasks || r.Task != ""
		t.rows = append(t.rows, []string{r.Env, r.Controller, fmt.Sprint(r.Seed), r.State.String(), ProgressText(r.Done, r.Iterations, r.FramesDone, r.Frames), task, r.Detail})
	}
	steps := []fitStep{fitProgress, fitCut("DETAIL", 20, false), fitCut("ENV", 12, false), fitCut("DETAIL", 12, false),
		fitCut("CONTROLLER", 16, true), fitCut("DETAIL", 6, false), fitCut("CONTROLLER", 10, true), fitDrop("DETAIL")}
	if !tasks {
		steps = append([]fitStep{fitDrop("SLURM TASK")}, steps...)
	}
	t.fit(width, steps...)
	c := st.Counts()
	var parts []string
	for _, s := range States {
		if s == Pruned && c[s] == 0 {
			continue // only populations have pruned runs
		}
		parts = append(parts, fmt.Sprintf("%d %s", c[s], s))
	}
	return t.write(w, fmt.Sprintf("status: %s: %s", Plural(len(st.Runs), "run", "runs"), strings.Join(parts, ", ")))
}

// runKeep is the least of RUN that fitting keeps before it cuts DETAIL: the
// tail of a run folder that tells it from the others (env, row, seed).
const runKeep = 30

// table is a text table whose columns are two spaces apart, fitted to a
// width by dropping and cutting columns (fit).
type table struct {
	header []string
	rows   [][]string
	hidden []bool   // per column: dropped by fit
	did    []string // what fit did, in words
	limit  int      // the columns a line may span (0: any)
}

// A fitStep narrows a table by a named column.
type fitStep struct {
	col      string
	drop     []string            // the columns to drop (then col is empty)
	least    int                 // cut col's cells to no fewer runes
	fromLeft bool                // cut a cell's start, not its end
	compact  func(string) string // else: rewrite col's cells shorter
	said     string              // what compact does, in words
}

func fitDrop(cols ...string) fitStep { return fitStep{drop: cols} }

func fitCut(col string, least int, fromLeft bool) fitStep {
	return fitStep{col: col, least: least, fromLeft: fromLeft}
}

// fitProgress rewrites PROGRESS as a percentage of the frame budget
// ("54%") or as iterations done and planned ("12/489"), see ProgressText.
var fitProgress = fitStep{col: "PROGRESS", said: "% PROGRESS", compact: func(cell string) string {
	var done, total int64
	if _, err := fmt.Sscanf(cell, "%d/%d frames", &done, &total); err == nil && total > 0 {
		return fmt.Sprintf("%d%%", 100*done/total)
	}
	return strings.TrimSuffix(cell, " iterations")
}}

// fit applies steps, in order, while the table is wider than width − 1
// columns (width <= 0: it is left whole), and records what it did.
func (t *table) fit(width int, steps ...fitStep) {
	t.hidden = make([]bool, len(t.header))
	if width <= 0 {
		return
	}
	limit := width - 1
	var dropped, compacted, cut []string
	for _, s := range steps {
		over := t.width() - limit
		if over <= 0 {
			break
		}
		if len(s.drop) > 0 {
			for _, name := range s.drop {
				if c := slices.Index(t.header, name); !t.hidden[c] {
					t.hidden[c] = true
					dropped = append(dropped, name)
				}
			}
			continue
		}
		c := slices.Index(t.header, s.col)
		if t.hidden[c] {
			continue
		}
		if s.compact != nil {
			for _, row := range t.rows {
				row[c] = s.compact(row[c])
			}
			compacted = append(compacted, s.said)
			continue
		}
		room := max(t.colWidth(c)-over, s.least)
		if t.cut(c, room, s.fromLeft) && !slices.Contains(cut, s.col) {
			cut = append(cut, s.col)
		}
	}
	cut = slices.DeleteFunc(cut, func(c string) bool { return slices.Contains(dropped, c) })
	if len(dropped) > 0 {
		t.did = append(t.did, "no "+strings.Join(dropped, ", "))
	}
	t.did = append(t.did, compacted...)
	if len(cut) > 0 {
		t.did = append(t.did, "cut "+strings.Join(cut, ", "))
	}
	t.limit = limit
	if len(t.did) > 0 {
		t.did = []string{fmt.Sprintf("(%d cols: %s; --json: all)", width, strings.Join(t.did, "; "))}
	}
}

// cut shortens the cells of column c (the header aside) to at most n runes
// with "…": their end, or their start when fromLeft. It reports whether it
// cut any.
func (t *table) cut(c, n int, fromLeft bool) bool {
	did := false
	for _, row := range t.rows {
		r := []rune(row[c])
		if len(r) <= n {
			continue
		}
		did = true
		if fromLeft {
			row[c] = "…" + string(r[len(r)-n+1:])
		} else {
			row[c] = string(r[:n-1]) + "…"
		}
	}
	return did
}

// colWidth is the widest cell of column c, the header's included, in runes.
func (t *table) colWidth(c int) int {
	n := utf8.RuneCountInString(t.header[c])
	for _, row := range t.rows {
		n = max(n, utf8.RuneCountInString(row[c]))
	}
	return n
}

// width is the columns the widest line of the table spans.
func (t *table) width() int {
	total := -2
	for c := range t.header {
		if !t.hidden[c] {
			total += t.colWidth(c) + 2
		}
	}
	return total
}

// write writes the table, the line saying what fit did, and last.
func (t *table) write(w io.Writer, last string) error {
	var b strings.Builder
	for _, row := range append([][]string{t.header}, t.rows...) {
		var line strings.Builder
		for c, cell := range row {
			if t.hidden[c] {
				continue
			}
			line.WriteString(cell)
			line.WriteString(strings.Repeat(" ", t.colWidth(c)-utf8.RuneCountInString(cell)+2))
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	for _, text := range append(t.did, last) {
		if t.limit > 0 {
			text = termtext.Fold(text, t.limit+1)
		}
		b.WriteString(text + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ProgressText is a run's PROGRESS in status's tables: its frames against
// the frame budget when it has one (a budget ends a run before its
// iterations do), else its iterations against the config's.
func ProgressText(done, iterations int, framesDone, frames int64) string {
	if frames > 0 {
		return fmt.Sprintf("%d/%d frames", framesDone, frames)
	}
	total := "?"
	if iterations > 0 {
		total = fmt.Sprint(iterations)
	}
	return fmt.Sprintf("%d/%s iterations", done, total)
}
