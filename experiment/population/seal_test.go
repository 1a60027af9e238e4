package population

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every single-byte change of a sealed plan, and of a sealed log record,
// is refused; the unchanged bytes read back as written.
func TestSealEveryByte(t *testing.T) {
	p := Plan{Generation: 2, Target: 768, Members: []PlanMember{
		{Hyper: map[string]float64{"clip": 0.489, "lr": 3e-4}, Start: 512, Before: -12.5, HaveBefore: true},
		{Hyper: map[string]float64{"clip": 0.2, "lr": 1e-4}, Start: 448, Before: -3.25, HaveBefore: true},
	}}
	file, err := sealJSON(p)
	if err != nil {
		t.Fatal(err)
	}
	r := Record{Generation: 1, Event: EventReady, Member: 3, Frames: 1410, Score: score(-7.5), Hyper: p.Members[0].Hyper}
	line, err := sealRecord(r)
	if err != nil {
		t.Fatal(err)
	}
	line = line[:len(line)-1] // without its newline
	for _, c := range []struct {
		name string
		b    []byte
		open func([]byte) error
	}{
		{"plan file", file, func(b []byte) error { var q Plan; _, err := openJSON(b, &q, Sealed); return err }},
		{"log record", line, func(b []byte) error { _, _, err := openRecord(b, Sealed); return err }},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.open(c.b); err != nil {
				t.Fatalf("intact: %v", err)
			}
			for i := range c.b {
				for _, mask := range []byte{0x01, 0x20, 0x80} {
					b := append([]byte{}, c.b...)
					b[i] ^= mask
					if err := c.open(b); err == nil {
						t.Fatalf("byte %d ^ %#x accepted:\n%s", i, mask, b)
					}
				}
			}
		})
	}
	var q Plan
	if _, err := openJSON(file, &q, Sealed); err != nil || q.Members[0].Hyper["clip"] != 0.489 || q.Members[1].Start != 448 {
		t.Fatalf("read back %+v, %v", q, err)
	}
	if got, _, err := openRecord(line, Sealed); err != nil || got.Frames != 1410 || *got.Score != -7.5 {
		t.Fatalf("read back %+v, %v", got, err)
	}
}

// Files written before sealing (plain indented JSON, plain JSON lines) are
// read by the readers that steer nothing, which say so, and refused as
// damaged by the others with the file named.
func TestLegacyFiles(t *testing.T) {
	dir := t.TempDir()
	res := Result{Members: []ResultMember{{Dir: "reacher/pbt/seed0", Frames: 768, Score: 1}}, Best: -1}
	b, _ := json.MarshalIndent(res, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, ResultFile), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	rec, _ := json.Marshal(Record{Generation: 0, Event: EventReady, Member: 0, Frames: 256, Score: score(1)})
	if err := os.WriteFile(filepath.Join(dir, LogFile), append(rec, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, legacy, err := ReadResultLegacy(dir); err != nil || !legacy || r.Members[0].Frames != 768 {
		t.Errorf("ReadResultLegacy: %+v, legacy %v, %v", r, legacy, err)
	}
	if recs, legacy, err := ReadLogLegacy(dir); err != nil || !legacy || len(recs) != 1 {
		t.Errorf("ReadLogLegacy: %+v, legacy %v, %v", recs, legacy, err)
	}
	if _, err := ReadResult(dir); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), ResultFile) {
		t.Errorf("ReadResult of a legacy file: %v", err)
	}
	if err := AppendGeneration(dir, 1, nil); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), LogFile+": line 1") {
		t.Errorf("AppendGeneration to a legacy log: %v", err)
	}
	// A sealed file whose checksum key was changed is not taken for a
	// legacy one.
	sealed, _ := sealJSON(res)
	damaged := []byte(strings.Replace(string(sealed), `"crc32c"`, `"crc33c"`, 1))
	if err := os.WriteFile(filepath.Join(dir, ResultFile), damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadResultLegacy(dir); !errors.Is(err, ErrDamaged) {
		t.Errorf("a sealed result.json with a changed key: %v", err)
	}
}
