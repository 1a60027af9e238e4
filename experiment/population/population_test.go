package population

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	popmethod "github.com/hyperctl/hyperctl/baselines/population"
	"github.com/hyperctl/hyperctl/configs/rundir"
)

func score(v float64) *float64 { return &v }

// A step redone after a crash, at any point of its append, leaves the log
// as one uninterrupted append would: torn lines and the step's earlier
// records are cut first.
func TestAppendGeneration(t *testing.T) {
	dir := t.TempDir()
	gen := func(g int) []Record {
		return []Record{
			{Generation: g, Event: EventReady, Member: 0, Frames: 100, Score: score(1.5), Hyper: map[string]float64{"lr": 1e-4, "clip": 0.2}},
			{Generation: g, Event: EventExploit, Member: 1, Frames: 100, From: new(int), FromScore: score(1.5)},
		}
	}
	for g := range 3 {
		if err := AppendGeneration(dir, g, gen(g)); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(filepath.Join(dir, LogFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(want), "\n"); n != 6 {
		t.Fatalf("%d lines, want 6:\n%s", n, want)
	}
	// Every prefix of the log (a kill during generation 2's append, or
	// after it), then generation 2 appended again.
	for cut := len(want) * 2 / 3; cut <= len(want); cut++ {
		if err := os.WriteFile(filepath.Join(dir, LogFile), want[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		if err := AppendGeneration(dir, 2, gen(2)); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(filepath.Join(dir, LogFile))
		if string(got) != string(want) {
			t.Fatalf("cut at byte %d: redone log differs:\n%s\nwant:\n%s", cut, got, want)
		}
	}
	recs, err := ReadLog(dir)
	if err != nil || len(recs) != 6 || *recs[1].From != 0 || recs[0].Hyper["lr"] != 1e-4 {
		t.Fatalf("ReadLog: %+v, %v", recs, err)
	}
	if err := AppendGeneration(dir, 3, gen(2)); err == nil {
		t.Error("a record of another generation was appended")
	}
}

// The score averages whole rows from the last back until they hold 10
// episodes, weighted by their episodes.
func TestScore(t *testing.T) {
	dir := t.TempDir()
	csv := "iteration,frames,wall_time_s,controller_time_s,train_reward,objective,episodes,mean_episode_return,batch_size,rejected_updates\n" +
		"0,64,0.1,0,-1,,4,-100,64,0\n" +
		"1,128,0.2,0,-1,,0,,64,0\n" +
		"2,192,0.3,0,-1,,6,-20,64,0\n" +
		"3,256,0.4,0,-1,,5,-10,64,0\n"
	if err := os.WriteFile(filepath.Join(dir, rundir.TrainCSV), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Score(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := (6*-20.0 + 5*-10.0) / 11; r.Frames != 256 || r.Episodes != 11 || r.Score != want {
		t.Errorf("score %+v, want 256 frames, 11 episodes, %v", r, want)
	}
	empty := "iteration,frames,wall_time_s,controller_time_s,train_reward,objective,episodes,mean_episode_return,batch_size,rejected_updates\n0,64,0.1,0,-1,,0,,64,0\n"
	if err := os.WriteFile(filepath.Join(dir, rundir.TrainCSV), []byte(empty), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Score(dir); err == nil || !strings.Contains(err.Error(), "raise Spec.Ready (or the batch size)") {
		t.Errorf("no episode: %v", err)
	}
}

func TestDefinition(t *testing.T) {
	d := Definition{Format: FormatVersion, Env: "reacher", Settings: popmethod.DefaultSettings(popmethod.PBT), Size: 4, Seed: 2,
		Frames: 1000, Ready: 300, Tuned: []string{"lr"}, Config: "env = \"reacher\"\n"}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if d.Generations() != 4 || d.Target(0) != 300 || d.Target(3) != 1000 || !d.Last(3) || d.Last(2) {
		t.Errorf("generations %d, targets %d %d", d.Generations(), d.Target(0), d.Target(3))
	}
	if got := d.MemberDir("out", 1); got != filepath.Join("out", "reacher", "pbt", "seed9") {
		t.Errorf("member dir %s", got)
	}
	dir := t.TempDir()
	if err := WriteDefinition(dir, d); err != nil {
		t.Fatal(err)
	}
	back, err := ReadDefinition(dir)
	if err != nil || back.Same(&d) != "" {
		t.Fatalf("read back: %v, difference %q", err, back.Same(&d))
	}
	o := d
	o.Ready, o.Command = 200, "other"
	if diff := d.Same(&o); !strings.Contains(diff, `"ready": 300`) {
		t.Errorf("difference %q", diff)
	}
	for _, bad := range []func(*Definition){
		func(d *Definition) { d.Size = 1 },
		func(d *Definition) { d.Ready = 0 },
		func(d *Definition) { d.Ready = 2000 },
		func(d *Definition) { d.Settings.Quantile = 0.7 },
		func(d *Definition) { d.Settings.Method = "nope" },
	} {
		b := d
		bad(&b)
		if b.Validate() == nil {
			t.Errorf("accepted %+v", b)
		}
	}
}
