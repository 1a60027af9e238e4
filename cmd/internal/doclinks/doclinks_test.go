package doclinks

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestSlug(t *testing.T) {
	for _, c := range []struct{ heading, want string }{
		{"Usage", "usage"},
		{"What holds after a failure", "what-holds-after-a-failure"},
		{"The comparison at equal compute (issue 26)", "the-comparison-at-equal-compute-issue-26"},
		{"How long the paper's protocol takes on a cluster", "how-long-the-papers-protocol-takes-on-a-cluster"},
		{"hyperctl dashboard", "hyperctl-dashboard"},
		{"`fixed` on HalfCheetah-v4 at 1M frames: which figure is which", "fixed-on-halfcheetah-v4-at-1m-frames-which-figure-is-which"},
		{"From Python (or any language)", "from-python-or-any-language"},
		{"Dependencies and why", "dependencies-and-why"},
		{"snake_case and kebab-case", "snake_case-and-kebab-case"},
		{"A [linked](other.md#x) heading", "a-linked-heading"},
		{"Two  spaces", "two--spaces"},
		{"Über 5 × 3 — ≥ café", "über-5--3---café"},
		{"", ""},
	} {
		if got := Slug(c.heading); got != c.want {
			t.Errorf("Slug(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
}

func TestLinks(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []Link
	}{
		{"plain", "see [Setup](docs/setup.md) and [x](#y)", []Link{{1, "docs/setup.md"}, {1, "#y"}}},
		{"image", "![shot](results/a.png)", []Link{{1, "results/a.png"}}},
		{"title and brackets", `[a](b.md "T") [c](<d e.md>)`, []Link{{1, "b.md"}, {1, "d e.md"}}},
		{"code text", "[`hyperctl population`](populations.md)", []Link{{1, "populations.md"}}},
		{"code span is text", "`[a](b.md)` and ``x ` [c](d.md)``", nil},
		{"unclosed backtick is literal", "a ` [c](d.md)", []Link{{1, "d.md"}}},
		{"escaped bracket", `\[a](b.md)`, nil},
		{"fenced block", "x\n```sh\n[a](b.md)\n```\n[c](d.md)", []Link{{5, "d.md"}}},
		{"tilde fence with backticks inside", "~~~\n```\n[a](b.md)\n~~~\n[c](d.md)", []Link{{5, "d.md"}}},
		{"longer closing fence", "````\n```\n[a](b.md)\n````\n[c](d.md)", []Link{{5, "d.md"}}},
		{"wrapped text", "para [two\nlines](x.md) end", []Link{{2, "x.md"}}},
		{"no wrap over a blank line", "[a\n\nb](x.md)", nil},
		{"nested image", "[![alt](img.png)](page.md)", []Link{{1, "page.md"}, {1, "img.png"}}},
		{"brackets in text", "[a [b] c](x.md)", []Link{{1, "x.md"}}},
		{"parentheses in target", "[w](a_(b).md)", []Link{{1, "a_(b).md"}}},
		{"interval is not a link", "in [0, 1] (the range) and [0.1, 0.5]", nil},
		{"table row", "| a | [b](c.md) |\n|---|---|", []Link{{1, "c.md"}}},
		{"external", "[u](https://example.org/x) [m](mailto:a@b)", []Link{{1, "https://example.org/x"}, {1, "mailto:a@b"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Links(c.text); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Links(%q) = %v, want %v", c.text, got, c.want)
			}
		})
	}
}

func TestAnchors(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"levels", "# A\n## B c\n###### D", []string{"a", "b-c", "d"}},
		{"repeats numbered", "## Tests\n## Tests\n### Tests", []string{"tests", "tests-1", "tests-2"}},
		{"closing hashes", "## Title ##\n# #hash", []string{"title", "hash"}},
		{"not headings", "#hashtag\n    # indented code\n```\n# in a block\n```", nil},
		{"explicit", `<a name="here"></a> and <a id="there">`, []string{"here", "there"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for a := range Anchors(c.text) {
				got = append(got, a)
			}
			sort.Strings(got)
			want := append([]string(nil), c.want...)
			sort.Strings(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Anchors(%q) = %v, want %v", c.text, got, want)
			}
		})
	}
}

