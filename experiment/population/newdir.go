package population

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hyperctl/hyperctl/experiment/matrix"
)

// DefaultDir is the folder of a population started without --out:
// runs/<env>-<method>-<size>-seed<S>, named as report names its row
// (pb2-8).
func DefaultDir(def Definition) string {
	return filepath.Join("runs", fmt.Sprintf("%s-%s-%d-seed%d", def.Env, def.Settings.Method, def.Size, def.Seed))
}

// NewDir picks the folder of a population started without --out, as
// train picks a run's (matrix.FirstFree): base when it is free or holds
// this population unfinished (the same command continues it), else the
// first free one of base-run2, base-run3, … A folder is taken when it
// holds a finished population, another population, or anything else. It
// returns the folder and, when that is not base, why base was taken.
func NewDir(base string, def Definition) (dir, why string, err error) {
	return matrix.FirstFree(base, func(dir string) (string, error) {
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) || checkEmpty(dir) == nil {
			return "", nil
		}
		old, err := ReadDefinition(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "holds something other than a population", nil
		case err != nil:
			return "holds a population that cannot be read (" + err.Error() + ")", nil
		case old.Same(&def) != "":
			return "holds another population", nil
		}
		if _, err := os.Stat(filepath.Join(dir, ResultFile)); err == nil {
			return "holds this population, finished", nil
		}
		return "", nil
	})
}
