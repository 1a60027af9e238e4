package doclinks

import (
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// maxReadme is the most characters README.md may hold: read in five
// minutes. The studies' detail belongs in docs/ and results/.
const maxReadme = 10000

// TestReadmeSize keeps README.md within maxReadme characters (runes, as
// wc -m counts them).
func TestReadmeSize(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCount(b); n > maxReadme {
		t.Fatalf("README.md holds %d characters, more than %d: move detail into docs/", n, maxReadme)
	}
}
