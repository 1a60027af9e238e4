package population

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	popmethod "github.com/hyperctl/hyperctl/baselines/population"
	"github.com/hyperctl/hyperctl/configs/rundir"
)

// copyTree copies the folder src to dst (os.CopyFS).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// damage is one injected fault: edit changes the bytes of the file at rel
// (relative to the population folder), want is what the error of the run
// that meets it must contain ("" when the run must end exactly as the
// uninterrupted one).
type damage struct {
	name string
	rel  string
	at0  bool // damage the population stopped after its first step, not its second
	edit func(b []byte) []byte
	want []string
}

// flipAt flips the bits of mask in byte i (mod the length).
func flipAt(i int, mask byte) func([]byte) []byte {
	return func(b []byte) []byte {
		b = append([]byte{}, b...)
		b[i%len(b)] ^= mask
		return b
	}
}

// replaceFirst changes the first old after the first occurrence of after.
func replaceFirst(after, old, new string) func([]byte) []byte {
	return func(b []byte) []byte {
		i := bytes.Index(b, []byte(after))
		j := bytes.Index(b[max(i, 0):], []byte(old))
		if i < 0 || j < 0 {
			panic(fmt.Sprintf("no %q after %q", old, after))
		}
		j += i
		return append(append(append([]byte{}, b[:j]...), new...), b[j+len(old):]...)
	}
}

// bumpDigit adds 1 (mod 10) to the (skip+1)-th digit after the first
// occurrence of after.
func bumpDigit(after string, skip int) func([]byte) []byte {
	return func(b []byte) []byte {
		b, skip := append([]byte{}, b...), skip
		i := bytes.Index(b, []byte(after))
		if i < 0 {
			panic(fmt.Sprintf("no %q", after))
		}
		for j := i + len(after); j < len(b); j++ {
			if b[j] >= '0' && b[j] <= '9' {
				if skip > 0 {
					skip--
					continue
				}
				b[j] = '0' + (b[j]-'0'+1)%10
				return b
			}
		}
		panic(fmt.Sprintf("no digit after %q", after))
	}
}

// lineEdit applies edit to line n (1-based) of a log.
func lineEdit(n int, edit func([]byte) []byte) func([]byte) []byte {
	return func(b []byte) []byte {
		lines := bytes.SplitAfter(b, []byte("\n"))
		lines[n-1] = edit(lines[n-1])
		return bytes.Join(lines, nil)
	}
}

// stepMembers returns, in the step after generation g, a member that was
// exploited and explored (its configuration changed) and one that kept its
// own weights and configuration.
func stepMembers(t *testing.T, out string, g int) (explored, kept int) {
	t.Helper()
	st, ok, err := ReadStep(out, g)
	if err != nil || !ok {
		t.Fatalf("step %d: %v", g, err)
	}
	explored, kept = -1, -1
	for k, m := range st.Members {
		switch {
		case m.Donor >= 0 && !maps.Equal(m.Next, st.Members[m.Donor].Hyper) && explored < 0:
			explored = k
		case m.Donor < 0 && maps.Equal(m.Next, m.Hyper) && kept < 0:
			kept = k
		}
	}
	if explored < 0 || kept < 0 {
		t.Fatalf("step %d has no explored member (%d) or no kept one (%d): %+v", g, explored, kept, st.Members)
	}
	return explored, kept
}

