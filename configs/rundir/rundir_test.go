package rundir

import (
	"errors"
	"fmt"
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

// TestConfigDiff: keys named with their tables, as --set takes them,
// changed, removed and added ones.
func TestConfigDiff(t *testing.T) {
	base := "env = \"halfcheetah\"\nseed = 0\n\n[ppo]\nlr = 0.0003\n\n[controller]\nname = \"fixed\"\n\n[[controller.tune]]\nname = \"clip\"\nhigh = 0.5\n\n[[controller.tune]]\nname = \"lr\"\nhigh = 0.001\n"
	for _, c := range []struct {
		name, b, want string
	}{
		{"equal", base, ""},
		{"top-level key", strings.Replace(base, "seed = 0", "seed = 1", 1), "- seed = 0\n+ seed = 1\n"},
		{"key of a table", strings.Replace(base, "name = \"fixed\"", "name = \"hoof\"", 1), "- controller.name = \"fixed\"\n+ controller.name = \"hoof\"\n"},
		{"element of an array of tables", strings.Replace(base, "high = 0.001", "high = 0.01", 1), "- controller.tune[1].high = 0.001\n+ controller.tune[1].high = 0.01\n"},
		{"added table", base + "\n[controller.hoof]\nk = 5\n", "+ controller.hoof.k = 5\n"},
		{"removed key", strings.Replace(base, "lr = 0.0003\n", "", 1), "- ppo.lr = 0.0003\n"},
	} {
		if d := ConfigDiff(base, c.b); d != c.want {
			t.Errorf("%s: diff %q, want %q", c.name, d, c.want)
		}
	}
}

// TestDecide: the rules for reusing a folder, for every state and flag.
func TestDecide(t *testing.T) {
	for _, c := range []struct {
		st            State
		resume, force bool
		want          Plan
		err           string
	}{
		{Empty, false, false, Start, ""},
		{Empty, true, false, Start, ""},
		{Empty, false, true, Start, ""},
		{Finished, false, false, 0, "holds a finished run; use Options.Force"},
		{Finished, true, false, Nothing, ""},
		{Finished, false, true, Overwrite, ""},
		{Finished, true, true, Overwrite, ""},
		{Unfinished, false, false, 0, "holds an unfinished run; use Options.Resume"},
		{Unfinished, true, false, Continue, ""},
		{Unfinished, false, true, Overwrite, ""},
		{Unfinished, true, true, Overwrite, ""},
	} {
		got, err := Decide("runs/x", c.st, c.resume, c.force)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "runs/x") {
				t.Errorf("%v resume %v force %v: error %v, want %q", c.st, c.resume, c.force, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%v resume %v force %v: %v, %v; want %v", c.st, c.resume, c.force, got, err, c.want)
		}
	}
	if err := CheckSameConfig("runs/x", "seed = 0\n", "seed = 0\n"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		changes []string
		want    string
	}{
		{nil, "runs/x was started with a different config; refusing to mix them. Continue it with the config it was started with, use Options.Force to start it over, or Options.Out for another folder.\n(- in the folder, + now):\n- seed = 0\n+ seed = 1"},
		{[]string{"Seed = 1"}, "runs/x was started with a different config; refusing to mix them: Seed = 1 would change it. Drop Seed = 1 to continue the run as it was started, use Options.Force to start it over, or Options.Out for another folder.\n(- in the folder, + now):\n- seed = 0\n+ seed = 1"},
	} {
		err := CheckSameConfig("runs/x", "seed = 0\n", "seed = 1\n", c.changes...)
		var me *ConfigMismatchError
		if !errors.As(err, &me) || err.Error() != c.want {
			t.Errorf("changes %v: %v, want %q", c.changes, err, c.want)
		}
	}
}

// TestCheckpointFile: a checkpoint round-trips, a missing one is nil, a
// corrupt one with no previous one is an error naming the file and saying
// how to start over, and Clear removes a run's files (its videos too).
func TestCheckpointFile(t *testing.T) {
	dir := t.TempDir()
	if c, _, err := ReadCheckpoint(dir); c != nil || err != nil {
		t.Fatalf("no checkpoint: %v, %v", c, err)
	}
	want := Checkpoint{Progress: Progress{Iteration: 4, WallS: 1.5, PrevReward: -2, HavePrev: true}, Trainer: []byte("tr"), Controller: []byte("ctl")}
	if err := WriteCheckpoint(dir, want); err != nil {
		t.Fatal(err)
	}
	got, rd, err := ReadCheckpoint(dir)
	if err != nil || got.Progress != want.Progress || string(got.Trainer) != "tr" || string(got.Controller) != "ctl" || rd.Path != CheckpointPath(dir) || rd.Refused != nil {
		t.Fatalf("round trip: %+v, %+v, %v", got, rd, err)
	}
	os.WriteFile(CheckpointPath(dir), []byte("garbage"), 0o644)
	if _, _, err := ReadCheckpoint(dir); err == nil || !strings.Contains(err.Error(), CheckpointPath(dir)) || !strings.Contains(err.Error(), "Options.Force") {
		t.Fatalf("corrupt checkpoint: %v", err)
	}
	for _, n := range []string{ConfigFile, TrainCSV, EvalCSV, SummaryFile, LogFile} {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
	}
	os.MkdirAll(filepath.Join(dir, VideosDir), 0o755)
	os.WriteFile(filepath.Join(dir, VideosDir, "iter000009.mp4"), []byte("x"), 0o644)
	if err := Clear(dir); err != nil {
		t.Fatal(err)
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 1 || left[0].Name() != LogFile {
		t.Fatalf("after Clear: %v, want only %s", left, LogFile)
	}
}

// TestCheckpointKeepsTwo: each write keeps the checkpoint it replaces as the
// previous one; a newest file that fails its check falls back to the
// previous one (saying which file was refused); a corrupt newest file is not
// kept as the previous one by the next write.
func TestCheckpointKeepsTwo(t *testing.T) {
	dir := t.TempDir()
	ck := func(it int) Checkpoint {
		return Checkpoint{Progress: Progress{Iteration: it}, Trainer: []byte{byte(it)}}
	}
	for _, it := range []int{2, 4, 6} {
		if err := WriteCheckpoint(dir, ck(it)); err != nil {
			t.Fatal(err)
		}
	}
	read := func() (int, CheckpointRead) {
		t.Helper()
		c, rd, err := ReadCheckpoint(dir)
		if err != nil {
			t.Fatal(err)
		}
		return c.Progress.Iteration, rd
	}
	if it, rd := read(); it != 6 || rd.Refused != nil || rd.Dir != filepath.Join(dir, CheckpointDir) {
		t.Fatalf("newest: iteration %d, %+v", it, rd)
	}
	b, _ := os.ReadFile(CheckpointPath(dir))
	b[len(b)/2] ^= 1
	os.WriteFile(CheckpointPath(dir), b, 0o644)
	it, rd := read()
	if it != 4 || rd.Path != PrevCheckpointPath(dir) || rd.Refused == nil || !strings.Contains(rd.Refused.Error(), CheckpointPath(dir)) || !strings.Contains(rd.Refused.Error(), "checksum mismatch") {
		t.Fatalf("fallback: iteration %d, %+v", it, rd)
	}
	// The next write replaces the corrupt file and keeps the good previous one.
	if err := WriteCheckpoint(dir, ck(5)); err != nil {
		t.Fatal(err)
	}
	if it, _ := read(); it != 5 {
		t.Fatalf("after rewrite: iteration %d", it)
	}
	os.Remove(CheckpointPath(dir))
	if it, _ := read(); it != 4 {
		t.Fatalf("previous after rewrite: iteration %d, want 4", it)
	}
	// A file of the earlier format (a gob, no magic) is refused by name.
	os.WriteFile(CheckpointPath(dir), []byte("\x3e\xff\x81\x03\x01\x01\x0echeckpointFile"), 0o644)
	os.Remove(PrevCheckpointPath(dir))
	if _, _, err := ReadCheckpoint(dir); err == nil || !strings.Contains(err.Error(), "not a hyperctl checkpoint") {
		t.Fatalf("earlier format: %v", err)
	}
}

// TestLock: a second Acquire of a locked folder fails at once naming the
// holder's pid; Holder sees it; after Release the folder can be locked again.
func TestLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, held, err := Holder(dir); held || err != nil {
		t.Fatalf("no lock file: held %v, %v", held, err)
	}
	l, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(dir)
	var le *LockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() || !strings.Contains(err.Error(), fmt.Sprintf("process %d", os.Getpid())) {
		t.Fatalf("second writer: %v", err)
	}
	if pid, held, err := Holder(dir); !held || pid != os.Getpid() || err != nil {
		t.Fatalf("Holder: %d %v %v", pid, held, err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, held, _ := Holder(dir); held {
		t.Fatal("still held after Release")
	}
	l2, err := Acquire(dir)
	if err != nil {
		t.Fatalf("after Release: %v", err)
	}
	l2.Release()
}

// TestLogs: train.csv and eval.csv rows in the schema's columns and formats.
func TestLogs(t *testing.T) {
	dir := t.TempDir()
	tl, err := OpenTrainLog(dir, []string{"batch_size", "lr"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	rows := []TrainRow{
		{Iteration: 0, Frames: 2048, WallTimeS: 1.25, TrainReward: -1.5, Hyper: []any{2048, 3e-4}},
		{Iteration: 1, Frames: 4096, WallTimeS: 2.5, ControllerTimeS: 1e-6, TrainReward: -1.25, Objective: 0.123456789, HaveObjective: true, Episodes: 2, MeanReturn: -50.123456, Hyper: []any{2048, 1e-4}, Rejected: 1},
	}
	for _, r := range rows {
		if err := tl.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := tl.Append(TrainRow{Hyper: []any{1}}); err == nil {
		t.Fatal("a row with a missing hyperparameter was written")
	}
	tl.Close()
	el, err := OpenEvalLog(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	el.Append(EvalRow{Iteration: 1, Frames: 4096, WallTimeS: 2.5, Return: -12.5, Steps: 50, Episodes: 3, Std: 1.5})
	el.Close()
	b, _ := os.ReadFile(filepath.Join(dir, TrainCSV))
	want := "iteration,frames,wall_time_s,controller_time_s,train_reward,objective,episodes,mean_episode_return,batch_size,lr,rejected_updates\n" +
		"0,2048,1.25,0,-1.5,,0,,2048,0.0003,0\n" +
		"1,4096,2.5,1e-06,-1.25,0.123457,2,-50.1235,2048,0.0001,1\n"
	if string(b) != want {
		t.Fatalf("train.csv:\n%s\nwant:\n%s", b, want)
	}
	b, _ = os.ReadFile(filepath.Join(dir, EvalCSV))
	if want := "iteration,frames,wall_time_s,controller_time_s,eval_return,eval_steps,eval_episodes,eval_return_std\n1,4096,2.5,0,-12.5,50,3,1.5\n"; string(b) != want {
		t.Fatalf("eval.csv:\n%s\nwant:\n%s", b, want)
	}
}

// TestCompareCSV: rows are compared with the timing columns removed.
func TestCompareCSV(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	ref := write("ref.csv", "iteration,frames,wall_time_s,controller_time_s,eval_return,eval_steps\n1,10,0.5,0.1,-3,50\n3,20,1.5,0.2,-2,50\n")
	cases := []struct {
		name, text  string
		same, total int
		diff        string
	}{
		{"timing differs only", "iteration,frames,wall_time_s,controller_time_s,eval_return,eval_steps\n1,10,9,9,-3,50\n3,20,9,9,-2,50\n", 2, 2, ""},
		{"a value differs", "iteration,frames,wall_time_s,controller_time_s,eval_return,eval_steps\n1,10,0.5,0.1,-3,50\n3,20,1.5,0.2,-2.5,50\n", 1, 2, "row 1: 3,20,-2.5,50 vs 3,20,-2,50"},
		{"a row missing", "iteration,frames,wall_time_s,controller_time_s,eval_return,eval_steps\n1,10,0.5,0.1,-3,50\n", 1, 2, "row 1: (missing)"},
		{"a row more", "iteration,frames,wall_time_s,controller_time_s,eval_return,eval_steps\n1,10,0.5,0.1,-3,50\n3,20,1.5,0.2,-2,50\n5,30,2,2,-1,50\n", 2, 2, "3 rows vs 2"},
		{"other header", "iteration,frames,wall_time_s,eval_return\n", 0, 2, "headers differ"},
	}
	for _, c := range cases {
		same, total, diff, err := CompareCSV(write("got.csv", c.text), ref)
		if err != nil || same != c.same || total != c.total || !strings.Contains(diff, c.diff) || (c.diff == "") != (diff == "") {
			t.Errorf("%s: %d/%d %q %v; want %d/%d %q", c.name, same, total, diff, err, c.same, c.total, c.diff)
		}
	}
}

func TestInspectSaysAFileIsAFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{file, "output folder " + file + " is a file, not a folder"},
		{filepath.Join(file, "run"), file + " is a file, not a folder"},
	} {
		if _, err := Inspect(tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Inspect(%s) = %v, want %q", tc.path, err, tc.want)
		}
	}
	if st, err := Inspect(filepath.Join(dir, "new", "run")); err != nil || st != Empty {
		t.Errorf("a path that does not exist yet: %v %v", st, err)
	}
}

// TestCheckpointFilesMoveWithIt: files kept beside the newest checkpoint
// (policy-best's copy) move with it to prev/, so a fallback finds the files
// of the checkpoint it resumes from in CheckpointRead.Dir.
func TestCheckpointFilesMoveWithIt(t *testing.T) {
	dir := t.TempDir()
	ckDir := filepath.Join(dir, CheckpointDir)
	for _, it := range []int{4, 6} {
		if err := WriteCheckpoint(dir, Checkpoint{Progress: Progress{Iteration: it}}); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(ckDir, "aux.txt"), []byte(strconv.Itoa(it)), 0o644)
	}
	b, _ := os.ReadFile(filepath.Join(ckDir, PrevCheckpointDir, "aux.txt"))
	if string(b) != "4" {
		t.Fatalf("prev/aux.txt = %q, want the previous checkpoint's 4", b)
	}
	os.WriteFile(CheckpointPath(dir), []byte("corrupt"), 0o644)
	c, rd, err := ReadCheckpoint(dir)
	if err != nil || c.Progress.Iteration != 4 || rd.Dir != filepath.Join(ckDir, PrevCheckpointDir) {
		t.Fatalf("fallback: %+v %+v %v", c, rd, err)
	}
}

// HyperColumns inverts TrainColumns: the hyperparameter columns of a header.
func TestHyperColumns(t *testing.T) {
	for _, hyper := range [][]string{{"batch_size", "clip", "gae_lambda", "lr"}, {"batch_size", "lr", "lr_scale"}, {}} {
		if got := HyperColumns(TrainColumns(hyper)); strings.Join(got, ",") != strings.Join(hyper, ",") {
			t.Errorf("HyperColumns(TrainColumns(%v)) = %v", hyper, got)
		}
	}
	if got := HyperColumns(EvalColumns()); got != nil {
		t.Errorf("HyperColumns(eval.csv's header) = %v, want none", got)
	}
}

// episodes.csv keeps every episode's return exactly, and a resumed run
// drops the episodes of the iterations after its checkpoint, as train.csv
// drops their rows; LatestReturns reads the last n, oldest first.
func TestEpisodeLog(t *testing.T) {
	dir := t.TempDir()
	l, err := OpenEpisodeLog(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	for it, rs := range [][]float64{{1.5, -2}, nil, {0.1 + 0.2}, {4, 5, 6}} {
		if err := l.Append(it, int64(64*(it+1)), rs); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	for _, c := range []struct {
		keepBelow, n int
		want         []float64
	}{
		{4, 10, []float64{1.5, -2, 0.1 + 0.2, 4, 5, 6}},
		{4, 2, []float64{5, 6}},
		{3, 10, []float64{1.5, -2, 0.1 + 0.2}}, // resumed from iteration 3
		{1, 1, []float64{-2}},
		{0, 10, nil},
	} {
		if l, err = OpenEpisodeLog(dir, c.keepBelow); err != nil {
			t.Fatal(err)
		}
		l.Close()
		got, err := LatestReturns(dir, c.n)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("below %d, last %d: %v, %v; want %v", c.keepBelow, c.n, got, err, c.want)
		}
	}
	if _, err := LatestReturns(t.TempDir(), 10); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a run without episodes.csv: %v, want a missing file", err)
	}
}
