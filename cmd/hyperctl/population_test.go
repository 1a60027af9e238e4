package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/matrix"
	"github.com/hyperctl/hyperctl/experiment/population"
)

// popTestConfig is the members' config of the population tests
// (3 generations of 10 iterations with the ready and frames of popArgs).
const popTestConfig = "../../experiment/population/testdata/members.toml"

func popArgs(cfg, out string) []string {
	return []string{"population", "--env", "reacher", "--method", "pbt", "--size", "2", "--frames", "1920", "--ready", "640",
		"--jobs", "2", "--seed", "3", "--config", cfg, "--out", out}
}

// samePopulationFolders fails unless two population folders hold the same
// log, plans, steps and result, and members with the same CSVs (timing
// aside).
func samePopulationFolders(t *testing.T, got, want string) {
	t.Helper()
	var files []string
	filepath.WalkDir(want, func(p string, d os.DirEntry, err error) error {
		rel, _ := filepath.Rel(want, p)
		switch {
		case err != nil || d.IsDir():
		case strings.HasPrefix(filepath.Base(filepath.Dir(rel)), "ready-"):
			// A member's sealed digests of its files, whose timing columns
			// differ between runs.
		case rel == population.LogFile || rel == population.ResultFile || strings.HasPrefix(rel, population.GenerationsDir):
			files = append(files, rel)
		case filepath.Base(rel) == rundir.TrainCSV || filepath.Base(rel) == rundir.EvalCSV || filepath.Base(rel) == rundir.EpisodesCSV:
			same, total, diff, err := rundir.CompareCSV(filepath.Join(got, rel), p)
			// A member that successive halving stopped at the first rung
			// has not evaluated.
			stopped := filepath.Base(rel) == rundir.EvalCSV && strings.Contains(filepath.ToSlash(rel), "/halving/")
			if err != nil || diff != "" || same != total || total == 0 && !stopped {
				t.Errorf("%s: %d/%d rows identical, %v: %s", rel, same, total, err, diff)
			}
		}
		return nil
	})
	def, err := population.ReadDefinition(want)
	if err != nil {
		t.Fatal(err)
	}
	if g := def.Generations(); len(files) != 2*g+1 { // the log, the result, g plans, g-1 steps
		t.Fatalf("the reference holds %d population files, want %d for %d generations: %v", len(files), 2*g+1, g, files)
	}
	for _, rel := range files {
		a, err1 := os.ReadFile(filepath.Join(got, rel))
		b, err2 := os.ReadFile(filepath.Join(want, rel))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs from the uninterrupted population's (%v, %v)", rel, err1, err2)
		}
	}
}

