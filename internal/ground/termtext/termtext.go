// Package termtext fits hyperctl's text output to a terminal: the width of
// the terminal a writer is, and long lines folded at spaces to that width,
// so that what a command prints reads at 80 columns without the terminal's
// own wrapping. Pipes and files get their text whole. It imports nothing of
// the project, so every layer may use it.
package termtext

import (
	"bytes"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"
)

// Width is the width in columns of w when it is a terminal, or 0 when it is
// not (a pipe or a file: no width to fit).
func Width(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	if n, _, err := term.GetSize(int(f.Fd())); err == nil && n > 0 {
		return n
	}
	return 80
}

// Fold breaks every line of text longer than width − 1 columns at spaces
// (the last column stays free, so that no terminal wraps the line itself);
// the lines a line is folded into after its first are indented by two
// spaces more than it. A word longer than a line stays whole. With width
// <= 0 it returns text unchanged.
func Fold(text string, width int) string { return FoldAt(text, width, -1) }

// FoldAt is Fold with the folded lines indented by hang spaces (the column
// a table's last column starts at), or, with hang < 0, by two more than
// the line they come from.
func FoldAt(text string, width, hang int) string {
	indent := func(lead int) int { return lead + 2 }
	if hang >= 0 {
		indent = func(int) int { return hang }
	}
	return fold(text, width, width-1, indent, "", false)
}

// FoldColumns is Fold for text with two-column tables in it (a command's
// help: its files and what each holds, its presets): a line of an indented
// term, two or more spaces and a description folds under the description's
// column, as does an indented line that continues one; any other line as
// Fold folds it.
func FoldColumns(text string, width int) string {
	if width <= 0 {
		return text
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		b.WriteString(fold(line, width, width-1, func(lead int) int { return columnOf(line, lead) }, "", false))
	}
	return b.String()
}

// maxTermColumn bounds where a table's description column may start.
const maxTermColumn = 40

// columnOf is the column FoldColumns folds line under: where the
// description starts when the line is an indented term, two or more spaces
// and a description; the line's own indent lead when that is 4 or more (a
// description's next line); else lead + 2.
func columnOf(line string, lead int) int {
	if lead > 0 {
		if i := strings.Index(line[lead:], "  "); i > 0 {
			j := lead + i
			for j < len(line) && line[j] == ' ' {
				j++
			}
			if j < len(line) && j <= maxTermColumn && line[j] != '\n' {
				return utf8.RuneCountInString(line[:j])
			}
		}
	}
	if lead >= 4 {
		return lead
	}
	return lead + 2
}

// FoldShell folds the command lines of text (examples of a command's use)
// that are longer than width − 1 columns the way a shell reads them: it
// breaks at spaces outside quotes and ends each broken line with " \", and
// the lines after are indented by four spaces more, so that a folded
// example still runs when pasted. With width <= 0 it returns text
// unchanged.
func FoldShell(text string, width int) string {
	return fold(text, width, width-3, func(lead int) int { return lead + 4 }, " \\", true)
}

// fold breaks each line of text longer than width − 1 runes at a space
// (outside quotes when shell): the last space at or before limit, else the
// first after it. Each broken line ends with end, and the rest goes on a
// new line indented by indent(the line's own indent) spaces, until it fits
// or has no space left to break at. width <= 0 leaves text as it is.
func fold(text string, width, limit int, indent func(lead int) int, end string, shell bool) string {
	if width <= 0 {
		return text
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		body, nl := strings.CutSuffix(line, "\n")
		pad := strings.Repeat(" ", indent(len(body)-len(strings.TrimLeft(body, " "))))
		for r := []rune(body); visible(r) > width-1; r = []rune(body) {
			cut := breakAt(r, limit, shell)
			if cut < 0 {
				break // one long word (or quoted text): left whole
			}
			b.WriteString(strings.TrimRight(string(r[:cut]), " ") + end + "\n")
			body = pad + strings.TrimLeft(string(r[cut:]), " ")
		}
		b.WriteString(body)
		if nl {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// breakAt is where fold breaks r: the last space after r's indent at or
// before column limit, else the first after it, spaces inside quotes
// skipped when shell; -1 for none. Columns count what a terminal shows:
// escape sequences (colours) take none.
func breakAt(r []rune, limit int, shell bool) int {
	from := 0
	for from < len(r) && r[from] == ' ' {
		from++
	}
	cut, quote, col := -1, rune(0), from
	for i := from; i < len(r); i++ {
		if n := escapeLen(r[i:]); n > 0 {
			i += n - 1
			continue
		}
		switch c := r[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case shell && (c == '\'' || c == '"'):
			quote = c
		case c == ' ' && (col <= limit || cut < 0):
			cut = i
		}
		if col >= limit && cut >= 0 {
			break
		}
		col++
	}
	return cut
}

// escapeLen is the length in runes of the terminal escape sequence (a
// CSI: ESC [ parameters, then a final byte in @–~) r starts with, 0 when
// it starts with none.
func escapeLen(r []rune) int {
	if len(r) < 2 || r[0] != 0x1b || r[1] != '[' {
		return 0
	}
	for i := 2; i < len(r); i++ {
		if r[i] >= 0x40 && r[i] <= 0x7e {
			return i + 1
		}
	}
	return len(r)
}

// visible is the number of columns r takes on a terminal: its runes but
// the escape sequences'.
func visible(r []rune) int {
	n := 0
	for i := 0; i < len(r); i++ {
		if e := escapeLen(r[i:]); e > 0 {
			i += e - 1
			continue
		}
		n++
	}
	return n
}

// Writer is w, or when w is a terminal a writer that folds (Fold) each
// line written to it to the terminal's width: for messages written
// through an io.Writer, line by line. A line is held until its newline.
func Writer(w io.Writer) io.Writer {
	width := Width(w)
	if width <= 0 {
		return w
	}
	return &foldWriter{w: w, width: width}
}

// foldWriter folds each complete line it is given onto w.
type foldWriter struct {
	w     io.Writer
	width int
	buf   []byte
}

func (f *foldWriter) Write(p []byte) (int, error) {
	f.buf = append(f.buf, p...)
	if i := bytes.LastIndexByte(f.buf, '\n'); i >= 0 {
		if _, err := io.WriteString(f.w, Fold(string(f.buf[:i+1]), f.width)); err != nil {
			return 0, err
		}
		f.buf = f.buf[i+1:]
	}
	return len(p), nil
}
