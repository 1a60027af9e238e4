package doclinks

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Link is one inline link or image of a Markdown text.
type Link struct {
	// Line is the 1-based line the link's target is on.
	Line int
	// Target is the destination as written between the parentheses, without
	// an optional title and angle brackets.
	Target string
}

// fence reports whether line opens or closes a fenced code block, with the
// fence's character and length.
func fence(line string) (ch byte, n int, info string, ok bool) {
	s := strings.TrimLeft(line, " \t")
	if len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return 0, 0, "", false
	}
	ch = s[0]
	for n < len(s) && s[n] == ch {
		n++
	}
	if n < 3 {
		return 0, 0, "", false
	}
	info = strings.TrimSpace(s[n:])
	if ch == '`' && strings.Contains(info, "`") {
		return 0, 0, "", false // a code span at the start of a line, not a fence
	}
	return ch, n, info, true
}

// proseLines returns the lines of text outside fenced code blocks, with
// their 1-based numbers; the lines of a block are left out, fences
// included.
func proseLines(text string) (lines []string, numbers []int) {
	var openCh byte
	openN := 0
	for i, line := range strings.Split(text, "\n") {
		ch, n, info, ok := fence(line)
		switch {
		case openN == 0 && ok:
			openCh, openN = ch, n
			lines = append(lines, "") // a fence ends a paragraph
			numbers = append(numbers, i+1)
		case openN > 0:
			if ok && ch == openCh && n >= openN && info == "" {
				openN = 0
			}
		default:
			lines = append(lines, line)
			numbers = append(numbers, i+1)
		}
	}
	return lines, numbers
}

// paragraph is a run of prose lines without a blank line, where a link's
// text may wrap from one line to the next.
type paragraph struct {
	text      string
	firstLine int
}

// paragraphs splits the prose of text (outside fenced code blocks) at
// blank lines and fences.
func paragraphs(text string) []paragraph {
	var ps []paragraph
	lines, numbers := proseLines(text)
	for i := 0; i < len(lines); {
		if strings.TrimSpace(lines[i]) == "" {
			i++
			continue
		}
		j := i
		for j < len(lines) && strings.TrimSpace(lines[j]) != "" && numbers[j] == numbers[i]+(j-i) {
			j++
		}
		ps = append(ps, paragraph{text: strings.Join(lines[i:j], "\n"), firstLine: numbers[i]})
		i = j
	}
	return ps
}

// blankCodeSpans returns line with the content of every code span, its
// backticks included, replaced by spaces, so that nothing inside it reads
// as a link. A run of backticks without a closing run of the same length
// is literal text.
func blankCodeSpans(line string) string {
	b := []byte(line)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(b) && b[i+n] == '`' {
			n++
		}
		end := -1
		for j := i + n; j < len(b); {
			if b[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(b) && b[j+m] == '`' {
				m++
			}
			if m == n {
				end = j + m
				break
			}
			j += m
		}
		if end < 0 {
			i += n
			continue
		}
		for k := i; k < end; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
		i = end
	}
	return string(b)
}

// closing returns the index of the bracket that closes the one at open
// (open and close are its two characters), skipping escaped ones, or -1.
func closing(s string, at int, open, close byte) int {
	depth := 0
	for i := at; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// destination returns the link destination inside the parentheses of an
// inline link: without a title ("...", '...' or (...)) and without the
// angle brackets of <...>.
func destination(inside string) string {
	s := strings.TrimSpace(inside)
	if strings.HasPrefix(s, "<") {
		if end := strings.IndexByte(s, '>'); end > 0 {
			return s[1:end]
		}
	}
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		s = s[:i]
	}
	return s
}

// Links returns the inline links and images of a Markdown text, in the
// order they appear: the target of every [text](target) and
// ![alt](target) outside fenced code blocks and code spans, whose text may
// wrap over lines of one paragraph. A link nested in another's text (an
// image inside a link) is returned after it.
func Links(text string) []Link {
	var links []Link
	for _, p := range paragraphs(text) {
		s := blankCodeSpans(p.text)
		for i := 0; i < len(s); i++ {
			if s[i] == '\\' {
				i++
				continue
			}
			if s[i] != '[' {
				continue
			}
			end := closing(s, i, '[', ']')
			if end < 0 || end+1 >= len(s) || s[end+1] != '(' {
				continue
			}
			stop := closing(s, end+1, '(', ')')
			if stop < 0 || strings.Contains(s[end+1:stop], "\n") {
				continue
			}
			links = append(links, Link{
				Line:   p.firstLine + strings.Count(s[:end], "\n"),
				Target: destination(s[end+2 : stop]),
			})
		}
	}
	return links
}

// inlineLink matches a link or image inside a heading, whose text is what
// the slug is made from.
var inlineLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