// TestPopulationKillAndResume runs a population through the binary
// uninterrupted, then again with two real SIGKILLs: of a member's training
// process in the middle of generation 1 (the population reports the
// failure and stops after the generation), and of the population process
// itself in the middle of generation 2 (its children checkpoint on the
// SIGTERM they get); run again each time, it ends with the same log,
// plans, steps and member CSVs.
func TestPopulationKillAndResume(t *testing.T) {
	dir := t.TempDir()
	cfg, err := filepath.Abs(popTestConfig)
	if err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(dir, "ref")
	if o, e, code := runCLI(t, popArgs(cfg, ref)...); code != 0 || !strings.Contains(o, "population finished") {
		t.Fatalf("uninterrupted: exit %d\n%s\n%s", code, o, e)
	}
	out := filepath.Join(dir, "killed")
	members := []string{filepath.Join(out, "reacher", "pbt", "seed6"), filepath.Join(out, "reacher", "pbt", "seed7")}
	// busy returns the pid of a member process writing a folder past row
	// rows, once there is one (bounded: 60 s).
	busy := func(rows int) int {
		t.Helper()
		for i := 0; i < 30000; i++ {
			for _, m := range members {
				if it, _, ok := rundir.LastRow(m); ok && it >= rows {
					if pid, held, _ := rundir.Holder(m); held && pid > 0 {
						return pid
					}
				}
			}
			time.Sleep(2 * time.Millisecond)
		}
		t.Fatal("no member process was found training")
		return 0
	}
	start := func() (*exec.Cmd, *bytes.Buffer) {
		c := exec.Command(binPath, popArgs(cfg, out)...)
		var buf bytes.Buffer
		c.Stdout, c.Stderr = &buf, &buf
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		return c, &buf
	}
	// 1. A member's process dies in generation 1.
	c, buf := start()
	pid := busy(12)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(); err == nil || !strings.Contains(buf.String(), "failed") {
		t.Fatalf("population after a member's SIGKILL: %v\n%s", err, buf)
	}
	// 2. The population process dies in generation 2.
	c, buf = start()
	busy(22)
	if err := c.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	// status of the folder above it, read as run folders, tells a member
	// to continue with its population, never alone with train --resume.
	for i := 0; i < 30000; i++ { // bounded: 60 s for the members to exit
		held := false
		for _, m := range members {
			_, h, _ := rundir.Holder(m)
			held = held || h
		}
		if !held {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	o, e, code := runCLI(t, "status", "--json", dir)
	var folder struct{ Runs []matrix.FolderRun }
	if err := json.Unmarshal([]byte(o), &folder); code != 0 || err != nil {
		t.Fatalf("status --json %s: exit %d, %v\n%s\n%s", dir, code, err, o, e)
	}
	stopped := 0
	for _, r := range folder.Runs {
		if strings.HasPrefix(r.Dir, out) && r.State == matrix.FolderStopped {
			stopped++
			if !strings.HasPrefix(r.Detail, "continue its population with: hyperctl ") || !strings.Contains(r.Detail, " population ") {
				t.Errorf("status of a killed population's member %s: %q, want its population's command", r.Dir, r.Detail)
			}
		}
	}
	if stopped == 0 {
		t.Errorf("status found no stopped member of the killed population:\n%s", o)
	}
	// Its own status says how far it is, in frames of the planned 2 × 1920.
	if o, e, code := runCLI(t, "status", out); code != 0 || !strings.Contains(o, "in progress; ") || !strings.Contains(o, " of 3840 frames trained (") {
		t.Errorf("status of the killed population: exit %d\n%s\n%s", code, o, e)
	}
	// 3. Continued to the end.
	if o, e, code := runCLI(t, popArgs(cfg, out)...); code != 0 {
		t.Fatalf("resumed: exit %d\n%s\n%s\nkilled run's output:\n%s", code, o, e, buf)
	}
	samePopulationFolders(t, out, ref)
	// The same command again does nothing and says so.
	if o, _, code := runCLI(t, popArgs(cfg, out)...); code != 0 || !strings.Contains(o, "already finished") || !strings.Contains(o, "lineages: the members' weights descend from") ||
		!strings.Contains(o, "Next: hyperctl report "+out+"; hyperctl eval "+out+" (its best member)") {
		t.Errorf("re-run of a finished population: exit %d\n%s", code, o)
	}
	// status says how far it is, its best member and its lineages, as the
	// log and result.json say.
	recs, err := population.ReadLog(ref)
	if err != nil {
		t.Fatal(err)
	}
	lin, err := population.Lineages(recs, 2)
	if err != nil {
		t.Fatal(err)
	}
	res, err := population.ReadResult(ref)
	if err != nil {
		t.Fatal(err)
	}
	since := "starting members ("
	if lin.OneSince >= 0 {
		since = fmt.Sprintf(", since the step after generation %d)", lin.OneSince)
	}
	o, e, code = runCLI(t, "status", ref)
	for _, want := range []string{
		since,
		fmt.Sprintf("population: pbt, 2 members, 3 of 3 generations logged, finished; best member %d (final evaluation return %.2f)", res.Best, *res.Members[res.Best].FinalEvalReturn),
		fmt.Sprintf("lineages: the members' weights descend from %d of 2 starting members", len(lin.Roots)),
		fmt.Sprintf("by member: %d %d\n", lin.Origin[0], lin.Origin[1]),
		fmt.Sprintf(" %d/1920 frames ", res.Members[0].Frames), // PROGRESS: frames of the budget
		"  pbt-2  ", // CONTROLLER: the members named by method and size, as report names them
	} {
		if code != 0 || !strings.Contains(o, want) {
			t.Errorf("status of a finished population: exit %d, want %q in\n%s\n%s", code, want, o, e)
		}
	}
	o, _, code = runCLI(t, "status", "--json", ref)
	var js struct {
		Population *population.Status `json:"population"`
	}
	if err := json.Unmarshal([]byte(o), &js); code != 0 || err != nil || js.Population == nil ||
		!js.Population.Finished || fmt.Sprint(js.Population.Origins) != fmt.Sprint(lin.Origin) || *js.Population.Best != res.Best {
		t.Errorf("status --json of a finished population: exit %d, %v: %s", code, err, o)
	}
	// eval on the population evaluates its best member's policy.
	o, e, code = runCLI(t, "eval", ref, "--episodes", "1", "--json")
	var ev struct {
		RunDir string `json:"run_dir"`
	}
	if err := json.Unmarshal([]byte(o), &ev); code != 0 || err != nil || ev.RunDir != filepath.Join(ref, res.Members[res.Best].Dir) ||
		!strings.Contains(e, fmt.Sprintf("is a population: using its best member, member %d (final evaluation return %.2f)", res.Best, *res.Members[res.Best].FinalEvalReturn)) {
		t.Errorf("eval of a finished population: exit %d, %v\n%s\n%s", code, err, o, e)
	}
	// Another population in the same folder is refused, naming the difference.
	other := append(popArgs(cfg, out), "--ready", "320")
	if _, e, code := runCLI(t, other...); code != 1 || !strings.Contains(e, `"ready": 640`) {
		t.Errorf("another population in the folder: exit %d\n%s", code, e)
	}
}

func TestPopulationUsage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		// The suggested --ready spans reacher's largest batch (6000 frames).
		{[]string{"--env", "reacher", "--out", dir, "--frames", "48000"}, "--ready: its default, 50000 frames per generation, is more than --frames 48000; give --ready, e.g. --ready 6000 ("},
		{[]string{"--env", "reacher", "--out", dir, "--frames", "8192"}, "give --ready, e.g. --ready 8192 ("},
		{[]string{"--env", "reacher", "--out", dir, "--frames", "4000"}, "is more than --frames 4000, which is less than one iteration of the members: raise --frames"},
		{[]string{"--env", "nope", "--out", dir}, "--env"},
		{[]string{"--env", "reacher", "--out", dir, "--method", "ga"}, "--method \"ga\": want one of pbt, pb2"},
		{[]string{"--env", "reacher", "--out", dir, "--size", "1"}, "--size"},
		{[]string{"--env", "reacher", "--out", dir, "--ready", "0"}, "--ready"},
		{[]string{"--env", "reacher", "--out", dir, "--frames", "100", "--ready", "200"}, "--ready"},
		{[]string{"--env", "reacher", "--out", dir, "--method", "pb2", "--resample", "0.5"}, "--resample: only with --method pbt"},
		{[]string{"--env", "reacher", "--out", dir, "--time", "01:00:00"}, "--time: only with --backend slurm"},
		{[]string{"--env", "reacher", "--out", dir, "--method", "mfpbt", "--size", "6"}, "--size: 6 members in 2 sub-populations: MF-PBT needs"},
		{[]string{"--env", "reacher", "--out", dir, "--method", "halving", "--first-exploit", "1000"}, "--first-exploit: only with --method pbt or pb2"},
		{[]string{"--env", "reacher", "--out", dir, "--first-exploit", "-1"}, "--first-exploit \"-1\": want a number of frames in [0, "},
		{[]string{"--env", "reacher", "--out", dir, "--first-exploit", "2e6"}, "--first-exploit: want a frame in [0, --frames = 1000000], got 2000000"},
		{[]string{"--env", "reacher", "--out", dir, "--first-exploit", "4.5e5x"}, "--first-exploit \"4.5e5x\": want a number of frames"},
		{[]string{"--env", "reacher", "--out", dir, "--selection", "tournament"}, "--selection \"tournament\": want truncation or ttest"},
		{[]string{"--env", "reacher", "--out", dir, "--method", "mfpbt", "--selection", "ttest"}, "--selection: only with --method pbt or pb2"},
		{[]string{"--env", "reacher", "--out", dir, "--method", "random", "--quantile", "0.5"}, "--quantile: only with --method pbt or pb2"},
		{[]string{"--env", "reacher", "--out", dir, "--eta", "2"}, "--eta, --min-frames: only with --method halving"},
		{[]string{"--env", "reacher", "--out", dir, "--method", "halving", "--eta", "1"}, "--eta: want an integer >= 2, got 1"},
		{[]string{"--env", "reacher", "--out", dir, "--method", "halving", "--min-frames", "0"}, "--min-frames: want a frame in [1, --frames = 1000000], got 0"},
		{[]string{"--env", "reacher", "--out", dir, "--method", "halving", "--min-frames", "1.5e6"}, "--min-frames: want a frame in [1, --frames = 1000000], got 1500000"},
		{[]string{"--env", "reacher", "--out", dir, "--method", "halving", "--ready", "50000"}, "--ready: not with --method halving"},
		{[]string{"--env", "reacher", "--out", dir, "--method", "halving", "--size", "3", "--eta", "4"}, "--size 3, --eta 4, --min-frames 1: one rung, so successive halving would stop no member"},
		{[]string{"--env", "reacher", "--out", dir, "--method", "halving", "--size", "8", "--min-frames", "600000"}, "want --size >= --eta and --min-frames <= --frames/--eta = 333333"},
		{[]string{"--env", "reacher", "--out", dir, "--method", "random", "--ready", "50000"}, "--ready: not with --method random"},
		// Generations and rungs shorter than one iteration of the members
		// (the paper's largest batch, 6000 frames) are usage errors too.
		{[]string{"--env", "reacher", "--out", filepath.Join(dir, "short"), "--frames", "20000", "--ready", "5000"}, "less than one iteration may collect (6000 frames, the largest batch size); raise it, e.g. 6667"},
		{[]string{"--env", "reacher", "--out", filepath.Join(dir, "short"), "--frames", "14000", "--ready", "6500"}, "ready: the last generation spans frames mod ready = 1000 frames"},
		{[]string{"--env", "reacher", "--out", filepath.Join(dir, "short"), "--method", "halving", "--frames", "15000"}, "min frames: rung 0 trains 5000 frames (to 5000)"},
	} {
		_, e, code := runCLI(t, append([]string{"population"}, c.args...)...)
		if code != 2 || !strings.Contains(e, c.want) {
			t.Errorf("population %v: exit %d, want 2 and %q:\n%s", c.args, code, c.want, e)
		}
	}
	// An --out holding a train run folder (issue 40) is refused, and
	// nothing is written beside the run's files.
	runDir := filepath.Join(dir, "trainrun")
	os.MkdirAll(runDir, 0o755)
	for _, f := range []string{"config.toml", "train.csv", "summary.json"} {
		os.WriteFile(filepath.Join(runDir, f), []byte("x\n"), 0o644)
	}
	if _, e, code := runCLI(t, "population", "--env", "reacher", "--out", runDir, "--frames", "24000", "--ready", "6000"); code != 1 || !strings.Contains(e, "is not a population") {
		t.Errorf("--out a train run folder: exit %d\n%s", code, e)
	}
	if ents, _ := os.ReadDir(runDir); len(ents) != 3 {
		t.Errorf("--out a train run folder: %d entries after the refusal, want the run's 3", len(ents))
	}
	// A member trains only under population.
	cfg := filepath.Join(dir, "m.toml")
	text, err := os.ReadFile(popTestConfig)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(cfg, []byte(strings.Replace(string(text), "[ppo]", "[controller]\nname = \"population\"\ninterval = 1\n\n[ppo]", 1)), 0o644)
	if _, e, code := runCLI(t, "train", "--config", cfg, "--out", filepath.Join(dir, "m")); code != 1 || !strings.Contains(e, "hyperctl population") {
		t.Errorf("train of a population member: exit %d\n%s", code, e)
	}
}

