package run

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/deltabo"
	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/controller"
)

// trainHeader is `hyperctl train`'s train.csv header for the paper's four
// hyperparameters (the fixture rows below write them in this order).
var trainHeader = strings.Join(rundir.TrainColumns([]string{"batch_size", "clip", "gae_lambda", "lr"}), ",")

// fixtureRun writes a run folder like `hyperctl train` leaves it: config.toml
// (objective), train.csv with rows iterations 0…n−1 (the first without an
// objective under delta), and summary.json when finished.
func fixtureRun(t *testing.T, dir, objective string, n int, finished bool, cfg func(it int) (batch, clip, lambda, lr float64), obj func(it int) float64) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("config.toml", fmt.Sprintf("env = \"halfcheetah\"\n[controller]\nname = \"random\"\ninterval = 5\nobjective = %q\n", objective))
	var sb strings.Builder
	sb.WriteString(trainHeader + "\n")
	for it := range n {
		b, c, l, lr := cfg(it)
		o := ""
		if it > 0 || objective == "reward" {
			o = fmt.Sprint(obj(it))
		}
		fmt.Fprintf(&sb, "%d,%d,%g,0.001,%g,%s,3,-10.5,%g,%g,%g,%g,0\n", it, 2048*(it+1), 1.5*float64(it+1), 0.1*float64(it), o, b, c, l, lr)
	}
	write("train.csv", sb.String())
	if finished {
		write("summary.json", `{"env": "halfcheetah", "controller": "random", "seed": 0, "iterations": 10}`+"\n")
	}
}

// periodic configurations: a new one every 5 iterations.
func periodic(it int) (float64, float64, float64, float64) {
	k := float64(it / 5)
	return 1000 + 500*math.Mod(k, 10), 0.1 + 0.04*math.Mod(k, 10), 0.9 + 0.01*math.Mod(k, 10), 1e-5 * math.Pow(100, math.Mod(k, 7)/6)
}

// ReadTransfer finds the finished runs below a folder (nested as `hyperctl
// compare` lays them out), skips unfinished ones and checkpoint folders,
// and returns one record per row with an objective.
func TestReadTransferFixtures(t *testing.T) {
	root := t.TempDir()
	obj := func(it int) float64 { return float64(it) / 10 }
	fixtureRun(t, filepath.Join(root, "halfcheetah", "random", "seed0"), "delta", 12, true, periodic, obj)
	fixtureRun(t, filepath.Join(root, "halfcheetah", "random", "seed1"), "delta", 7, true, periodic, obj)
	fixtureRun(t, filepath.Join(root, "halfcheetah", "random", "seed2"), "delta", 9, false, periodic, obj) // unfinished
	fixtureRun(t, filepath.Join(root, "halfcheetah", "random", "seed0", "checkpoint"), "delta", 3, true, periodic, obj)
	names := transferSpace(t).Names()
	src, err := ReadTransfer(root, names)
	if err != nil {
		t.Fatal(err)
	}
	if len(src.Runs) != 2 || !strings.HasSuffix(src.Runs[0], "seed0") || !strings.HasSuffix(src.Runs[1], "seed1") {
		t.Fatalf("runs %v, want seed0 and seed1", src.Runs)
	}
	if src.Objective != controller.Delta {
		t.Errorf("objective %q", src.Objective)
	}
	if len(src.Records) != 11+6 {
		t.Fatalf("%d records, want 17 (iteration 0 has no objective)", len(src.Records))
	}
	r := src.Records[0]
	b, c, l, lr := periodic(1)
	if r.Run != 0 || r.Iteration != 1 || r.Time != 3 || r.Objective != 0.1 ||
		r.Config["batch_size"] != b || r.Config["clip"] != c || r.Config["gae_lambda"] != l || r.Config["lr"] != lr {
		t.Errorf("first record %+v", r)
	}
	if last := src.Records[len(src.Records)-1]; last.Run != 1 || last.Iteration != 6 {
		t.Errorf("last record %+v", last)
	}
}

