package configs

import (
	"slices"
	"testing"
)

// The keys of embedded settings blocks are listed in place, as the table's
// own; untagged and "-" fields are not keys.
func TestTOMLTagsEmbedded(t *testing.T) {
	type block struct {
		A int `toml:"a"`
		B int `toml:"b"`
	}
	type settings struct {
		First string `toml:"first"`
		block
		Skip  []int `toml:"-"`
		Plain int
		Last  bool `toml:"last,omitempty"`
	}
	want := []string{"first", "a", "b", "last"}
	if got := tomlTags(&settings{}); !slices.Equal(got, want) {
		t.Errorf("tomlTags = %v, want %v", got, want)
	}
}
