package population

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/matrix"
	"github.com/hyperctl/hyperctl/ppo/policy"
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

// PolicyRun is the run folder whose policy name a command that loads one
// reads from dir, the folder a user named: dir itself, or a finished
// population's best member (RunOrBest, with its line on note). A folder
// with runs below it but none itself is an error that lists them and
// gives, by command, the command line that picks one.
func PolicyRun(note io.Writer, dir, name string, command func(pick string) string) (string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("run folder %s: %w", dir, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("run folder %s: is a file, not a folder", dir)
	}
	dir, err = RunOrBest(note, dir)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, rundir.ConfigFile)); errors.Is(err, os.ErrNotExist) {
		return "", noRun(dir, name, command)
	}
	return dir, nil
}

// noRun is the error for dir, a folder without config.toml, given to a
// command that loads the policy name of a run: when run folders lie below
// it (a compare folder), it lists those that keep that policy and gives
// the command that picks one (or says that none keeps it), else it says
// what a run folder is.
func noRun(dir, name string, command func(pick string) string) error {
	b := matrix.RunsBelow(dir)
	if len(b.Runs) == 0 {
		return fmt.Errorf("%s holds no run: a run folder holds the %s that train writes first, and none is below it either", dir, rundir.ConfigFile)
	}
	with := b.Only(func(d string) bool { return policy.Exists(d, name) })
	runs := matrix.Plural(len(b.Runs), "run", "runs")
	if len(with.Runs) == 0 {
		return fmt.Errorf("%s holds no run itself (no %s) but %s below it, none of which keeps its %s (a study that committed no policy files): %s. Give a run folder that keeps one (docs/run-folder.md names committed runs that do)",
			dir, rundir.ConfigFile, runs, name, b.List())
	}
	return fmt.Errorf("%s holds no run itself (no %s) but %s below it, %d with its %s: %s. Give one of them, e.g.\n  %s",
		dir, rundir.ConfigFile, runs, len(with.Runs), name, with.List(), command(with.Pick))
}
