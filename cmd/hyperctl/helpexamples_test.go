package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
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

// checkExample validates the command line l in the folder dir without
// running it: the command must exist and take its flags and arguments, and
// the dryRunnable commands run their checks (train and compare resolve
// their configs). A train --resume example gets a run folder to resume.
func checkExample(t *testing.T, dir, l string) error {
	args := strings.Fields(l)[1:]
	root := newRootCmd()
	c, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if c.Name() == "train" && strings.Contains(l, "--resume") {
		for i, a := range args[:len(args)-1] {
			if a == "--out" {
				writeRunConfig(t, filepath.Join(dir, args[i+1]))
			}
		}
	}
	if !dryRunnable[c.Name()] {
		if err := c.ParseFlags(rest); err != nil {
			return flagError(c, err)
		}
		return c.ValidateArgs(c.Flags().Args())
	}
	root.SetArgs(args)
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	return root.ExecuteContext(withDryRun(context.Background()))
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
// that hyperctl accepts (checkExample), in a fresh folder; and the check
// refuses the train example that --help once showed, which the default
// controller, fixed, refuses.
func TestHelpExamples(t *testing.T) {
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
	for _, l := range examples {
		t.Run(l, func(t *testing.T) {
			if err := checkExample(t, ".", l); err != nil {
				t.Errorf("%s\n  is refused: %v", l, err)
			}
		})
	}
	old := "hyperctl train --env halfcheetah --frames 1000000 --preset rl"
	if err := checkExample(t, ".", old); err == nil || !strings.Contains(err.Error(), "presets change the controller, and fixed has none") {
		t.Errorf("%s: %v, want the preset refused", old, err)
	}
}
