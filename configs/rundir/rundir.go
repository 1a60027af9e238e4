// Package rundir is the format of a training run's folder: what `hyperctl
// train` writes, and `hyperctl compare`, `report`, `status` and the transfer
// of DeltaBO (baselines/deltabo, whose source runs `hyperctl train` reads)
// read. It owns the file names, the CSV schemas and their one reader
// (ReadLog, LastRow, Runs, FindRuns, ReadIdentity), the checkpoint file, the summary and the
// rules for reusing a folder. It imports no trainer and no controller, so
// readers can depend on it; the writer is experiment/run.
//
// # Layout
//
//	config.toml     the resolved config (written before training starts)
//	train.csv       one row per iteration, appended and flushed each iteration
//	eval.csv        one row per evaluation
//	checkpoint/     checkpoint.bin, the newest checkpoint, with the files kept beside it
//	                (policy-best's copy); prev/ holds the previous checkpoint and its files
//	summary.json    written when the run finishes; its presence marks a finished run
//	train.log       the log of a run started by `hyperctl compare`
//	.lock           locked by the process writing the run (see Acquire); holds its pid
//	policy-final.safetensors, policy-final.json
//	                the latest policy (package ppo/policy), written at every
//	                evaluation and at the end
//	policy-best.safetensors, policy-best.json
//	                the policy with the highest evaluation return so far
//	events.out.tfevents.*
//	                TensorBoard events (package tbevents), one event per
//	                iteration at step = frames trained
//	slurm-task.txt  the last Slurm attempt's outcome, under `compare --backend slurm`
//	                (written by the batch script; see experiment/slurm)
//	videos/         with `train --capture-video`: iter<NNNNNN>.mp4, an evaluation
//	                episode recorded after that (0-based) iteration
//
// # train.csv and eval.csv
//
// train.csv's columns are iteration, frames (collected so far), wall_time_s
// and controller_time_s (cumulative), train_reward (R_t, the mean training
// reward per step), objective (the controller's objective X_t, see
// controller.Objective.Value; empty where undefined), episodes (finished this
// iteration), mean_episode_return (empty without episodes), one column per
// logged per-iteration hyperparameter, its value in force at the iteration
// (the writer passes the names: configs.Run.LoggedHyper, the paper's four
// keys plus every other tuned key, in ppoconfig.HyperNames' order; runs written
// before more keys became tunable have the four), and rejected_updates
// (cumulative). Readers find columns by name. See TrainColumns and TrainRow. eval.csv's
// columns are iteration, frames, wall_time_s, controller_time_s, eval_return,
// eval_steps, eval_episodes and eval_return_std (EvalColumns, EvalRow; runs
// written before the last two existed lack them). The first column of both is the
// 0-based iteration; rows are appended and written through at once, so a
// killed run loses no appended row, and a resumed one drops the rows at or
// after its checkpoint (OpenCSV).
//
// # Checkpoint
//
// A checkpoint file (EncodeCheckpoint describes the format) holds the
// training Progress and two opaque payloads, the trainer's and the
// controller's snapshots, behind a magic, a format version and a CRC-32C
// checksum over all its bytes, which are verified before anything is
// decoded. WriteCheckpoint writes checkpoint/checkpoint.bin atomically every
// checkpoint_every iterations and when training is interrupted, and moves
// the good checkpoint it replaces, with the files kept beside it, to
// checkpoint/prev/.
// ReadCheckpoint returns the newest file that passes its check, falling back
// to the previous one (the caller truncates the logs to its iteration with
// OpenCSV, so nothing is duplicated); with none left it refuses and says how
// to start over. The folder is removed when the run finishes.
//
// # One writer
//
// A process writing a run holds an exclusive lock on its .lock file
// (Acquire), released by the kernel when the process ends, however it ends.
// A second writer is refused at once with an error naming the holder's pid
// (LockedError).
//
// # Reusing a folder
//
// Decide applies the rules: an empty folder starts a run; a finished one is
// refused without force (with resume there is nothing to do); an unfinished
// one is refused unless resume (continue it) or force (start over, after
// Clear). A run is continued only with the config it was started with
// (CheckSameConfig shows the difference).
//
// # Copying a run
//
// CopyRun makes one folder a copy of another's run, checkpoints included,
// so a run continued from the copy continues exactly as the original would
// have: a population's exploit step (`hyperctl population`).
package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/hyperctl/hyperctl/internal/ground/words"
	"github.com/hyperctl/hyperctl/ppo/policy"
)

