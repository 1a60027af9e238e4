package configs

import (
	"strings"
	"testing"
)

// TestPresetDocColumns: PresetDoc is a two-column table whose descriptions
// all start at one column, at least two spaces after every name (the
// longest included), which is what a help folded to a terminal folds
// under.
func TestPresetDocColumns(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(PresetDoc(), "\n"), "\n")
	if len(lines) != len(PresetNames()) {
		t.Fatalf("%d lines for %d presets:\n%s", len(lines), len(PresetNames()), PresetDoc())
	}
	col := -1
	for i, l := range lines {
		name := PresetNames()[i]
		rest, ok := strings.CutPrefix(l, "  "+name)
		if !ok {
			t.Fatalf("line %d %q does not start with two spaces and %q", i, l, name)
		}
		gap := len(rest) - len(strings.TrimLeft(rest, " "))
		if gap < 2 {
			t.Errorf("%q: %d space(s) between the name and its description, want at least 2", l, gap)
		}
		at := 2 + len(name) + gap
		if col >= 0 && at != col {
			t.Errorf("%q: its description starts at column %d, the others' at %d", l, at, col)
		}
		col = at
	}
}
