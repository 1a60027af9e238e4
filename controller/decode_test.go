package controller

import (
	"slices"
	"testing"
)

// The keys of embedded settings blocks are listed in place, as the table's
// own; untagged and "-" fields are not keys.
func TestTOMLKeysEmbedded(t *testing.T) {
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
	if got := TOMLKeys(&settings{}); !slices.Equal(got, want) {
		t.Errorf("TOMLKeys = %v, want %v", got, want)
	}
}
