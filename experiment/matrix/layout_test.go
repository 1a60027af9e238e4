package matrix

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIsPopulation(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(dir string) error
		want bool
	}{
		{"a compare folder", func(string) error { return nil }, false},
		{"a population folder", func(dir string) error { return os.WriteFile(filepath.Join(dir, PopulationFile), []byte("{}"), 0o644) }, true},
		{"a folder named like the file", func(dir string) error { return os.Mkdir(filepath.Join(dir, PopulationFile), 0o755) }, false},
	} {
		dir := t.TempDir()
		if err := tc.make(dir); err != nil {
			t.Fatal(err)
		}
		if got := IsPopulation(dir); got != tc.want {
			t.Errorf("%s: IsPopulation = %v, want %v", tc.name, got, tc.want)
		}
	}
}
