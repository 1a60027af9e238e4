package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	popmethod "github.com/hyperctl/hyperctl/baselines/population"
	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/experiment/population"
	"github.com/hyperctl/hyperctl/experiment/run"
)

// helpExamples returns every example command line of root's commands: the
// lines of their Example texts, and the indented lines of their Long
// texts, that start with "hyperctl ", with a trailing comment, pipe or
// redirection cut off; a line ending in " \\" continues on the next.
func helpExamples(root *cobra.Command) []string {
	var out []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, text := range []string{c.Long, c.Example} {
			lines := strings.Split(text, "\n")
			for i := 0; i < len(lines); i++ {
				l := lines[i]
				for strings.HasSuffix(l, " \\") && i+1 < len(lines) {
					i++
					l = strings.TrimSuffix(l, "\\") + strings.TrimSpace(lines[i])
				}
				indented := strings.HasPrefix(l, " ")
				l = strings.TrimSpace(l)
				if !strings.HasPrefix(l, "hyperctl ") || (text == c.Long && !indented) {
					continue
				}
				for _, cut := range []string{" #", " | ", " > "} {
					l, _, _ = strings.Cut(l, cut)
				}
				out = append(out, strings.TrimSpace(l))
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// readmeExamples are the hyperctl command lines of README.md's sh blocks,
// in their order, a trailing comment cut off and a line ending in " \"
// joined with the next.
func readmeExamples(t *testing.T, root string) []string {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "```sh"):
			in = true
			continue
		case strings.HasPrefix(l, "```"):
			in = false
			continue
		}
		for strings.HasSuffix(l, " \\") && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, "\\") + strings.TrimSpace(lines[i])
		}
		l, _, _ = strings.Cut(l, " #")
		if l = strings.TrimSpace(l); in && strings.HasPrefix(l, "hyperctl ") {
			out = append(out, l)
		}
	}
	return out
}

// helpOrder is the order in which a user meets the commands whose
// examples make the folders others read: train, compare and population
// write runs, judge their judge.json; every other command's examples come
// after, in the order of the help.
var helpOrder = []string{"train", "compare", "population", "judge"}

// checkedOnly are the examples that are checked (checkExample), not run,
// each with the reason; every other example runs (runExample).
var checkedOnly = map[string]string{
	"hyperctl compare --env halfcheetah --controllers hypercontroller,fixed --seeds 0-9 --out /shared/cmp --backend slurm --time 02:00:00 --cpus-per-task 2": "submits to Slurm: needs a cluster",
	"hyperctl population --env reacher --method pbt --size 4 --frames 200000 --ready 20000 --out runs/pbt --backend slurm --time 01:00:00":                   "submits to Slurm: needs a cluster",
	"hyperctl dashboard /shared/cmp --listen 0.0.0.0:8422 --token-file ~/.hyperctl-token":                                                                    "reads the Slurm compare's folder /shared/cmp, on the cluster's shared filesystem",
}

// checkExample validates the command line l without running it: the
// command must exist and take its flags and arguments, and train,
// compare, population, eval, judge, render and report run their checks in
// a dry run (withDryRun: train and compare resolve their configs).
func checkExample(l string) error {
	args := strings.Fields(l)[1:]
	c, rest, err := newRootCmd().Find(args)
	if err != nil {
		return err
	}
	if err := c.ParseFlags(rest); err != nil {
		return flagError(c, err)
	}
	if !map[string]bool{"train": true, "compare": true, "population": true, "eval": true, "judge": true, "render": true, "report": true}[c.Name()] {
		return c.ValidateArgs(c.Flags().Args())
	}
	root := newRootCmd() // flags parsed once only
	root.SetArgs(args)
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	return root.ExecuteContext(withDryRun(context.Background()))
}

// The work of the runs the examples make, shrunk (installShrink): every
// iteration collects tinyBatch frames (tuned up to twice that), a run
// trains at most 2 iterations, a population 2 generations (halving: its
// rungs of one to a few iterations), and an episode lasts at most
// tinyEpisode steps.
const (
	tinyBatch   = 64
	tinyEpisode = 20
)

