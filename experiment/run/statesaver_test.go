package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/envs"
)

// noSave is an environment without envs.StateSaver: it cannot be
// checkpointed.
type noSave struct{ obs []float64 }

func (e *noSave) Spec() envs.Spec { return noSaveSpec() }
func (e *noSave) Reset(int64) ([]float64, error) {
	e.obs = []float64{0}
	return e.obs, nil
}
func (e *noSave) Step([]float64) (envs.Transition, error) {
	return envs.Transition{Obs: e.obs, Reward: 1}, nil
}
func (e *noSave) Close() error { return nil }

func noSaveSpec() envs.Spec {
	return envs.Spec{ID: "NoSaveTest-v0", Name: "nosavetest", MaxEpisodeSteps: 8,
		Observation: envs.Box{Low: []float64{-1}, High: []float64{1}}, Action: envs.Box{Low: []float64{-1}, High: []float64{1}}}
}

func init() { envs.MustRegister(noSaveSpec(), func() (envs.Env, error) { return &noSave{}, nil }) }

// An environment without envs.StateSaver is refused before the first
// iteration, by one error naming the methods to implement, and the folder
// the failed start created is gone; a folder that existed stays.
func TestStateSaverCheckedFirst(t *testing.T) {
	cfg, err := configs.Parse("nosave", "env = \"nosavetest\"\niterations = 2\n[ppo]\nnum_envs = 1\nbatch_size = 16\nminibatch_size = 8\nthreads = 1\n")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := cfg.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		exists bool
	}{{"new", false}, {"existing", true}} {
		out := filepath.Join(dir, tc.name)
		if tc.exists {
			if err := os.Mkdir(out, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		_, err := Train(context.Background(), plan, Options{Out: out, Log: zerolog.Nop()})
		if err == nil || !strings.Contains(err.Error(), "envs.StateSaver") || !strings.Contains(err.Error(), "SaveState() ([]byte, error) and LoadState([]byte) error") {
			t.Errorf("%s: err = %v, want one naming envs.StateSaver and its methods", tc.name, err)
		}
		if _, err := os.Stat(out); tc.exists == os.IsNotExist(err) {
			t.Errorf("%s folder: stat %v after the failed start, want it there only if it was there before", tc.name, err)
		}
	}
}
