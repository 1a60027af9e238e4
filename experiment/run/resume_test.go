package run

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	_ "github.com/hyperctl/hyperctl/baselines/all" // the registered controllers
	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/ppo"
)

// resumeConfig is a small run of env with controller ctl: 8 iterations of
// 64 to 160 frames, all four paper hyperparameters tuned every 2
// iterations, an evaluation every 2 and a checkpoint every 3.
func resumeConfig(t *testing.T, env, ctl string, extra string) configs.Run {
	t.Helper()
	text := fmt.Sprintf(`env = %q
seed = 3
iterations = 8
eval_every = 2
checkpoint_every = 3

[ppo]
hidden = [16]
num_envs = 2
batch_size = 96
minibatch_size = 32
epochs = 1
threads = 1

[controller]
name = %q
interval = 2

[[controller.tune]]
name = "batch_size"
low = 64.0
high = 160.0

[[controller.tune]]
name = "clip"
low = 0.1
high = 0.5

[[controller.tune]]
name = "gae_lambda"
low = 0.9
high = 1.0

[[controller.tune]]
name = "lr"
low = 1e-5
high = 1e-3
%s`, env, ctl, extra)
	run, err := configs.Parse(env+"-"+ctl+".toml", text)
	if err != nil {
		t.Fatal(err)
	}
	if ctl != configs.Fixed {
		s, err := run.Controller.MethodSettings(ctl)
		if err != nil {
			t.Fatal(err)
		}
		run.Controller.Settings[ctl] = s
	}
	return run
}

// hookMonitor calls at after every iteration with the progress.
type hookMonitor struct{ at func(rundir.Progress) }

func (m hookMonitor) Start(int, int, int64, int64)              {}
func (m hookMonitor) Iteration(p rundir.Progress, _ ppo.Report) { m.at(p) }
func (m hookMonitor) Finish()                                   {}
func train(t *testing.T, run configs.Run, opts Options) error {
	t.Helper()
	opts.Log = zerolog.Nop()
	_, err := Train(context.Background(), plan(t, run), opts)
	return err
}

// copyDir copies a run folder as it is on disk (what a SIGKILL at this
// moment would leave).
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// sameRows compares a run's CSV with a reference run's, timing columns
// aside (rundir.CompareCSV); it returns the number of identical rows and
// the reference's total, and fails the test on any difference.
func sameRows(t *testing.T, got, want, file string) (same, total int) {
	t.Helper()
	same, total, diff, err := rundir.CompareCSV(filepath.Join(got, file), filepath.Join(want, file))
	if err != nil {
		t.Fatal(err)
	}
	if diff != "" {
		t.Errorf("%s: %d/%d identical; first difference (resumed vs uninterrupted): %s", file, same, total, diff)
	}
	return same, total
}