// Slug returns the anchor GitHub gives a heading: its text (a link's text
// for a link, a code span's content for a code span) in lower case, every
// space turned into '-', and every character that is not a letter, a digit,
// '-' or '_' dropped.
func Slug(heading string) string {
	text := inlineLink.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// atxHeading matches an ATX heading; its second group is the text, with
// an optional closing sequence of '#' still on it.
var atxHeading = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$`)

// closingHashes is a heading's optional closing sequence.
var closingHashes = regexp.MustCompile(`(^|[ \t]+)#+$`)

// explicitAnchor matches an HTML anchor, <a name="x"> or <a id="x">.
var explicitAnchor = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)

// Anchors returns the anchors a Markdown text defines: the slug of every
// ATX heading outside fenced code blocks, a repeated slug getting -1, -2,
// ... in order as GitHub numbers them, plus the names of <a name> and
// <a id> tags.
func Anchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	lines, _ := proseLines(text)
	for _, line := range lines {
		for _, m := range explicitAnchor.FindAllStringSubmatch(line, -1) {
			anchors[m[1]] = true
		}
		m := atxHeading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := Slug(strings.TrimSpace(closingHashes.ReplaceAllString(m[2], "")))
		if n := seen[slug]; n > 0 {
			anchors[slug+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

// Problem is a link that does not resolve.
type Problem struct {
	// File is the Markdown file holding the link, as given to Check.
	File string
	// Line is the link's 1-based line in File.
	Line int
	// Target is the link's target as written.
	Target string
	// Reason says what is wrong.
	Reason string
}

// String formats a problem as file:line: (target): reason.
func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: (%s): %s", p.File, p.Line, p.Target, p.Reason)
}

// scheme matches a target with a URL scheme (https:, mailto:, ...).
var scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// checker caches the anchors of the Markdown files it has read.
type checker struct {
	anchors map[string]map[string]bool
}

// anchorsOf returns the anchors of the Markdown file at path.
func (c *checker) anchorsOf(path string) (map[string]bool, error) {
	if a, ok := c.anchors[path]; ok {
		return a, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("doclinks: read %s: %w", path, err)
	}
	a := Anchors(string(data))
	c.anchors[path] = a
	return a, nil
}

// check returns why a link of file does not resolve, or "" when it does.
func (c *checker) check(file, target string) (string, error) {
	if target == "" {
		return "empty link target", nil
	}
	if scheme.MatchString(target) {
		return "", nil
	}
	rawPath, fragment, hasFragment := strings.Cut(target, "#")
	rawPath, _, _ = strings.Cut(rawPath, "?")
	path, err := url.PathUnescape(rawPath)
	if err != nil {
		return fmt.Sprintf("bad escape in the path: %v", err), nil
	}
	if strings.HasPrefix(path, "/") {
		return "an absolute path; write it relative to " + file, nil
	}
	dest := file
	if path != "" {
		dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
		info, err := os.Stat(dest)
		switch {
		case err != nil:
			return fmt.Sprintf("%s does not exist", dest), nil
		case !hasFragment:
			return "", nil
		case info.IsDir():
			return fmt.Sprintf("#%s points into %s, a folder", fragment, dest), nil
		case !strings.EqualFold(filepath.Ext(dest), ".md"):
			return "", nil // an anchor into a file other than Markdown is not checked
		}
	}
	if !hasFragment {
		return "", nil
	}
	anchor, err := url.PathUnescape(fragment)
	if err != nil {
		return fmt.Sprintf("bad escape in the anchor: %v", err), nil
	}
	anchors, err := c.anchorsOf(dest)
	if err != nil {
		return "", err
	}
	if !anchors[anchor] {
		return fmt.Sprintf("%s has no heading with the anchor #%s", dest, anchor), nil
	}
	return "", nil
}

// Check reads the Markdown files and checks every relative link of each:
// its file or folder exists, relative to the file holding the link, and
// its #anchor, if any, names a heading of the same file or of the target
// .md file. It returns how many links it checked (targets with a scheme
// are skipped and not counted) and the ones that do not resolve; an error
// only when a file cannot be read.
func Check(files []string) (checked int, problems []Problem, err error) {
	c := &checker{anchors: map[string]map[string]bool{}}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return checked, problems, fmt.Errorf("doclinks: read %s: %w", file, err)
		}
		for _, l := range Links(string(data)) {
			if l.Target != "" && scheme.MatchString(l.Target) {
				continue
			}
			checked++
			reason, err := c.check(file, l.Target)
			if err != nil {
				return checked, problems, err
			}
			if reason != "" {
				problems = append(problems, Problem{File: file, Line: l.Line, Target: l.Target, Reason: reason})
			}
		}
	}
	return checked, problems, nil
}