// Bad transfer folders give clear errors naming the path and the problem.
func TestReadTransferErrors(t *testing.T) {
	names := transferSpace(t).Names()
	obj := func(it int) float64 { return 1 }
	mk := func(f func(root string)) string {
		root := t.TempDir()
		f(root)
		return root
	}
	missing := filepath.Join(t.TempDir(), "nope")
	noRuns := mk(func(root string) {
		fixtureRun(t, filepath.Join(root, "a"), "delta", 5, false, periodic, obj)
	})
	badCol := mk(func(root string) {
		fixtureRun(t, filepath.Join(root, "a"), "delta", 5, true, periodic, obj)
		b, _ := os.ReadFile(filepath.Join(root, "a", "train.csv"))
		s := strings.Replace(string(b), "gae_lambda", "lambda_gae", 1)
		os.WriteFile(filepath.Join(root, "a", "train.csv"), []byte(s), 0o644)
	})
	badNum := mk(func(root string) {
		fixtureRun(t, filepath.Join(root, "a"), "delta", 5, true, periodic, obj)
		b, _ := os.ReadFile(filepath.Join(root, "a", "train.csv"))
		s := strings.Replace(string(b), ",1,3,", ",abc,3,", 1)
		os.WriteFile(filepath.Join(root, "a", "train.csv"), []byte(s), 0o644)
	})
	nanObj := mk(func(root string) {
		fixtureRun(t, filepath.Join(root, "a"), "delta", 5, true, periodic, func(int) float64 { return math.NaN() })
	})
	mixed := mk(func(root string) {
		fixtureRun(t, filepath.Join(root, "a"), "delta", 5, true, periodic, obj)
		fixtureRun(t, filepath.Join(root, "b"), "reward", 5, true, periodic, obj)
	})
	file := filepath.Join(noRuns, "a", "train.csv")
	for _, c := range []struct {
		name, dir string
		want      []string
	}{
		{"missing folder", missing, []string{missing, "no such folder"}},
		{"a file", file, []string{file, "not a folder"}},
		{"no finished runs", noRuns, []string{noRuns, "no finished runs", "1 unfinished"}},
		{"missing column", badCol, []string{filepath.Join(badCol, "a", "train.csv"), "no column gae_lambda"}},
		{"bad number", badNum, []string{filepath.Join(badNum, "a", "train.csv"), "line 3", "objective"}},
		{"NaN objective", nanObj, []string{filepath.Join(nanObj, "a", "train.csv"), "finite"}},
		{"mixed objectives", mixed, []string{mixed, "different objectives", `"reward"`}},
	} {
		_, err := ReadTransfer(c.dir, names)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", c.name, err, w)
			}
		}
	}
	// Through the controller: the error names the folder, and a source
	// objective other than the run's is refused.
	for _, c := range []struct {
		dir       string
		objective controller.Objective
		want      string
	}{
		{missing, controller.Delta, "no such folder"},
		{mixed, controller.Delta, "different objectives"},
		{mk(func(root string) { fixtureRun(t, filepath.Join(root, "r"), "reward", 30, true, periodic, obj) }), controller.Delta, `logged the "reward" objective`},
	} {
		s := deltabo.DefaultSettings()
		s.TransferFrom, s.Objective = c.dir, c.objective
		_, err := buildTransfer(t, &s)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.dir) {
			t.Errorf("build with transfer_from %s: error %v, want one naming the folder and %q", c.dir, err, c.want)
		}
	}
}

// A controller built from a fixture folder reads it and fits g.
func TestTransferFromFolder(t *testing.T) {
	root := t.TempDir()
	obj := func(it int) float64 {
		_, c, _, _ := periodic(it)
		return 1 - 10*(c-0.3)*(c-0.3)
	}
	for s := range 3 {
		fixtureRun(t, filepath.Join(root, fmt.Sprintf("seed%d", s)), "delta", 100, true, periodic, obj)
	}
	set := deltabo.DefaultSettings()
	set.SetTransferFrom(root, controller.Delta)
	ctl, err := buildTransfer(t, &set)
	if err != nil {
		t.Fatal(err)
	}
	// 3 runs × 99 iterations with an objective, in blocks of 5 = 20 each.
	if n := ctl.Method().(*deltabo.DeltaBO).SourcePoints(); n != 60 {
		t.Errorf("source: %d points, want 60", n)
	}
	if set.Records != nil {
		t.Error("withTransfer changed the settings it was given")
	}
}

// buildTransfer builds DeltaBO over the paper's space as training does:
// the source runs handed over by withTransfer.
func buildTransfer(t *testing.T, s *deltabo.Settings) (*controller.Controller, error) {
	space := transferSpace(t)
	set, err := withTransfer(s, space)
	if err != nil {
		return nil, err
	}
	return controller.Build(deltabo.Name, set, space, controller.Options{Interval: 5, Seed: 1})
}

// transferSpace is the paper's space, as the default config tunes it.
func transferSpace(t *testing.T) controller.Space {
	t.Helper()
	c := configs.Base().Controller
	s, err := c.Space()
	if err != nil {
		t.Fatal(err)
	}
	return s
}
