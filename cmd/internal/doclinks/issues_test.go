package doclinks

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// issueRef matches a project issue number as prose names it: "issue 25",
// "Issues 26 and 36", "issue #37", "pre-issue-18", or a bare "#36" after
// a space, a bracket or the start of the text. A path such as
// results/ppo/issue18/ is a file's name, not prose, and is not matched.
var issueRef = regexp.MustCompile(`(?i)\bissues?(?:\s+|-)#?\d+|(?:^|[\s(\[])#\d+\b`)

// issueRefs returns each issue reference in text with its 1-based line.
func issueRefs(text string) (refs []string, lines []int) {
	for i, line := range strings.Split(text, "\n") {
		for _, m := range issueRef.FindAllString(line, -1) {
			refs, lines = append(refs, strings.TrimSpace(m)), append(lines, i+1)
		}
	}
	return refs, lines
}

// goTexts returns the comments and string literals of a Go source file,
// each with the line it starts on: what a user reads of it (doc comments,
// --help, messages and logs).
func goTexts(path string, src []byte) (texts []string, lines []int) {
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile(path, -1, len(src)), src, nil, scanner.ScanComments)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return texts, lines
		}
		if tok == token.COMMENT || tok == token.STRING {
			texts, lines = append(texts, lit), append(lines, fset.Position(pos).Line)
		}
	}
}

func TestIssueRefs(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"the control study", nil},
		{"issue 25's matrix", []string{"issue 25"}},
		{"Issues 26 and 36", []string{"Issues 26"}},
		{"see issue #37", []string{"issue #37"}},
		{"fixed (#36)", []string{"(#36"}},
		{"#4 of them", []string{"#4"}},
		{"[a](docs/a.md#section-1) and x#2 and issues are open", nil},
		{"we issue requests", nil},
		{"runs from before the issue-18 work", []string{"issue-18"}},
		{"pre-issue-18 runs", []string{"issue-18"}},
		{"`results/ppo/issue18/`", nil},
		{"an issue-free run", nil},
	} {
		got, _ := issueRefs(tc.text)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("issueRefs(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestNoIssueNumbers: what a user reads names studies and features, never
// the project's issue numbers. It covers README.md, docs/*.md,
// examples/**/*.md, and the comments and string literals (doc comments,
// --help, error and log messages) of every non-test Go file of the module
// and of examples/, except third_party/. The study records, results/ and
// scripts/, may keep issue numbers: they are not covered.
func TestNoIssueNumbers(t *testing.T) {
	t.Chdir(filepath.Join("..", "..", ".."))
	if _, err := os.Stat("go.mod"); err != nil {
		t.Fatalf("the repository root is not ../../..: %v", err)
	}
	skip := map[string]bool{"third_party": true, "results": true, "scripts": true, ".git": true, "bin": true, "runs": true}
	var mds, gos int
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (skip[path] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		isMD := strings.HasSuffix(path, ".md") && (path == "README.md" || filepath.Dir(path) == "docs" || strings.HasPrefix(path, "examples"+string(filepath.Separator)))
		isGo := strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go")
		if !isMD && !isGo {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		texts, starts := []string{string(src)}, []int{1}
		if isGo {
			gos++
			texts, starts = goTexts(path, src)
		} else {
			mds++
		}
		for i, text := range texts {
			refs, lines := issueRefs(text)
			for j, ref := range refs {
				t.Errorf("%s:%d: %q names a project issue; name the study or the feature instead", path, starts[i]+lines[j]-1, ref)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if mds < 10 || gos < 100 {
		t.Errorf("read %d markdown and %d Go files; the walk is broken", mds, gos)
	}
	t.Logf("%d markdown and %d Go files", mds, gos)
}
