package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// reportsTable is the table of the committed reports and their commands;
// reportsScript regenerates them from it.
const (
	reportsTable  = "results/reports.tsv"
	reportsScript = "scripts/reports.sh"
)

// slowReports are the committed reports that take over 10 s to
// regenerate; TestCommittedReports checks them only with
// HYPERCTL_REPORTS=all, and every other row of results/reports.tsv by
// default (`make test`). Measured with `HYPERCTL_REPORTS=all go test -v
// -run TestCommittedReports ./cmd/hyperctl` on 2026-12-07 at a load of 10
// on 2 cores: these two took 24 s and 22 s, every other row at most 9.3 s
// (results/wrong-start/decide/gamma-short/report), 261 s all together.
var slowReports = []string{
	"results/study/report",
	"results/tune-control/report",
}

// committedReport is one committed report: hyperctl report Input Flags --out
// Out, with Input composed by a script when it names one (*.sh).
type committedReport struct {
	Input, Out string
	Flags      []string
}

// readReportsTable reads results/reports.tsv (its format is in its header)
// below root. A row whose INPUT holds a `*` stands for every matching folder
// that has a committed report (OUT/report.md), with OUT's `*` the same part.
func readReportsTable(root string) ([]committedReport, error) {
	f, err := os.Open(filepath.Join(root, reportsTable))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []committedReport
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 3 {
			return nil, fmt.Errorf("%s:%d: %d tab-separated columns, want 3 (INPUT, OUT, FLAGS)", reportsTable, n, len(cols))
		}
		in, o, flags := cols[0], cols[1], strings.Fields(cols[2])
		if !strings.Contains(in, "*") {
			out = append(out, committedReport{in, o, flags})
			continue
		}
		prefix, suffix, _ := strings.Cut(in, "*")
		dirs, err := filepath.Glob(filepath.Join(root, in))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: INPUT %q: %w", reportsTable, n, in, err)
		}
		for _, d := range dirs {
			rel, err := filepath.Rel(root, d)
			if err != nil {
				return nil, err
			}
			match := strings.TrimSuffix(strings.TrimPrefix(rel, prefix), suffix)
			r := committedReport{rel, strings.Replace(o, "*", match, 1), flags}
			if _, err := os.Stat(filepath.Join(root, r.Out, "report.md")); err == nil {
				out = append(out, r)
			}
		}
	}
	return out, sc.Err()
}

// reportFiles lists the files a report folder holds that report writes:
// report.md and the PNGs.
func reportFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); n == "report.md" || strings.HasSuffix(n, ".png") {
			names = append(names, n)
		}
	}
	return names, nil
}

// firstDiff describes the first line where two texts differ.
func firstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d: committed %q, today %q", i+1, a, b)
		}
	}
	return "no line differs"
}

// TestCommittedReports checks that the committed reports of results/ (the
// rows of results/reports.tsv; all but slowReports, or every one with
// HYPERCTL_REPORTS=all) are, byte for byte, what `hyperctl report`
// writes today: report.md and every PNG, and no file more or fewer. The
// report is deterministic (the bootstrap and the random policy are seeded,
// and report.md holds no date, commit or path of the machine), so nothing is
// left out of the comparison. A difference names the file and the command
// that regenerates it.
func TestCommittedReports(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := readReportsTable(root)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("HYPERCTL_REPORTS") != "all" {
		n := len(rows)
		rows = slices.DeleteFunc(rows, func(r committedReport) bool { return slices.Contains(slowReports, r.Out) })
		if n-len(rows) != len(slowReports) {
			t.Fatalf("%d of the %d slow reports %v are rows of %s", n-len(rows), len(slowReports), slowReports, reportsTable)
		}
	}
	if len(rows) == 0 {
		t.Fatalf("%s names no committed report", reportsTable)
	}
	// The table's paths are relative to the repository's root, and so is
	// what report reads and writes.
	t.Chdir(root)
	for _, r := range rows {
		t.Run(r.Out, func(t *testing.T) {
			regen := fmt.Sprintf("regenerate it with `%s %s` (its command is its row in %s)", reportsScript, r.Out, reportsTable)
			in := r.Input
			if strings.HasSuffix(in, ".sh") {
				in = filepath.Join(t.TempDir(), "input")
				if out, err := exec.Command("bash", r.Input, in).CombinedOutput(); err != nil {
					t.Fatalf("%s %s: %v\n%s", r.Input, in, err, out)
				}
			}
			out := t.TempDir()
			var logs bytes.Buffer
			cmd := newRootCmd()
			cmd.SetOut(io.Discard)
			cmd.SetErr(&logs)
			cmd.SetArgs(append(append([]string{"--log-format", "json", "report", in}, r.Flags...), "--out", out))
			if err := cmd.ExecuteContext(context.Background()); err != nil {
				t.Fatalf("hyperctl report %s %s: %v\n%s", r.Input, strings.Join(r.Flags, " "), err, logs.String())
			}
			want, err := reportFiles(r.Out)
			if err != nil {
				t.Fatalf("the committed report: %v; %s", err, regen)
			}
			got, err := reportFiles(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range want {
				if !slices.Contains(got, n) {
					t.Errorf("%s is committed, but report no longer writes it; %s", filepath.Join(r.Out, n), regen)
				}
			}
			for _, n := range got {
				if !slices.Contains(want, n) {
					t.Errorf("%s is not committed, but report writes it today; %s", filepath.Join(r.Out, n), regen)
					continue
				}
				a, err := os.ReadFile(filepath.Join(r.Out, n))
				if err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(filepath.Join(out, n))
				if err != nil {
					t.Fatal(err)
				}
				if bytes.Equal(a, b) {
					continue
				}
				if n == "report.md" {
					t.Errorf("%s differs from what report writes today (%s); %s", filepath.Join(r.Out, n), firstDiff(a, b), regen)
				} else {
					t.Errorf("%s differs from what report writes today; %s", filepath.Join(r.Out, n), regen)
				}
			}
		})
	}
}