// TestDamage injects faults into the files of a population stopped after
// its second step (and of a finished one), for PBT and PB2, and runs it
// again: each fault is refused with the damaged file (or the member) named,
// and the population, its file restored, then ends exactly as an
// uninterrupted one; or the fault is repaired exactly (a torn last log
// line, a damaged checkpoint whose fallback redoes rows with the settings
// they had). Byte positions come from a seeded generator, two per file.
func TestDamage(t *testing.T) {
	const size = 3
	for _, method := range []string{popmethod.PBT, popmethod.PB2} {
		t.Run(method, func(t *testing.T) {
			dir := t.TempDir()
			ref := setup(t, filepath.Join(dir, "ref"), method, size)
			if _, err := runPop(t, ref, 0); err != nil {
				t.Fatal(err)
			}
			snap := setup(t, filepath.Join(dir, "snap"), method, size)
			if _, err := runPop(t, snap, 10); !errors.Is(err, errKilled) { // planned@1
				t.Fatal(err)
			}
			snap0 := setup(t, filepath.Join(dir, "snap0"), method, size)
			if _, err := runPop(t, snap0, 5); !errors.Is(err, errKilled) { // planned@0
				t.Fatal(err)
			}
			def, err := ReadDefinition(ref)
			if err != nil {
				t.Fatal(err)
			}
			explored, kept := stepMembers(t, snap, 1)
			ckpt := func(k int) string {
				rel, _ := filepath.Rel(snap, rundir.CheckpointPath(def.MemberDir(snap, k)))
				return rel
			}
			rng := rand.New(rand.NewPCG(7, uint64(len(method))))
			plan2 := filepath.Join(GenerationsDir, "plan-0002.json")
			step0 := filepath.Join(GenerationsDir, "step-0000.json")
			step1 := filepath.Join(GenerationsDir, "step-0001.json")
			cases := []damage{
				// Reproductions 1-3 of issue 40.
				{"checkpoint of the explored member", ckpt(explored), false, flipAt(100, 0x01), []string{fmt.Sprintf("population member %d, generation 2", explored), "Options.Force", "not be exact"}},
				{"checkpoint of the kept member", ckpt(kept), false, flipAt(100, 0x01), nil},
				{"middle log line", LogFile, false, lineEdit(2, replaceFirst("", `"`, "#")), []string{LogFile + ": line 2 is refused"}},
				{"a digit of a step's score", step0, true, bumpDigit(`"score": `, 2), []string{step0, "checksum mismatch"}},
				{"a digit of a plan's clip", plan2, false, bumpDigit(`"clip": 0.`, 2), []string{plan2, "checksum mismatch"}},
				{"torn last log line, step redone", LogFile, false, func(b []byte) []byte { return b[:len(b)-9] }, nil},
				{"last newline changed", LogFile, false, func(b []byte) []byte { return flipAt(len(b)-1, 0x20)(b) }, []string{LogFile + ": line", "newline is changed"}},
			}
			for _, f := range []string{DefinitionFile, plan2, step0, step1, LogFile, ckpt(explored)} {
				for range 2 {
					cases = append(cases, damage{"flip in " + f, f, f == step0, flipAt(rng.IntN(1<<20), byte(1+rng.IntN(255))), []string{filepath.Base(f)}})
				}
			}
			for i, c := range cases {
				if c.rel == ckpt(explored) && strings.HasPrefix(c.name, "flip") {
					c.want = []string{fmt.Sprintf("population member %d, generation 2", explored), filepath.Base(c.rel)}
				}
				t.Run(c.name, func(t *testing.T) {
					out := filepath.Join(dir, fmt.Sprint("case", i))
					from := snap
					if c.at0 {
						from = snap0
					}
					copyTree(t, from, out)
					path := filepath.Join(out, c.rel)
					orig, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, c.edit(orig), 0o644); err != nil {
						t.Fatal(err)
					}
					if c.name == "torn last log line, step redone" {
						// A kill during the step's append: the plan it
						// writes last is not there yet.
						if err := os.Remove(filepath.Join(out, plan2)); err != nil {
							t.Fatal(err)
						}
					}
					before, _ := os.ReadFile(filepath.Join(out, LogFile))
					_, err = runPop(t, out, 0)
					if c.want == nil {
						if err != nil {
							t.Fatalf("not repaired: %v", err)
						}
						samePopulation(t, out, ref, size)
						return
					}
					if err == nil {
						t.Fatalf("the damage was used in silence")
					}
					for _, w := range c.want {
						if !strings.Contains(err.Error(), w) {
							t.Fatalf("error does not say %q:\n%v", w, err)
						}
					}
					if after, _ := os.ReadFile(filepath.Join(out, LogFile)); !bytes.Equal(after, before) {
						t.Fatalf("the refused run changed the log:\n%s\nwas:\n%s", after, before)
					}
					// Refused exactly: with the file restored, the
					// population ends as the uninterrupted one.
					if err := os.WriteFile(path, orig, 0o644); err != nil {
						t.Fatal(err)
					}
					if _, err := runPop(t, out, 0); err != nil {
						t.Fatal(err)
					}
					samePopulation(t, out, ref, size)
				})
			}
			// A finished population's result.json.
			for i := range 2 {
				out := filepath.Join(dir, fmt.Sprint("result", i))
				copyTree(t, ref, out)
				path := filepath.Join(out, ResultFile)
				orig, _ := os.ReadFile(path)
				if err := os.WriteFile(path, flipAt(rng.IntN(1<<20), byte(1+rng.IntN(255)))(orig), 0o644); err != nil {
					t.Fatal(err)
				}
				if _, err := runPop(t, out, 0); err == nil || !strings.Contains(err.Error(), ResultFile) {
					t.Errorf("damaged %s: %v", ResultFile, err)
				}
			}
		})
	}
}

// Reproduction 4 of issue 40: an --out that holds a train run folder (or
// anything but a population) is refused; an empty one, or one holding the
// same population, is accepted.
func TestInitRefusesOtherFolders(t *testing.T) {
	base := members(t)
	def, run, err := Define(base, Spec{Method: popmethod.PBT, Size: 2, Seed: 1, Frames: 768, Ready: 256, Resample: -1, Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		files []string
		want  string // "" for accepted
	}{
		{"new folder", nil, ""},
		{"empty folder", []string{}, ""},
		{"hidden temporary file only", []string{".population.json123"}, ""},
		{"train run folder", []string{rundir.ConfigFile, rundir.TrainCSV, rundir.SummaryFile}, "is not a population"},
		{"any file", []string{"notes.txt"}, "is not a population"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			if c.files != nil {
				if err := os.MkdirAll(out, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range c.files {
				if err := os.WriteFile(filepath.Join(out, f), []byte("x\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := Init(out, def, run)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			case c.want == "":
				if err := Init(out, def, run); err != nil {
					t.Fatalf("the same population again: %v", err)
				}
			case c.want != "":
				if _, err := os.Stat(filepath.Join(out, DefinitionFile)); !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("%s was written beside the folder's files", DefinitionFile)
				}
			}
		})
	}
}

// A population written before sealing is accepted by Init only when it is
// finished (to be read); an unfinished one is refused with the file named.
func TestInitLegacy(t *testing.T) {
	def, run, err := Define(members(t), Spec{Method: popmethod.PBT, Size: 2, Seed: 1, Frames: 768, Ready: 256, Resample: -1, Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, finished := range []bool{true, false} {
		out := t.TempDir()
		files := map[string]any{DefinitionFile: def}
		if finished {
			files[ResultFile] = Result{Best: -1}
		}
		for name, v := range files {
			b, _ := json.MarshalIndent(v, "", "  ") // hyperctl's writer before sealing
			if err := os.WriteFile(filepath.Join(out, name), append(b, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		err := Init(out, def, run)
		switch {
		case finished && err != nil:
			t.Errorf("a finished legacy population is refused: %v", err)
		case !finished && (!errors.Is(err, ErrUnsealed) || !strings.Contains(err.Error(), DefinitionFile)):
			t.Errorf("an unfinished legacy population: %v", err)
		}
	}
}
