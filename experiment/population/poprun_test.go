package population

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
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
	"github.com/hyperctl/hyperctl/experiment/matrix"
	"github.com/hyperctl/hyperctl/experiment/run"
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
	return setupCase(t, dir, popCase{method: method, size: size})
}

// popCase is a population of the kill tests: 768 frames in 3 generations
// (for halving, eta 2 gives 3 rungs of 4, 2 and 1 members).
type popCase struct {
	method    string
	size      int
	selection string
	sameStart bool // every member at the config's values (--init same)
	// firstExploit: no exploit before every member trained this many
	// frames (--first-exploit).
	firstExploit int64
	// frequencies replaces MF-PBT's periods: the default slow half would
	// not evolve in 3 generations.
	frequencies []int
	// receiverRandom replaces the definition's rule for the receiver's
	// random state.
	receiverRandom *string
}

// setupCase writes the population c into a new folder.
func setupCase(t *testing.T, dir string, c popCase) string {
	t.Helper()
	base := members(t)
	spec := Spec{Method: c.method, Size: c.size, Seed: 1, Frames: 768, Ready: 256, Resample: -1, Selection: c.selection, SameStart: c.sameStart, FirstExploit: c.firstExploit, Command: "test"}
	if c.method == popmethod.Halving {
		spec.Eta = 2 // Define ignores Ready for halving and random search
	}
	def, run, err := Define(base, spec)
	if err != nil {
		t.Fatal(err)
	}
	if c.receiverRandom != nil {
		def.ReceiverRandom = *c.receiverRandom
	}
	if c.frequencies != nil || c.receiverRandom != nil {
		if c.frequencies != nil {
			def.Settings.Frequencies = c.frequencies
		}
		if err := def.Validate(); err != nil {
			t.Fatal(err)
		}
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
			return TrainMember(ctx, out, g, k, MemberOptions{Log: zerolog.Nop(), Train: run.TrainMember})
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
	def, err := ReadDefinition(want)
	if err != nil {
		t.Fatal(err)
	}
	files := []string{LogFile, ResultFile}
	for g := range def.Generations() {
		files = append(files, fmt.Sprintf("%s/plan-%04d.json", GenerationsDir, g))
		if !def.Last(g) {
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
	for k := range size {
		rel, _ := filepath.Rel(want, def.MemberDir(want, k))
		files := []string{rundir.TrainCSV, rundir.EvalCSV}
		if def.Settings.Selection == popmethod.SelectTTest {
			files = append(files, rundir.EpisodesCSV)
		}
		for _, f := range files {
			same, total, diff, err := rundir.CompareCSV(filepath.Join(got, rel, f), filepath.Join(want, rel, f))
			// A member that successive halving stopped at the first rung
			// has not evaluated yet.
			empty := total == 0 && !(f == rundir.EvalCSV && def.Settings.Method == popmethod.Halving)
			if err != nil || diff != "" || same != total || empty {
				t.Errorf("member %d %s: %d/%d rows identical, %v: %s", k, f, same, total, err, diff)
			}
		}
	}
}

// A population stopped at every phase boundary and run again ends with
// the same log, plans, steps and member CSVs as an uninterrupted one; an
// exploited member's folder is its donor's at the step, and continues with
// the explored configuration. PBT, MF-PBT (8 members, periods 1 and 2 so
// that both halves evolve), PBT with t-test selection, PBT and PB2 with a
// late first exploit, random search, and successive halving (4 members,
// eta 2: rungs of 4, 2 and 1 members; over random configurations and over
// seeds of one).
func TestKillAtEveryPhase(t *testing.T) {
	for _, c := range []struct {
		name string
		pop  popCase
		// phases is the uninterrupted run's (""): not checked).
		phases string
		check  func(t *testing.T, out string)
	}{
		{"pbt", popCase{method: popmethod.PBT, size: 3},
			"trained@0 decided@0 copied@0 logged@0 planned@0 trained@1 decided@1 copied@1 logged@1 planned@1 trained@2 finished@2", checkPBT},
		{"mfpbt", popCase{method: popmethod.MFPBT, size: 8, frequencies: []int{1, 2}}, "", checkMFPBT},
		{"pbt-ttest", popCase{method: popmethod.PBT, size: 3, selection: popmethod.SelectTTest}, "", checkEpisodes},
		{"pbt-late", popCase{method: popmethod.PBT, size: 3, firstExploit: 512},
			"trained@0 decided@0 logged@0 planned@0 trained@1 decided@1 copied@1 logged@1 planned@1 trained@2 finished@2", checkLate},
		{"pb2-late", popCase{method: popmethod.PB2, size: 3, firstExploit: 512}, "", checkLate},
		{"random", popCase{method: popmethod.RandomSearch, size: 3}, "trained@0 finished@0", checkRandom},
		{"halving", popCase{method: popmethod.Halving, size: 4},
			"trained@0 decided@0 logged@0 planned@0 trained@1 decided@1 logged@1 planned@1 trained@2 finished@2", checkHalving},
		{"halving-same", popCase{method: popmethod.Halving, size: 4, sameStart: true}, "", checkSameStart},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			ref := setupCase(t, filepath.Join(dir, "ref"), c.pop)
			phases, err := runWith(t, ref, 0, func(p Phase, g int) {
				if p == PhasePlanned && g == 0 && c.pop.method == popmethod.PBT && c.pop.selection == "" && c.pop.firstExploit == 0 {
					checkCopy(t, ref)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			checkLastGeneration(t, ref)
			if got := strings.Join(phases, " "); c.phases != "" && got != c.phases {
				t.Fatalf("phases: %s\nwant:   %s", got, c.phases)
			}
			c.check(t, ref)
			for stop := 1; stop <= len(phases); stop++ {
				t.Run(phases[stop-1], func(t *testing.T) {
					out := setupCase(t, filepath.Join(dir, fmt.Sprint(stop)), c.pop)
					if _, err := runPop(t, out, stop); !errors.Is(err, errKilled) {
						t.Fatalf("stop at %d: %v", stop, err)
					}
					if _, err := runPop(t, out, 0); err != nil {
						t.Fatal(err)
					}
					samePopulation(t, out, ref, c.pop.size)
				})
			}
		})
	}
}

// events counts the population log's records by event.
func events(t *testing.T, out string) map[string]int {
	t.Helper()
	recs, err := ReadLog(out)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range recs {
		count[r.Event]++
	}
	return count
}

// checkPBT: 3 members over 2 steps, one exploit each.
func checkPBT(t *testing.T, out string) {
	if count := events(t, out); count[EventReady] != 6 || count[EventExploit] != 2 || count[EventExplore] != 2 || count[EventEnd] != 3 {
		t.Errorf("log events %v, want 6 ready, 2 exploit, 2 explore, 3 end", count)
	}
}

// checkLate: with the first exploit at 512 frames (the end of generation
// 1), the step after generation 0 copies nothing and the one after
// generation 1 copies as plain PBT does.
func checkLate(t *testing.T, out string) {
	if count := events(t, out); count[EventReady] != 6 || count[EventExploit] != 1 || count[EventEnd] != 3 {
		t.Errorf("log events %v, want 6 ready, 1 exploit, 3 end", count)
	}
	recs, _ := ReadLog(out)
	for _, r := range recs {
		if r.Event == EventExploit && r.Generation != 1 {
			t.Errorf("an exploit after generation %d, before the first-exploit frame", r.Generation)
		}
	}
}

// checkRandom: one generation, every member to its budget, no exploit.
func checkRandom(t *testing.T, out string) {
	if count := events(t, out); count[EventReady] != 0 || count[EventExploit] != 0 || count[EventEnd] != 3 {
		t.Errorf("log events %v, want 3 end and nothing else", count)
	}
}

// checkMFPBT: both halves evolve (one internal exploit each time a half
// evolves: 2 after generation 0, when only the fast half does, and more
// after generation 1), explores are perturbations or copies, and a
// migrant's explore record names the configuration it copied.
func checkMFPBT(t *testing.T, out string) {
	count := events(t, out)
	if count[EventReady] != 16 || count[EventEnd] != 8 || count[EventExploit] < 3 || count[EventExploit] != count[EventExplore] {
		t.Errorf("log events %v, want 16 ready, 8 end, at least 3 exploits with as many explores", count)
	}
	recs, _ := ReadLog(out)
	for _, r := range recs {
		if r.Event != EventExplore {
			continue
		}
		for key, op := range r.Ops {
			switch {
			case op == "copy" && r.Old[key] != r.New[key]:
				t.Errorf("generation %d, member %d: a copied %s moved %v -> %v", r.Generation, r.Member, key, r.Old[key], r.New[key])
			case op != "copy" && op != "*0.8" && op != "*1.25":
				t.Errorf("generation %d, member %d: op %q on %s, want MF-PBT's", r.Generation, r.Member, op, key)
			}
		}
	}
	for g, evolving := range map[int]int{0: 1, 1: 2} { // sub-populations that evolve
		st, _, err := ReadStep(out, g)
		if err != nil {
			t.Fatal(err)
		}
		internal := 0
		for _, m := range st.Members {
			for _, op := range m.Ops {
				if op != "copy" {
					internal++
					break
				}
			}
		}
		if internal != evolving {
			t.Errorf("step after generation %d: %d internal exploits, want %d", g, internal, evolving)
		}
	}
}

// checkEpisodes: every member's episodes.csv holds the returns whose
// per-iteration means and counts are train.csv's.
func checkEpisodes(t *testing.T, out string) {
	def, err := ReadDefinition(out)
	if err != nil {
		t.Fatal(err)
	}
	for k := range def.Size {
		dir := def.MemberDir(out, k)
		tl, err1 := rundir.ReadLog(filepath.Join(dir, rundir.TrainCSV))
		el, err2 := rundir.ReadLog(filepath.Join(dir, rundir.EpisodesCSV))
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		sum, n := map[string]float64{}, map[string]int{}
		for i := range el.Rows {
			v, _ := el.Float(i, 2)
			sum[el.Rows[i][0]] += v
			n[el.Rows[i][0]]++
		}
		ce, _ := tl.Col(rundir.ColEpisodes)
		cr, _ := tl.Col(rundir.ColMeanEpisodeReturn)
		total := 0
		for i := range tl.Rows {
			it := tl.Rows[i][0]
			e, _ := tl.Int(i, ce)
			total += e
			if e != n[it] {
				t.Errorf("member %d, iteration %s: %d episodes in train.csv, %d in episodes.csv", k, it, e, n[it])
				continue
			}
			if m, _ := tl.Float(i, cr); e > 0 && math.Abs(m-sum[it]/float64(e)) > 1e-5*math.Max(1, math.Abs(m)) {
				t.Errorf("member %d, iteration %s: mean return %v in train.csv, %v in episodes.csv", k, it, m, sum[it]/float64(e))
			}
		}
		if total == 0 || total != len(el.Rows) {
			t.Errorf("member %d: %d episodes in train.csv, %d rows in episodes.csv", k, total, len(el.Rows))
		}
	}
}

// checkSameStart checks a halving population whose members all started
// at the config's values (popCase.sameStart).
func checkSameStart(t *testing.T, out string) {
	t.Helper()
	p, ok, err := ReadPlan(out, 0)
	if err != nil || !ok {
		t.Fatalf("plan 0: %v (found %v)", err, ok)
	}
	for k, m := range p.Members {
		if !maps.Equal(m.Hyper, p.Members[0].Hyper) {
			t.Errorf("member %d starts at %v, member 0 at %v", k, m.Hyper, p.Members[0].Hyper)
		}
	}
	checkHalving(t, out)
}

// checkHalving: 4, 2 and 1 members train in the rungs (ready records),
// the best member is the one that finished, the frames used are the
// schedule's (whole iterations of 64 frames land on the rungs' frames),
// and status calls the members stopped short "pruned".
func checkHalving(t *testing.T, out string) {
	if count := events(t, out); count[EventReady] != 6 || count[EventExploit] != 0 || count[EventEnd] != 1 {
		t.Errorf("log events %v, want 6 ready (4 + 2), no exploit, 1 end", count)
	}
	res, err := ReadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	def, _ := ReadDefinition(out)
	rungs, _ := def.Rungs()
	if want := popmethod.FramesUsed(rungs); res.FramesUsed() != want || want != 4*192+2*192+384 {
		t.Errorf("frames used %d, the schedule's %d", res.FramesUsed(), want)
	}
	frames := map[int64]int{}
	for _, m := range res.Members {
		frames[m.Frames]++
	}
	if frames[192] != 2 || frames[384] != 1 || frames[768] != 1 || res.Best < 0 || res.Members[res.Best].Frames != 768 {
		t.Errorf("members' frames %v, best %d; want 2 stopped at 192, 1 at 384, the best at 768", frames, res.Best)
	}
	// Pruned names the three members that stopped short, at their rungs,
	// and MarkMembers turns their "missing" into "pruned" for status.
	pruned, err := Pruned(out, def)
	if err != nil || len(pruned) != 3 {
		t.Fatalf("Pruned: %v, %v; want 3 members", pruned, err)
	}
	st := matrix.Status{}
	for k, m := range res.Members {
		rel, _ := filepath.Rel(out, def.MemberDir(out, k))
		st.Runs = append(st.Runs, matrix.RunStatus{Dir: rel, Seed: MemberSeed(def.Seed, def.Size, k), State: matrix.Missing})
		if m.Frames == 768 {
			st.Runs[k].State = matrix.Finished
		}
	}
	if err := MarkMembers(out, &st); err != nil {
		t.Fatal(err)
	}
	for _, m := range pruned {
		if res.Members[m.Member].Frames != rungs[m.Rung].Frames || m.Frames != rungs[m.Rung].Frames {
			t.Errorf("member %d pruned at rung %d (%d frames); it trained %d", m.Member, m.Rung, m.Frames, res.Members[m.Member].Frames)
		}
		if r := st.Runs[m.Member]; r.State != matrix.Pruned || r.Detail != fmt.Sprintf("rung %d of 3, not promoted", m.Rung+1) {
			t.Errorf("member %d: state %v, detail %q after MarkMembers", m.Member, r.State, r.Detail)
		}
	}
	if c := st.Counts(); c[matrix.Pruned] != 3 || c[matrix.Finished] != 1 {
		t.Errorf("counts %v, want 3 pruned and 1 finished", c)
	}
	checkWaiting(t, out, def, pruned)
}

// checkWaiting: while a process runs the population (holds its lock), a
// member that no process writes and that was not pruned waits for its
// turn (pending, by MarkMembers in a compare folder's status and by
// MarkMemberFolders in a folder's); the pruned stay pruned, and once the
// lock is released the others are missing (stopped) again.
func checkWaiting(t *testing.T, out string, def Definition, pruned []PrunedMember) {
	t.Helper()
	isPruned := map[int]bool{}
	for _, m := range pruned {
		isPruned[m.Member] = true
	}
	states := func() (matrix.Status, []matrix.FolderRun) {
		st := matrix.Status{}
		var runs []matrix.FolderRun
		for k := 0; k < def.Size; k++ {
			dir := def.MemberDir(out, k)
			rel, _ := filepath.Rel(out, dir)
			seed := MemberSeed(def.Seed, def.Size, k)
			st.Runs = append(st.Runs, matrix.RunStatus{Dir: rel, Seed: seed, State: matrix.Missing})
			runs = append(runs, matrix.FolderRun{Dir: dir, Seed: seed, State: matrix.FolderStopped})
		}
		if err := MarkMembers(out, &st); err != nil {
			t.Fatal(err)
		}
		if err := MarkMemberFolders(runs); err != nil {
			t.Fatal(err)
		}
		return st, runs
	}
	lock, err := Lock(out)
	if err != nil {
		t.Fatal(err)
	}
	wait := fmt.Sprintf("waits for its turn: its population runs (process %d)", os.Getpid())
	st, runs := states()
	for k := range st.Runs {
		want, wantFolder, detail := matrix.Pending, matrix.FolderPending, wait
		if isPruned[k] {
			want, wantFolder, detail = matrix.Pruned, matrix.Pruned.String(), st.Runs[k].Detail
		}
		if r := st.Runs[k]; r.State != want || r.Detail != detail {
			t.Errorf("population running: member %d is %v (%q), want %v (%q)", k, r.State, r.Detail, want, detail)
		}
		if r := runs[k]; r.State != wantFolder || r.Detail != detail {
			t.Errorf("population running, folder status: member %d is %s (%q), want %s (%q)", k, r.State, r.Detail, wantFolder, detail)
		}
	}
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	st, runs = states()
	for k := range st.Runs {
		if isPruned[k] {
			continue
		}
		if st.Runs[k].State != matrix.Missing || runs[k].State != matrix.FolderStopped {
			t.Errorf("population stopped: member %d is %v / %s, want missing / stopped", k, st.Runs[k].State, runs[k].State)
		}
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

// checkLastGeneration: every member that trains in the last generation
// does so with the clip its plan gives it, from the plan's first frame on.
func checkLastGeneration(t *testing.T, out string) {
	t.Helper()
	def, _ := ReadDefinition(out)
	plan, ok, err := ReadPlan(out, def.Generations()-1)
	if err != nil || !ok {
		t.Fatal(err)
	}
	alive, err := Alive(out, def, def.Generations()-1)
	if err != nil {
		t.Fatal(err)
	}
	for k, pm := range plan.Members {
		if !alive[k] {
			continue
		}
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
		if want := int((def.Frames - pm.Start) / 64); rows != want {
			t.Errorf("member %d: %d rows in the last generation, want %d", k, rows, want)
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

// tunedBatch is base with batch_size among its tuned keys (50 to 101
// frames), so an iteration may collect up to 102 frames on 2 environments.
func tunedBatch(base configs.Run) configs.Run {
	tuned := base
	tuned.Controller.Tune = append(append([]configs.TuneParam(nil), base.Controller.Tune...),
		configs.TuneParam{Name: "batch_size", Low: 50, High: 101, Scale: controller.Linear, Integer: true})
	return tuned
}

// TestLastSpan checks that a population whose last generation is shorter
// than a member's largest iteration is refused (a member would finish
// before its last ready point), and that one long enough is accepted.
func TestLastSpan(t *testing.T) {
	base := members(t) // batch_size 64 on 2 environments, not tuned
	tuned := tunedBatch(base)
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

// TestSuggestReady: the ready SuggestReady gives is one Define accepts,
// about a twentieth of the frames where that spans an iteration, longer
// where it does not (the value --ready's refusal suggests); below one
// iteration there is none, and the refusals of a short ready name one.
func TestSuggestReady(t *testing.T) {
	base := members(t) // batch_size 64 on 2 environments: 64 frames an iteration
	tuned := tunedBatch(base)
	for _, c := range []struct {
		name   string
		base   configs.Run
		frames int64
		want   int64 // 0: none
	}{
		{"twenty generations", base, 6_400, 320},
		{"fewer generations where the last would be short", base, 1_001, 72}, // 15 of 67 would leave 63
		{"fewer generations where a twentieth is short", base, 768, 64},
		{"one generation", base, 100, 100},
		{"three generations, the last one iteration", base, 200, 67},
		{"less than an iteration", base, 63, 0},
		{"the tuned batch's bound, rounded up to the environments", tuned, 1_000, 112},
		{"the tuned batch, one generation", tuned, 150, 150},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, ok, err := SuggestReady(c.base, c.frames)
			if err != nil {
				t.Fatal(err)
			}
			if r != c.want || ok != (c.want > 0) {
				t.Fatalf("SuggestReady(%d) = %d, %v; want %d", c.frames, r, ok, c.want)
			}
			if !ok {
				return
			}
			if _, _, err := Define(c.base, Spec{Method: "pbt", Size: 2, Seed: 1, Frames: c.frames, Ready: r, Resample: -1, Command: "test"}); err != nil {
				t.Fatalf("Define refuses the suggested ready %d: %v", r, err)
			}
		})
	}
	_, _, err := Define(base, Spec{Method: "pbt", Size: 2, Seed: 1, Frames: 768, Ready: 20, Resample: -1, Command: "test"})
	if err == nil || !strings.Contains(err.Error(), "less than one iteration may collect (64 frames, the largest batch size); raise it, e.g. 64") {
		t.Errorf("a ready below one iteration: %v, want a refusal naming 64", err)
	}
	_, _, err = Define(base, Spec{Method: "pbt", Size: 2, Seed: 1, Frames: 800, Ready: 256, Resample: -1, Command: "test"})
	if err == nil || !strings.Contains(err.Error(), "or at least 64, e.g. 73") {
		t.Errorf("a last generation below one iteration: %v, want a refusal naming 73", err)
	}
}

// A step whose copies chain (member 0 copies member 1 while member 1
// copies member 2, as t-test selection may decide) stages member 1 before
// overwriting it: member 0 gets member 1's run as it was at the ready
// point, also when the step is stopped at any of its phases and redone.
func TestChainedCopies(t *testing.T) {
	dir := t.TempDir()
	// prep sets up a population stopped after its first decision, whose
	// record it rewrites into a chain; it returns the members' train.csv
	// at the ready point.
	prep := func(name string) (string, [][]byte) {
		out := setup(t, filepath.Join(dir, name), popmethod.PBT, 3)
		if _, err := runPop(t, out, 2); !errors.Is(err, errKilled) { // decided@0
			t.Fatal(err)
		}
		st, ok, err := ReadStep(out, 0)
		if err != nil || !ok {
			t.Fatal(err)
		}
		for k, donor := range []int{1, 2, -1} {
			st.Members[k].Donor, st.Members[k].Ops = donor, nil
			if donor >= 0 {
				st.Members[k].Next = st.Members[donor].Hyper
			}
		}
		if err := WriteStep(out, st); err != nil {
			t.Fatal(err)
		}
		def, _ := ReadDefinition(out)
		var csvs [][]byte
		for k := range 3 {
			b, err := os.ReadFile(filepath.Join(def.MemberDir(out, k), rundir.TrainCSV))
			if err != nil {
				t.Fatal(err)
			}
			csvs = append(csvs, b)
		}
		return out, csvs
	}
	ref, before := prep("ref")
	phases, err := runWith(t, ref, 0, func(p Phase, g int) {
		if p != PhasePlanned || g != 0 {
			return
		}
		def, _ := ReadDefinition(ref)
		for k, from := range []int{1, 2, 2} {
			b, _ := os.ReadFile(filepath.Join(def.MemberDir(ref, k), rundir.TrainCSV))
			if string(b) != string(before[from]) {
				t.Errorf("after the step, member %d's train.csv is not member %d's at the ready point", k, from)
			}
		}
		if _, err := os.Stat(stageDir(ref, 0)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the stage folder is left after the step: %v", err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "trained@0 staged@0 copied@0 copied@0 logged@0 planned@0"; !strings.HasPrefix(strings.Join(phases, " "), want) {
		t.Fatalf("phases %v, want them to start %s", phases, want)
	}
	for stop := 2; stop <= 6; stop++ { // the step's phases
		t.Run(phases[stop-1], func(t *testing.T) {
			out, _ := prep(fmt.Sprint(stop))
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

// Random search trains one generation of the whole budget, exploits
// nobody, and names as best the member with the highest final evaluation
// (popmethod.Best).
func TestRandomSearch(t *testing.T) {
	out := setupCase(t, t.TempDir(), popCase{method: popmethod.RandomSearch, size: 3})
	def, err := ReadDefinition(out)
	if err != nil {
		t.Fatal(err)
	}
	if def.Generations() != 1 || def.Ready != def.Frames {
		t.Fatalf("random search: %d generations of %d frames, want 1 of %d", def.Generations(), def.Ready, def.Frames)
	}
	phases, err := runPop(t, out, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(phases, " "); got != "trained@0 finished@0" {
		t.Errorf("phases %s", got)
	}
	res, err := ReadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	evals := make([]float64, len(res.Members))
	for k, m := range res.Members {
		if m.FinalEvalReturn == nil || m.Frames != 768 {
			t.Fatalf("member %d: %+v, want a final evaluation at 768 frames", k, m)
		}
		evals[k] = *m.FinalEvalReturn
	}
	if best, _ := popmethod.Best(evals); res.Best != best {
		t.Errorf("best member %d, popmethod.Best %d", res.Best, best)
	}
	if count := events(t, out); count[EventExploit] != 0 || count[EventEnd] != 3 {
		t.Errorf("log events %v, want 3 end and no exploit", count)
	}
}
