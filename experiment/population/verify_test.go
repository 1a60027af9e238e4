package population

import (
	"io/fs"
	"path/filepath"
	"testing"
)

// Every population committed under results/ (sealed, and legacy ones
// written before population files were sealed) verifies: its log is what
// its plans, steps and result.json give.
func TestCommittedPopulationsVerify(t *testing.T) {
	var n, legacy int
	err := filepath.WalkDir(filepath.Join("..", "..", "results"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != DefinitionFile {
			return err
		}
		n++
		v, err := Verify(filepath.Dir(p))
		if err != nil {
			t.Errorf("%v", err)
		}
		if v.Legacy {
			legacy++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no population under results/")
	}
	t.Logf("%d populations verified, %d of them legacy", n, legacy)
}
