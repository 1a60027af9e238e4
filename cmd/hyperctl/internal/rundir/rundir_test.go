package rundir

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestCSVResumeKeepsRowsBelowCheckpoint(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "train.csv")
	hdr := []string{"iteration", "reward"}
	c, err := OpenCSV(p, hdr, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 7; i++ {
		if err := c.Append(i, float64(i)*1.5); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	// Simulate a kill in the middle of writing row 7.
	f, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString("7,10.")
	f.Close()

	cases := []struct {
		name      string
		keepBelow int
		wantRows  int
	}{
		{"resume from checkpoint at 5", 5, 5},
		{"resume past all rows drops only the torn line", 100, 5}, // rows 0..4 remain from the previous case
		{"fresh start", 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := OpenCSV(p, hdr, tc.keepBelow)
			if err != nil {
				t.Fatal(err)
			}
			c.Close()
			b, _ := os.ReadFile(p)
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			if lines[0] != "iteration,reward" {
				t.Fatalf("header %q", lines[0])
			}
			if got := len(lines) - 1; got != tc.wantRows {
				t.Fatalf("%d rows, want %d:\n%s", got, tc.wantRows, b)
			}
			for i, l := range lines[1:] {
				if strings.Split(l, ",")[0] != strconv.Itoa(i) {
					t.Fatalf("row %d is %q: rows must be continuous", i, l)
				}
			}
		})
	}
}

func TestCSVHeaderMismatch(t *testing.T) {
	p := filepath.Join(t.TempDir(), "train.csv")
	c, err := OpenCSV(p, []string{"iteration", "a"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := OpenCSV(p, []string{"iteration", "b"}, 0); err == nil || !strings.Contains(err.Error(), "header") {
		t.Fatalf("got %v, want a header mismatch error", err)
	}
}

func TestInspectAndSummary(t *testing.T) {
	dir := t.TempDir()
	if s, _ := Inspect(dir); s != Empty {
		t.Fatalf("state %v, want empty", s)
	}
	os.WriteFile(filepath.Join(dir, ConfigFile), []byte("env = \"x\"\n"), 0o644)
	if s, _ := Inspect(dir); s != Unfinished {
		t.Fatalf("state %v, want unfinished", s)
	}
	ret := 12.5
	if err := WriteSummary(dir, Summary{Env: "x", Iterations: 3, FinalEvalReturn: &ret}); err != nil {
		t.Fatal(err)
	}
	if s, _ := Inspect(dir); s != Finished {
		t.Fatalf("state %v, want finished", s)
	}
	got, err := ReadSummary(dir)
	if err != nil || got.Iterations != 3 || *got.FinalEvalReturn != 12.5 {
		t.Fatalf("summary round trip: %+v, %v", got, err)
	}
}

func TestCheckWritable(t *testing.T) {
	if os.Geteuid() == 0 {
		// root ignores permission bits; use a path under a regular file instead.
		f := filepath.Join(t.TempDir(), "file")
		os.WriteFile(f, nil, 0o644)
		if err := CheckWritable(filepath.Join(f, "sub")); err == nil || !strings.Contains(err.Error(), "cannot create") {
			t.Fatalf("got %v, want a cannot-create error", err)
		}
	} else {
		d := t.TempDir()
		os.Chmod(d, 0o555)
		if err := CheckWritable(filepath.Join(d, "sub")); err == nil {
			t.Fatal("want an error for a read-only parent")
		}
	}
	if err := CheckWritable(t.TempDir()); err != nil {
		t.Fatal(err)
	}
}

func TestConfigDiff(t *testing.T) {
	a := "env = \"halfcheetah\"\nseed = 0\n[ppo]\nlr = 0.0003\n"
	b := "env = \"halfcheetah\"\nseed = 1\n[ppo]\nlr = 0.0003\n"
	if d := ConfigDiff(a, a); d != "" {
		t.Fatalf("equal configs differ: %q", d)
	}
	d := ConfigDiff(a, b)
	if d != "- seed = 0\n+ seed = 1\n" {
		t.Fatalf("diff %q", d)
	}
}