// killAndResume runs run uninterrupted into a folder, then again into
// another folder that it copies after iteration killAfter (as a SIGKILL
// there would leave it) and, in a third folder, cancels after iteration
// stopAfter (SIGTERM: checkpoint on the way out); it resumes both and
// compares their train.csv and eval.csv with the uninterrupted run's. The
// second run, copied but not stopped, checks determinism: two
// uninterrupted runs write the same rows.
func killAndResume(t *testing.T, run configs.Run, killAfter, stopAfter int) string {
	t.Helper()
	root := t.TempDir()
	ref, live, killed, stopped := filepath.Join(root, "ref"), filepath.Join(root, "live"), filepath.Join(root, "killed"), filepath.Join(root, "stopped")
	if err := train(t, run, Options{Out: ref}); err != nil {
		t.Fatal(err)
	}
	copied := false
	err := train(t, run, Options{Out: live, Monitor: hookMonitor{at: func(p rundir.Progress) {
		if p.Iteration == killAfter {
			copyDir(t, live, killed)
			copied = true
		}
	}}})
	if err != nil || !copied {
		t.Fatalf("live run: %v (copied %v)", err, copied)
	}
	if _, err := os.Stat(rundir.CheckpointPath(killed)); err != nil {
		t.Fatalf("the killed copy has no checkpoint: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = Train(ctx, plan(t, run), Options{Out: stopped, Log: zerolog.Nop(), Monitor: hookMonitor{at: func(p rundir.Progress) {
		if p.Iteration == stopAfter {
			cancel()
		}
	}}})
	if err == nil || !strings.Contains(err.Error(), "checkpoint written") {
		t.Fatalf("stopped run: %v", err)
	}
	// Determinism: two uninterrupted runs (live was copied, not stopped)
	// write the same rows.
	ts, tt := sameRows(t, live, ref, rundir.TrainCSV)
	es, et := sameRows(t, live, ref, rundir.EvalCSV)
	report := []string{fmt.Sprintf("second uninterrupted run: train.csv %d/%d, eval.csv %d/%d identical", ts, tt, es, et)}
	for _, dir := range []string{killed, stopped} {
		if err := train(t, run, Options{Out: dir, Resume: true}); err != nil {
			t.Fatalf("resume %s: %v", filepath.Base(dir), err)
		}
		ts, tt := sameRows(t, dir, ref, rundir.TrainCSV)
		es, et := sameRows(t, dir, ref, rundir.EvalCSV)
		samePolicies(t, dir, ref)
		report = append(report, fmt.Sprintf("%s: train.csv %d/%d, eval.csv %d/%d identical", filepath.Base(dir), ts, tt, es, et))
	}
	return strings.Join(report, "; ")
}

// TestResumeExactAllEnvs: for each environment, a run killed
// after iteration 5 (its last checkpoint at 3) and one stopped after
// iteration 4 (checkpoint on the way out), once resumed, write train.csv
// and eval.csv identical to the uninterrupted run's, timing columns aside.
func TestResumeExactAllEnvs(t *testing.T) {
	for _, env := range []string{"halfcheetah", "bipedalwalker", "pusher", "inverteddoublependulum", "reacher",
		"hopper", "walker2d", "swimmer", "invertedpendulum", "ant", "humanoid"} {
		t.Run(env, func(t *testing.T) {
			t.Logf("%s with hypercontroller: %s", env, killAndResume(t, resumeConfig(t, env, "hypercontroller", ""), 5, 4))
		})
	}
}

// TestResumeExactAllControllers: the same on Reacher for every registered
// controller and for fixed hyperparameters. DeltaBO transfers from a
// finished run made here.
func TestResumeExactAllControllers(t *testing.T) {
	source := filepath.Join(t.TempDir(), "source")
	if err := train(t, resumeConfig(t, "reacher", "random", ""), Options{Out: source}); err != nil {
		t.Fatal(err)
	}
	for _, name := range append(controller.Names(), configs.Fixed) {
		t.Run(name, func(t *testing.T) {
			extra := ""
			if name == "deltabo" {
				extra = fmt.Sprintf("\n[controller.deltabo]\ntransfer_from = %q\n", source)
			}
			t.Logf("reacher with %s: %s", name, killAndResume(t, resumeConfig(t, "reacher", name, extra), 5, 4))
		})
	}
}

// region is a byte range of a checkpoint file.
type region struct {
	name       string
	start, end int
}

// checkpointRegions locates the parts of a real checkpoint file: the
// envelope's header and progress, the trainer's header, weights, Adam state,
// normalisers, generators, counters and environments, the controller's
// snapshot and the checksum tail, by the section tags the formats write
// (rundir.EncodeCheckpoint, ppo.Trainer.Snapshot).
func checkpointRegions(t *testing.T, b []byte) []region {
	t.Helper()
	tag := func(name string) int {
		pat := append([]byte{byte(len(name)), 0, 0, 0}, name...)
		i := bytes.Index(b, append(pat, 1))
		if i < 0 {
			t.Fatalf("section %q not found", name)
		}
		return i
	}
	marks := []struct {
		name string
		at   int
	}{
		{"header", 0}, {"progress", tag("progress")}, {"trainer header", tag("header")},
		{"weights", tag("model")}, {"optimizer", tag("adam")}, {"normalisers", tag("norm")},
		{"generator states", tag("rng")}, {"counters", tag("counters")}, {"environments", tag("envs")},
		{"controller", tag("controller")}, {"tail", len(b) - 4},
	}
	var out []region
	for i, m := range marks {
		end := len(b)
		if i+1 < len(marks) {
			end = marks[i+1].at
		}
		if end <= m.at {
			t.Fatalf("regions out of order at %s", m.name)
		}
		out = append(out, region{m.name, m.at, end})
	}
	return out
}