// Successive halving through the binary: 4 members, eta 2, rungs at 192,
// 384 and 768 frames; the result and status say the frames used (4·192 +
// 2·192 + 1·384), and random search finishes in one generation.
func TestPopulationMethods(t *testing.T) {
	dir := t.TempDir()
	cfg, err := filepath.Abs(popTestConfig)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "halving")
	args := []string{"population", "--env", "reacher", "--method", "halving", "--eta", "2", "--size", "4", "--frames", "768", "--jobs", "2", "--config", cfg, "--out", out}
	if o, e, code := runCLI(t, args...); code != 0 || !strings.Contains(o, "population finished") || !strings.Contains(o, "frames used: 1536 by all members together (halving)") ||
		strings.Count(o, "pruned at rung 1\n") != 2 || strings.Count(o, "pruned at rung 2\n") != 1 {
		t.Fatalf("halving: exit %d\n%s\n%s", code, o, e)
	}
	// The members not promoted are pruned at their rungs, not missing;
	// halving copies no weights, so no lineage line.
	if o, e, code := runCLI(t, "status", out); code != 0 || !strings.Contains(o, "population: halving-eta2, 4 members, 3 of 3 rungs logged, finished; best member") || !strings.Contains(o, "; 1536 frames used") ||
		strings.Count(o, "rung 1 of 3, not promoted") != 2 || strings.Count(o, "rung 2 of 3, not promoted") != 1 ||
		!strings.Contains(o, "status: 4 runs: 1 finished, 3 pruned, 0 running, 0 pending, 0 failed, 0 missing") || strings.Contains(o, "lineages") {
		t.Errorf("status of halving: exit %d\n%s\n%s", code, o, e)
	}
	// report names the matrix's cells as its runs (halving-4), and says
	// which members halving pruned.
	if o, e, code := runCLI(t, "report", out, "--random-episodes", "1", "--resamples", "10", "--out", filepath.Join(dir, "report")); code != 0 ||
		!strings.Contains(o, "controllers halving-eta2-4;") || strings.Contains(o, "missing seeds") || strings.Contains(o, "unfinished:") ||
		!strings.Contains(o, "- halving-eta2-4: pruned by successive halving: seed 0 at rung ") {
		t.Errorf("report of halving: exit %d\n%s\n%s", code, o, e)
	}
	// A damaged population.json is said once, naming the file; the members
	// then read as their folders say (unfinished), never as pruned.
	damaged := filepath.Join(dir, "damaged")
	if err := os.CopyFS(damaged, os.DirFS(out)); err != nil {
		t.Fatal(err)
	}
	def := filepath.Join(damaged, population.DefinitionFile)
	if b, err := os.ReadFile(def); err != nil || os.WriteFile(def, bytes.Replace(b, []byte(`"Eta": 2`), []byte(`"Eta": 3`), 1), 0o644) != nil {
		t.Fatal(err)
	}
	if o, e, code := runCLI(t, "report", damaged, "--random-episodes", "1", "--resamples", "10", "--out", filepath.Join(dir, "report-damaged")); code != 0 ||
		strings.Count(o, "population.json is refused") != 1 || !strings.Contains(o, "unfinished: seed") || strings.Contains(o, "pruned by") {
		t.Errorf("report of a population with a damaged population.json: exit %d\n%s\n%s", code, o, e)
	}
	if err := os.RemoveAll(damaged); err != nil {
		t.Fatal(err)
	}
	// The folder above the population, read as run folders, says the same.
	if o, e, code := runCLI(t, "status", dir); code != 0 || strings.Count(o, "rung 1 of 3, not promoted") != 2 || !strings.Contains(o, "status: 4 runs: 1 finished, 3 pruned, 0 running, 0 stopped") {
		t.Errorf("status of the folder above halving: exit %d\n%s\n%s", code, o, e)
	}
	rnd := filepath.Join(dir, "random")
	if o, e, code := runCLI(t, "population", "--env", "reacher", "--method", "random", "--size", "2", "--frames", "768", "--jobs", "2", "--config", cfg, "--out", rnd); code != 0 || !strings.Contains(o, "population finished") || !strings.Contains(o, "  best\n") {
		t.Fatalf("random: exit %d\n%s\n%s", code, o, e)
	}
	if o, e, code := runCLI(t, "status", rnd); code != 0 || !strings.Contains(o, "population: random, 2 members, 1 of 1 generations logged, finished") {
		t.Errorf("status of random search: exit %d\n%s\n%s", code, o, e)
	}
}

