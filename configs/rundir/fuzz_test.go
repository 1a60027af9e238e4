package rundir

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hyperctl/hyperctl/internal/ground/statecodec"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite the genuine fuzz seeds in testdata/fuzz")

// FuzzDecodeCheckpoint feeds bytes to DecodeCheckpoint: as they are (raw),
// or, with sealed set, as the payload of a correctly sealed file (magic,
// version, checksum), so the fuzzer reaches the field decoders behind the
// checksum. It must never panic; what it accepts re-encodes to the same
// bytes (the format is canonical). The seed corpus (testdata/fuzz/
// FuzzDecodeCheckpoint) runs with the normal tests; fuzz with
//
//	go test -run '^$' -fuzz '^FuzzDecodeCheckpoint$' -fuzztime 20s ./configs/rundir/
func FuzzDecodeCheckpoint(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, sealed bool) {
		b := data
		if sealed {
			b = statecodec.Seal(checkpointMagic, CheckpointFormatVersion, data)
		}
		c, err := DecodeCheckpoint(b)
		if err != nil {
			return
		}
		if again := EncodeCheckpoint(c); !bytes.Equal(again, b) {
			t.Fatalf("decoded %+v re-encodes to other bytes", c.Progress)
		}
	})
}

// genuineCheckpoints are valid files: with and without a controller, with
// empty payloads.
func genuineCheckpoints() map[string][]byte {
	return map[string][]byte{
		"with-controller": EncodeCheckpoint(Checkpoint{Progress: Progress{Iteration: 40, WallS: 12.5, CtrlS: 0.01, PrevReward: -0.3, HavePrev: true, LastEval: -20, HaveEval: true},
			Trainer: bytes.Repeat([]byte("trainer"), 20), Controller: []byte("controller state")}),
		"fixed":         EncodeCheckpoint(Checkpoint{Progress: Progress{Iteration: 3}, Trainer: []byte{1, 2, 3}}),
		"empty-payload": EncodeCheckpoint(Checkpoint{Controller: []byte{}}),
		"with-kernels": EncodeCheckpoint(Checkpoint{Progress: Progress{Iteration: 5, Kernels: "OpenBLAS Haswell, ATEN_CPU_CAPABILITY avx2"},
			Trainer: []byte{4, 5}}),
	}
}

// TestFuzzCheckpointCorpus: the genuine seeds in testdata decode (so the
// fuzzer starts from inputs that reach every field); -update-corpus
// rewrites them.
func TestFuzzCheckpointCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzDecodeCheckpoint")
	for name, b := range genuineCheckpoints() {
		p := filepath.Join(dir, "genuine-"+name)
		if *updateCorpus {
			os.MkdirAll(dir, 0o755)
			// Raw, and as a payload for the sealed mode.
			os.WriteFile(p, []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%s)\nbool(false)\n", strconv.Quote(string(b)))), 0o644)
			os.WriteFile(p+"-payload", []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%s)\nbool(true)\n", strconv.Quote(string(b[10:len(b)-4])))), 0o644)
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("%v (regenerate with -update-corpus)", err)
		}
		if !bytes.Contains(got, []byte(strconv.Quote(string(b)))) {
			t.Fatalf("%s is stale (format changed? regenerate with -update-corpus)", p)
		}
		if _, err := DecodeCheckpoint(b); err != nil {
			t.Fatal(err)
		}
	}
}
