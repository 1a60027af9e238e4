package population

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"

	popmethod "github.com/hyperctl/hyperctl/baselines/population"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/internal/ground/safefile"
)

// A member seals what the step after its generation reads of it: when it
// reaches the generation's target, it writes generations/ready-G/member-K.json
// (MemberReady, sealed like every population file) with the SHA-256 of
// its train.csv (the frames and the returns Score reads), its episodes.csv
// under t-test selection (the returns the t-test reads) and, in the last
// generation, its summary.json (the final evaluation Finish reads). The
// step and Finish check every member's files against it before reading
// them, so a changed digit is refused naming the member and the file. A
// member paused at the target writes nothing more until its next
// generation, so the files hash the same until the step reads them.
//
// The record is written after the member's run returns: a kill between
// the two leaves none, and the next attempt (the member returns at once,
// at its target) writes it from the files as they are then. A population
// started before these records existed has none, and its steps read the
// files unchecked, as before.

// MemberReady is generations/ready-G/member-K.json: the digests of member
// K's files at the end of generation G.
type MemberReady struct {
	Generation int `json:"generation"`
	Member     int `json:"member"`
	// SHA256 is the SHA-256 (hex) of each file the step reads, by name
	// in the member's run folder.
	SHA256 map[string]string `json:"sha256"`
}

func readyPath(out string, g, k int) string {
	return filepath.Join(out, GenerationsDir, fmt.Sprintf("ready-%04d", g), fmt.Sprintf("member-%d.json", k))
}

// readyFiles are the files of a member that the step after generation g
// (or Finish) reads.
func readyFiles(def Definition, g int) []string {
	files := []string{rundir.TrainCSV}
	if def.Settings.Selection == popmethod.SelectTTest {
		files = append(files, rundir.EpisodesCSV)
	}
	if def.Last(g) {
		files = append(files, rundir.SummaryFile)
	}
	return files
}

// digests hashes files in dir; a missing file is an error.
func digests(dir string, files []string) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range files {
		b, err := safefile.ReadRegular(filepath.Join(dir, f), rundir.MaxCopyBytes)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		out[f] = hex.EncodeToString(sum[:])
	}
	return out, nil
}

// sealReady is called when member k has reached generation g's target:
// it writes the member's MemberReady, or, when one exists (an earlier
// attempt wrote it), checks the files against it.
func sealReady(out string, def Definition, g, k int) error {
	var old MemberReady
	_, err := readJSON(readyPath(out, g, k), &old, Sealed)
	if err == nil {
		return checkReadyAgainst(out, def, g, k, old)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	sums, err := digests(def.MemberDir(out, k), readyFiles(def, g))
	if err != nil {
		return fmt.Errorf("member %d: %w", k, err)
	}
	return writeJSON(readyPath(out, g, k), MemberReady{Generation: g, Member: k, SHA256: sums})
}

// checkReady checks member k's files before the step after generation g
// (or Finish) reads them, against its MemberReady of generation g when it
// trained in g (alive), else (successive halving stopped it) the latest
// it wrote before. A member without one (a population started before
// these records) is not checked.
func checkReady(out string, def Definition, g, k int, alive bool) error {
	last := 0
	if alive {
		last = g
	}
	for h := g; h >= last; h-- {
		var r MemberReady
		_, err := readJSON(readyPath(out, h, k), &r, Sealed)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		return checkReadyAgainst(out, def, h, k, r)
	}
	return nil
}

// checkReadyAgainst compares member k's files with r, its record of
// generation g.
func checkReadyAgainst(out string, def Definition, g, k int, r MemberReady) error {
	path := readyPath(out, g, k)
	if r.Generation != g || r.Member != k {
		return fmt.Errorf("%s is damaged: it is member %d's of generation %d", path, r.Member, r.Generation)
	}
	dir := def.MemberDir(out, k)
	files := readyFiles(def, g)
	names := make([]string, 0, len(r.SHA256))
	for f := range r.SHA256 {
		names = append(names, f)
	}
	slices.Sort(names)
	sorted := slices.Clone(files)
	slices.Sort(sorted)
	if !slices.Equal(names, sorted) {
		return fmt.Errorf("%s is damaged: it seals %v, want %v", path, names, sorted)
	}
	now, err := digests(dir, files)
	if err != nil {
		return fmt.Errorf("member %d: %w", k, err)
	}
	for _, f := range files {
		if now[f] != r.SHA256[f] {
			return fmt.Errorf("member %d: %s is damaged: its bytes are not those it held when the member finished generation %d (SHA-256 %s, sealed in %s; now %s), so the step would read changed rows; restore the file, or start the population over in another folder",
				k, filepath.Join(dir, f), g, r.SHA256[f], path, now[f])
		}
	}
	return nil
}