// TestSlurmPopulation runs a population of 2 members and 3 generations on a
// real one-node Slurm (scripts/slurm-local.sh): each generation a job
// array, the step after it a job that depends on it and submits the next.
// No process of the test stays between the submission and the end. It must
// end with the log, plans, steps and member CSVs of the same population run
// locally. Then successive halving (4 members, eta 2: rungs of 4, 2 and 1
// members, whose arrays hold only the members that train), PBT with t-test
// selection and a late first exploit, MF-PBT (8 members) and random search
// (one generation). Skips, with the reason, when the daemons cannot start.
func TestSlurmPopulation(t *testing.T) {
	startLocalSlurm(t, "/tmp/hyperctl-slurm-pop-e2e", "6847", "6848")
	cfg, err := filepath.Abs(popTestConfig)
	if err != nil {
		t.Fatal(err)
	}
	halving := func(cfg, out string) []string {
		return []string{"population", "--env", "reacher", "--method", "halving", "--eta", "2", "--size", "4", "--frames", "768", "--jobs", "2", "--config", cfg, "--out", out}
	}
	antiGreedy := func(cfg, out string) []string {
		return append(popArgs(cfg, out), "--selection", "ttest", "--first-exploit", "640")
	}
	mfpbt := func(cfg, out string) []string {
		return []string{"population", "--env", "reacher", "--method", "mfpbt", "--size", "8", "--frames", "1920", "--ready", "640", "--jobs", "2", "--config", cfg, "--out", out}
	}
	random := func(cfg, out string) []string {
		return []string{"population", "--env", "reacher", "--method", "random", "--size", "2", "--frames", "768", "--jobs", "2", "--config", cfg, "--out", out}
	}
	for _, c := range []struct {
		name     string
		args     func(cfg, out string) []string
		finished string // status's count of finished runs
		arrays   int    // member job arrays: one per generation
	}{
		{"pbt", popArgs, "2 finished", 3},
		{"halving", halving, "1 finished", 3},
		{"pbt-ttest-late", antiGreedy, "2 finished", 3},
		{"mfpbt", mfpbt, "8 finished", 3},
		{"random", random, "2 finished", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "slurm")
			args := slicesDeleteJobs(append(c.args(cfg, out), "--backend", "slurm", "--time", "00:10:00"))
			start := time.Now()
			o, e, code := runCLI(t, args...)
			if code != 0 || !strings.Contains(o, "submitted generation 0") {
				t.Fatalf("population --backend slurm: exit %d\n%s\n%s", code, o, e)
			}
			t.Logf("%s", strings.TrimSpace(o))
			if o, _, code := runCLI(t, args...); code != 0 || !strings.Contains(o, "nothing submitted") {
				t.Errorf("a second submission while the chain is queued: exit %d\n%s", code, o)
			}
			ref := filepath.Join(dir, "local")
			if o, e, code := runCLI(t, c.args(cfg, ref)...); code != 0 {
				t.Fatalf("the local reference: exit %d\n%s\n%s", code, o, e)
			}
			for i := 0; ; i++ { // bounded: 5 minutes
				if _, err := os.Stat(filepath.Join(out, population.ResultFile)); err == nil {
					break
				}
				if i == 1500 {
					logs, _ := filepath.Glob(filepath.Join(out, "slurm", "logs", "*"))
					var b strings.Builder
					for _, l := range logs {
						c, _ := os.ReadFile(l)
						fmt.Fprintf(&b, "== %s\n%s\n", l, c)
					}
					q, _ := exec.Command("squeue").CombinedOutput()
					t.Fatalf("no result after 5 minutes; queue:\n%s\nSlurm logs:\n%s", q, b.String())
				}
				time.Sleep(200 * time.Millisecond)
			}
			t.Logf("the chain took %.1f s", time.Since(start).Seconds())
			samePopulationFolders(t, out, ref)
			var man struct {
				SlurmJobs []struct{ ID string } `json:"slurm_jobs"`
			}
			b, _ := os.ReadFile(filepath.Join(out, "compare.json"))
			if json.Unmarshal(b, &man) != nil || len(man.SlurmJobs) != c.arrays {
				t.Errorf("compare.json records %d member arrays, want %d (one per generation):\n%s", len(man.SlurmJobs), c.arrays, b)
			}
			if o, _, code := runCLI(t, "status", out); code != 0 || !strings.Contains(o, c.finished) {
				t.Errorf("status: exit %d, want %q in\n%s", code, c.finished, o)
			}
		})
	}
}

// slicesDeleteJobs drops --jobs N (a local flag) from population args.
func slicesDeleteJobs(args []string) []string {
	for i := range args {
		if args[i] == "--jobs" {
			return append(append([]string{}, args[:i]...), args[i+2:]...)
		}
	}
	return args
}
