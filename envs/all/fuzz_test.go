package all

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/envs"
)

// Fuzz targets for the snapshot decoders. Their seed corpora
// (testdata/fuzz/FuzzRestore, testdata/fuzz/FuzzLoadState) hold genuine
// snapshots and states of every environment and run with the normal tests;
// fuzz with
//
//	go test -run '^$' -fuzz FuzzRestore -fuzztime 60s -fuzzminimizetime 3s ./envs/all/
//	go test -run '^$' -fuzz FuzzLoadState -fuzztime 60s -fuzzminimizetime 3s ./envs/all/
//
// (a BipedalWalker input that decodes replays an episode, which is slow
// under coverage instrumentation: the default minimization budget of 60 s
// per new input would stall the run).
// Regenerate the corpora after a format change with
//
//	go test -run TestFuzzCorpus ./envs/all/ -update-corpus

var updateCorpus = flag.Bool("update-corpus", false, "rewrite the fuzz seed corpora in testdata/fuzz")

// fuzzTargets are built once per fuzzing process: the decoders must leave
// them unchanged on error, and usable either way.
type fuzzTargets struct {
	envs []envs.Env
	vecs []*envs.Vec
}

func newFuzzTargets(t testing.TB) *fuzzTargets {
	ft := &fuzzTargets{}
	for _, c := range envCases {
		e := makeEnv(t, c.name, c.limit)
		t.Cleanup(func() { e.Close() })
		ft.envs = append(ft.envs, e)
		v := newVec(t, c, 2, 1, 0)
		t.Cleanup(func() { v.Close() })
		ft.vecs = append(ft.vecs, v)
	}
	return ft
}

// exercise steps and resets a target after a successful restore: whatever
// state the bytes put in, the environment must return values or errors,
// never panic.
func exercise(e envs.Env) {
	a := make([]float64, e.Spec().Action.Dim())
	for i := 0; i < 3; i++ {
		if _, err := e.Step(a); err != nil {
			break
		}
	}
	_, _ = e.Reset(envs.NoSeed)
}

// FuzzRestore feeds arbitrary bytes to envs.Restore and Vec.Restore of the
// environment chosen by which: errors are expected, panics are not.
func FuzzRestore(f *testing.F) {
	ft := newFuzzTargets(f)
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		k := int(which) % len(envCases)
		if err := envs.Restore(ft.envs[k], data); err == nil {
			exercise(ft.envs[k])
		}
		v := ft.vecs[k]
		if err := v.Restore(data); err == nil {
			acts := make([]float64, v.NumEnvs()*v.Spec().Action.Dim())
			for i := 0; i < 3; i++ {
				if _, err := v.Step(acts); err != nil {
					break
				}
			}
		}
	})
}

// FuzzLoadState feeds arbitrary bytes to the StateSaver.LoadState of the
// environment chosen by which (the payload decoders, without the
// checksummed envelope that would refuse nearly every mutation).
func FuzzLoadState(f *testing.F) {
	ft := newFuzzTargets(f)
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		k := int(which) % len(envCases)
		e := ft.envs[k]
		if err := e.(envs.StateSaver).LoadState(data); err == nil {
			exercise(e)
		}
	})
}

// corpusEntry is one seed: the target, whether it is a genuine (valid)
// input, and its bytes.
type corpusEntry struct {
	fuzz  string // FuzzRestore or FuzzLoadState
	name  string
	which uint8
	data  []byte
}

