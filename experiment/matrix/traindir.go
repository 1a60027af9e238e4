package matrix

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/internal/ground/words"
)

// runFolderSuffix is the suffix of the Nth run folder of a name (N >= 2):
// runs/reacher-fixed-seed0-run2. Not "-2", which would read as a range of
// seeds (0-2, as compare's --seeds writes them).
const runFolderSuffix = "-run%d"

// maxRunFolders bounds the folders NewTrainDir tries.
const maxRunFolders = 10_000

// StoppedRunError is NewTrainDir's refusal of a folder that holds a stopped
// run of the same config: it is continued or started over, not skipped.
type StoppedRunError struct {
	Dir string // the folder of the stopped run
}

// Error is the refusal in Go's words.
func (e *StoppedRunError) Error() string { return e.In(words.Go) }

// In names the folder and, in w's words, the settings that continue the
// run or start it over.
func (e *StoppedRunError) In(w words.Words) string {
	return fmt.Sprintf("train: %s holds a stopped run of this config; continue it with %s, or start it over with %s", e.Dir, fmt.Sprintf(w.ResumeIn, e.Dir), fmt.Sprintf(w.ForceIn, e.Dir))
}

// NewTrainDir picks the folder of a run started without --out, --resume
// or --force: each launch gets its own. It is the default folder (base,
// see TrainDir) when that is free, else the first free one of base-run2,
// base-run3, … A folder is taken when it holds a finished run, a run of
// another config, or a run another process writes now; a stopped run of
// the same config (comparable, configs.Run.Comparable) is not skipped but
// refused with a *StoppedRunError. A folder that does not exist is claimed
// by creating it, so two launches at once get two folders. It returns the
// folder and, when that is not base, why base was taken.
func NewTrainDir(base, comparable string) (dir, why string, err error) {
	return FirstFree(base, func(dir string) (string, error) { return folderTaken(dir, comparable) })
}

// FirstFree returns base when taken says it is free (taken returns ""),
// else the first free one of base-run2, base-run3, …, and, when that is
// not base, why base was taken. It is the one rule of a default folder
// that each launch gets its own: train's (NewTrainDir) and population's.
func FirstFree(base string, taken func(dir string) (why string, err error)) (dir, why string, err error) {
	for n := 1; n <= maxRunFolders; n++ {
		dir = base
		if n > 1 {
			dir = base + fmt.Sprintf(runFolderSuffix, n)
		}
		t, err := taken(dir)
		if err != nil {
			return "", "", err
		}
		if t == "" {
			return dir, why, nil
		}
		if n == 1 {
			why = t
		}
	}
	return "", "", &words.AdviceError{Msg: fmt.Sprintf("%s and %d folders after it are taken; give {out}", base, maxRunFolders-1)}
}

// folderTaken says why dir cannot hold a new run of the config comparable
// ("" when it can; a stopped run of that config is a *StoppedRunError).
// A folder that does not exist is created.
func folderTaken(dir, comparable string) (string, error) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return "", fmt.Errorf("output folder %s: %w", dir, err)
		}
		if err := os.Mkdir(dir, 0o755); errors.Is(err, fs.ErrExist) {
			return "was created by another launch", nil
		} else if err != nil {
			return "", fmt.Errorf("output folder %s: %w", dir, err)
		}
		return "", nil
	}
	st, err := rundir.Inspect(dir)
	if err != nil {
		return "", err
	}
	if _, held, err := rundir.Holder(dir); err != nil {
		return "", err
	} else if held {
		return "is being written by another process", nil
	}
	switch st {
	case rundir.Finished:
		return "holds a finished run", nil
	case rundir.Unfinished:
		was, err := configs.ResolveFile(filepath.Join(dir, rundir.ConfigFile))
		if err != nil || was.Comparable != comparable {
			return "holds a run of another config", nil
		}
		return "", &StoppedRunError{Dir: dir}
	}
	return "", nil
}