// write creates the files under dir, with their parents.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Check passes good links and reports each broken one, by line and reason.
func TestCheckFindsBrokenLinks(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"README.md": strings.Join([]string{
			"# Top", // 1
			"[ok](docs/a.md) [ok](docs/a.md#section)",                      // 2
			"[ok](#top) [ok](results/) [ok](docs/a.md#section-1)",          // 3
			"[bad](docs/missing.md)",                                       // 4
			"[bad](docs/a.md#nowhere)",                                     // 5
			"[bad](#nowhere) [ok](https://example.org/#nowhere)",           // 6
			"[bad](/abs/path.md) [bad](results/#x) [ok](results/r.csv#L1)", // 7
			"`[not a link](missing.md)`",                                   // 8
			"```",                                                          // 9
			"[not a link](missing.md)",                                     // 10
			"```",                                                          // 11
			"[bad]()",                                                      // 12
		}, "\n"),
		"docs/a.md":     "# A\n## Section\n## Section\n[ok](../README.md#top) [bad](../README.md#a)\n[ok](b%20c.md)",
		"docs/b c.md":   "# B",
		"results/r.csv": "x\n",
	})
	readme, docA := filepath.Join(dir, "README.md"), filepath.Join(dir, "docs", "a.md")
	checked, problems, err := Check([]string{readme, docA})
	if err != nil {
		t.Fatal(err)
	}
	if checked != 15 {
		t.Errorf("checked %d links, want 15", checked)
	}
	type found struct {
		file   string
		line   int
		target string
	}
	var got []found
	for _, p := range problems {
		if p.Reason == "" || !strings.Contains(p.String(), p.Target) {
			t.Errorf("problem %v: want a reason and the target in its text", p)
		}
		got = append(got, found{p.File, p.Line, p.Target})
	}
	want := []found{
		{readme, 4, "docs/missing.md"},
		{readme, 5, "docs/a.md#nowhere"},
		{readme, 6, "#nowhere"},
		{readme, 7, "/abs/path.md"},
		{readme, 7, "results/#x"},
		{readme, 12, ""},
		{docA, 4, "../README.md#a"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems:\n got %v\nwant %v", got, want)
	}
	if _, _, err := Check([]string{filepath.Join(dir, "absent.md")}); err == nil || !strings.Contains(err.Error(), "absent.md") {
		t.Errorf("Check of a missing file: err = %v, want one naming it", err)
	}
}

// Every relative link and anchor of README.md, scripts/README.md and
// docs/*.md resolves.
func TestRepositoryLinks(t *testing.T) {
	t.Chdir(filepath.Join("..", "..", ".."))
	if _, err := os.Stat("go.mod"); err != nil {
		t.Fatalf("the repository root is not ../../..: %v", err)
	}
	docs, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("no docs/*.md in the repository")
	}
	checked, problems, err := Check(append([]string{"README.md", "scripts/README.md"}, docs...))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("broken link: %s", p)
	}
	if checked < 20 {
		t.Errorf("checked only %d relative links in README.md and %d docs pages; the link extraction is broken", checked, len(docs))
	}
	t.Logf("%d relative links in README.md and %d docs pages", checked, len(docs))
}

// scripts/README.md names every file of scripts/ in the first cell of a
// table row, and names no file that is not there.
func TestScriptsListed(t *testing.T) {
	t.Chdir(filepath.Join("..", "..", ".."))
	text, err := os.ReadFile(filepath.Join("scripts", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(string(text), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.HasPrefix(line, "| `") {
			continue
		}
		listed[strings.Trim(strings.TrimSpace(cells[1]), "`")] = true
	}
	entries, err := os.ReadDir("scripts")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{}
	for _, e := range entries {
		if e.Name() == "README.md" || e.IsDir() {
			continue
		}
		files[e.Name()] = true
		if !listed[e.Name()] {
			t.Errorf("scripts/%s is not in scripts/README.md; add a row for it", e.Name())
		}
	}
	for name := range listed {
		if !files[name] {
			t.Errorf("scripts/README.md lists %s, which is not in scripts/", name)
		}
	}
	if len(files) < 10 {
		t.Errorf("found only %d scripts; the listing is broken", len(files))
	}
}
