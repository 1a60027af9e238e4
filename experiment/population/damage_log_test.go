package population

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	popmethod "github.com/hyperctl/hyperctl/baselines/population"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/run"
)

// memberFiles is the bytes of every member's train.csv, by path.
func memberFiles(t *testing.T, out string, size int) map[string]string {
	t.Helper()
	def, err := ReadDefinition(out)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for k := range size {
		p := filepath.Join(def.MemberDir(out, k), rundir.TrainCSV)
		b, _ := os.ReadFile(p)
		got[p] = string(b)
	}
	return got
}

// refAndSnap returns a finished PBT population of size members and the
// same population stopped once the step after generation 1 is done.
func refAndSnap(t *testing.T, size int) (ref, snap string) {
	t.Helper()
	dir := t.TempDir()
	ref = setup(t, filepath.Join(dir, "ref"), popmethod.PBT, size)
	if _, err := runPop(t, ref, 0); err != nil {
		t.Fatal(err)
	}
	snap = setup(t, filepath.Join(dir, "snap"), popmethod.PBT, size)
	if _, err := runPop(t, snap, 10); !errors.Is(err, errKilled) { // planned@1
		t.Fatal(err)
	}
	return ref, snap
}

// logLines edits a log's lines (each with its newline).
func logLines(edit func(lines [][]byte) [][]byte) func([]byte) []byte {
	return func(b []byte) []byte {
		return bytes.Join(edit(bytes.SplitAfter(b, []byte("\n"))), nil)
	}
}

// Fault injection into the population log's sequence: whole records
// deleted, duplicated, swapped, a generation's lines dropped, and a torn
// last line after the plan that follows it. Every line keeps its
// checksum, so only the check of the log against the sealed steps and
// result.json finds them: status and the runner refuse, naming the log
// and the line, and the refused run changes nothing.
func TestLogSequenceDamage(t *testing.T) {
	const size = 3
	ref, snap := refAndSnap(t, size)
	for _, c := range []struct {
		name     string
		from     string
		edit     func([]byte) []byte
		wantLine int
	}{
		{"a record deleted", ref, logLines(func(l [][]byte) [][]byte { return append(l[:1:1], l[2:]...) }), 2},
		{"a record duplicated", ref, logLines(func(l [][]byte) [][]byte { return append(l[:2:2], l[1:]...) }), 3},
		{"two records swapped", ref, logLines(func(l [][]byte) [][]byte { l[0], l[1] = l[1], l[0]; return l }), 1},
		{"generation 1's lines dropped", ref, logLines(func(l [][]byte) [][]byte {
			var out [][]byte
			for _, x := range l {
				if !bytes.Contains(x, []byte(`"generation":1,`)) {
					out = append(out, x)
				}
			}
			return out
		}), 0},
		{"torn last line after its plan", snap, func(b []byte) []byte { return b[:len(b)-9] }, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "pop")
			copyTree(t, c.from, out)
			path := filepath.Join(out, LogFile)
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			damaged := c.edit(orig)
			if bytes.Equal(damaged, orig) {
				t.Fatal("the edit changed nothing")
			}
			if err := os.WriteFile(path, damaged, 0o644); err != nil {
				t.Fatal(err)
			}
			want := LogFile + ": line "
			if c.wantLine > 0 {
				want += fmt.Sprint(c.wantLine)
			}
			if _, _, err := ReadStatus(out); err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, ErrDamaged) {
				t.Errorf("status: %v; want a refusal naming %q", err, want)
			}
			before := memberFiles(t, out, size)
			_, err = runPop(t, out, 0)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("run: %v; want a refusal naming %q", err, want)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, damaged) {
				t.Fatal("the refused run changed the log")
			}
			if after := memberFiles(t, out, size); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Fatal("a member trained before the refusal")
			}
			// With the log restored, the population ends as the
			// uninterrupted one.
			if err := os.WriteFile(path, orig, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := runPop(t, out, 0); err != nil {
				t.Fatal(err)
			}
			samePopulation(t, out, ref, size)
		})
	}
}

// A damaged step-0000.json is refused before any member trains (a member
// whose configuration changed in the step after generation 1 read only
// that step's record), and status refuses it in a finished population.
func TestDamagedStepRefusedBeforeTraining(t *testing.T) {
	const size = 3
	ref, snap := refAndSnap(t, size)
	step0 := filepath.Join(GenerationsDir, "step-0000.json")
	for _, from := range []string{ref, snap} {
		out := filepath.Join(t.TempDir(), "pop")
		copyTree(t, from, out)
		path := filepath.Join(out, step0)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, bumpDigit(`"score": `, 2)(b), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ReadStatus(out); err == nil || !strings.Contains(err.Error(), step0) {
			t.Errorf("status of %s: %v; want a refusal naming %s", filepath.Base(filepath.Dir(from)), err, step0)
		}
		def, err := ReadDefinition(out)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := (PrunedRuns{}).At(def.MemberDir(out, 0), MemberSeed(def.Seed, def.Size, 0)); err == nil || !strings.Contains(err.Error(), step0) {
			t.Errorf("report's reading of %s: %v; want a refusal naming %s", filepath.Base(filepath.Dir(from)), err, step0)
		}
		before := memberFiles(t, out, size)
		if _, err := runPop(t, out, 0); err == nil || !strings.Contains(err.Error(), step0) {
			t.Errorf("run of %s: %v; want a refusal naming %s", filepath.Base(filepath.Dir(from)), err, step0)
		}
		if after := memberFiles(t, out, size); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Errorf("%s: a member trained before the refusal", filepath.Base(filepath.Dir(from)))
		}
	}
}

