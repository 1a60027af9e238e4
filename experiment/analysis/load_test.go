package analysis

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/matrix"
)

// writeConfig writes the identity keys of a run's config.toml.
func writeConfig(t *testing.T, dir, env, ctrl string, seed int64) {
	t.Helper()
	text := fmt.Sprintf("env = %q\nseed = %d\niterations = 20\nframes = 0\n\n[controller]\nname = %q\n", env, seed, ctrl)
	if err := os.WriteFile(filepath.Join(dir, rundir.ConfigFile), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLoadAnyFolder: a single run folder, a folder of train's runs (named
// by their config, with the @preset of train's default folder name kept),
// nested runs, a compare folder below the root (its variant folders kept),
// a second copy of a run (left out, said why), and a compare.json's cells
// named by the matrix although their configs say otherwise (a
// population's members after an exploit: the donor's config, its seed;
// in a population folder, by method and size, so populations of different
// sizes stay apart).
func TestLoadAnyFolder(t *testing.T) {
	root := t.TempDir()
	mk := func(rel, env, ctrl string, seed int64, finished bool) string {
		d := filepath.Join(root, rel)
		writeRun(t, d, 20, float64(seed), 1, 1e-5, finished)
		writeConfig(t, d, env, ctrl, seed)
		return d
	}
	single := mk("runs/reacher-fixed-seed0", "reacher", "fixed", 0, true)
	mk("runs/reacher-hypercontroller@rl-seed1", "reacher", "hypercontroller", 1, true)
	mk("runs/old/x/y", "pusher", "random", 4, false)
	mk("runs/cmp/reacher/hypercontroller@kframe/seed2", "reacher", "hypercontroller", 2, true)
	mk("runs/renamed", "reacher", "gpucb", 3, true) // named by its config alone
	copied := mk("runs/zz-copy", "reacher", "fixed", 0, true)
	mk("pop/reacher/pb2/seed0", "reacher", "population", 0, true)
	mk("pop/reacher/pb2/seed1", "reacher", "population", 0, true)
	if err := matrix.WriteManifest(filepath.Join(root, "pop"), matrix.Manifest{Envs: []string{"reacher"}, Controllers: []string{"pb2"}, Seeds: []int64{0, 1}, Iterations: 20}); err != nil {
		t.Fatal(err)
	}
	// A folder of populations: each one's matrix names its members, whose
	// configs all say seed 0 (and would otherwise be one run).
	for i, pop := range []string{"pops/seed0", "pops/seed1"} {
		seeds := []int64{int64(2 * i), int64(2*i + 1)}
		for _, sd := range seeds {
			mk(fmt.Sprintf("%s/reacher/pb2/seed%d", pop, sd), "reacher", "population", 0, true)
		}
		if err := matrix.WriteManifest(filepath.Join(root, pop), matrix.Manifest{Envs: []string{"reacher"}, Controllers: []string{"pb2"}, Seeds: seeds, Iterations: 20}); err != nil {
			t.Fatal(err)
		}
	}
	// Populations of one method and different sizes (population folders:
	// population.json beside compare.json): members named by method and
	// size, so that neither size's members are taken for the other's.
	for _, size := range []int64{2, 3} {
		pop := fmt.Sprintf("sizes/pb2-%d/seed0", size)
		var seeds []int64
		for sd := int64(0); sd < size; sd++ {
			seeds = append(seeds, sd)
			mk(fmt.Sprintf("%s/reacher/pb2/seed%d", pop, sd), "reacher", "population", 0, true)
		}
		if err := matrix.WriteManifest(filepath.Join(root, pop), matrix.Manifest{Envs: []string{"reacher"}, Controllers: []string{"pb2"}, Seeds: seeds, Iterations: 20}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, pop, matrix.PopulationFile), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A compare.json below the root that cannot be read: its cells are
	// Problems naming it.
	corrupt := filepath.Join(root, "corrupt", "cmp")
	mk("corrupt/cmp/reacher/pb2/seed0", "reacher", "population", 0, true)
	if err := os.WriteFile(filepath.Join(corrupt, matrix.ManifestFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}

	names := func(s *Set) []string {
		var out []string
		for _, r := range s.Runs {
			out = append(out, fmt.Sprintf("%s/%s/%d/%v", r.Env, r.Controller, r.Seed, r.Finished))
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		dir      string
		want     []string
		problems []string
	}{
		{"a single run", single, []string{"reacher/fixed/0/true"}, nil},
		{"a folder of runs", filepath.Join(root, "runs"), []string{
			"pusher/random/4/false",
			"reacher/fixed/0/true",
			"reacher/gpucb/3/true",
			"reacher/hypercontroller@kframe/2/true",
			"reacher/hypercontroller@rl/1/true",
		}, []string{copied + ": the same run (reacher, fixed, seed 0) as " + single + "; left out"}},
		{"a nested unfinished run", filepath.Join(root, "runs/old"), []string{"pusher/random/4/false"}, nil},
		{"a matrix names its cells", filepath.Join(root, "pop"), []string{"reacher/pb2/0/true", "reacher/pb2/1/true"}, nil},
		{"matrices below the root name their cells", filepath.Join(root, "pops"), []string{"reacher/pb2/0/true", "reacher/pb2/1/true", "reacher/pb2/2/true", "reacher/pb2/3/true"}, nil},
		// Their population.json ("{}") is no valid definition: every
		// population is verified, finished or not, and said once.
		{"populations of different sizes", filepath.Join(root, "sizes"), []string{"reacher/pb2-2/0/true", "reacher/pb2-2/1/true", "reacher/pb2-3/0/true", "reacher/pb2-3/1/true", "reacher/pb2-3/2/true"}, func() []string {
			var out []string
			for _, n := range []int{2, 3} {
				pop := filepath.Join(root, fmt.Sprintf("sizes/pb2-%d/seed0", n))
				out = append(out, pop+": "+filepath.Join(pop, matrix.PopulationFile)+": format: 0, this hyperctl reads 1")
			}
			return out
		}()},
		{"a corrupt matrix below the root", filepath.Join(root, "corrupt"), nil, []string{"report: " + filepath.Join(corrupt, matrix.ManifestFile) + ": unexpected end of JSON input"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Load(tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(s); !slices.Equal(got, tc.want) {
				t.Errorf("runs %v, want %v", got, tc.want)
			}
			if !slices.Equal(s.Problems, tc.problems) {
				t.Errorf("problems %q, want %q", s.Problems, tc.problems)
			}
			var md bytes.Buffer
			s.Focus = "hypercontroller"
			if err := s.Markdown(&md); err != nil {
				t.Fatal(err)
			}
			// No case has a plain hypercontroller run, the focus here.
			if len(s.Runs) > 0 && !strings.Contains(md.String(), "No rank: the ranked controller, hypercontroller, has no runs here (--focus names another).") {
				t.Errorf("the summary does not say the focus has no runs:\n%s", md.String())
			}
			for _, r := range s.Runs {
				if !strings.Contains(md.String(), "## "+r.Env) {
					t.Errorf("the report has no section for %s:\n%s", r.Env, md.String())
				}
			}
		})
	}
	// A folder whose run cannot be named says why.
	bad := filepath.Join(root, "bad")
	writeRun(t, bad, 5, 0, 1, 0, true)
	if err := os.WriteFile(filepath.Join(bad, rundir.ConfigFile), []byte("env = \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(bad)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Runs) != 0 || len(s.Problems) != 1 || !strings.Contains(s.Problems[0], filepath.Join(bad, rundir.ConfigFile)) {
		t.Errorf("unnameable run: runs %v, problems %q", names(s), s.Problems)
	}
}