// TestCorruptCheckpointSweep: byte changes in every region of a real
// checkpoint file and truncations at many lengths. With the previous
// checkpoint in place, every one falls back to it (and the resumed run
// still equals the uninterrupted one); without it, every one is refused
// with an error naming the file and --force. None is used.
func TestCorruptCheckpointSweep(t *testing.T) {
	run := resumeConfig(t, "reacher", "hypercontroller", "")
	root := t.TempDir()
	ref, live, base := filepath.Join(root, "ref"), filepath.Join(root, "live"), filepath.Join(root, "base")
	if err := train(t, run, Options{Out: ref}); err != nil {
		t.Fatal(err)
	}
	// Killed after iteration 7: checkpoints at 6 (newest) and 3 (previous).
	if err := train(t, run, Options{Out: live, Monitor: hookMonitor{at: func(p rundir.Progress) {
		if p.Iteration == 7 {
			copyDir(t, live, base)
		}
	}}}); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(rundir.CheckpointPath(base))
	if err != nil {
		t.Fatal(err)
	}
	type trial struct {
		what string
		data []byte
	}
	var trials []trial
	perRegion := map[string]int{}
	for _, r := range checkpointRegions(t, good) {
		for _, off := range []int{r.start, (r.start + r.end) / 2, r.end - 1} {
			for _, mask := range []byte{0x01, 0x80, 0xff} {
				b := slices.Clone(good)
				b[off] ^= mask
				trials = append(trials, trial{fmt.Sprintf("%s: byte %d ^ %#02x", r.name, off, mask), b})
				perRegion[r.name]++
			}
		}
	}
	nTrunc := 0
	for _, n := range []int{0, 1, 7, 8, 9, 10, 11, 13, 14, len(good) - 5, len(good) - 4, len(good) - 3, len(good) - 1} {
		trials = append(trials, trial{fmt.Sprintf("truncated to %d bytes", n), good[:n]})
		nTrunc++
	}
	for k := 1; k <= 40; k++ {
		n := k * len(good) / 41
		trials = append(trials, trial{fmt.Sprintf("truncated to %d bytes", n), good[:n]})
		nTrunc++
	}

	// Every trial through ReadCheckpoint, with and without the previous file.
	fellBack, refused, used := 0, 0, 0
	trialDir := filepath.Join(root, "trial")
	for _, tr := range trials {
		for _, withPrev := range []bool{true, false} {
			os.RemoveAll(trialDir)
			copyDir(t, base, trialDir)
			if !withPrev {
				os.Remove(rundir.PrevCheckpointPath(trialDir))
			}
			if err := os.WriteFile(rundir.CheckpointPath(trialDir), tr.data, 0o644); err != nil {
				t.Fatal(err)
			}
			c, rd, err := rundir.ReadCheckpoint(trialDir)
			switch {
			case err != nil:
				if withPrev || !strings.Contains(err.Error(), rundir.CheckpointPath(trialDir)) || !strings.Contains(err.Error(), "Options.Force") {
					t.Errorf("%s (previous file present: %v): %v", tr.what, withPrev, err)
				}
				refused++
			case rd.Path == rundir.PrevCheckpointPath(trialDir) && c.Progress.Iteration == 3 && rd.Refused != nil:
				fellBack++
			default:
				used++
				t.Errorf("%s: the corrupt checkpoint was used (%s)", tr.what, rd.Path)
			}
		}
	}
	t.Logf("corruption sweep: %d trials (%d byte changes over %d regions %v, %d truncations), each with and without the previous checkpoint: refused %d, fell back %d, used %d",
		len(trials), len(trials)-nTrunc, len(perRegion), perRegion, nTrunc, refused, fellBack, used)
	if used != 0 || fellBack != len(trials) || refused != len(trials) {
		t.Fatalf("refused %d, fell back %d, used %d of %d", refused, fellBack, used, 2*len(trials))
	}

	// End to end for one change per region and two truncations: the resumed
	// run falls back, logs it, and still equals the uninterrupted one.
	for i, tr := range trials {
		if i%9 != 4 && tr.what != trials[len(trials)-1].what && tr.what != trials[len(trials)-30].what {
			continue
		}
		dir := filepath.Join(root, fmt.Sprintf("e2e%d", i))
		copyDir(t, base, dir)
		os.WriteFile(rundir.CheckpointPath(dir), tr.data, 0o644)
		var logBuf strings.Builder
		if _, err := Train(context.Background(), plan(t, run), Options{Out: dir, Resume: true, Log: zerolog.New(&logBuf)}); err != nil {
			t.Fatalf("%s: resume: %v", tr.what, err)
		}
		if !strings.Contains(logBuf.String(), "falling back to the previous checkpoint") || !strings.Contains(logBuf.String(), `"iteration":3`) {
			t.Fatalf("%s: no fallback in the log:\n%s", tr.what, logBuf.String())
		}
		sameRows(t, dir, ref, rundir.TrainCSV)
		sameRows(t, dir, ref, rundir.EvalCSV)
		samePolicies(t, dir, ref)
	}
	// With no usable checkpoint left, --resume refuses and says how to
	// start over.
	dir := filepath.Join(root, "none")
	copyDir(t, base, dir)
	os.WriteFile(rundir.CheckpointPath(dir), good[:100], 0o644)
	os.Remove(rundir.PrevCheckpointPath(dir))
	if err := train(t, run, Options{Out: dir, Resume: true}); err == nil || !strings.Contains(err.Error(), "start it over with Options.Force") {
		t.Fatalf("no usable checkpoint: %v", err)
	}
}

