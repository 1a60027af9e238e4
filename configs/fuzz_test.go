package configs

import (
	"testing"
)

// FuzzParse: no config text makes the decoder panic or allocate beyond its
// bounds; a config it accepts encodes (Encode, as config.toml is written)
// to text that parses back to the same encoding. The seed corpus
// (the default configs, and testdata/fuzz/FuzzParse: the inputs of issue 20 and
// edge cases) runs with the normal tests; fuzz with
//
//	go test -run '^$' -fuzz '^FuzzParse$' -fuzztime 20s ./configs/
func FuzzParse(f *testing.F) {
	for _, name := range DefaultNames() {
		b, err := defaults.ReadFile(name + ".toml")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, text string) {
		run, err := Parse("fuzz.toml", text)
		if err != nil {
			return
		}
		enc, err := run.Encode()
		if err != nil {
			t.Fatalf("accepted config does not encode: %v", err)
		}
		again, err := Parse("config.toml", enc)
		if err != nil {
			t.Fatalf("encoded config does not parse: %v\n%s", err, enc)
		}
		enc2, err := again.Encode()
		if err != nil || enc2 != enc {
			t.Fatalf("encoding is not stable (%v):\n%s\n---\n%s", err, enc, enc2)
		}
	})
}
