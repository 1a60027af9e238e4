package training

import (
	"context"
	"encoding/csv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/cmd/hyperctl/rundir"
	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/controller"
	_ "github.com/hyperctl/hyperctl/envs/all" // reacher
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
// run.
func TestFinalHyperparameters(t *testing.T) {
	run, err := configs.Parse("tiny.toml", tiny)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res, err := Train(context.Background(), run, Options{Out: out, Log: zerolog.Nop()})
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
		for k, v := range want {
			if sum.FinalHyper[k] != v || last[k] != v {
				t.Fatalf("%s: summary %v, last train.csv row %v; want %v", k, sum.FinalHyper[k], last[k], v)
			}
		}
	}
	// The run is finished: resuming does nothing, training again is refused.
	if res, err := Train(context.Background(), run, Options{Out: out, Resume: true, Log: zerolog.Nop()}); err != nil || !res.AlreadyFinished {
		t.Fatalf("resume of a finished run: %+v, %v", res, err)
	}
	if _, err := Train(context.Background(), run, Options{Out: out, Log: zerolog.Nop()}); err == nil {
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
