package population

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/hyperctl/hyperctl/internal/ground/safefile"
	"github.com/hyperctl/hyperctl/internal/ground/statecodec"
)

// A population's files are sealed with the checksum of the run folder's
// checkpoints, statecodec.Checksum (CRC-32C), kept readable as JSON:
//
//   - a JSON file (definition, plan, step, result) opens with the line
//     `"crc32c": "<8 hex digits>",` right after its `{`: the CRC-32C of
//     the file's bytes with that line left out (the indented JSON of the
//     value);
//   - a log record ends with `,"crc32c":"<8 hex digits>"}`: the CRC-32C of
//     the line's bytes with that field left out (the record's JSON).
//
// Any changed byte of a sealed file or record fails its check. A file or
// record without the field is damaged (its checksum line deleted), except
// in a legacy population, written before population files were sealed:
// one whose population.json and generation 0's plan both lack it
// (readDefinition). A legacy file is decoded strictly (no unknown field,
// so a sealed file whose field was damaged is not taken for one) and only
// the readers that steer nothing accept it (see Strictness).

// ErrUnsealed is wrapped by the error about a legacy population (its
// population.json and plan-0000.json without checksums) where a sealed one
// is needed.
var ErrUnsealed = errors.New("written without checksums (its population.json and generations/plan-0000.json have none: written by hyperctl before population files were sealed, or both damaged)")

// errNoSeal is the damage of a file or record without its checksum.
var errNoSeal = fmt.Errorf("%w: it has no checksum (every file of a sealed population has one; it was deleted)", ErrDamaged)

// ErrDamaged is wrapped by the error about a sealed file or record that
// fails its check, and about one that is not JSON of its kind.
var ErrDamaged = errors.New("damaged")

// Strictness says whether a reader accepts legacy (unsealed) files.
type Strictness bool

const (
	// Sealed refuses a legacy file: what steers training (the runner,
	// the step, a member's training) reads only sealed files.
	Sealed Strictness = true
	// Legacy also accepts an unsealed file, decoded strictly: for readers
	// that steer nothing (status, report, lineages).
	Legacy Strictness = false
)

// sealKey is the checksum's JSON key.
const sealKey = statecodec.SealKey

// sealJSON returns v's indented JSON, sealed, with a final newline
// (statecodec.SealJSON).
func sealJSON(v any) ([]byte, error) { return statecodec.SealJSON(v) }

// openJSON checks the seal of a file's bytes b and decodes them into v;
// legacy reports a file without a seal (accepted only when strict is
// Legacy). Errors wrap ErrDamaged.
func openJSON(b []byte, v any, strict Strictness) (legacy bool, err error) {
	body, sealed, err := statecodec.OpenJSON(b)
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrDamaged, err)
	}
	if !sealed && strict == Sealed {
		return true, errNoSeal
	}
	return !sealed, decodeStrict(body, v)
}

// recordSealSuffix closes a sealed log record before its 8 hex digits and
// `"}`.
const recordSealSuffix = ",\"" + sealKey + "\":\""

// sealRecord returns r's log line (with its newline), sealed.
func sealRecord(r Record) ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	sum := statecodec.Checksum(b)
	out := append(b[:len(b)-1:len(b)-1], recordSealSuffix...)
	return fmt.Appendf(out, "%08x\"}\n", sum), nil
}

// openRecord checks and decodes one log line (without its newline); legacy
// reports a record without a seal (an error wrapping ErrDamaged unless
// strict is Legacy).
func openRecord(line []byte, strict Strictness) (r Record, legacy bool, err error) {
	n := len(recordSealSuffix) + 8 + 2
	if i := len(line) - n; i > 0 && string(line[i:i+len(recordSealSuffix)]) == recordSealSuffix {
		hex := line[i+len(recordSealSuffix) : len(line)-2]
		if string(line[len(line)-2:]) != "\"}" {
			return r, false, fmt.Errorf("%w: its checksum field is changed", ErrDamaged)
		}
		body := append(append([]byte{}, line[:i]...), '}')
		if err := checkSum(hex, body); err != nil {
			return r, false, err
		}
		return r, false, decodeStrict(body, &r)
	}
	if strict == Sealed {
		return r, true, errNoSeal
	}
	return r, true, decodeStrict(line, &r)
}

// checkSum compares a stored checksum (8 lowercase hex digits, as sealing
// writes them) with the CRC-32C of body; a mismatch wraps ErrDamaged.
func checkSum(stored, body []byte) error {
	if got := fmt.Sprintf("%08x", statecodec.Checksum(body)); string(stored) != got {
		return fmt.Errorf("%w: checksum mismatch (stored %q, computed %q)", ErrDamaged, stored, got)
	}
	return nil
}

// decodeStrict decodes one JSON value with no unknown field and nothing
// after it; errors wrap ErrDamaged.
func decodeStrict(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("%w: %w", ErrDamaged, err)
	}
	if d.More() {
		return fmt.Errorf("%w: more than one JSON value", ErrDamaged)
	}
	return nil
}

// folderStrictness is how the files of the population in out are read by
// a reader that steers nothing: Legacy when its population.json has no
// seal and neither has generation 0's plan (readDefinition's rule), or
// when it is missing (a folder that is no population); else Sealed. It
// does not validate the definition.
func folderStrictness(out string) (Strictness, error) {
	sealed := func(path string) (bool, error) {
		b, err := safefile.ReadRegular(path, maxJSONBytes)
		if err != nil {
			return false, err
		}
		_, ok, _ := statecodec.OpenJSON(b)
		return ok, nil
	}
	ok, err := sealed(filepath.Join(out, DefinitionFile))
	if errors.Is(err, fs.ErrNotExist) {
		return Legacy, nil
	}
	if err != nil || ok {
		return Sealed, err
	}
	if ok, err := sealed(genPath(out, "plan", 0)); err == nil && ok {
		return Sealed, nil
	}
	return Legacy, nil
}
