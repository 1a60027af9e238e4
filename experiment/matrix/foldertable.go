package matrix

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// folderColumns are the columns of status's table, in order.
var folderColumns = []string{"RUN", "ENV", "CONTROLLER", "SEED", "STATE", "PROGRESS", "DETAIL"}

// Columns WriteFolderTable may drop or cut to fit a width, by index.
const (
	colRun    = 0
	colDetail = 6
)

// tableGap is the spaces between two columns.
const tableGap = 2

// WriteFolderTable writes runs (as Folders returns them) as `hyperctl
// status`'s table: RUN (the folder relative to root), ENV, CONTROLLER, SEED,
// STATE, PROGRESS and DETAIL, then a line of counts by state.
//
// With width > 0 (a terminal's columns) a wider table is fitted to width − 1
// columns, so that no line wraps: ENV, CONTROLLER and SEED go first (the
// run folders hyperctl lays out name them), then DETAIL is cut to what is
// left, ending in "…", then RUN loses its leading folders to a "…". A line
// after the table says what was dropped or cut (`status --json` has every
// field). width <= 0 writes the whole table.
func WriteFolderTable(w io.Writer, root string, runs []FolderRun, width int) error {
	rows := make([][]string, 0, len(runs)+1)
	rows = append(rows, folderColumns)
	counts := map[string]int{}
	for _, r := range runs {
		counts[r.State]++
		rel, err := filepath.Rel(root, r.Dir)
		if err != nil || rel == "." { // "." is root itself, a run folder: name it as given
			rel = r.Dir
		}
		rows = append(rows, []string{rel, r.Env, r.Controller, fmt.Sprint(r.Seed), r.State, ProgressText(r.Done, r.Iterations, r.FramesDone, r.Frames), r.Detail})
	}
	keep := []int{0, 1, 2, 3, 4, 5, 6}
	var cut []string
	if width > 0 {
		keep, cut = fitColumns(rows, keep, width-1)
	}
	widths := columnWidths(rows, keep)
	for _, row := range rows {
		var b strings.Builder
		for i, c := range keep {
			cell := row[c]
			if i == len(keep)-1 {
				b.WriteString(cell)
				break
			}
			b.WriteString(cell)
			b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell)+tableGap))
		}
		if _, err := fmt.Fprintln(w, strings.TrimRight(b.String(), " ")); err != nil {
			return err
		}
	}
	if len(cut) > 0 {
		if _, err := fmt.Fprintf(w, "(for %d columns: %s; --json: all)\n", width, strings.Join(cut, "; ")); err != nil {
			return err
		}
	}
	var parts []string
	for _, s := range []string{FolderFinished, FolderRunning, FolderStopped} {
		parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
	}
	_, err := fmt.Fprintf(w, "status: %s: %s\n", Plural(len(runs), "run", "runs"), strings.Join(parts, ", "))
	return err
}

// fitColumns drops and cuts the cells of rows (the header first) in place
// so that the columns keep, as written, span at most limit columns: it
// drops ENV, CONTROLLER and SEED, then cuts RUN's leading folders down to
// runKeep runes, then DETAIL's end, then RUN's down to 8 runes. It returns
// the columns kept and what it did, in words.
func fitColumns(rows [][]string, keep []int, limit int) ([]int, []string) {
	var dropped bool
	var cut []string
	if tableWidth(rows, keep) > limit {
		keep, dropped = []int{colRun, 4, 5, colDetail}, true
	}
	shorten := func(c, least int, fromLeft bool) {
		over := tableWidth(rows, keep) - limit
		if over <= 0 {
			return
		}
		i := slices.Index(keep, c)
		room := max(columnWidths(rows, keep)[i]-over, least)
		if cutCells(rows, c, room, fromLeft) && !slices.Contains(cut, folderColumns[c]) {
			cut = append(cut, folderColumns[c])
		}
	}
	shorten(colRun, runKeep, true)
	shorten(colDetail, len(folderColumns[colDetail]), false)
	shorten(colRun, 8, true)
	var did []string
	if dropped {
		did = append(did, "dropped ENV, CONTROLLER, SEED")
	}
	if len(cut) > 0 {
		did = append(did, "cut "+strings.Join(cut, ", "))
	}
	return keep, did
}

// runKeep is the least of RUN that fitting keeps before it cuts DETAIL: the
// tail of a run folder that tells it from the others (env, row, seed).
const runKeep = 30

// cutCells shortens the cells of column c (the header aside) to at most n
// runes with "…": their end when fromLeft is false, their start when it is
// true. It reports whether it cut any.
func cutCells(rows [][]string, c, n int, fromLeft bool) bool {
	did := false
	for _, row := range rows[1:] {
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

// columnWidths is the widest cell of each column of keep, in runes.
func columnWidths(rows [][]string, keep []int) []int {
	out := make([]int, len(keep))
	for _, row := range rows {
		for i, c := range keep {
			out[i] = max(out[i], utf8.RuneCountInString(row[c]))
		}
	}
	return out
}

// tableWidth is the columns the widest line of the table spans.
func tableWidth(rows [][]string, keep []int) int {
	total := 0
	for _, w := range columnWidths(rows, keep) {
		total += w + tableGap
	}
	return total - tableGap
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
