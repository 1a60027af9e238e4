package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
)

// dryRunnable are the commands that stop after their checks in a dry run
// (withDryRun); the others' examples are checked for their flags and
// arguments only.
var dryRunnable = map[string]bool{"train": true, "compare": true, "population": true, "eval": true, "judge": true, "render": true, "report": true}

// helpExamples returns every example command line of root's commands: the
// lines of their Example texts, and the indented lines of their Long
// texts, that start with "hyperctl ", with a trailing comment, pipe or
// redirection cut off; a line ending in " \\" continues on the next.
func helpExamples(root *cobra.Command) []string {
	var out []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, text := range []string{c.Long, c.Example} {
			lines := strings.Split(text, "\n")
			for i := 0; i < len(lines); i++ {
				l := lines[i]
				for strings.HasSuffix(l, " \\") && i+1 < len(lines) {
					i++
					l = strings.TrimSuffix(l, "\\") + strings.TrimSpace(lines[i])
				}
				indented := strings.HasPrefix(l, " ")
				l = strings.TrimSpace(l)
				if !strings.HasPrefix(l, "hyperctl ") || (text == c.Long && !indented) {
					continue
				}
				for _, cut := range []string{" #", " | ", " > "} {
					l, _, _ = strings.Cut(l, cut)
				}
				if strings.Count(l, ")") > strings.Count(l, "(") {
					l = strings.TrimSuffix(l, ")") // the end of a parenthesis of the text
				}
				out = append(out, strings.TrimSpace(l))
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// readsFolders are the commands whose arguments are folders of runs they
// read (judge: every argument; the others: the first).
var readsFolders = map[string]bool{"eval": true, "render": true, "judge": true, "report": true, "status": true, "dashboard": true}

// checkExample validates the command line l in the folder dir without
// running it: the command must exist and take its flags and arguments, and
// the dryRunnable commands run their checks (train and compare resolve
// their configs). A train --resume example gets a run folder to resume.
// It returns the folders of runs the line reads (its folder arguments,
// train --resume's --out) and those it would write (train's, compare's and
// population's, their default folder included).
func checkExample(t *testing.T, dir, l string) (reads, writes []string, envs map[string][]string, err error) {
	args := strings.Fields(l)[1:]
	root := newRootCmd()
	c, rest, err := root.Find(args)
	if err != nil {
		return nil, nil, nil, err
	}
	if c.Name() == "train" && strings.Contains(l, "--resume") {
		for i, a := range args[:len(args)-1] {
			if a == "--out" {
				reads = append(reads, args[i+1])
				writeRunConfig(t, filepath.Join(dir, args[i+1]))
			}
		}
	}
	if err := c.ParseFlags(rest); err != nil {
		return nil, nil, nil, flagError(c, err)
	}
	if pos := c.Flags().Args(); readsFolders[c.Name()] && len(pos) > 0 {
		if c.Name() != "judge" {
			pos = pos[:1]
		}
		reads = append(reads, pos...)
	}
	if !dryRunnable[c.Name()] {
		return reads, nil, nil, c.ValidateArgs(c.Flags().Args())
	}
	root = newRootCmd() // flags parsed once only
	root.SetArgs(args)
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	ctx := withDryRun(context.Background())
	err = root.ExecuteContext(ctx)
	writes, envs = dryRunOuts(ctx)
	return reads, writes, envs, err
}

// inOrder checks the command lines examples, in their order, in a fresh
// folder (checkExample): each must be accepted, and every folder of runs
// one reads must be written by one before it (or lie above one), or be a
// committed folder of the repository (results/, read in place from root);
// report --envs must name environments of the folder's runs.
func inOrder(t *testing.T, root string, examples []string) {
	var written []string
	envsOf := map[string][]string{}
	for _, l := range examples {
		t.Run(l, func(t *testing.T) {
			reads, writes, envs, err := checkExample(t, ".", l)
			if err != nil {
				t.Errorf("%s\n  is refused: %v", l, err)
			}
			for _, d := range reads {
				if d == strings.ToUpper(d) {
					continue // a placeholder (RUN) of a text, not an example
				}
				if strings.HasPrefix(d, "results/") {
					if _, err := os.Stat(filepath.Join(root, d)); err != nil {
						t.Errorf("%s\n  reads %s, which is not committed: %v", l, d, err)
					}
					continue
				}
				if !made(written, d) {
					t.Errorf("%s\n  reads %s, which no example before it writes (they write %v)", l, d, written)
				}
			}
			f := strings.Fields(l)
			for i := range f[:len(f)-1] {
				if f[1] == "report" && f[i] == "--envs" && len(reads) > 0 {
					for _, e := range strings.Split(f[i+1], ",") {
						if !slices.Contains(envsOf[reads[0]], e) {
							t.Errorf("%s\n  --envs %s: %s has runs of %v only", l, e, reads[0], envsOf[reads[0]])
						}
					}
				}
			}
			written = append(written, writes...)
			for d, e := range envs {
				envsOf[d] = append(envsOf[d], e...)
			}
		})
	}
}

// readmeExamples are the hyperctl command lines of README.md's sh blocks,
// in their order, a trailing comment cut off and a line ending in " \"
// joined with the next.
func readmeExamples(t *testing.T, root string) []string {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "```sh"):
			in = true
			continue
		case strings.HasPrefix(l, "```"):
			in = false
			continue
		}
		for strings.HasSuffix(l, " \\") && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, "\\") + strings.TrimSpace(lines[i])
		}
		l, _, _ = strings.Cut(l, " #")
		if l = strings.TrimSpace(l); in && strings.HasPrefix(l, "hyperctl ") {
			out = append(out, l)
		}
	}
	return out
}

