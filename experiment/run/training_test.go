package run

import (
	"context"
	"encoding/csv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/controller"
	_ "github.com/hyperctl/hyperctl/envs/all" // reacher
	"github.com/hyperctl/hyperctl/ppo"
)

// cycling is a test method whose every decision is a new configuration:
// the k-th Suggest puts each parameter at k/4 of its range (k mod 5).
type cycling struct {
	space controller.Space
	k     int
}

type cyclingSettings struct{}

func (*cyclingSettings) Validate() error                 { return nil }
func (*cyclingSettings) New() (controller.Method, error) { return &cycling{}, nil }

func (m *cycling) Init(s controller.Space, _ *rand.Rand) error { m.space = s; return nil }
func (m *cycling) Suggest(dst controller.Config) error {
	for i := range dst {
		dst[i] = m.space.FromUnit(i, float64(m.k%5)/4)
	}
	m.k++
	return nil
}
func (m *cycling) Observe(controller.Observation) error { return nil }
func (m *cycling) MarshalBinary() ([]byte, error)       { return []byte{byte(m.k)}, nil }
func (m *cycling) UnmarshalBinary(b []byte) error       { m.k = int(b[0]); return nil }

func init() {
	controller.MustRegister(controller.Entry{Name: "cyclingtest", Summary: "test only", Defaults: func() controller.Settings { return &cyclingSettings{} }})
}

const tiny = `env = "reacher"
iterations = 6
eval_every = 2
checkpoint_every = 5

[ppo]
num_envs = 2
batch_size = 200
minibatch_size = 100
epochs = 1
threads = 1

[controller]
name = "cyclingtest"
interval = 2
start = "method"    # the scripted method decides from the first iteration
tuned_lr = "replace" # and its lr is logged as it is

[[controller.tune]]
name = "batch_size"
low = 100.0
high = 300.0

[[controller.tune]]
name = "lr"
low = 1e-4
high = 1e-3
`

// TestFinalHyperparameters: with iterations = k·interval (6 = 3·2) the
// summary's final_hyperparameters are the configuration the last iteration
// ran with (the third decision), not a fourth decision asked for after the
// run; the summary records the version (build) that trained it.
func TestFinalHyperparameters(t *testing.T) {
	run, err := configs.Parse("tiny.toml", tiny)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	const version = "dev+0123456789ab"
	res, err := Train(context.Background(), plan(t, run), Options{Out: out, Log: zerolog.Nop(), Version: version})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, rundir.TrainCSV))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 7 {
		t.Fatalf("train.csv: %d lines, %v", len(rows), err)
	}
	last := map[string]float64{}
	for i, h := range rows[0] {
		if h == "batch_size" || h == "lr" {
			v, err := strconv.ParseFloat(rows[6][i], 64)
			if err != nil {
				t.Fatal(err)
			}
			last[h] = v
		}
	}
	// The third decision (k = 2) puts both parameters at the middle.
	want := map[string]float64{"batch_size": 200, "lr": 1e-4 + 0.5*(1e-3-1e-4)}
	for _, sum := range []rundir.Summary{res.Summary, mustReadSummary(t, out)} {
		if sum.HyperctlVersion != version {
			t.Fatalf("summary hyperctl_version %q, want %q", sum.HyperctlVersion, version)
		}
		for k, v := range want {
			if sum.FinalHyper[k] != v || last[k] != v {
				t.Fatalf("%s: summary %v, last train.csv row %v; want %v", k, sum.FinalHyper[k], last[k], v)
			}
		}
	}
	// The run is finished: resuming does nothing, training again is refused.
	if res, err := Train(context.Background(), plan(t, run), Options{Out: out, Resume: true, Log: zerolog.Nop()}); err != nil || !res.AlreadyFinished {
		t.Fatalf("resume of a finished run: %+v, %v", res, err)
	}
	if _, err := Train(context.Background(), plan(t, run), Options{Out: out, Log: zerolog.Nop()}); err == nil {
		t.Fatal("a finished run was overwritten without Force")
	}
}

func mustReadSummary(t *testing.T, dir string) rundir.Summary {
	t.Helper()
	s, err := rundir.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// cancelAt cancels a context after the given iteration is reported.
type cancelAt struct {
	at     int
	cancel context.CancelFunc
}

func (c *cancelAt) Start(int, int, int64, int64) {}
func (c *cancelAt) Iteration(p rundir.Progress, _ ppo.Report) {
	if p.Iteration == c.at {
		c.cancel()
	}
}
func (c *cancelAt) Finish() {}

// TestFrameBudgetRun: a run with frames = 500 stops after the first
// iteration that reaches 500 frames, evaluates it, records the budget and
// the iterations it took in the summary, and survives an interruption and
// resume. train.csv logs the paper's four and the other tuned keys (gamma,
// epochs), in ppoconfig.Hyper's order.
func TestFrameBudgetRun(t *testing.T) {
	text := tiny + `
[[controller.tune]]
name = "epochs"
low = 1
high = 3

[[controller.tune]]
name = "gamma"
low = 0.9
high = 0.99
`
	run, err := configs.Parse("tiny.toml", strings.Replace(text, "iterations = 6\n", "iterations = 6\nframes = 500\n", 1))
	if err != nil {
		t.Fatal(err)
	}
	run.CheckpointEvery = 2
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Interrupted after iteration 2 (a checkpoint at 2), then resumed.
	if _, err := Train(ctx, plan(t, run), Options{Out: out, Log: zerolog.Nop(), Monitor: &cancelAt{at: 3, cancel: cancel}}); err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("interrupted run: %v", err)
	}
	res, err := Train(context.Background(), plan(t, run), Options{Out: out, Resume: true, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	// Decisions every 2 iterations: batch 100 (k = 0), then 150 (k = 1):
	// 100, 100, 150, 150 frames reach 500 at iteration 3.
	sum := res.Summary
	if sum.Iterations != 4 || sum.Frames != 500 || sum.FrameBudget != 500 || sum.FinalEvalReturn == nil {
		t.Fatalf("summary: %d iterations, %d frames, budget %d, final eval %v", sum.Iterations, sum.Frames, sum.FrameBudget, sum.FinalEvalReturn)
	}
	rows := readCSV(t, filepath.Join(out, rundir.TrainCSV))
	want := "iteration,frames,wall_time_s,controller_time_s,train_reward,objective,episodes,mean_episode_return,batch_size,clip,gae_lambda,lr,gamma,epochs,rejected_updates"
	if got := strings.Join(rows[0], ","); got != want {
		t.Fatalf("train.csv header\n%s\nwant\n%s", got, want)
	}
	if len(rows) != 5 || rows[4][1] != "500" || rows[1][13] != "1" || rows[4][13] != "2" {
		t.Fatalf("train.csv rows %v", rows[1:])
	}
	ev := readCSV(t, filepath.Join(out, rundir.EvalCSV))
	if last := ev[len(ev)-1]; last[0] != "3" || last[1] != "500" {
		t.Fatalf("last evaluation %v, want after iteration 3 at 500 frames", last)
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// plan resolves a test's config.
func plan(t *testing.T, run configs.Run) *configs.Plan {
	t.Helper()
	p, err := run.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	return p
}