// samePolicies checks that a resumed run's policy files (policy-final,
// policy-best: weights and sidecar) are byte-identical to the
// uninterrupted run's.
func samePolicies(t *testing.T, got, want string) {
	t.Helper()
	for _, name := range []string{"policy-final.safetensors", "policy-final.json", "policy-best.safetensors", "policy-best.json"} {
		g, err1 := os.ReadFile(filepath.Join(got, name))
		w, err2 := os.ReadFile(filepath.Join(want, name))
		if err1 != nil || err2 != nil || !bytes.Equal(g, w) {
			t.Errorf("%s differs from the uninterrupted run's (%v, %v)", name, err1, err2)
		}
	}
}

// TestKLAdaptiveLogsItsLR: a kladaptive run logs in train.csv's lr column
// the lr its update ended with, which moves from [ppo] lr (the start), and
// a resumed run logs the same column (TestResumeExactAllControllers
// compares the whole rows).
func TestKLAdaptiveLogsItsLR(t *testing.T) {
	run := resumeConfig(t, "reacher", "kladaptive", "")
	out := filepath.Join(t.TempDir(), "kl")
	if err := train(t, run, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, filepath.Join(out, rundir.TrainCSV))
	col := slices.Index(rows[0], "lr")
	if col < 0 {
		t.Fatalf("train.csv has no lr column: %v", rows[0])
	}
	var lrs []float64
	for _, r := range rows[1:] {
		v, err := strconv.ParseFloat(r[col], 64)
		if err != nil {
			t.Fatal(err)
		}
		lrs = append(lrs, v)
	}
	if len(lrs) != run.Iterations || !slices.ContainsFunc(lrs, func(v float64) bool { return v != run.PPO.LR }) {
		t.Fatalf("lr column %v: want %d rows, not all the start %g", lrs, run.Iterations, run.PPO.LR)
	}
	t.Logf("lr per iteration: %v", lrs)
}