// genuineCorpus builds the genuine seeds: for every environment, a state
// right after Reset and one mid-episode after an episode end, as an env
// snapshot, a 2-copy Vec snapshot and a bare LoadState payload.
func genuineCorpus(t testing.TB) []corpusEntry {
	var out []corpusEntry
	for k, c := range envCases {
		e := makeEnv(t, c.name, c.limit)
		defer e.Close()
		v := newVec(t, c, 2, 1, 0)
		defer v.Close()
		if _, err := e.Reset(1); err != nil {
			t.Fatal(err)
		}
		if _, err := v.Reset(); err != nil {
			t.Fatal(err)
		}
		for _, at := range []struct {
			name  string
			steps int
		}{{"reset", 0}, {"mid", c.limit + 7}} {
			acts := actions(e.Spec(), uint64(k), at.steps)
			run(t, e, acts, nil)
			vecTrace(t, v, vecActions(e.Spec(), 2, uint64(k), at.steps), nil)
			snap, err := envs.Snapshot(e)
			if err != nil {
				t.Fatal(err)
			}
			vsnap, err := v.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			state, err := e.(envs.StateSaver).SaveState()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out,
				corpusEntry{"FuzzRestore", fmt.Sprintf("%s-env-%s", c.name, at.name), uint8(k), snap},
				corpusEntry{"FuzzRestore", fmt.Sprintf("%s-vec-%s", c.name, at.name), uint8(k), vsnap},
				corpusEntry{"FuzzLoadState", fmt.Sprintf("%s-%s", c.name, at.name), uint8(k), state})
		}
	}
	return out
}

func corpusPath(e corpusEntry) string {
	return filepath.Join("testdata", "fuzz", e.fuzz, "genuine-"+e.name)
}

func encodeCorpus(e corpusEntry) []byte {
	return []byte(fmt.Sprintf("go test fuzz v1\nuint8(%d)\n[]byte(%s)\n", e.which, strconv.Quote(string(e.data))))
}

// decodeCorpus reads a file written by encodeCorpus.
func decodeCorpus(b []byte) (uint8, []byte, error) {
	lines := strings.SplitN(string(b), "\n", 4)
	if len(lines) < 3 || lines[0] != "go test fuzz v1" {
		return 0, nil, fmt.Errorf("not a corpus file")
	}
	var which uint8
	if _, err := fmt.Sscanf(lines[1], "uint8(%d)", &which); err != nil {
		return 0, nil, fmt.Errorf("first value %q: %w", lines[1], err)
	}
	q, ok := strings.CutPrefix(lines[2], "[]byte(")
	q, ok2 := strings.CutSuffix(q, ")")
	if !ok || !ok2 {
		return 0, nil, fmt.Errorf("second value is not a []byte literal")
	}
	s, err := strconv.Unquote(q)
	if err != nil {
		return 0, nil, err
	}
	return which, []byte(s), nil
}

// TestFuzzCorpus: every genuine seed in testdata is valid for this build
// (it restores without error, so the fuzzers start from inputs that reach
// every decoder); -update-corpus rewrites them.
func TestFuzzCorpus(t *testing.T) {
	if *updateCorpus {
		entries := genuineCorpus(t)
		for _, e := range entries {
			p := corpusPath(e)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, encodeCorpus(e), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("wrote %d seed files", len(entries))
	}
	ft := newFuzzTargets(t)
	count := 0
	for _, fuzz := range []string{"FuzzRestore", "FuzzLoadState"} {
		files, err := filepath.Glob(filepath.Join("testdata", "fuzz", fuzz, "genuine-*"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) < 2*len(envCases) {
			t.Fatalf("%s has %d genuine seeds, want at least %d (regenerate with -update-corpus)", fuzz, len(files), 2*len(envCases))
		}
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			which, data, err := decodeCorpus(b)
			if err != nil {
				t.Fatalf("seed %s: %v", p, err)
			}
			k := int(which) % len(envCases)
			switch {
			case fuzz == "FuzzLoadState":
				err = ft.envs[k].(envs.StateSaver).LoadState(data)
			case strings.Contains(p, "-vec-"):
				err = ft.vecs[k].Restore(data)
			default:
				err = envs.Restore(ft.envs[k], data)
			}
			if err != nil {
				t.Fatalf("seed %s does not restore (format changed? regenerate with -update-corpus): %v", p, err)
			}
			count++
		}
	}
	t.Logf("%d genuine seeds restore", count)
}