// File names inside a run folder.
const (
	ConfigFile        = "config.toml"
	TrainCSV          = "train.csv"
	EvalCSV           = "eval.csv"
	EpisodesCSV       = "episodes.csv" // every finished training episode's return (population members under t-test selection only)
	SummaryFile       = "summary.json"
	CheckpointDir     = "checkpoint"     // the folder of the newest checkpoint and the files kept beside it
	CheckpointFile    = "checkpoint.bin" // the newest checkpoint, in CheckpointDir
	PrevCheckpointDir = "prev"           // in CheckpointDir: the previous checkpoint and its files
	LockFile          = ".lock"          // the writer's lock (see Acquire); holds its pid
	LogFile           = "train.log"
	VideosDir         = "videos"               // the videos `train --capture-video` records
	EventsPrefix      = "events.out.tfevents." // starts the name of every TensorBoard events file (package tbevents writes them)
	minFreeBytes      = 64 << 20               // refuse to start with less free space than this
	probeFileName     = ".hyperctl-write-probe"
)

// State says what a folder holds.
type State int

const (
	// Empty: the folder is absent or holds no run.
	Empty State = iota
	// Unfinished: a run started (config.toml exists) but has no summary.
	Unfinished
	// Finished: summary.json exists.
	Finished
)

func (s State) String() string {
	return [...]string{"empty", "unfinished", "finished"}[s]
}

// Inspect reports the state of a run folder. A path that is a file, or
// lies under one, is an error saying so.
func Inspect(dir string) (State, error) {
	if err := notAFile(dir); err != nil {
		return Empty, err
	}
	if _, err := os.Stat(filepath.Join(dir, SummaryFile)); err == nil {
		return Finished, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Empty, fmt.Errorf("output folder %s: %w", dir, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ConfigFile)); err == nil {
		return Unfinished, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Empty, fmt.Errorf("output folder %s: %w", dir, err)
	}
	return Empty, nil
}

// notAFile refuses a folder path that is an existing file or lies under
// one (stat would only say "not a directory" about a file inside it).
func notAFile(dir string) error {
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err == nil {
			if !st.IsDir() {
				if p == filepath.Clean(dir) {
					return fmt.Errorf("output folder %s is a file, not a folder", dir)
				}
				return fmt.Errorf("output folder %s: %s is a file, not a folder", dir, p)
			}
			return nil
		}
		if parent := filepath.Dir(p); parent == p {
			return nil
		}
	}
}

// Plan is what a training command does with a run folder.
type Plan int

const (
	// Start a new run in an empty folder.
	Start Plan = iota
	// Overwrite the run in the folder: Clear it, then start a new one.
	Overwrite
	// Continue the unfinished run from its checkpoint (from the start when
	// it has none yet).
	Continue
	// Nothing to do: the run is finished and resume was asked.
	Nothing
)

// Decide applies the rules for reusing the folder dir in state st, given
// whether the user asked to resume and to force. It refuses a finished run
// without force, and an unfinished one without resume or force, with a
// *ReuseError naming the setting to use.
func Decide(dir string, st State, resume, force bool) (Plan, error) {
	switch {
	case st == Empty:
		return Start, nil
	case force:
		return Overwrite, nil
	case st == Finished && resume:
		return Nothing, nil
	case st == Finished:
		return 0, &ReuseError{Dir: dir, Finished: true}
	case !resume:
		return 0, &ReuseError{Dir: dir}
	}
	return Continue, nil
}

// CheckSameConfig refuses to continue the run in dir when the config it was
// started with (was) differs from the config now; both must be written by
// the same encoder, with machine-only settings neutralised. The error, a
// *ConfigMismatchError, shows the difference key by key; changes are what
// makes the difference in the caller's words (a command's flags), when the
// caller knows them. It is the one check and the one message of every
// resume that would change a run.
func CheckSameConfig(dir, was, now string, changes ...string) error {
	if d := ConfigDiff(was, now); d != "" {
		return &ConfigMismatchError{Dir: dir, Diff: d, Changes: changes}
	}
	return nil
}

// ConfigMismatchError is CheckSameConfig's refusal: a usage error (the
// caller asked to continue a run with another config), not a failure. It
// is a words.Worded error.
type ConfigMismatchError struct {
	Dir     string   // the run folder
	Diff    string   // ConfigDiff(was, now)
	Changes []string // what changes the config ("--iterations 9"), in the caller's words, if known
}

// Error is the refusal in Go's words.
func (e *ConfigMismatchError) Error() string { return e.In(words.Go) }

