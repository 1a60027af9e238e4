package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/population"
	"github.com/hyperctl/hyperctl/internal/ground/words"
)

// TestLibraryErrorsInFlags: the library's errors name Go's settings (an
// option's field, a function, a config key), and hyperctl prints them
// naming its flags (flagWords), one error of each family that does: a
// config's assignments and controller, the Slurm options, the service's
// configuration, an evaluation's episodes, DeltaBO's source, a
// population's ready points and a resume's config. The ones a command
// reaches quickly run the binary; the others are put in flagWords as main
// prints them (words.Say).
func TestLibraryErrorsInFlags(t *testing.T) {
	dir := t.TempDir()
	tuned := filepath.Join(dir, "tuned.toml")
	if err := os.WriteFile(tuned, []byte("env = \"reacher\"\n[[controller.tune]]\nname = \"lr\"\nlow = 1e-5\nhigh = 1e-3\nscale = \"log\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	member := filepath.Join(dir, "member")
	noEpisode := "iteration,frames,wall_time_s,controller_time_s,train_reward,objective,episodes,mean_episode_return,batch_size,rejected_updates\n0,64,0.1,0,-1,,0,,64,0\n"
	if err := os.MkdirAll(member, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(member, rundir.TrainCSV), []byte(noEpisode), 0o644); err != nil {
		t.Fatal(err)
	}
	_, scoreErr := population.Score(member)
	for _, tc := range []struct {
		name   string
		args   []string // a command line, or
		err    error    // a library error, as main prints it
		want   string
		goWord string // what the Go wording says instead
	}{
		{"set", []string{"train", "--env", "reacher", "--set", "ppo.lr"}, nil,
			`hyperctl train: config <default:reacher>: --set "ppo.lr": want KEY=VALUE`, "configs.WithSet"},
		{"set, the file's check", []string{"train", "--env", "reacher", "--set", "ppo.clip=1.5"}, nil,
			"config <default:reacher> + --set: ppo.clip: want a value in (0, 1), got 1.5", "configs.WithSet"},
		{"controller", []string{"train", "--config", tuned, "--out", filepath.Join(dir, "never")}, nil,
			`name the controller (e.g. name = "hypercontroller" under [controller], or --controller)`, "Override"},
		{"slurm option", []string{"compare", "--env", "reacher", "--controllers", "fixed", "--backend", "slurm", "--mem", "4 GB", "--out", filepath.Join(dir, "never")}, nil,
			`hyperctl compare: --mem "4 GB": want a size like 4000, 4000M or 4G`, "slurm.Options"},
		{"population's slurm option", []string{"population", "--env", "reacher", "--backend", "slurm", "--cpus-per-task", "0", "--out", filepath.Join(dir, "never")}, nil,
			"hyperctl population: --cpus-per-task: want an integer >= 1, got 0", "slurm.Options"},
		{"service address", []string{"serve", "--listen", "0.0.0.0:0", "--state", filepath.Join(dir, "state")}, nil,
			`hyperctl serve: --listen "0.0.0.0:0" is not a loopback address: anyone who can reach it could drive your sessions; give --token-file to require a token`, "RunConfig"},
		{"dashboard token", []string{"dashboard", dir, "--token-file", filepath.Join(dir, "none")}, nil,
			"hyperctl dashboard: --token-file: stat ", "RunConfig"},
		{"episodes", []string{"eval", dir, "--episodes", "0"}, nil,
			"hyperctl eval: --episodes: want an integer in [1, 1000000], got 0", "eval: episodes"},
		{"deltabo without a source", []string{"train", "--env", "reacher", "--controller", "deltabo", "--iterations", "1", "--threads", "1", "--out", filepath.Join(dir, "deltabo")}, nil,
			"set [controller.deltabo] transfer_from, or --transfer-from DIR (DeltaBO without a source", "configs.SetTransferFrom"},
		{"population ready", nil, scoreErr,
			"no training episode finished in 64 frames, so the member has no score; raise --ready (or the batch size)", "Spec.Ready"},
		{"resume's config", nil, rundir.CheckSameConfig("runs/a", "seed = 0\n", "seed = 1\n", "--seed 1"),
			"Drop --seed 1 to continue the run as it was started, use --force to start it over, or --out for another folder.", "Options.Force"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			if tc.err != nil {
				got = words.Say(tc.err, flagWords)
				if s := tc.err.Error(); !strings.Contains(s, tc.goWord) {
					t.Errorf("in Go: %q, want %q", s, tc.goWord)
				}
			} else {
				_, got, _ = runCLI(t, tc.args...)
			}
			if !strings.Contains(got, tc.want) || strings.Contains(got, tc.goWord) {
				t.Errorf("%q, want %q and not %q", got, tc.want, tc.goWord)
			}
		})
	}
}
