package analysis

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStatsMarkdownAndFigure runs the report on a fixture with a random
// baseline: the aggregate table, the verdict and the profile figure appear;
// a non-finite score stops the report with an error naming the run.
func TestStatsMarkdownAndFigure(t *testing.T) {
	dir := fixture(t)
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Random = map[string]RandomBaseline{"reacher": {Mean: -43, StdErr: 1, Episodes: 30}}
	s.Bootstrap = Bootstrap{Resamples: 200}
	out := t.TempDir()
	files, err := s.Write(out)
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"### Aggregate over environments",
		"| controller | runs | environments | IQM of normalised score [95 % CI] | P(> fixed) [95 % CI] | rule |",
		"**Verdict:**",
		"## Normalisation and bootstrap",
		"| reacher | -43.00 ± 1.00 (30) |",
		"IQM [95 % CI]",
		"P(> fixed) [95 % CI] |",
		"200 resamples",
		ProfileFile,
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	found := false
	for _, f := range files {
		found = found || filepath.Base(f) == ProfileFile
	}
	if !found {
		t.Errorf("files %v lack %s", files, ProfileFile)
	}
	checkPNG(t, filepath.Join(out, ProfileFile), 1000, 400)

	// A NaN evaluation return at the budget refuses the statistics.
	bad := filepath.Join(dir, "reacher", "random", "seed1", "eval.csv")
	b, err := os.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	last := strings.Split(lines[len(lines)-1], ",")
	last[4] = "NaN"
	lines[len(lines)-1] = strings.Join(last, ",")
	if err := os.WriteFile(bad, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Write(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "reacher/random/seed1") || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("NaN score: error %v, want one naming reacher/random/seed1", err)
	}
	var sb strings.Builder
	if err := s.Markdown(&sb); err == nil {
		t.Errorf("Markdown with a NaN score: no error")
	}
}

// checkPNG decodes a PNG and checks it is at least w×h pixels.
func checkPNG(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: not a PNG: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() < w || b.Dy() < h {
		t.Errorf("%s: %v, want at least %d×%d", path, b, w, h)
	}
}
