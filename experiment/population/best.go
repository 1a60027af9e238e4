package population

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hyperctl/hyperctl/configs/rundir"
)

// BestMember returns the run folder of a finished population's best member
// (result.json's pick: the highest final evaluation return), its index and
// that return. An unfinished population, or one whose members never
// evaluated, is an error naming the folder. It reads nothing that steers
// training, so a legacy (unsealed) result.json is accepted.
func BestMember(out string) (dir string, k int, ret float64, err error) {
	r, _, err := ReadResultLegacy(out)
	if errors.Is(err, fs.ErrNotExist) {
		return "", -1, 0, fmt.Errorf("population %s is not finished (no %s yet), so it has no best member", out, ResultFile)
	}
	if err != nil {
		return "", -1, 0, err
	}
	return r.BestMember(out)
}

// BestMember returns the run folder of the population out's best member in
// r, its index and its final evaluation return; see the function
// BestMember.
func (r Result) BestMember(out string) (dir string, k int, ret float64, err error) {
	if r.Best < 0 || r.Best >= len(r.Members) || r.Members[r.Best].FinalEvalReturn == nil {
		return "", -1, 0, fmt.Errorf("population %s: %s names no best member (none has a final evaluation)", out, filepath.Join(out, ResultFile))
	}
	m := r.Members[r.Best]
	if !filepath.IsLocal(m.Dir) {
		return "", -1, 0, fmt.Errorf("population %s: %s: member %d's folder %q is not inside the population", out, filepath.Join(out, ResultFile), r.Best, m.Dir)
	}
	return filepath.Join(out, m.Dir), r.Best, *m.FinalEvalReturn, nil
}

// RunOrBest is dir itself, unless dir is a population folder
// (population.json, no config.toml): then it is the run folder of the
// population's best member, and a line on note says which. An unfinished
// population is an error that says how to name a member instead.
func RunOrBest(note io.Writer, dir string) (string, error) {
	if _, err := os.Stat(filepath.Join(dir, DefinitionFile)); err != nil {
		return dir, nil
	}
	if _, err := os.Stat(filepath.Join(dir, rundir.ConfigFile)); err == nil {
		return dir, nil
	}
	member, k, ret, err := BestMember(dir)
	if err != nil {
		return "", fmt.Errorf("%w; name a member's run folder instead ('hyperctl status %s' lists them)", err, dir)
	}
	fmt.Fprintf(note, "%s is a population: using its best member, member %d (final evaluation return %.2f): %s\n", dir, k, ret, member)
	return member, nil
}