// helpOrder is the order in which a user meets the commands whose
// examples make the folders others read: train, compare and population
// write runs, judge their judge.json; every other command's examples come
// after, in the order of the help.
var helpOrder = []string{"train", "compare", "population", "judge"}

// made reports whether dir is one of the folders made, or a folder above
// one of them.
func made(folders []string, dir string) bool {
	d := filepath.Clean(dir)
	for _, f := range folders {
		f = filepath.Clean(f)
		if f == d || strings.HasPrefix(f, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// writeRunConfig makes dir a run folder with reacher's default config.
func writeRunConfig(t *testing.T, dir string) {
	run, err := configs.Default("reacher")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := run.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, rundir.ConfigFile), []byte(plan.Text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHelpExamples: every example in every command's --help is a command
// that hyperctl accepts (checkExample), in a fresh folder, taken in the
// order a user meets them (helpOrder); every folder of runs an example
// reads is one an earlier example writes (or a folder above one), so that
// the examples run in that order from a fresh folder; and the check refuses
// the train example that --help once showed, which the default controller,
// fixed, refuses.
func TestHelpExamples(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	examples := helpExamples(newRootCmd())
	commands := map[string]bool{}
	for _, l := range examples {
		commands[strings.Fields(l)[1]] = true
	}
	for _, want := range []string{"train", "compare", "population", "eval", "render", "report", "status", "dashboard"} {
		if !commands[want] {
			t.Errorf("no example of %s found in the help texts (%d examples)", want, len(examples))
		}
	}
	rank := func(l string) int {
		if i := slices.Index(helpOrder, strings.Fields(l)[1]); i >= 0 {
			return i
		}
		return len(helpOrder)
	}
	slices.SortStableFunc(examples, func(a, b string) int { return rank(a) - rank(b) })
	inOrder(t, root, examples)
	old := "hyperctl train --env halfcheetah --frames 1000000 --preset rl"
	if _, _, _, err := checkExample(t, ".", old); err == nil || !strings.Contains(err.Error(), "presets change the controller, and fixed has none") {
		t.Errorf("%s: %v, want the preset refused", old, err)
	}
}

// TestReadmeExamples: README.md's usage examples, in the order written,
// in a fresh folder, pass the checks of TestHelpExamples (inOrder).
func TestReadmeExamples(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	examples := readmeExamples(t, root)
	if len(examples) < 10 {
		t.Fatalf("%d hyperctl examples in README.md's sh blocks, want the usage's", len(examples))
	}
	t.Chdir(t.TempDir())
	inOrder(t, root, examples)
}
