package statecodec

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// A sealed JSON file reads back; any changed byte of it, and a cut or
// changed checksum line, fails with ErrSeal; a file without the line is
// unsealed, its bytes given back as they are.
func TestSealJSON(t *testing.T) {
	v := map[string]any{"frames": 1410, "env": "Reacher-v4"}
	b, err := SealJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	body, sealed, err := OpenJSON(b)
	var got map[string]any
	if err != nil || !sealed || json.Unmarshal(body, &got) != nil || got["frames"] != 1410.0 {
		t.Fatalf("read back %s: sealed %v, %v", body, sealed, err)
	}
	plain, _ := json.MarshalIndent(v, "", "  ")
	for _, c := range []struct {
		name   string
		b      []byte
		sealed bool
		err    bool
	}{
		{"intact", b, true, false},
		{"a changed digit", bytes.Replace(b, []byte("1410"), []byte("1411"), 1), true, true},
		{"a changed checksum digit", func() []byte { c := bytes.Clone(b); c[len(sealPrefix)] ^= 1; return c }(), true, true},
		{"its line cut", b[:len(sealPrefix)+5], true, true},
		{"unsealed", plain, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			body, sealed, err := OpenJSON(c.b)
			if sealed != c.sealed || (err != nil) != c.err || err != nil && !errors.Is(err, ErrSeal) {
				t.Fatalf("sealed %v, err %v; want sealed %v, an error %v", sealed, err, c.sealed, c.err)
			}
			if !c.sealed && !bytes.Equal(body, c.b) {
				t.Fatal("an unsealed file's bytes changed")
			}
		})
	}
	if _, err := SealJSON([]int{1}); err == nil {
		t.Fatal("a JSON array was sealed")
	}
}