// In is the refusal in w's words.
func (e *ConfigMismatchError) In(w words.Words) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s was started with a different config; refusing to mix them", e.Dir)
	if ch := strings.Join(e.Changes, ", "); ch != "" {
		fmt.Fprintf(&sb, ": %s would change it. Drop %s to continue the run as it was started, use %s to start it over, or %s for another folder.", ch, ch, w.Force, w.Out)
	} else {
		fmt.Fprintf(&sb, ". Continue it with the config it was started with, use %s to start it over, or %s for another folder.", w.Force, w.Out)
	}
	fmt.Fprintf(&sb, "\n(- in the folder, + now):\n%s", strings.TrimRight(e.Diff, "\n"))
	return sb.String()
}

// EventsFiles lists the TensorBoard events files in dir (EventsPrefix),
// sorted by name.
func EventsFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tensorboard events: %w", err)
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasPrefix(e.Name(), EventsPrefix) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out, nil
}

// Clear removes a run's files from dir (only the ones a run writes, except
// the log), so a new run can start there.
func Clear(dir string) error {
	names := []string{SummaryFile, TrainCSV, EvalCSV, EpisodesCSV, ConfigFile}
	for _, p := range []string{policy.Final, policy.Best} {
		w, m := policy.Paths("", p)
		names = append(names, m, w)
	}
	events, err := EventsFiles(dir)
	if err != nil {
		return fmt.Errorf("overwrite %s: %w", dir, err)
	}
	for _, e := range events {
		names = append(names, filepath.Base(e))
	}
	for _, n := range names {
		if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("overwrite %s: %w", dir, err)
		}
	}
	for _, d := range []string{CheckpointDir, VideosDir} {
		if err := os.RemoveAll(filepath.Join(dir, d)); err != nil {
			return fmt.Errorf("overwrite %s: %w", dir, err)
		}
	}
	return nil
}

// CheckWritable creates dir if needed and proves it is writable and has room,
// before any training starts.
func CheckWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output folder %s: cannot create: %w", dir, err)
	}
	probe := filepath.Join(dir, probeFileName)
	if err := os.WriteFile(probe, []byte("ok"), 0o644); err != nil {
		return fmt.Errorf("output folder %s: not writable: %w", dir, err)
	}
	_ = os.Remove(probe)
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err == nil {
		free := uint64(st.Bavail) * uint64(st.Bsize)
		if free < minFreeBytes {
			return fmt.Errorf("output folder %s: only %d MiB free on its disk, need at least %d MiB", dir, free>>20, minFreeBytes>>20)
		}
	}
	return nil
}

// ConfigDiff returns the difference of two config texts, key by key (""
// when equal): each key is written with its table, as --set takes it
// (controller.name, controller.tune[1].high), "- KEY = VALUE" for a's
// value and "+ KEY = VALUE" for b's. Keys are in a's order, then the keys
// only b has.
func ConfigDiff(a, b string) string {
	ak, av := qualify(a)
	bk, bv := qualify(b)
	var sb strings.Builder
	for _, k := range ak {
		switch v, ok := bv[k]; {
		case !ok:
			fmt.Fprintf(&sb, "- %s = %s\n", k, av[k])
		case v != av[k]:
			fmt.Fprintf(&sb, "- %s = %s\n+ %s = %s\n", k, av[k], k, v)
		}
	}
	for _, k := range bk {
		if _, ok := av[k]; !ok {
			fmt.Fprintf(&sb, "+ %s = %s\n", k, bv[k])
		}
	}
	return sb.String()
}

// qualify reads a config text as written by the TOML encoder: one
// KEY = VALUE a line under [table] and [[array]] headers. It returns the
// keys with their tables, in order, and their values as written. An
// element of an array of tables is named by its index from 0. A line that
// is neither a header nor an assignment is kept whole as a key.
func qualify(text string) (keys []string, vals map[string]string) {
	vals = map[string]string{}
	prefix := ""
	count := map[string]int{}
	for _, l := range splitLines(text) {
		if name, ok := strings.CutPrefix(l, "[["); ok {
			name = strings.TrimSpace(strings.TrimSuffix(name, "]]"))
			prefix = fmt.Sprintf("%s[%d].", name, count[name])
			count[name]++
			continue
		}
		if name, ok := strings.CutPrefix(l, "["); ok {
			prefix = strings.TrimSpace(strings.TrimSuffix(name, "]")) + "."
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			k, v = l, ""
		}
		k = prefix + strings.TrimSpace(k)
		if _, dup := vals[k]; !dup {
			keys = append(keys, k)
		}
		vals[k] = strings.TrimSpace(v)
	}
	return keys, vals
}

func splitLines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if t := strings.TrimSpace(l); t != "" {
			out = append(out, t)
		}
	}
	return out
}
