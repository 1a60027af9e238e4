package population

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hyperctl/hyperctl/internal/ground/termtext"
)

// PrintResult writes to w a population's members (folder, final evaluation,
// training score; the best marked), the frames used, its lineages and what
// to do next, folded to w's width (a terminal's).
func PrintResult(w io.Writer, out string, r Result, what string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "population %s: %s\n", what, out)
	width := len("folder")
	for _, m := range r.Members {
		width = max(width, len(m.Dir))
	}
	fmt.Fprintf(&b, "  member  %-*s  final eval  training score\n", width, "folder")
	ps, ok, err := ReadStatus(out)
	if err != nil {
		return err
	}
	marks := map[int]string{}
	for _, m := range ps.Pruned {
		marks[m.Member] = fmt.Sprintf("  pruned at rung %d", m.Rung+1)
	}
	for k, m := range r.Members {
		ev := "none"
		if m.FinalEvalReturn != nil {
			ev = strconv.FormatFloat(*m.FinalEvalReturn, 'f', 2, 64)
		}
		mark := marks[k]
		if k == r.Best {
			mark = "  best"
		}
		fmt.Fprintf(&b, "  %6d  %-*s  %10s  %14.2f%s\n", k, width, m.Dir, ev, m.Score, mark)
	}
	if ps.FramesUsed != nil {
		fmt.Fprintf(&b, "frames used: %d by all members together (%s)\n", *ps.FramesUsed, ps.Method)
	}
	if ok {
		if err := WriteLineages(&b, ps); err != nil {
			return err
		}
	}
	next := "hyperctl report " + out
	if r.Best >= 0 {
		next += "; hyperctl eval " + out + " (its best member)"
	}
	fmt.Fprintf(&b, "Log: %s. Next: %s\n", filepath.Join(out, LogFile), next)
	_, err = io.WriteString(w, termtext.Fold(b.String(), termtext.Width(w)))
	return err
}
