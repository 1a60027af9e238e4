package population

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// BestMember returns the run folder of a finished population's best member
// (result.json's pick: the highest final evaluation return), its index and
// that return. An unfinished population, or one whose members never
// evaluated, is an error naming the folder.
func BestMember(out string) (dir string, k int, ret float64, err error) {
	r, err := ReadResult(out)
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
