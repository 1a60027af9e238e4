package population

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	popmethod "github.com/hyperctl/hyperctl/baselines/population"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/ppo"
)

// trainerOf is the trainer snapshot of a run folder's newest checkpoint.
func trainerOf(t *testing.T, dir string) []byte {
	t.Helper()
	b, err := os.ReadFile(rundir.CheckpointPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	c, err := rundir.DecodeCheckpoint(b)
	if err != nil {
		t.Fatal(err)
	}
	return c.Trainer
}

// A copy under RandomOwn (stageOwn, then copyMember with the staged
// state) gives the receiver its donor's rows and learning and keeps its
// own random state: its trainer snapshot is ppo.Graft(donor's, its own),
// and its config.toml (its seed) its own; under RandomDonor the copy is
// the donor's folder as it is.
func TestCopyKeepsOwnRandom(t *testing.T) {
	dir := t.TempDir()
	out := setup(t, dir, popmethod.PBT, 3)
	if _, err := runPop(t, out, 1); !errors.Is(err, errKilled) { // generation 0 trained
		t.Fatalf("stop after training generation 0: %v", err)
	}
	def, err := ReadDefinition(out)
	if err != nil {
		t.Fatal(err)
	}
	donor, receiver := def.MemberDir(out, 0), def.MemberDir(out, 1)
	ownTrainer := trainerOf(t, receiver)
	ownConfig, err := os.ReadFile(filepath.Join(receiver, rundir.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	donorConfig, _ := os.ReadFile(filepath.Join(donor, rundir.ConfigFile))
	want, err := ppo.Graft(trainerOf(t, donor), ownTrainer)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rule        string
		wantTrainer []byte
		wantConfig  []byte
	}{
		{RandomOwn, want, ownConfig},
		{RandomDonor, trainerOf(t, donor), donorConfig},
	} {
		t.Run(fmt.Sprintf("rule %q", c.rule), func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "receiver")
			if err := rundir.CopyRun(receiver, dst); err != nil {
				t.Fatal(err)
			}
			own := ""
			if c.rule == RandomOwn {
				own = filepath.Join(t.TempDir(), "own-1")
				if err := stageOwn(dst, own); err != nil {
					t.Fatal(err)
				}
			}
			if err := copyMember(donor, dst, own); err != nil {
				t.Fatal(err)
			}
			if got := trainerOf(t, dst); !slices.Equal(got, c.wantTrainer) {
				t.Error("the receiver's trainer snapshot is not the one the rule gives")
			}
			if got, _ := os.ReadFile(filepath.Join(dst, rundir.ConfigFile)); string(got) != string(c.wantConfig) {
				t.Errorf("the receiver's config.toml:\n%s\nwant:\n%s", got, c.wantConfig)
			}
			if same, total, diff, err := rundir.CompareCSV(filepath.Join(dst, rundir.TrainCSV), filepath.Join(donor, rundir.TrainCSV)); err != nil || same != total || total == 0 {
				t.Errorf("the receiver's train.csv is not its donor's: %d/%d rows, %v: %s", same, total, err, diff)
			}
		})
	}
	if slices.Equal(want, trainerOf(t, donor)) || string(ownConfig) == string(donorConfig) {
		t.Fatal("the two members' random states are the same: the test compares nothing")
	}
}

