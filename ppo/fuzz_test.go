package ppo

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hyperctl/hyperctl/internal/ground/statecodec"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite the genuine fuzz seeds in testdata/fuzz")

// fuzzConfig is a tiny trainer (hidden [4]) on the toy environment, so the
// genuine seeds are small.
func fuzzConfig() ppoconfig.Config {
	c := toyExactConfig()
	c.Hidden = []int{4}
	return c
}

// FuzzRestore feeds bytes to Trainer.Restore: as they are, or, with sealed
// set, as the payload of a correctly sealed snapshot (magic, version,
// checksum), so the fuzzer reaches the section decoders behind the
// checksum. Restore must never panic; a refused input leaves the trainer
// usable (not broken), and an accepted one trains on without panicking.
// The seed corpus (testdata/fuzz/FuzzRestore: genuine snapshots before and
// after training and evaluating) runs with the normal tests; fuzz with
//
//	go test -run '^$' -fuzz '^FuzzRestore$' -fuzztime 20s ./ppo/
func FuzzRestore(f *testing.F) {
	cfg := fuzzConfig()
	tr, err := New("ppotest-det", cfg, 7)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { tr.Close() })
	f.Fuzz(func(t *testing.T, data []byte, sealed bool) {
		b := data
		if sealed {
			b = statecodec.Seal(snapMagic, SnapshotFormatVersion, data)
		}
		if err := tr.Restore(b); err != nil {
			if tr.broken != nil {
				t.Fatalf("a refused snapshot broke the trainer: %v", tr.broken)
			}
			return
		}
		h := cfg.Hyper
		h.BatchSize = 8
		_, _ = tr.Iterate(context.Background(), h)
	})
}

// genuineSnapshots are snapshots of the fuzz trainer before training and
// after an iteration and an evaluation.
func genuineSnapshots(t testing.TB) map[string][]byte {
	tr, err := New("ppotest-det", fuzzConfig(), 7)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	fresh, err := tr.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := tr.Iterate(ctx, fuzzConfig().Hyper); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Evaluate(ctx, 1); err != nil {
		t.Fatal(err)
	}
	trained, err := tr.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{"fresh": fresh, "trained": trained}
}

// TestFuzzRestoreCorpus: the genuine seeds in testdata are this build's
// snapshots (so the fuzzer starts from inputs that reach every section);
// -update-corpus rewrites them.
func TestFuzzRestoreCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzRestore")
	for name, b := range genuineSnapshots(t) {
		p := filepath.Join(dir, "genuine-"+name)
		if *updateCorpus {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for path, text := range map[string]string{
				p:              fmt.Sprintf("go test fuzz v1\n[]byte(%s)\nbool(false)\n", strconv.Quote(string(b))),
				p + "-payload": fmt.Sprintf("go test fuzz v1\n[]byte(%s)\nbool(true)\n", strconv.Quote(string(b[10:len(b)-4]))),
			} {
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("%v (regenerate with -update-corpus)", err)
		}
		if !bytes.Contains(got, []byte(strconv.Quote(string(b)))) {
			t.Fatalf("%s is stale (format changed? regenerate with -update-corpus)", p)
		}
		tr := newToyTrainer(t, "ppotest-det", fuzzConfig(), 7)
		if err := tr.Restore(b); err != nil {
			t.Fatalf("%s does not restore: %v", p, err)
		}
	}
}