// killAt runs the population in out until the hook reaches phase p of
// generation g.
func killAt(t *testing.T, out string, p Phase, g int) {
	t.Helper()
	_, err := Run(context.Background(), Options{Out: out, Jobs: 1, Log: zerolog.Nop(),
		Train: func(ctx context.Context, gen, k int) error {
			return TrainMember(ctx, out, gen, k, MemberOptions{Log: zerolog.Nop(), Train: run.TrainMember})
		},
		Hook: func(q Phase, h int) error {
			if q == p && h == g {
				return errKilled
			}
			return nil
		}})
	if !errors.Is(err, errKilled) {
		t.Fatal(err)
	}
}

// bumpLastField adds 1 (mod 10) to the first digit of column col in the
// last row of a CSV file that has one.
func bumpLastField(t *testing.T, path, col string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	i := slices.Index(strings.Split(lines[0], ","), col)
	if i < 0 {
		t.Fatalf("%s: no column %s", path, col)
	}
	for r := len(lines) - 1; r > 0; r-- {
		row := strings.Split(lines[r], ",")
		f := []byte(row[i])
		for j, c := range f {
			if c >= '0' && c <= '9' {
				f[j] = '0' + (c-'0'+1)%10
				row[i] = string(f)
				lines[r] = strings.Join(row, ",")
				if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
		}
	}
	t.Fatalf("%s: no digit in column %s", path, col)
}

// Every input of a step is sealed before the step reads it: with every
// member trained and the step not decided, a changed digit of a member's
// last score in train.csv (or, under t-test selection, of its last episode
// return in episodes.csv) is refused, naming the member and the file.
func TestChangedRowsBeforeTheStep(t *testing.T) {
	const size = 3
	for _, c := range []struct {
		name      string
		selection string
		file, col string
	}{
		{"train.csv score", "", rundir.TrainCSV, rundir.ColMeanEpisodeReturn},
		{"episodes.csv return", popmethod.SelectTTest, rundir.EpisodesCSV, rundir.ColEpisodeReturn},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := setupCase(t, t.TempDir(), popCase{method: popmethod.PBT, size: size, selection: c.selection})
			killAt(t, out, PhaseTrained, 1)
			def, err := ReadDefinition(out)
			if err != nil {
				t.Fatal(err)
			}
			const k = 1
			path := filepath.Join(def.MemberDir(out, k), c.file)
			bumpLastField(t, path, c.col)
			_, err = runPop(t, out, 0)
			if want := fmt.Sprintf("member %d: %s is damaged", k, path); err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("run: %v; want a refusal saying %q", err, want)
			}
			if _, ok, err := ReadStep(out, 1); ok || err != nil {
				t.Fatalf("the step was decided (%v)", err)
			}
		})
	}
}

// A deleted checksum (a file's line, a log record's field) in a sealed
// population is damage, and is called so: never "written by an older
// hyperctl", which only a folder whose population.json and first plan both
// lack one may be.
func TestDeletedChecksumIsDamage(t *testing.T) {
	const size = 3
	ref := setup(t, t.TempDir(), popmethod.PBT, size)
	if _, err := runPop(t, ref, 0); err != nil {
		t.Fatal(err)
	}
	dropLine := func(b []byte) []byte {
		i := bytes.IndexByte(b, '\n')
		j := bytes.IndexByte(b[i+1:], '\n')
		return append(append([]byte{}, b[:i+1]...), b[i+1+j+1:]...)
	}
	dropField := logLines(func(l [][]byte) [][]byte {
		i := bytes.LastIndex(l[1], []byte(`,"crc32c"`))
		l[1] = append(append([]byte{}, l[1][:i]...), "}\n"...)
		return l
	})
	for _, c := range []struct {
		rel  string
		edit func([]byte) []byte
	}{
		{DefinitionFile, dropLine},
		{filepath.Join(GenerationsDir, "plan-0001.json"), dropLine},
		{filepath.Join(GenerationsDir, "step-0000.json"), dropLine},
		{ResultFile, dropLine},
		{LogFile, dropField},
	} {
		t.Run(c.rel, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "pop")
			copyTree(t, ref, out)
			path := filepath.Join(out, c.rel)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, c.edit(b), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, serr := ReadStatus(out)
			_, rerr := runPop(t, out, 0)
			for what, err := range map[string]error{"status": serr, "run": rerr} {
				if err == nil || !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "damaged") || !strings.Contains(err.Error(), c.rel) || strings.Contains(err.Error(), "before population files were sealed") {
					t.Errorf("%s: %v; want it called damaged, naming %s", what, err, c.rel)
				}
			}
		})
	}
}