// shrinkRun makes the run r small without changing what it exercises:
// the same environment, networks, controller and tuned keys, over
// tinyBatch frames an iteration, 2 iterations (within a frame budget of
// that), each evaluated, 2 epochs and a 2-episode final evaluation. A
// population's member keeps the population's frames (shrinkPopulation).
func shrinkRun(r *configs.Run) {
	p := &r.PPO
	p.NumEnvs = min(p.NumEnvs, 2)
	p.BatchSize, p.MinibatchSize = min(p.BatchSize, tinyBatch), min(p.MinibatchSize, tinyBatch/2)
	p.Epochs, p.EvalEpisodes, p.FinalEvalEpisodes = min(p.Epochs, 2), min(p.EvalEpisodes, 1), min(p.FinalEvalEpisodes, 2)
	r.EvalEvery = min(r.EvalEvery, 1) // curves of the 2 iterations, as a report draws them
	for i, t := range r.Controller.Tune {
		switch t.Name {
		case "batch_size":
			t.Low, t.High = tinyBatch, 2*tinyBatch
		case "minibatch_size":
			t.Low, t.High = min(t.Low, tinyBatch/4), min(t.High, tinyBatch/2)
		case "epochs":
			t.Low, t.High = 1, 2
		}
		r.Controller.Tune[i] = t
	}
	if r.Controller.Name != configs.Population {
		r.Iterations = min(r.Iterations, 2)
		r.Frames = min(r.Frames, 2*tinyBatch)
	}
}

// shrinkPopulation gives the population of f at most 2 generations of
// one iteration of its shrunk members each (shrinkRun), or successive
// halving's rungs of one iteration and more, with --first-exploit and
// --min-frames scaled alike.
func shrinkPopulation(f *populationFlags) {
	per, frames := int64(2*tinyBatch), f.frames // the most frames an iteration of a member collects
	switch f.method {
	case popmethod.Halving:
		rungs, err := popmethod.Rungs(f.size, f.eta, f.minFrames, f.frames)
		if err != nil {
			panic(err) // refused by the flags' checks
		}
		f.frames = per
		for range rungs[1:] {
			f.frames *= int64(f.eta)
		}
	case popmethod.RandomSearch:
		f.frames = per
	default:
		f.frames, f.ready = 2*per, per
	}
	f.firstExploit = f.firstExploit * f.frames / frames
	f.minFrames = max(1, f.minFrames*f.frames/frames)
}

