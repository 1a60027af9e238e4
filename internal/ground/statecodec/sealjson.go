package statecodec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// A sealed JSON file is its value's indented JSON (json.MarshalIndent, two
// spaces) with one line added right after its `{`:
//
//	"crc32c": "<8 hex digits>",
//
// the Checksum of the file's bytes with that line and the final newline
// left out, so it stays readable JSON. A population's files, a policy's
// sidecar and judge.json are sealed this way; a file without the line is
// unsealed (its reader decides whether its own version field proves it
// old, or it is damaged).

// SealKey is the JSON key of a sealed file's checksum.
const SealKey = "crc32c"

// sealPrefix opens a sealed JSON file; 8 hex digits and `",\n` follow.
const sealPrefix = "{\n  \"" + SealKey + "\": \""

// ErrSeal is wrapped by the error about a sealed file whose checksum line
// is cut or changed, or whose bytes fail their checksum.
var ErrSeal = errors.New("checksum")

// SealJSON returns v's indented JSON, sealed, with a final newline. v must
// encode as a JSON object with at least one field.
func SealJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	if len(b) < 2 || b[0] != '{' || b[1] != '\n' {
		return nil, fmt.Errorf("seal: %T is not a JSON object with fields", v)
	}
	out := make([]byte, 0, len(b)+len(sealPrefix)+12)
	out = append(out, sealPrefix...)
	out = fmt.Appendf(out, "%08x\",\n", Checksum(b))
	out = append(out, b[2:]...)
	return append(out, '\n'), nil
}

// OpenJSON checks the seal of a file's bytes b and returns the bytes it
// covers (the JSON to decode); sealed is false, and body b itself, when b
// does not open with a seal. A seal that fails is an error wrapping
// ErrSeal.
func OpenJSON(b []byte) (body []byte, sealed bool, err error) {
	n := len(sealPrefix)
	if !bytes.HasPrefix(b, []byte(sealPrefix)) {
		return b, false, nil
	}
	if len(b) < n+11 || string(b[n+8:n+11]) != "\",\n" {
		return nil, true, fmt.Errorf("its %w line is cut or changed", ErrSeal)
	}
	body = append([]byte("{\n"), bytes.TrimSuffix(b[n+11:], []byte("\n"))...)
	if got := fmt.Sprintf("%08x", Checksum(body)); string(b[n:n+8]) != got {
		return nil, true, fmt.Errorf("%w mismatch (stored %q, computed %q)", ErrSeal, b[n:n+8], got)
	}
	return body, true, nil
}
