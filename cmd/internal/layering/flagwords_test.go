package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// flagWord is a command-line flag inside a string: "--set", "--out DIR".
var flagWord = regexp.MustCompile(`--[a-z]`)

// argToken is a string that is one command-line argument and nothing else
// ("--out", "--jobs=", "--dependency=afterany:"): an argument of a process
// the library starts (hyperctl train, sbatch, squeue), not a message.
var argToken = regexp.MustCompile(`^--[a-z][a-z0-9-]*(=\S*)?$`)

// flagsAllowed are the string literals outside cmd/ that may hold flags,
// by file and a part of the literal, with the reason: none is an error or
// a log message to a Go caller, who has no flags.
var flagsAllowed = []struct{ file, part, why string }{
	{"configs/foreignflags.go", "", "the did-you-mean for other tools' flags (CleanRL's, SB3's) given to hyperctl's command line: flags by nature"},
	{"experiment/slurm/job.go", "exec %s --log-format json", "a batch script's line that runs hyperctl"},
	{"experiment/slurm/script.go", `"$HYPERCTL" --log-format json`, "the batch script's shell text, which runs hyperctl"},
	{"experiment/slurm/script.go", "(e.g. --account=proj)", "an example of an sbatch option: Slurm's flag"},
	{"experiment/slurm/queue.go", "sbatch --parsable printed", "Slurm's flag, naming the command whose output is refused"},
	{"experiment/analysis/table.go", "--focus names another", "the report's Markdown, a document of the command line that also quotes the compare's command"},
	{"experiment/analysis/table.go", "--reference names another", "the report's Markdown, as above"},
	{"experiment/matrix/folders.go", "continue with: hyperctl train --out ", "status's hint: the command that continues a stopped run of hyperctl's environments (a user's own gets run.Train's)"},
	{"experiment/matrix/folders.go", " --resume", "the same hint's end"},
	{"experiment/matrix/statustable.go", "--json: all", "the table hyperctl status prints, pointing to its --json"},
}

// TestNoFlagsOutsideCmd: the library speaks Go. A string literal of a
// non-test, non-generated Go file of the module outside cmd/ holds no
// command-line flag ("--set", "--out DIR"), unless it is one argument of a
// process the library starts, a #SBATCH line of a job script, or allowed
// by flagsAllowed. An error or log line names the Go field, function or
// config key instead, with a flag's words.Words placeholder where a
// command rewords it (words.Say).
func TestNoFlagsOutsideCmd(t *testing.T) {
	root := filepath.Join("..", "..", "..") // the module, from cmd/internal/layering
	used := make([]bool, len(flagsAllowed))
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "cmd" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "." {
				return filepath.SkipDir // another module (examples/customenv, third_party/gotch)
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil || generated.Match(src) {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !flagWord.MatchString(s) || argToken.MatchString(s) || strings.HasPrefix(s, "#SBATCH ") {
				return true
			}
			for i, a := range flagsAllowed {
				if a.file == rel && strings.Contains(s, a.part) {
					used[i] = true
					return true
				}
			}
			t.Errorf("%s: %q names a command-line flag: name the Go field, function or config key, with a words.Words placeholder ({out}, {set}, ...) for a command to reword", rel, s)
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("scanned %d Go files outside cmd/; the walk is broken", files)
	}
	for i, a := range flagsAllowed {
		if !used[i] {
			t.Errorf("flagsAllowed: %s %q matches no literal any more; remove it", a.file, a.part)
		}
	}
}