// An MF-PBT migrant that copies its donor's configuration as it is (from a
// slower sub-population) trains, in the generation after the copy, other
// rows than its donor under RandomOwn, MF-PBT's rule: it kept its own
// random state. Under RandomDonor (the rule before it was recorded) it
// was its donor's clone, byte for byte.
func TestMigrantIsNoClone(t *testing.T) {
	for _, c := range []struct {
		rule      string
		wantClone bool
	}{
		{RandomOwn, false},
		{RandomDonor, true},
	} {
		t.Run(fmt.Sprintf("rule %q", c.rule), func(t *testing.T) {
			out := setupCase(t, t.TempDir(), popCase{method: popmethod.MFPBT, size: 8, frequencies: []int{1, 2}, receiverRandom: &c.rule})
			def, err := ReadDefinition(out)
			if err != nil {
				t.Fatal(err)
			}
			pairs := 0
			_, err = runWith(t, out, 0, func(p Phase, g int) {
				if p != PhaseTrained || g == 0 {
					return
				}
				st, _, err := ReadStep(out, g-1)
				if err != nil {
					t.Fatal(err)
				}
				for k, m := range st.Members {
					d := m.Donor
					if d < 0 || st.Members[d].Donor >= 0 || !maps.Equal(m.Next, st.Members[d].Next) {
						continue // not a receiver that trains as its donor does
					}
					pairs++
					same, total, diff, err := rundir.CompareCSV(filepath.Join(def.MemberDir(out, k), rundir.TrainCSV), filepath.Join(def.MemberDir(out, d), rundir.TrainCSV))
					if err != nil {
						t.Fatal(err)
					}
					if clone := same == total; clone != c.wantClone {
						t.Errorf("generation %d: member %d (migrant of member %d, the same configuration): %d of %d train.csv rows identical (%s); want a clone: %v",
							g, k, d, same, total, diff, c.wantClone)
					}
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if pairs == 0 {
				t.Fatal("no migrant copied its donor's configuration as it is: the test compares nothing")
			}
			t.Logf("%d migrants trained a generation with their donor's configuration", pairs)
		})
	}
}

// The rule is recorded in population.json: MF-PBT's new populations keep
// the receiver's own random state, PBT's and PB2's the donor's (the field
// absent); a rule other methods cannot use, or an unknown one, is refused;
// and a population defined before the field existed (absent: the donor's)
// is the same population as MF-PBT's definition now, so Init accepts it,
// and it keeps its rule.
func TestReceiverRandomRecorded(t *testing.T) {
	base := members(t)
	for _, c := range []struct {
		method string
		size   int
		want   string
	}{
		{popmethod.MFPBT, 8, RandomOwn},
		{popmethod.PBT, 4, RandomDonor},
		{popmethod.PB2, 4, RandomDonor},
		{popmethod.RandomSearch, 4, RandomDonor},
		{popmethod.Halving, 4, RandomDonor},
	} {
		t.Run(c.method, func(t *testing.T) {
			def, _, err := Define(base, Spec{Method: c.method, Size: c.size, Seed: 1, Frames: 768, Ready: 256, Eta: 2, Resample: -1, Command: "test"})
			if err != nil {
				t.Fatal(err)
			}
			if def.ReceiverRandom != c.want {
				t.Errorf("receiver_random %q, want %q", def.ReceiverRandom, c.want)
			}
			bad := []string{"donor", "OWN"}
			if c.method == popmethod.RandomSearch || c.method == popmethod.Halving {
				bad = append(bad, RandomOwn)
			}
			for _, rule := range bad {
				d := def
				d.ReceiverRandom = rule
				if err := d.Validate(); err == nil || !strings.Contains(err.Error(), "receiver_random") {
					t.Errorf("receiver_random %q: %v, want an error naming the field", rule, err)
				}
			}
		})
	}
	def, run, err := Define(base, Spec{Method: popmethod.MFPBT, Size: 8, Seed: 1, Frames: 768, Ready: 256, Resample: -1, Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	old := def
	old.ReceiverRandom = RandomDonor
	if err := Init(out, old, run); err != nil {
		t.Fatal(err)
	}
	if err := Init(out, def, run); err != nil {
		t.Fatalf("a population defined before the rule was recorded is refused: %v", err)
	}
	if back, err := ReadDefinition(out); err != nil || back.ReceiverRandom != RandomDonor {
		t.Errorf("after Init: receiver_random %q (%v), want the donor's, as it started", back.ReceiverRandom, err)
	}
	other := t.TempDir()
	if err := Init(other, def, run); err != nil {
		t.Fatal(err)
	}
	if err := Init(other, old, run); err == nil || !strings.Contains(err.Error(), "receiver_random") {
		t.Errorf("a population of the recorded rule continued under the donor's: %v", err)
	}
}