// installShrink makes every command of this process small until the test
// ends: runs and populations (shrinkRun, shrinkPopulation), episodes
// (envs.CapEpisodes), and a compare's runs and a population's members
// trained in this process, one at a time, on one thread.
func installShrink(t *testing.T) {
	var one sync.Mutex // one training at a time: libtorch's threads are the process's
	shrink.run, shrink.population = shrinkRun, shrinkPopulation
	shrink.train = func(ctx context.Context, dir string, args []string) error {
		one.Lock()
		defer one.Unlock()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		log, err := os.OpenFile(filepath.Join(dir, rundir.LogFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer log.Close()
		root := newRootCmd()
		root.SetArgs(append(append([]string{"--log-format", "json"}, args...), "--threads", "1"))
		root.SetOut(log)
		root.SetErr(log)
		if err := root.ExecuteContext(ctx); err != nil {
			return fmt.Errorf("%w (see %s)", err, log.Name())
		}
		return nil
	}
	shrink.member = func(out string) func(ctx context.Context, g, k int) error {
		return func(ctx context.Context, g, k int) error {
			one.Lock()
			defer one.Unlock()
			return population.TrainMember(ctx, out, g, k, population.MemberOptions{Threads: 1, Log: zerolog.Nop(), Version: versionString(), Train: run.TrainMember})
		}
	}
	restore := envs.CapEpisodes(tinyEpisode)
	t.Cleanup(func() {
		restore()
		shrink.run, shrink.population, shrink.train, shrink.member = nil, nil, nil, nil
	})
}

// servers are the commands that serve until they are stopped, and the
// address each listens on without --listen.
var servers = map[string]string{"dashboard": "127.0.0.1:8422", "serve": "127.0.0.1:8421"}

// runExample runs the command line l in this process, as a shell would
// in the current folder (~ is $HOME, a pattern its matches), and returns
// its output and error. A server (servers) runs until it answers an HTTP
// request, then is stopped as by Ctrl-C, and must exit without an error;
// while its address is taken (another test's server), it is started again
// for up to 10 s.
func runExample(l string) (string, error) {
	var args []string
	for _, a := range strings.Fields(l)[1:] {
		if rest, ok := strings.CutPrefix(a, "~/"); ok {
			a = filepath.Join(os.Getenv("HOME"), rest)
		}
		if m, _ := filepath.Glob(a); strings.ContainsAny(a, "*?[") && len(m) > 0 {
			args = append(args, m...) // sorted, as a shell expands it
			continue
		}
		args = append(args, a)
	}
	c, rest, err := newRootCmd().Find(args)
	if err != nil {
		return "", err
	}
	if _, ok := servers[c.Name()]; !ok {
		var out bytes.Buffer
		root := newRootCmd()
		root.SetArgs(args)
		root.SetOut(&out)
		root.SetErr(&out)
		err := root.Execute()
		return out.String(), err
	}
	if err := c.ParseFlags(rest); err != nil {
		return "", err
	}
	for try := 0; ; try++ {
		out, err := serveOnce(c, args)
		if err == nil || !strings.Contains(err.Error(), "address already in use") || try == 40 {
			return out, err
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// serveOnce runs the server command line args (c, its flags parsed) until
// it answers at its address, then stops it (runExample).
func serveOnce(c *cobra.Command, args []string) (string, error) {
	listen := servers[c.Name()]
	if f := c.Flags().Lookup("listen"); f.Changed {
		listen = f.Value.String()
	}
	addrFile := c.Flags().Lookup("addr-file").Value.String()
	var out bytes.Buffer
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&out)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-done:
			return out.String(), fmt.Errorf("the server stopped before it answered: %w", err)
		default:
		}
		if addrFile != "" {
			b, err := os.ReadFile(addrFile)
			if err != nil {
				continue
			}
			listen = strings.TrimSpace(string(b))
		}
		if resp, err := http.Get("http://" + listen + "/"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Since(start) > time.Minute {
			return out.String(), errors.New("the server did not answer within a minute")
		}
	}
	stop()
	return out.String(), <-done // a foreign server that answered fails here, with our bind error
}

// runInOrder runs the command lines examples for real, in their order, in
// a fresh folder with a fresh $HOME, their work shrunk (installShrink):
// each must succeed, so each reads only what an example before it wrote.
// The checkedOnly ones are checked instead, and must all be among them.
func runInOrder(t *testing.T, examples []string, wantChecked int) {
	t.Chdir(t.TempDir())
	t.Setenv("HOME", t.TempDir())
	installShrink(t)
	checked := 0
	for _, l := range examples {
		t.Run(l, func(t *testing.T) {
			if why, ok := checkedOnly[l]; ok {
				checked++
				if err := checkExample(l); err != nil {
					t.Errorf("%s\n  is refused: %v", l, err)
				}
				t.Logf("checked, not run: %s", why)
				return
			}
			start := time.Now()
			out, err := runExample(l)
			if err != nil {
				t.Errorf("%s\n  failed: %v\n%s", l, err, out)
			}
			t.Logf("ran in %.1f s", time.Since(start).Seconds())
		})
	}
	if checked != wantChecked {
		t.Errorf("%d examples of checkedOnly checked, want %d: is the list out of date?", checked, wantChecked)
	}
}

// TestHelpExamples: every example in every command's --help runs, for
// real but small (runInOrder), in a fresh folder, in the order a user
// meets them (helpOrder): each makes what it reads or follows the example
// that does. The Slurm examples are checked only (checkedOnly). The check
// refuses the train example that --help once showed, which the default
// controller, fixed, refuses.
func TestHelpExamples(t *testing.T) {
	examples := helpExamples(newRootCmd())
	commands := map[string]bool{}
	for _, l := range examples {
		commands[strings.Fields(l)[1]] = true
	}
	for _, want := range []string{"train", "compare", "population", "judge", "eval", "render", "report", "status", "dashboard"} {
		if !commands[want] {
			t.Errorf("no example of %s found in the help texts (%d examples)", want, len(examples))
		}
	}
	rank := func(l string) int {
		if i := slices.Index(helpOrder, strings.Fields(l)[1]); i >= 0 {
			return i
		}
		return len(helpOrder)
	}
	slices.SortStableFunc(examples, func(a, b string) int { return rank(a) - rank(b) })
	runInOrder(t, examples, len(checkedOnly))
	old := "hyperctl train --env halfcheetah --frames 1000000 --preset rl"
	if err := checkExample(old); err == nil || !strings.Contains(err.Error(), "presets change the controller, and fixed has none") {
		t.Errorf("%s: %v, want the preset refused", old, err)
	}
}

// TestReadmeExamples: README.md's usage examples run, for real but small,
// in the order written, in a fresh folder (runInOrder).
func TestReadmeExamples(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	examples := readmeExamples(t, root)
	if len(examples) < 10 {
		t.Fatalf("%d hyperctl examples in README.md's sh blocks, want the usage's", len(examples))
	}
	runInOrder(t, examples, 0)
}
