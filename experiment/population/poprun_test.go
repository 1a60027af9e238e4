package population

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	_ "github.com/hyperctl/hyperctl/baselines/all" // registered controllers (pb2's settings)
	popmethod "github.com/hyperctl/hyperctl/baselines/population"
	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/controller"
	_ "github.com/hyperctl/hyperctl/envs/all" // the environments
)

// membersConfig is the members' config of the population tests, shared
// with cmd/hyperctl's.
const membersConfig = "testdata/members.toml"

// members loads the members' config as `hyperctl population` does: its
// controller is the population's, its tuned keys the population's space.
func members(t *testing.T) configs.Run {
	t.Helper()
	base, err := configs.Load(membersConfig, func(r *configs.Run) { r.Controller.Name = configs.Population })
	if err != nil {
		t.Fatal(err)
	}
	return base
}

// setup writes a population of method with size members into a new folder.
func setup(t *testing.T, dir, method string, size int) string {
	t.Helper()
	base := members(t)
	def, run, err := Define(base, Spec{Method: method, Size: size, Seed: 1, Frames: 768, Ready: 256, Resample: -1, Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "pop")
	if err := Init(out, def, run); err != nil {
		t.Fatal(err)
	}
	return out
}

// errKilled stands for a kill at a phase boundary.
var errKilled = errors.New("killed at a phase boundary")

// runPop runs the population in process, stopping at the stop-th phase
// boundary (0: never); it returns the phases passed.
func runPop(t *testing.T, out string, stop int) ([]string, error) {
	t.Helper()
	return runWith(t, out, stop, nil)
}

// runWith is runPop with also at, called at every phase boundary.
func runWith(t *testing.T, out string, stop int, at func(p Phase, g int)) ([]string, error) {
	t.Helper()
	var phases []string
	_, err := Run(context.Background(), Options{Out: out, Jobs: 1, Log: zerolog.Nop(),
		Train: func(ctx context.Context, g, k int) error {
			return TrainMember(ctx, out, g, k, MemberOptions{Log: zerolog.Nop()})
		},
		Hook: func(p Phase, g int) error {
			phases = append(phases, fmt.Sprintf("%s@%d", p, g))
			if at != nil {
				at(p, g)
			}
			if len(phases) == stop {
				return errKilled
			}
			return nil
		}})
	return phases, err
}

// samePopulation fails unless two population folders hold the same log,
// plans, steps and result, and the same member CSVs (timing aside).
func samePopulation(t *testing.T, got, want string, size int) {
	t.Helper()
	files := []string{LogFile, ResultFile}
	for g := range 3 {
		files = append(files, fmt.Sprintf("%s/plan-%04d.json", GenerationsDir, g))
		if g < 2 {
			files = append(files, fmt.Sprintf("%s/step-%04d.json", GenerationsDir, g))
		}
	}
	for _, f := range files {
		a, err1 := os.ReadFile(filepath.Join(got, f))
		b, err2 := os.ReadFile(filepath.Join(want, f))
		if err := errors.Join(err1, err2); err != nil || string(a) != string(b) {
			t.Errorf("%s differs (%v):\n%s\nwant:\n%s", f, err, a, b)
		}
	}
	def, err := ReadDefinition(want)
	if err != nil {
		t.Fatal(err)
	}
	for k := range size {
		rel, _ := filepath.Rel(want, def.MemberDir(want, k))
		for _, f := range []string{rundir.TrainCSV, rundir.EvalCSV} {
			same, total, diff, err := rundir.CompareCSV(filepath.Join(got, rel, f), filepath.Join(want, rel, f))
			if err != nil || diff != "" || same != total || total == 0 {
				t.Errorf("member %d %s: %d/%d rows identical, %v: %s", k, f, same, total, err, diff)
			}
		}
	}
}

// A population stopped at every phase boundary and run again ends with
// the same log, plans, steps and member CSVs as an uninterrupted one; an
// exploited member's folder is its donor's at the step, and continues with
// the explored configuration.
func TestKillAtEveryPhase(t *testing.T) {
	dir := t.TempDir()
	ref := setup(t, filepath.Join(dir, "ref"), popmethod.PBT, 3)
	phases, err := runWith(t, ref, 0, func(p Phase, g int) {
		if p == PhasePlanned && g == 0 {
			checkCopy(t, ref)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	checkLastGeneration(t, ref)
	want := "trained@0 decided@0 copied@0 logged@0 planned@0 trained@1 decided@1 copied@1 logged@1 planned@1 trained@2 finished@2"
	if got := strings.Join(phases, " "); got != want {
		t.Fatalf("phases: %s\nwant:   %s", got, want)
	}
	recs, err := ReadLog(ref)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range recs {
		count[r.Event]++
	}
	if count[EventReady] != 6 || count[EventExploit] != 2 || count[EventExplore] != 2 || count[EventEnd] != 3 {
		t.Errorf("log events %v, want 6 ready, 2 exploit, 2 explore, 3 end", count)
	}
	for stop := 1; stop <= len(phases); stop++ {
		t.Run(phases[stop-1], func(t *testing.T) {
			out := setup(t, filepath.Join(dir, fmt.Sprint(stop)), popmethod.PBT, 3)
			if _, err := runPop(t, out, stop); !errors.Is(err, errKilled) {
				t.Fatalf("stop at %d: %v", stop, err)
			}
			if _, err := runPop(t, out, 0); err != nil {
				t.Fatal(err)
			}
			samePopulation(t, out, ref, 3)
		})
	}
}

// checkCopy, right after the first step: an exploited member's folder
// holds its donor's rows and config (seed included), and the next plan
// gives it the explored configuration.
func checkCopy(t *testing.T, out string) {
	t.Helper()
	def, _ := ReadDefinition(out)
	st, ok, err := ReadStep(out, 0)
	if err != nil || !ok {
		t.Fatal(err)
	}
	plan, _, err := ReadPlan(out, 1)
	if err != nil {
		t.Fatal(err)
	}
	for k, m := range st.Members {
		if m.Donor < 0 {
			continue
		}
		if m.Next["lr"] == st.Members[m.Donor].Hyper["lr"] && m.Next["clip"] == st.Members[m.Donor].Hyper["clip"] {
			t.Errorf("member %d explored nothing: %v", k, m.Next)
		}
		if plan.Members[k].Hyper["lr"] != m.Next["lr"] || plan.Members[k].Start != st.Members[m.Donor].Frames || plan.Members[k].Before != st.Members[m.Donor].Score {
			t.Errorf("member %d's next plan %+v does not start from its donor %d", k, plan.Members[k], m.Donor)
		}
		for _, f := range []string{rundir.TrainCSV, rundir.EvalCSV, rundir.ConfigFile} {
			a, _ := os.ReadFile(filepath.Join(def.MemberDir(out, k), f))
			b, _ := os.ReadFile(filepath.Join(def.MemberDir(out, m.Donor), f))
			if len(a) == 0 || string(a) != string(b) {
				t.Errorf("member %d's %s is not its donor's after the copy", k, f)
			}
		}
		return
	}
	t.Error("no member was exploited at the first step")
}

// checkLastGeneration: every member trains its last generation with the
// clip its plan gives it, from the plan's first frame on.
func checkLastGeneration(t *testing.T, out string) {
	t.Helper()
	def, _ := ReadDefinition(out)
	plan, ok, err := ReadPlan(out, def.Generations()-1)
	if err != nil || !ok {
		t.Fatal(err)
	}
	for k, pm := range plan.Members {
		l, err := rundir.ReadLog(filepath.Join(def.MemberDir(out, k), rundir.TrainCSV))
		if err != nil {
			t.Fatal(err)
		}
		cf, _ := l.Col(rundir.ColFrames)
		cc, _ := l.Col("clip")
		rows := 0
		for i := range l.Rows {
			f, _ := l.Float(i, cf)
			if int64(f)-64 < pm.Start { // the iteration started before the generation
				continue
			}
			rows++
			if c, _ := l.Float(i, cc); c != pm.Hyper["clip"] {
				t.Errorf("member %d, row %d: clip %v, the plan's %v", k, i, c, pm.Hyper["clip"])
			}
		}
		if rows != 4 {
			t.Errorf("member %d: %d rows in the last generation, want 4", k, rows)
		}
	}
}

// PB2 on the same population: deterministic, and resumed after a kill
// between its decision and its copy it ends the same.
func TestPB2Population(t *testing.T) {
	dir := t.TempDir()
	ref := setup(t, filepath.Join(dir, "ref"), popmethod.PB2, 3)
	if _, err := runPop(t, ref, 0); err != nil {
		t.Fatal(err)
	}
	st, _, err := ReadStep(ref, 1)
	if err != nil {
		t.Fatal(err)
	}
	ucb := false
	for _, m := range st.Members {
		for _, op := range m.Ops {
			ucb = ucb || op == "ucb" && m.Window == 3
		}
	}
	if !ucb {
		t.Errorf("the second PB2 step did not choose by GP-UCB on 3 points: %+v", st.Members)
	}
	out := setup(t, filepath.Join(dir, "killed"), popmethod.PB2, 3)
	if _, err := runPop(t, out, 7); !errors.Is(err, errKilled) { // decided@1
		t.Fatal(err)
	}
	if _, err := runPop(t, out, 0); err != nil {
		t.Fatal(err)
	}
	samePopulation(t, out, ref, 3)
}

// TestLastSpan checks that a population whose last generation is shorter
// than a member's largest iteration is refused (a member would finish
// before its last ready point), and that one long enough is accepted.
func TestLastSpan(t *testing.T) {
	base := members(t) // batch_size 64 on 2 environments, not tuned
	tuned := base
	tuned.Controller.Tune = append(append([]configs.TuneParam(nil), base.Controller.Tune...),
		configs.TuneParam{Name: "batch_size", Low: 50, High: 101, Scale: controller.Linear, Integer: true})
	for _, c := range []struct {
		name          string
		base          configs.Run
		frames, ready int64
		want          string // "" for accepted
	}{
		{"one generation", base, 100, 100, ""},
		{"frames a multiple of ready", base, 768, 256, ""},
		{"last span = one iteration", base, 832, 256, ""},
		{"last span < one iteration", base, 800, 256, "spans frames mod ready = 32 frames, less than one iteration may collect (64 frames"},
		{"tuned batch, rounded up to the environments", tuned, 1100, 500, "spans frames mod ready = 100 frames, less than one iteration may collect (102 frames"},
		{"tuned batch, long enough", tuned, 1102, 500, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Define(c.base, Spec{Method: "pbt", Size: 2, Seed: 1, Frames: c.frames, Ready: c.ready, Resample: -1, Command: "test"})
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}
